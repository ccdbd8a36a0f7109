-- Every option table is checked (src/lua/lua_options.c): a key the
-- function does not take is an error naming the function, the key, a
-- close key if there is one and every key it takes; a reversed or
-- empty range [from, to) is an error.  The list of functions that take
-- options is read from the API page, so a new one without a case here
-- fails.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local sm = require "statemap"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local t = sm.load(here .. "/../golden/json-basic/input.out")
local mt = sm.load(here .. "/../golden/event-messages/input.out")
local png = unit.tmpname(".png")
local kernel = here .. "/../kernel/small.dat"
local layout = sm.layout

-- The documented functions that take an option table: each code span of
-- the API page's tables that calls NAME{...}, or NAME(... opts) or
-- NAME(... options) or with a {...} argument.
local function documented()
	local f = assert(io.open(here .. "/../../src/lua/statemap-lua-api.3.md"))
	local text = f:read("a")
	f:close()
	local names = {}
	for span in text:gmatch("`([^`\n]+)`") do
		local name = span:match("^([%w_.:]+)%b{}")
		if name == nil then
			local n, args = span:match("^([%w_.:]+)(%b())")
			if n and (args:find("opts", 1, true) or args:find("options", 1, true)
			    or args:find("{", 1, true)) then
				name = n
			end
		end
		if name then names[name] = true end
	end
	return names
end

-- Documented name -> how it is called with an option table o, the name
-- its errors use, a key it takes and a misspelling of it.  A call must
-- not do anything lasting if the check were missing (serve's is given
-- a bad port too, so that it never serves).
local cases = {
	["statemap.load"] = { "statemap.load", "begin", "begining",
		function(o) return sm.load(here .. "/../golden/json-basic/input.out", o) end },
	["t:events"] = { "events", "events", "evnts", function(o) return t:events(o) end },
	["t:intervals"] = { "intervals", "states", "state", function(o) return t:intervals(o) end },
	["t:columns"] = { "columns", "from", "form", function(o) o[1] = "start" return t:columns(o) end },
	["t:reduce"] = { "reduce", "entities", "entites",
		function(o) o.by = "state" return t:reduce(o) end },
	["statemap.merge"] = { "statemap.merge", "prefixes", "prefix",
		function(o) o[1], o[2] = t, mt return sm.merge(o) end },
	["t:flows"] = { "flows", "status", "stauts", function(o) return mt:flows(o) end },
	["t:align"] = { "align", "reference", "refrence", function(o) return mt:align(o) end },
	["statemap.new"] = { "statemap.new", "title", "titel",
		function(o) o.states = { "a" } return sm.new(o) end },
	["statemap.render"] = { "render", "width", "widht",
		function(o) o.output, o.trace = png, t return sm.render(o) end },
	["statemap.serve"] = { "serve", "port", "prot",
		function(o) o.port = "none" return sm.serve(t, o) end },
	["e:stats"] = { "e:stats", "nulls", "nuls", function(o) return t:entities()[1]:stats(o) end },
	["statemap.events"] = { "statemap.events", "events", "evnts",
		function(o) return sm.events(kernel, o, function() return false end) end },
	["threads.load"] = { "threads.load", "from", "form", function(o) return sm.threads.load(kernel, o) end },
	["cpus.load"] = { "cpus.load", "from", "form", function(o) return sm.cpus.load(kernel, o) end },
	["block.load"] = { "block.load", "from", "form", function(o) return sm.block.load(kernel, o) end },
	["t:write"] = { "t:write", "format", "fromat",
		function(o) return t:write("/nonexistent-directory/statemap-test.json", o) end },
	["layout.default"] = { "layout.default", "sort", "sortt", function(o) return layout.default(t, o) end },
	["layout.render"] = { "layout.render", "max_height", "max_heigth",
		function(o) return layout.render(t, png, o) end },
	["layout.panels_by"] = { "layout.panels_by", "sort", "srot",
		function(o) return layout.panels_by(t, function(e) return e.name end, o) end },
}
-- Documented functions whose tables are not options.
local not_options = {
	["t:recolor"] = "its keys are state names",
	["b:event"] = "its fields' names are the event's members",
	["t:at"] = "a table without intervals = true is the table to fill (t:at(time, into))",
	["statemap.check_options"] = "the keys are its caller's (checked below)",
}
cases.render = cases["statemap.render"]

