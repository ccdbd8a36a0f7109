-- report.lua: where did the time go?  Per-entity and overall time in
-- each state, the top entities by one state, and a PNG of the statemap.
--
--   statemap-lua examples/report.lua TRACE [--from T] [--to T]
--       [--top STATE] [--count N] [--png FILE]
--
-- Times take units ("0.5s", "250ms"); the range defaults to the trace.
local sm = require "statemap"
local report = require "statemap.report"

local function usage(msg)
	io.stderr:write("report.lua: ", msg, "\n",
	    "usage: statemap-lua report.lua TRACE [--from T] [--to T] [--top STATE] [--count N] [--png FILE]\n")
	os.exit(2)
end

local path, opt = nil, {}
local i = 1
while arg[i] do
	local a = arg[i]
	if a == "--from" or a == "--to" or a == "--top" or a == "--count" or a == "--png" then
		if not arg[i + 1] then usage(a .. " needs a value") end
		opt[a:sub(3)] = arg[i + 1]
		i = i + 2
	elseif a:sub(1, 1) == "-" and a ~= "-" then
		usage("unknown option " .. a)
	elseif path then
		usage("one trace at a time")
	else
		path, i = a, i + 1
	end
end
if not path then usage("no trace given") end

local t = sm.load(path)
local from = opt.from and sm.duration(opt.from) or t.begin
local to = opt.to and sm.duration(opt.to) or t.finish
local span = to - from
local states = {}
for k, s in ipairs(t.states) do states[k] = s.name end

print(("%s: %d entities, %d states, %s from %s"):format(t.title or path, #t:entities(),
    #states, sm.format_ns(span), sm.format_ns(from)))
print()

-- Each entity: time and share in every state.
local columns, rows = { { t.entity_kind or "entity" } }, {}
for _, s in ipairs(states) do
	columns[#columns + 1] = { s, "duration" }
	columns[#columns + 1] = { "%", "percent" }
end
for _, e in ipairs(t:sorted()) do
	local times = e:time_in(from, to)
	local row = { e.name }
	for _, s in ipairs(states) do
		row[#row + 1] = times[s]
		row[#row + 1] = times[s] / span
	end
	rows[#rows + 1] = row
end
print(report.table(rows, columns))
print()

-- All entities together.
local total, all = 0, t:time_in(from, to)
for _, s in ipairs(states) do total = total + all[s] end
rows = {}
for _, s in ipairs(states) do rows[#rows + 1] = { s, all[s], all[s] / total } end
print(report.table(rows, { { "state" }, { "time", "duration" }, { "share", "percent" } }))
print()

-- The entities that spent the most time in one state.
local top = opt.top or states[1]
local n = tonumber(opt.count or 5) or usage("--count needs a number")
rows = {}
for k, e in ipairs(t:sorted(top, from, to)) do
	if k > n then break end
	local ns = e:time_in(from, to)[top]
	rows[k] = { k, e.name, e.description or "", ns, ns / span }
end
print(("top %d by %s:"):format(n, top))
print(report.table(rows, { { "#", "number" }, { "entity" }, { "description" },
    { top, "duration" }, { "of span", "percent" } }))

if opt.png then
	sm.render{ output = opt.png, trace = t, entities = t:sorted(top, from, to),
	    from = from, to = to, width = 1600 }
	print()
	print("wrote " .. opt.png)
end
