-- Tests for statemap.load and the trace and entity objects (src/lua/lua_trace.c,
-- lua_entity.c and the files of their queries),
-- on tests/golden/json-basic/input.out, whose answers are worked out by hand:
--   cpu0: idle@0 user/postgres@100 idle@160 sys@210 idle@215 user/vim@220 idle@400
--   cpu1 (described first, so entity 1): idle@0 sys@150 user/postgres@200 idle@300
--   the trace ends at 400, the last datum.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local path = here .. "/../golden/json-basic/input.out"

local t = sm.load(path)

-- metadata
check_eq("trace title", t.title, "basic")
check_eq("trace host", t.host, "h1")
check_eq("trace entity_kind", t.entity_kind, "CPU")
check_eq("trace start is ns since the epoch", t.start, 1700000000 * 1000000000)
check_eq("trace bounds", { t.begin, t.finish }, { 0, 400 })
check_eq("trace records and transitions", { t.records, t.transitions }, { 14, 11 })
check_eq("trace states", t.states, {
	{ name = "idle", value = 0, color = "#e0e0e0" },
	{ name = "user", value = 1, color = "#008000" },
	{ name = "sys", value = 2, color = "#4e79a7" },
})
check_eq("trace tostring", tostring(t),
    '<trace "basic": 2 entities, 3 states, 11 transitions, 400ns>')

-- entities
local es = t:entities()
check_eq("entities in order of first appearance", { es[1].name, es[2].name }, { "cpu1", "cpu0" })
local cpu0 = t:entity("cpu0")
check("entity lookup gives the same entity", cpu0 == es[2])
check_eq("entity description", { es[1].description, cpu0.description }, { "second CPU", nil })
check_eq("entity transitions", cpu0.transitions, 7)
check_eq("entity tostring", tostring(cpu0), '<entity "cpu0": 7 transitions>')
check_error("unknown entity", function() t:entity("cpu9") end, 'no entity "cpu9"')

-- An entity of one trace stands for the entity of the same name in another
-- (entity ids differ between them: cpu0 is entity 1 here, 0 in `only0`).
do
	local only0 = t:keep("^cpu0$")
	check_eq("an entity of a parent trace is found by name",
	    only0:entity(cpu0).name, "cpu0")
	local n = 0
	for iv in only0:intervals{ entities = { cpu0 } } do n = n + 1; assert(iv.entity == "cpu0") end
	check_eq("intervals take entities of another trace", n, 6)
	check_error("an entity missing from the other trace", function()
		only0:entity(t:entity("cpu1")) end, 'no entity "cpu1"')
end

-- state at a time
check_eq("entity at: state, tag, interval", { cpu0:at(100) }, { "user", "postgres", 100, 160 })
check_eq("entity at: untagged", { cpu0:at(215) }, { "idle", nil, 215, 220 })
check_eq("entity at: a duration string", { cpu0:at("0.21us") }, { "sys", nil, 210, 215 })
check_eq("entity at: nothing at the end", { cpu0:at(400) }, {})
check_eq("trace at: every entity", t:at(100), { cpu0 = "user", cpu1 = "idle" })
check_eq("trace count_at", t:count_at(210), { idle = 0, user = 1, sys = 1 })

-- time in states
check_eq("trace time_in, whole trace", t:time_in(), { idle = 405, user = 340, sys = 55 })
check_eq("trace time_in, a range", t:time_in(150, 250), { idle = 55, user = 90, sys = 55 })
check_eq("entity time_in", cpu0:time_in(), { idle = 155, user = 240, sys = 5 })

