-- api-report.lua: the "time consumption" report of a per-thread API
-- timeline (converted by apitimeline2statemap.lua): for each thread and
-- for all of them, the live time and the share of it spent on the CPU,
-- sleeping, stopped and in each API.
--
--   statemap-lua contrib/api-report.lua TRACE [FROM [TO]]
--
-- A thread is live from its first record to the end of the trace; FROM
-- and TO (`1.5s`, `200ms`) narrow the window. An example of a report over
-- a trace loaded with statemap.load and summed with e:time_in().
local sm = require "statemap"
local report = require "statemap.report"

if not arg[1] or arg[1] == "--help" then
	io.write("usage: statemap-lua contrib/api-report.lua TRACE [FROM [TO]]\n")
	os.exit(arg[1] and 0 or 2)
end
local t = sm.load(arg[1])
local from = arg[2] and sm.duration(arg[2]) or t.begin
local to = arg[3] and sm.duration(arg[3]) or t.finish

-- The columns: the fixed states, then the APIs in the trace's order.
local fixed = { cpu = true, sleep = true, stopped = true }
local cats = { "cpu", "sleep", "stopped" }
for _, s in ipairs(t.states) do
	if not fixed[s.name] then cats[#cats + 1] = s.name end
end

local function row(label, times)
	local live = 0
	for _, ns in pairs(times) do live = live + ns end
	local r = { label, live }
	for _, c in ipairs(cats) do
		r[#r + 1] = live > 0 and (times[c] or 0) / live or 0 / 0
	end
	return r, live
end

local rows, all = {}, {}
for _, e in ipairs(t:sorted()) do
	local times = e:time_in(from, to)
	rows[#rows + 1] = row(e.name, times)
	for s, ns in pairs(times) do all[s] = (all[s] or 0) + ns end
end
rows[#rows + 1] = row("all threads", all)

local columns = { { "thread" }, { "live", "duration" } }
for _, c in ipairs(cats) do columns[#columns + 1] = { c, "percent" } end
print(string.format("Time consumption, %s to %s (share of each thread's live time)",
	sm.format_ns(from), sm.format_ns(to)))
print(report.table(rows, columns))

-- The same in time, one line per thread and category with any time.
local lines = {}
for _, e in ipairs(t:sorted()) do
	local times = e:time_in(from, to)
	for _, c in ipairs(cats) do
		if (times[c] or 0) > 0 then lines[#lines + 1] = { e.name, c, times[c] } end
	end
end
for _, c in ipairs(cats) do
	if (all[c] or 0) > 0 then lines[#lines + 1] = { "all threads", c, all[c] } end
end
print()
print(report.table(lines, { { "thread" }, { "in" }, { "time", "duration" } }))
