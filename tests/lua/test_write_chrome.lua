-- t:write(path, {format = "chrome"}) and -T chrome: Chrome trace-event
-- JSON, checked by its records and read back through
-- contrib/chrome2statemap.lua to the same intervals (to the ns: times are
-- microseconds with three decimals); what does not come back is said.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq

local b = sm.new { states = { "run", "wait", "io" } }
b:set(1000, "app[7]/main[7]", "run", "cpu0")
b:set(2500, "app[7]/main[7]", "wait")
b:set(3001, "app[7]/main[7]", "run", "cpu1")
b:set(1000, "kworker\\/0:1[9]/kworker\\/0:1[9]", "io")
b:set(4000, "kworker\\/0:1[9]/kworker\\/0:1[9]", "wait")
b:set(1200, "odd \"name\" <&>", "wait")
b:push(1500, "nest", "run")
b:push(1700, "nest", "io")
b:pop(1800, "nest")
b:set(2000, "nest", "wait")
b:declare("queue", "number")
b:value(1000, "queue", 3)
b:value(2000, "queue", 4.5)
b:event(2600, "app[7]/main[7]", "wakeup", "nest")
local t = b:finish(5000)

local path = os.tmpname()
t:write(path, { format = "chrome" })
local f = io.open(path)
local text = f:read("a")
f:close()
local doc = sm.json.decode(text)
local by = {}
for _, ev in ipairs(doc.traceEvents) do
	by[ev.ph] = by[ev.ph] or {}
	table.insert(by[ev.ph], ev)
end
check("chrome: a trace-event document", type(doc.traceEvents) == "table" and doc.displayTimeUnit == "ns")
local tname = {}
for _, m in ipairs(by.M) do
	if m.name == "thread_name" then tname[m.tid] = m.args.name end
end
check_eq("chrome: each entity a thread named by its whole name, escaped",
	{ tname[1], tname[2], tname[3] }, { "app[7]/main[7]", "kworker\\/0:1[9]/kworker\\/0:1[9]", "odd \"name\" <&>" })
check("chrome: the name's < and > escaped in the file", not text:find("<&>", 1, true))
local procs = {}
for _, m in ipairs(by.M) do
	if m.name == "process_name" then procs[m.pid] = m.args.name end
end
check_eq("chrome: the first path component names the process", procs[by.X[1].pid], "app[7]")
check_eq("chrome: an interval a complete event, in microseconds",
	{ by.X[1].name, by.X[1].ts, by.X[1].dur, by.X[1].args.tag },
	{ "run", 1.0, 1.5, "cpu0" })
check_eq("chrome: the last interval ends at the trace's end", { by.X[3].ts, by.X[3].dur }, { 3.001, 1.999 })
check_eq("chrome: values are counters", { by.C[1].name, by.C[1].args.value, by.C[2].args.value }, { "queue", 3, 4.5 })
check_eq("chrome: an event an instant", { by.i[1].name, by.i[1].ts }, { "wakeup", 2.6 })
check_eq("chrome: a message a flow", { by.s[1].id, by.f[1].id, by.f[1].tid, by.s[1].tid },
	{ by.f[1].id, by.s[1].id, 4, 1 })

-- Read back by the Chrome converter: every thread's intervals as they
-- were (idle where it had no slice), nested frames as its stack.
local out, status, err = C.run("chrome2statemap.lua", path)
check_eq("chrome: the converter reads it", { status, err }, { 0, "" })
local back = sm.load(out)
local function intervals(tr, name, origin)
	local list = {}
	for iv in tr:intervals { entities = { name } } do
		if iv.state ~= "idle" then
			list[#list + 1] = { iv.state, iv.start + origin, iv.finish + origin }
		end
	end
	return list
end
local thread_of = {}
for _, e in ipairs(back:entities()) do
	thread_of[tonumber(e.name:match("/(%d+)$"))] = e.name
end
for tid, name in ipairs(t:entities()) do
	if name.kind ~= "values" then
		check_eq("chrome: read back, the same intervals: " .. name.name,
			intervals(back, thread_of[tid], back.start), intervals(t, name.name, 0))
	end
end
check_eq("chrome: read back, a nested entity's stack",
	back:entity(thread_of[4]):stack_at(1750 - back.start), { "idle", "run", "io" })
check_eq("chrome: read back, the message", #C.events(out), 1)
os.remove(out)
os.remove(path)

-- Options: the format's name is checked, and so is the key.
local ok, e = pcall(t.write, t, os.tmpname(), { format = "chromium" })
check("chrome: an unknown format names the key: " .. tostring(e), not ok and tostring(e):find("format", 1, true) ~= nil)
ok, e = pcall(t.write, t, os.tmpname(), { fromat = "chrome" })
check("chrome: an unknown key is an error: " .. tostring(e), not ok and tostring(e):find("fromat", 1, true) ~= nil)

-- -T chrome: a kernel trace's analyses in one document.
local dat = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/../kernel/small.dat"
local json = os.tmpname()
local okc = os.execute(C.quote(C.sm) .. " -T chrome -o " .. json .. " " .. C.quote(dat) .. " 2> /dev/null")
check("chrome: -T chrome of a trace.dat", okc)
f = io.open(json)
doc = sm.json.decode(f:read("a"))
f:close()
local n, cpus = 0, false
for _, ev in ipairs(doc.traceEvents) do
	if ev.ph == "X" then n = n + 1 end
	if ev.ph == "M" and ev.name == "thread_name" and ev.args.name == "cpu0" then cpus = true end
end
check("chrome: -T chrome writes every analysis (" .. n .. " slices)", cpus and n > 0)
os.remove(json)

-- -T chrome writes one trace: two files are a usage error, nothing written.
local two = os.tmpname()
os.remove(two)
local ok2, how, code = os.execute(C.quote(C.sm) .. " -T chrome -o " .. two .. " " .. C.quote(dat) .. " " ..
	C.quote(dat) .. " 2> /dev/null")
check("chrome: -T chrome of two files is refused, nothing written",
	not ok2 and how == "exit" and code ~= 0 and io.open(two) == nil)

-- No data (a state entity's data ended) is no slice: the slices stop at
-- the end of the data and start again at the next datum, flat or nested.
do
	local g = sm.new { states = { "run", "wait", "io" } }
	g:set(1000, "gone", "run")
	g:set(3000, "gone", nil)
	g:set(4000, "gone", "wait")
	g:push(1000, "stack", "run")
	g:pop(2000, "stack")
	g:push(3000, "stack", "io")
	local gt = g:finish(5000)
	local gpath = os.tmpname()
	gt:write(gpath, { format = "chrome" })
	local gf = io.open(gpath)
	local gdoc = sm.json.decode(gf:read("a"))
	gf:close()
	local slices = {}
	for _, ev in ipairs(gdoc.traceEvents) do
		if ev.ph == "X" then
			slices[ev.tid] = slices[ev.tid] or {}
			table.insert(slices[ev.tid], { ev.name, ev.ts, ev.dur })
		end
	end
	check_eq("chrome: no data is no slice (flat)", slices[1], { { "run", 1.0, 2.0 }, { "wait", 4.0, 1.0 } })
	check_eq("chrome: no data is no slice (nested)", slices[2], { { "run", 1.0, 1.0 }, { "io", 3.0, 2.0 } })
	os.remove(gpath)
end
