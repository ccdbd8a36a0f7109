-- Traces freed while a binding still uses them (found by
-- tests/fuzz/fuzz_lua.c; make check-asan also runs this file under
-- valgrind, which saw them as reads of freed memory):
--
-- - a trace's finalizer called by hand (the debug library reaches it)
--   from a function a method of that trace calls, or from an __index of
--   a table it reads: it is refused, and the trace goes on working;
-- - statemap.render reading a panel's trace, or a string, from a table
--   whose __index makes a new one that nothing else holds: it keeps it
--   until it returns, however much the collector runs meanwhile.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local sm = require "statemap"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

local tmp = os.tmpname()
local f = assert(io.open(tmp, "w"))
f:write('{"start": [0, 0], "states": {"a": {"value": 0}, "b": {"value": 1}}}\n')
for i = 1, 40 do
	f:write(('{"time": "%d", "entity": "e%d", "state": %d, "tag": "t%d"}\n'):format(i * 10, i % 7, i % 2, i % 3))
end
f:write('{"time": "500", "entity": "e1", "event": "go", "target": "e2"}\n')
f:close()

local function load() return sm.load(tmp, { cache = false }) end

-- Calls t's finalizer by hand, then returns ret.
local function finalize(t, ret)
	return function()
		debug.getmetatable(t).__gc(t)
		return ret
	end
end

-- An options table whose every field read calls t's finalizer by hand.
local function trap(t)
	return setmetatable({}, { __index = function()
		debug.getmetatable(t).__gc(t)
		return nil
	end })
end

local cases = {
	{ "sorted", function(t) return t:sorted(finalize(t, 1)) end },
	{ "sorted by string keys", function(t) return t:sorted(finalize(t, "k")) end },
	{ "map", function(t) return t:map(finalize(t, nil)) end },
	{ "map_intervals", function(t) return t:map_intervals(finalize(t, "x")) end },
	{ "keep", function(t) return t:keep(finalize(t, true)) end },
	{ "drop", function(t) return t:drop(finalize(t, false)) end },
	{ "rename by function", function(t) return t:rename(finalize(t, nil)) end },
	{ "rename by table", function(t) return t:rename(trap(t)) end },
	{ "group by function", function(t) return t:group(finalize(t, "g")) end },
	{ "group by table", function(t) return t:group(trap(t)) end },
	{ "events", function(t) return t:events(trap(t)) end },
	{ "intervals", function(t) return t:intervals(trap(t)) end },
	{ "render, a panel", function(t)
		return sm.render{ output = tmp .. ".png", panels = { setmetatable({ trace = t }, {
			__index = function() debug.getmetatable(t).__gc(t) end }) } }
	end },
	{ "render, an option", function(t)
		return sm.render(setmetatable({ output = tmp .. ".png", trace = t }, {
			__index = function() debug.getmetatable(t).__gc(t) end }))
	end },
}
for _, c in ipairs(cases) do
	local t = load()
	check_error(c[1] .. ": the finalizer called by hand meanwhile is refused",
		function() return c[2](t) end, "finalized by the collector, not by hand")
	check_eq(c[1] .. ": the trace still works", #t:entities(), 7)
end
do
	local t = load()
	check_error("a finalizer called by hand is refused",
		function() return debug.getmetatable(t).__gc(t) end, "not by hand")
	check_error("... under pcall too", function()
		local ok, err = pcall(debug.getmetatable(t).__gc, t)
		error(err)
	end, "not by hand")
	check_eq("... and the trace still works", t:entity("e1").transitions, 6)
end
-- The collector still finalizes: a trace resurrected by the finalizer of
-- an object made after it (so run before its own) was finalized.
local function doomed()
	setmetatable({ load() }, { __gc = function(o) RESURRECTED = o[1] end })
end
doomed()
collectgarbage()
collectgarbage()
check_error("the collector's own call of the finalizer still finalizes",
	function() return RESURRECTED:entities() end, "finalized")
RESURRECTED = nil

-- A table that makes each field anew on every read (a trace nothing else
-- holds, a new string) and runs the collector on every read.
local function fresh(fields)
	return setmetatable({}, { __index = function(_, k)
		collectgarbage()
		local v = fields[k]
		if type(v) == "function" then return v() end
		return v
	end })
end
local out = tmp .. "-fresh.png"
local ok, err = pcall(sm.render, fresh{
	output = function() return tmp .. "-fresh" .. ".png" end,
	panels = function()
		return { fresh{ trace = load, title = function() return "p" .. "1" end },
			fresh{ trace = function() return load():keep("e[12]") end } }
	end,
	title = function() return "t" .. "itle" end,
	font = function() return "sans" .. "-serif" end,
})
check("render: panels and strings made by __index, the collector running",
	ok, err)
local png = io.open(out, "rb")
check("render: ... wrote the file named by __index", png ~= nil)
if png then png:close() end

os.remove(tmp)
os.remove(tmp .. ".png")
os.remove(out)