-- intervals
local got = {}
for iv in t:intervals{ from = 150, to = 250, entities = { "cpu0" } } do
	got[#got + 1] = ("%s %s %s %d-%d"):format(iv.entity, iv.state, iv.tag or "-", iv.start, iv.finish)
end
check_eq("intervals of one entity, clipped to the range", got, {
	"cpu0 user postgres 150-160", "cpu0 idle - 160-210", "cpu0 sys - 210-215",
	"cpu0 idle - 215-220", "cpu0 user vim 220-250" })
got = {}
for iv in t:intervals{ states = { "sys" } } do
	got[#got + 1] = ("%s %d-%d"):format(iv.entity, iv.start, iv.finish)
end
check_eq("intervals of one state, all entities by id", got, { "cpu1 150-200", "cpu0 210-215" })
local n = 0
for _ in t:intervals() do n = n + 1 end
check_eq("intervals of everything (the last datum at 400 starts nothing)", n, 10)
check_error("intervals of an unknown state", function() t:intervals{ states = { "busy" } } end,
    'no state "busy"')
check_error("a bad time", function() cpu0:at("soon") end, 'bad time "soon"')
check_error("a negative time", function() cpu0:at(-1) end, "non-negative integer")

-- load options
local w = sm.load(path, { begin = 100, ["end"] = "300ns" })
check_eq("load with begin and end", { w.begin, w.finish }, { 100, 300 })
check_eq("load bounds clip queries", w:time_in(), { idle = 105, user = 240, sys = 55 })
check_eq("load with duration", { sm.load(path, { duration = "150ns" }).finish }, { 150 })
check_eq("load with end and duration", { sm.load(path, { ["end"] = 300, duration = 100 }).begin }, { 200 })
check_eq("load with a filter", #sm.load(path, { filter = "0$" }):entities(), 1)
check_eq("load ignoring tags", { sm.load(path, { ignore_tags = true }):entity("cpu0"):at(100) },
    { "user", nil, 100, 160 })
check_error("load with all three bounds", function()
	sm.load(path, { begin = 1, ["end"] = 2, duration = 1 }) end, "at most two")
check_error("load with begin after end", function()
	sm.load(path, { begin = 300, ["end"] = 200 }) end, "begin must be before end")
check_error("load with a bad filter", function() sm.load(path, { filter = "(" }) end, "bad filter")
check_error("load a missing file", function() sm.load("/nonexistent/x.out") end,
    "/nonexistent/x.out: cannot open")
local bad = os.tmpname()
local f = io.open(bad, "w")
f:write('{"start": [0, 0], "states": {"a": {"value": 0}}}\n{"time": "1", "entity": 5, "state": 0}\n')
f:close()
check_error("load a bad trace: the error names file, line and column",
    function() sm.load(bad) end, bad .. ":2:25: entity must be a string")
os.remove(bad)

-- sorting (names: cpu0, cpu1; user time: cpu0 240, cpu1 100)
local function names(list)
	local out = {}
	for i, e in ipairs(list) do out[i] = e.name end
	return out
end
local s = sm.load(here .. "/../golden/sort-natural/input.out")
check_eq("sorted: natural name order", names(s:sorted()), { "cpu1", "cpu2", "cpu9", "cpu10" })
check_eq("sorted: \"name\" is the same", names(s:sorted("name")), { "cpu1", "cpu2", "cpu9", "cpu10" })
check_eq("sorted: most time in a state first, ties by name", names(s:sorted("busy")),
    { "cpu1", "cpu10", "cpu9", "cpu2" })
check_eq("sorted: by a state over a range", names(s:sorted("busy", 0, 55)),
    { "cpu1", "cpu10", "cpu2", "cpu9" })
check_eq("sorted: by a number key", names(s:sorted(function(e) return -e.transitions end)),
    { "cpu2", "cpu9", "cpu10", "cpu1" })
check_eq("sorted: by a string key in natural order",
    names(s:sorted(function(e) return e.name:reverse() end)), { "cpu10", "cpu1", "cpu2", "cpu9" })
-- Keys equal in natural order are ties whether or not they are the same
-- bytes (" k9" and "k9": whitespace is skipped), and ties go by name.
-- The keys are made last name first, so that neither the order they
-- were made in nor their bytes' order is the names'.
local keys = {}
for i, name in ipairs{ "cpu10", "cpu9", "cpu2", "cpu1" } do
	keys[name] = (" "):rep(i % 2) .. "k" .. (i > 2 and "9" or "10") .. (" "):rep(i)
end
check_eq("sorted: string keys ranked, ties by name",
    names(s:sorted(function(e) return keys[e.name] end)), { "cpu1", "cpu2", "cpu9", "cpu10" })
check_eq("sorted: one key for all is all ties",
    names(s:sorted(function() return "same" end)), { "cpu1", "cpu2", "cpu9", "cpu10" })
check_error("sorted: unknown state", function() s:sorted("asleep") end, 'no state "asleep"')
check_error("sorted: bad key", function() s:sorted(function() return {} end) end,
    "keys are numbers or strings")
check_error("sorted: mixed keys", function()
	s:sorted(function(e) return e.name == "cpu1" and 1 or "x" end) end, "mix numbers and strings")

-- transforms: new traces, the original untouched
local calls = 0
local m = t:map(function(state, tag)
	calls = calls + 1
	if state == "idle" then return nil end          -- nil keeps the state
	if tag == "vim" then return "editing" end
	return "busy"
end)
check_eq("map calls the function once per state and per (state, tag)", calls, 5)
check_eq("map states: kept names keep colours, new ones get generated ones",
    m.states, { { name = "idle", value = 0, color = "#e0e0e0" },
    { name = "busy", value = 1, color = "#4e79a7" },
    { name = "editing", value = 2, color = "#f28e2b" } })
check_eq("map applies to every transition", m:time_in(), { idle = 405, busy = 215, editing = 180 })
check_eq("map keeps tags and intervals", { m:entity("cpu0"):at(100) }, { "busy", "postgres", 100, 160 })
check_eq("map leaves the original alone", t:time_in(), { idle = 405, user = 340, sys = 55 })
check_eq("map drops transitions that change nothing",
    t:map(function() return "x" end).transitions, 8)
check_eq("map without tags collapses to one transition per entity",
    sm.load(path, { ignore_tags = true }):map(function() return "x" end).transitions, 2)
check_error("map must return a name", function() t:map(function() return 5 end) end,
    "must return a state name")
check_error("map passes errors on", function() t:map(function() error("boom") end) end, "boom")
local r = t:recolor{ user = "orange", idle = "#123456" }
check_eq("recolor", { r.states[1].color, r.states[2].color, r.states[3].color },
    { "#123456", "#ffa500", "#4e79a7" })
check_eq("recolor keeps the data", r:time_in(), t:time_in())
check_error("recolor an unknown state", function() t:recolor{ nope = "red" } end, 'no state "nope"')
check_error("recolor with a bad colour", function() t:recolor{ user = "reddish" } end,
    '"reddish" is not a colour')

-- selecting and renaming entities
check_eq("keep by regex", names(s:keep("^cpu[0-9]$"):entities()), { "cpu2", "cpu1", "cpu9" })
check_eq("drop by regex", names(s:drop("^cpu[0-9]$"):entities()), { "cpu10" })
check_eq("keep by predicate", names(s:keep(function(e) return e.transitions > 1 end):entities()),
    { "cpu10", "cpu2", "cpu9" })
check_eq("keep keeps the data", s:keep("cpu1$"):entity("cpu1"):time_in(), s:entity("cpu1"):time_in())
check_eq("keep keeps descriptions", t:keep("cpu1"):entity("cpu1").description, "second CPU")
check_error("keep with a bad regex", function() s:keep("(") end, 'bad pattern "("')
local rn = t:rename(function(e) return e.name:upper() end)
check_eq("rename by function", names(rn:entities()), { "CPU1", "CPU0" })
check_eq("rename keeps the data", { rn:entity("CPU0"):at(100) }, { "user", "postgres", 100, 160 })
check_eq("rename by table, others kept", names(t:rename{ cpu0 = "zero" }:entities()), { "cpu1", "zero" })
check_error("rename to one name", function() t:rename(function() return "same" end) end,
    "same name")
check_error("rename to a non-string", function() t:rename(function() return 1 end) end,
    "is a number, not a string")

-- slices
local sl = t:slice(150, "0.25us")
check_eq("slice sets the window", { sl.begin, sl.finish }, { 150, 250 })
check_eq("slice clips queries", sl:time_in(), t:time_in(150, 250))
check_eq("slice of a slice stays inside", { sl:slice(0, 1000).begin, sl:slice(0, 1000).finish }, { 150, 250 })
check_error("slice: a time before it is an error", function() sl:entity("cpu0"):at(100) end,
    "e:at: time 100 ns is before the trace, which covers [150, 250) ns")
check_error("slice that is empty", function() t:slice(300, 200) end, "is empty")

-- a counting entity: how many CPUs are in user (cpu0 100-160 and 220-400,
-- cpu1 200-300): 0 from 0, 1 from 100, 0 from 160, 1 from 200, 2 from 220,
-- 1 from 300 to the end at 400
local c = t:count({ "user" }, "busy CPUs")
check_eq("count: one entity", names(c:entities()), { "busy CPUs" })
check_eq("count: states 0 to the number of entities", { #c.states, c.states[1].name, c.states[3].name },
    { 3, "0", "2" })
check_eq("count: its transitions", c.transitions, 6)
check_eq("count: time at each count", c:time_in(), { ["0"] = 140, ["1"] = 180, ["2"] = 80 })
check_eq("count: at a time", { c:entity("busy CPUs"):at(250) }, { "2", nil, 220, 300 })
check_eq("count: several states, default name", c.transitions > 0 and
    names(t:count{ "user", "sys" }:entities()), { "count" })
check_eq("count: several states", t:count{ "user", "sys" }:time_in(),
    { ["0"] = 100, ["1"] = 205, ["2"] = 95 })
check_error("count: unknown state", function() t:count{ "busy" } end, 'no state "busy"')

-- a per-interval function: short user intervals (under 100 ns) become "blip"
local seen = 0
local mi = t:map_intervals(function(iv)
	seen = seen + 1
	if iv.state == "user" and iv.finish - iv.start < 100 then return "blip" end
end)
check_eq("map_intervals runs once per transition", seen, 11)
check_eq("map_intervals: states in the order first returned", names(mi.states), { "idle", "sys", "user", "blip" })
check_eq("map_intervals applies per interval", mi:time_in(),
    { idle = 405, user = 280, sys = 55, blip = 60 })
check_eq("map_intervals sees the whole interval", { mi:entity("cpu0"):at(100) }, { "blip", "postgres", 100, 160 })
check_error("map_intervals must return a name",
    function() t:map_intervals(function() return true end) end, "must return a state name")

-- stats of a numeric signal (the user count above: 0 for 140, 1 for 180,
-- 2 for 80 of the 400 ns; over [200, 300): 1 for 20, 2 for 80)
local cs = c:entity("busy CPUs")
check_eq("stats over the window", cs:stats(), { min = 0, max = 2, mean = (180 + 160) / 400 })
check_eq("stats over a range", cs:stats(200, 300), { min = 1, max = 2, mean = (20 + 160) / 100 })
check_eq("stats of nothing", { cs:stats(400, 500) }, {})
check_error("stats needs numbers", function() cpu0:stats() end, "needs numeric states")
check_eq("a float time with an integral value is a time", { t:entity("cpu0"):at(1.5e2) },
    { "user", "postgres", 100, 160 })
check_error("a fractional time is an error", function() t:at(1.5) end, "time (ns as a non-negative integer")