local missing = {}
for name in pairs(documented()) do
	if not cases[name] and not not_options[name] then missing[#missing + 1] = name end
end
table.sort(missing)
check_eq("every documented function with options has a case here", missing, {})
check("the page's functions were found", documented()["t:intervals"] and documented()["layout.panels_by"])

local names = {}
for name in pairs(cases) do names[#names + 1] = name end
table.sort(names)
local wrong = {}
for _, name in ipairs(names) do
	local c = cases[name]
	local ok, err = pcall(c[4], { [c[3]] = 1 })
	err = tostring(err)
	local want = ('%s: unknown option "%s" (did you mean "%s"?); options are: '):format(c[1], c[3], c[2])
	local at = err:find(want, 1, true)
	if ok or not at or not err:find(c[2], at + #want, true) then
		wrong[#wrong + 1] = name .. ": " .. (ok and "no error" or err)
	end
end
check_eq("a misspelt key of each function: its name, the key, a suggestion and the keys ("
    .. #names .. " functions)", wrong, {})

-- The message in full, and without a close key.
check_error("the whole message", function() return sm.load(here .. "/../golden/json-basic/input.out",
    { begining = "1s" }) end, 'statemap.load: unknown option "begining" (did you mean "begin"?); '
    .. "options are: begin, end, duration, ignore_tags, filter, cache")
check_error("nothing close: no suggestion", function() return t:intervals{ colour = 1 } end,
    'intervals: unknown option "colour"; options are: from, to, entities, states')
check_error("a swap of two letters is close", function() return t:columns{ "start", form = 1 } end,
    '(did you mean "from"?)')
check_error("a panel's options too", function()
    return sm.render{ output = png, panels = { { trace = t, rowheight = 5 } } } end,
    'render: unknown option "rowheight" (did you mean "row_height"?)')
check("list items are not options", pcall(t.columns, t, { "start", "state" }))
check("b:event's fields are members", pcall(function()
	local b = sm.new{ states = { "a" } }
	b:set(0, "e", "a")
	b:event(0, "e", "go", nil, { colour = "red" })
end))
check_error("statemap.check_options, for Lua code", function()
	return sm.check_options("mine", { lenght = 1 }, { "length", "width" }) end,
	'mine: unknown option "lenght" (did you mean "length"?); options are: length, width')
check_eq("statemap.check_options returns the options", sm.check_options("mine", { width = 1 }, { "width" }).width, 1)
check_eq("statemap.option_keys.render lists render's keys", (function()
	for _, k in ipairs(sm.option_keys.render) do if k == "coalesce" then return true end end
	return false end)(), true)

-- Ranges: reversed or empty, given as arguments or as options.
local reversed = "the range from 2.000s to 1.000s is reversed (from must be before to)"
local e = t:entity("cpu0")
local ranges = {
	{ "time_in", function() return t:time_in("2s", "1s") end },
	{ "e:time_in", function() return e:time_in("2s", "1s") end },
	{ "sorted", function() return t:sorted("user", "2s", "1s") end },
	{ "count_series", function() return t:count_series({ "user" }, "2s", "1s") end },
	{ "stats", function() return t:stats(nil, "2s", "1s") end },
	{ "e:stats", function() return e:stats("2s", "1s") end },
	{ "intervals", function() return t:intervals{ from = "2s", to = "1s" } end },
	{ "events", function() return t:events{ from = "2s", to = "1s" } end },
	{ "columns", function() return t:columns{ "start", from = "2s", to = "1s" } end },
	{ "reduce", function() return t:reduce{ by = "state", from = "2s", to = "1s" } end },
	{ "flows", function() return mt:flows{ from = "2s", to = "1s" } end },
	{ "render", function() return sm.render{ output = png, trace = t, from = "2s", to = "1s" } end },
}
for _, r in ipairs(ranges) do
	check_error("a reversed range: " .. r[1], r[2], r[1] .. ": " .. reversed)
end
check_error("an empty range", function() return t:time_in(100, 100) end,
	"time_in: the range from 100ns to 100ns is empty (from must be before to)")
check("one end given: the other is the window's", pcall(t.time_in, t, 100))
check_eq("a range still answers", t:time_in(100, 160).user, 60)

os.remove(png)

-- A table {entity name = ...} given to t:rename or t:group names only
-- entities of the trace: a misspelt name is an error naming it, not a
-- rename that silently does nothing.  Every transform's error names it.
local e1 = t:entities()[1].name
check_error("t:rename of an entity the trace lacks", function() return t:rename{ [e1] = "x", nope = "y" } end,
	't:rename: the table names entity "nope", which the trace does not have')
check_error("t:rename with a number key", function() return t:rename{ [1] = "y" } end,
	"t:rename: the table's keys are entity names, not a number")
check_eq("t:rename of the trace's own names still works", t:rename{ [e1] = "x" }:entity("x").name, "x")
check_error("t:group of an entity the trace lacks", function() return t:group{ [e1] = "g", nope = "g" } end,
	't:group: the table names entity "nope", which the trace does not have')
check_error("t:map's function returning a number", function() return t:map(function() return 5 end) end,
	"t:map: the function returned a number")
check_error("t:map_intervals's function returning a table",
	function() return t:map_intervals(function() return {} end) end, "t:map_intervals: the function returned a table")
check_error("t:map's state name not UTF-8", function() return t:map(function() return "\xff" end) end,
	"t:map: a state name the function returned is not valid UTF-8 text")
check_error("t:rename to one name", function() return t:rename(function() return "same" end) end,
	"t:rename: two entities would have the same name")
check_error("t:slice empty", function() return t:slice(5, 5) end, "t:slice: [5, 5) is empty")
