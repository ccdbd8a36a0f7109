-- Ordinary Lua that once corrupted memory or leaked: many panels, objects
-- used after their finalizer, names that are not UTF-8, overflows.
-- (make check-asan also runs this file under valgrind, which sees what
-- ASan cannot: Debian's liblua is not instrumented.)
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local sm = require "statemap"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

local tmp = os.tmpname()
local function write(path, lines)
	local f = assert(io.open(path, "w"))
	f:write(table.concat(lines, "\n"), "\n")
	f:close()
end

-- A trace of 100 entities.
local lines = { '{"start": [0, 0], "states": {"a": {"value": 0}, "b": {"value": 1}}}' }
for i = 1, 300 do
	lines[#lines + 1] = ('{"time": "%d", "entity": "e%d", "state": %d}'):format(i * 10, i % 100, i % 2)
end
write(tmp, lines)
local t = sm.load(tmp, { cache = false })

-- Many panels: each used to leave a value on the Lua stack unchecked.
local out = tmp .. ".png"
local ok, err = pcall(function()
	return sm.layout.panels_by(t, function(e) return e.name end, { output = out })
end)
check("render: one panel per entity (100 panels)", ok, err)
local panels = {}
for i = 1, 200 do panels[i] = { trace = t, row_height = 1, entities = { "e" .. (i % 100) } } end
ok, err = pcall(sm.render, { output = out, panels = panels, legend = false })
check("render: 200 panels", ok, err)
panels = {}
for i = 1, 2000 do panels[i] = { trace = t, row_height = 1, entities = { "e1" } } end
ok, err = pcall(sm.render, { output = tmp .. ".svg", panels = panels, legend = false,
	interactive = true })
check("render: 2000 panels of the interactive statemap", ok, err)
os.remove(tmp .. ".svg")
os.remove(out)

-- Metatables are protected: __gc cannot be called by hand.
check_eq("getmetatable of a trace is its name", getmetatable(t), "statemap.trace")
check_eq("getmetatable of an entity is its name", getmetatable(t:entity("e1")), "statemap.entity")

-- An object resurrected by another's finalizer, after its own ran.
do
	local u = sm.load(tmp, { cache = false })
	local e = u:entity("e5")
	local it = u:intervals()
	local s = u:count_series{ "a" }
	local a = u:columns{ "start" }
	local b = sm.new{ states = { "a" } }
	-- Finalizers run in the reverse order of creation: this one first,
	-- then those of the others, which R... still reach afterwards.
	setmetatable({}, { __gc = function() R, RE, RI, RS, RA, RB = u, e, it, s, a, b end })
end
collectgarbage()
collectgarbage()
check("a trace was resurrected", R ~= nil)
-- One message for every type, naming it.
local function finalized(type)
	return "this " .. type .. " object was finalized (garbage collected): it can no longer be used"
end
check_error("a finalized trace's method is an error", function() return R:entities() end, finalized("trace"))
check_error("tostring of a finalized trace is an error", function() return tostring(R) end, finalized("trace"))
check_error("a finalized trace's field is an error", function() return R.title end, finalized("trace"))
check_error("an entity of a finalized trace is an error", function() return RE:at(10) end, finalized("trace"))
check_error("a finalized iterator is an error", function() return RI() end, finalized("intervals"))
check_error("a finalized series is an error", function() return #RS end, finalized("series"))
check_error("a finalized array is an error", function() return RA:sum() end, finalized("array"))
check_error("a finalized builder is an error", function() return RB:set(0, "x", "a") end, finalized("builder"))
check_error("render of a finalized trace is an error", function()
	return sm.render{ output = tmp .. ".png", trace = R } end, finalized("trace"))
R, RE, RI, RS, RA, RB = nil, nil, nil, nil, nil, nil

-- Overflow and empty cases.
check_error("begin plus duration beyond 2^63", function()
	return sm.load(tmp, { begin = math.maxinteger, duration = 10, cache = false })
end, "beyond 2^63")
check_error("duration beyond end", function()
	return sm.load(tmp, { ["end"] = 5, duration = 10, cache = false })
end, "duration exceeds end")
write(tmp .. ".empty", { '{"start": [0, 0], "states": {"a": {"value": 0}}}' })
local empty = sm.load(tmp .. ".empty", { cache = false })
local c = empty:count({ "a" })
check_eq("count of a trace without data", #c:entities(), 1)
os.remove(tmp .. ".empty")
check_error("a bad filter is an error that leaks nothing", function()
	return sm.load(tmp, { filter = "(", cache = false })
end, "bad filter")
check_error("a bad time after a filter leaks nothing", function()
	return sm.load(tmp, { filter = "e", duration = "x", cache = false })
end, "bad time")
check_error("count_at with a bad time leaks nothing", function() return t:count_at("soon") end, "bad time")

-- Names a script makes must be valid UTF-8 before they reach any output.
check_error("rename to invalid UTF-8", function()
	return t:rename({ e1 = "bad\255name" })
end, "not valid UTF-8")
check_error("map to invalid UTF-8", function()
	return t:map(function(s) return s .. "\192" end)
end, "not valid UTF-8")
check_error("map_intervals to invalid UTF-8", function()
	return t:map_intervals(function(iv) return "\237\160\128" end)
end, "not valid UTF-8")
check_error("group names must be UTF-8", function()
	return t:group(function(e) return "\255" end)
end, "not valid UTF-8")
check_error("a count's name must be UTF-8", function()
	return t:count({ "a" }, "\128")
end, "not valid UTF-8")
check("valid UTF-8 names are fine", pcall(t.rename, t, { e1 = "é→✓" }))

-- The collector is told what traces cost: dropping derived traces lets
-- them go without an explicit collectgarbage().
local before = collectgarbage("count")
for _ = 1, 50 do local _ = t:recolor({ a = "#123456" }) end
check("derived traces are collected as they are dropped",
	collectgarbage("count") - before < 50000)

-- State limits are refused where they are imposed, never truncated:
-- 70000 entities at once, counted.
do
	local many = { '{"start": [0, 0], "states": {"a": {"value": 0}, "b": {"value": 1}}}' }
	for i = 1, 70000 do
		many[#many + 1] = ('{"time": "%d", "entity": "e%d", "state": 0}'):format(i, i)
	end
	many[#many + 1] = '{"time": "75000", "entity": "e1", "state": 1}'
	many[#many + 1] = '{"time": "80000", "entity": "e2", "state": 1}'
	write(tmp .. ".many", many)
	local big = sm.load(tmp .. ".many", { cache = false })
	local series = big:count_series({ "a" })
	local peak = 0
	for _, p in ipairs(series) do if p.count > peak then peak = p.count end end
	check_eq("count_series counts beyond 65535 entities", peak, 70000)
	check_eq("count_series: one fewer from 75000",
		{ series[#series].time, series[#series].count }, { 75000, 69999 })
	check_error("count of more than 65534 entities is refused", function()
		return big:count({ "a" }) end, "more than 65534 entities")
	os.remove(tmp .. ".many")
end

-- A path with a NUL byte was cut there: statemap.load("x.out\0junk")
-- loaded x.out, and t:write and render wrote to the cut name.  Every
-- function that takes a path or a file name refuses it, naming itself.
do
	local function exists(path)
		local f = io.open(path)
		if f then f:close() end
		return f ~= nil
	end
	local cut = tmp .. "-nul"
	local function refused(name, f, want, wrote)
		check_error(name .. ": a path with a NUL byte is refused", f, want)
		if wrote then
			check(name .. ": ... and nothing is written at the path cut there", not exists(wrote))
			os.remove(wrote)
		end
	end
	refused("statemap.load", function() return sm.load(tmp .. "\0junk", { cache = false }) end,
		"statemap.load: the path contains a NUL byte")
	refused("t:write", function() return t:write(cut .. ".out\0junk") end,
		"t:write: the path contains a NUL byte", cut .. ".out")
	refused("render", function() return sm.render{ output = cut .. ".png\0.svg", trace = t } end,
		"render: output contains a NUL byte", cut .. ".png")
	refused("render, interactive", function()
		return sm.render{ output = cut .. ".svg\0.png", trace = t, interactive = true }
	end, "render: output contains a NUL byte", cut .. ".svg")
	refused("layout.render", function() return sm.layout.render(t, cut .. ".pdf\0") end,
		"render: output contains a NUL byte", cut .. ".pdf")
	refused("json.decode's file name", function() return sm.json.decode("{", "a.json\0b") end,
		"json.decode: the name contains a NUL byte")
	check_error("render: an output that is no string is named", function()
		return sm.render{ output = 5, trace = t } end, "render: output must be a file name, not 5")
	check("a path without NUL bytes still loads", pcall(sm.load, tmp, { cache = false }))
end

-- t:at kept a busy flag while it filled its table: a finalizer that ran
-- meanwhile and called t:at cleared it, so the next such call filled the
-- very buffer the first was reading, and its answer was another time's;
-- an error (the memory limit) left it set.  It keeps no flag now: the
-- buffer is taken while a call uses it, and a call that finds none, or
-- follows one an error cut short, makes its own.
do
	local lines = { '{"start": [0, 0], "states": {"a": {"value": 0}, "b": {"value": 1}, "c": {"value": 2}}}' }
	for i = 1, 2000 do
		lines[#lines + 1] = ('{"time": "0", "entity": "e%d", "state": 0}'):format(i)
		lines[#lines + 1] = ('{"time": "100", "entity": "e%d", "state": 1}'):format(i)
		lines[#lines + 1] = ('{"time": "200", "entity": "e%d", "state": 2}'):format(i)
	end
	write(tmp .. ".at", lines)
	local u = sm.load(tmp .. ".at", { cache = false })
	-- Finalizers made garbage before each call; a collector that steps
	-- at every allocation runs some while t:at builds its table.
	local inside, nested, during, wrong = false, 0, 0, {}
	collectgarbage("incremental", 10, 400)
	for i = 1, 300 do
		for _ = 1, 20 do
			setmetatable({}, { __gc = function()
				if inside then nested = nested + 1 end
				u:at(150)
			end })
		end
		nested, inside = 0, true
		local r = u:at(50)
		inside = false
		if nested >= 2 then during = during + 1 end
		if r.e1 ~= "a" or r.e2000 ~= "a" then wrong[#wrong + 1] = i end
	end
	collectgarbage("incremental", 200, 100)
	collectgarbage()
	if during == 0 then
		unit.skip("t:at: two calls by finalizers while a third fills its table",
			"the collector ran no two finalizers during a t:at here")
	else
		check_eq("t:at: two calls by finalizers while a third fills its table leave its answer alone",
			wrong, {})
	end

	-- Cut short by the memory limit, then asked again (a table of 20000
	-- entities is what cannot fit).
	local big = { lines[1] }
	for i = 1, 20000 do
		big[#big + 1] = ('{"time": "0", "entity": "e%d", "state": %d}'):format(i, i % 3)
	end
	big[#big + 1] = '{"time": "1000", "entity": "e1", "state": 1}'
	write(tmp .. ".at", big)
	local child = tmp .. "-at.lua"
	local f = assert(io.open(child, "w"))
	f:write([==[
local sm = require "statemap"
local t = sm.load(arg[1], { cache = false })
local want = {}
for _, e in ipairs(t:entities()) do want[e.name] = e:at(150) end
local into = {}
t:at(10, into)
-- Memory filled a kilobyte at a time until no more fits, then some given
-- back: room for small things, not for t:at's table.
local ballast
while pcall(function()
	for _ = 1, 100 do ballast = { next = ballast, s = string.rep("x", 1000) .. tostring(ballast) } end
end) do end
for _ = 1, 64 do ballast = ballast.next end
collectgarbage()
local ok, err = pcall(t.at, t, 50)
ballast = nil
collectgarbage()
local function same(a, b)
	for k, v in pairs(a) do if b[k] ~= v then return false end end
	for k in pairs(b) do if a[k] == nil then return false end end
	return true
end
local right = same(t:at(150), want)
t:at(60, into)
collectgarbage()
collectgarbage("stop")
local before = collectgarbage("count")
t:at(150, into)
local grew = collectgarbage("count") - before
collectgarbage("restart")
print(not ok and err or "no error", right, same(into, want), grew)
]==])
	f:close()
	local here = arg[0]:match("^(.*)/[^/]*$") or "."
	local SM = os.getenv("SM") or (here .. "/../../statemap-lua")
	local p = io.popen("'" .. SM .. "' --memory-limit 48M '" .. child .. "' '" .. tmp .. ".at' 2>&1")
	local out = p:read("a")
	p:close()
	check_eq("t:at cut short by the memory limit, then asked again: right, and its buffer kept", out,
		"not enough memory\ttrue\ttrue\t0.0\n")
	os.remove(child)
	os.remove(tmp .. ".at")
end

-- layout.panels_by sorts once, whatever the number of groups: a sort per
-- group was groups times entities (40,000 one-entity groups ran for
-- hours).  The sort function is called once per entity a sort.
do
	local calls = 0
	local args = sm.layout.panels_by(t, function(e) return e.name end,
	    { sort = function(e) calls = calls + 1 return e.name end })
	check_eq("layout.panels_by: 100 groups, one sort (a key per entity)", { #args.panels, calls }, { 100, 100 })
	check_eq("layout.panels_by: each group in the sort's order", args.panels[1].entities[1].name, "e0")
end

os.remove(tmp)
