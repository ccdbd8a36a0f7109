-- Tests for t:group, t:count_series and t:events (src/lua/lua_transform.c,
-- lua_count_series.c, lua_catalog.c; transform_group in
-- src/trace/transform.c) on tests/golden/json-basic/input.out:
--   cpu0: idle@0 user@100 idle@160 sys@210 idle@215 user@220, to 400
--   cpu1: idle@0 sys@150 user@200 idle@300, to 400
--   one event: cpu0 "wakeup" -> cpu1 at 310
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local t = sm.load(here .. "/../golden/json-basic/input.out")

local function transitions(tr, name)
	local out = {}
	for iv in tr:intervals{ entities = { name } } do
		out[#out + 1] = iv.state .. "@" .. iv.start
	end
	return table.concat(out, " ")
end

-- A group is in the first state of the priority list any member is in.
local all = t:group(function() return "all" end, { "user", "sys", "idle" })
check_eq("group: one entity per group", #all:entities(), 1)
check_eq("group: same states and colours", all.states, t.states)
check_eq("group: busy first", transitions(all, "all"), "idle@0 user@100 sys@160 user@200")
check_eq("group: time in each state", all:entity("all"):time_in(), { idle = 100, user = 260, sys = 40 })

-- Without a list, states rank in value order (idle first here).
local idle_first = t:group(function() return "all" end)
check_eq("group: value order by default",
    transitions(idle_first, "all"), "idle@0 user@150 idle@160 user@210 idle@215 user@220 idle@300")
check_eq("group: time with idle first", idle_first:entity("all"):time_in(), { idle = 305, user = 95, sys = 0 })

-- By table; entities without a group are left out; groups keep order.
local by_name = t:group({ cpu0 = "first", cpu1 = "second" })
check_eq("group by table: groups in order of first member",
    { by_name:entities()[1].name, by_name:entities()[2].name }, { "second", "first" })
check_eq("group of one is that entity", transitions(by_name, "first"), transitions(t, "cpu0"))
local only = t:group(function(e) if e.description then return e.description end end)
check_eq("group: nil leaves an entity out", #only:entities(), 1)
check_eq("group: named by description", only:entities()[1].name, "second CPU")
check_eq("group: numbers name groups", t:group(function() return 7 end):entities()[1].name, "7")
check("group leaves the original untouched", #t:entities() == 2 and t:entity("cpu0").transitions == 7)
check_error("group: a bad key", function() t:group(function() return {} end) end,
    'key of entity "cpu1" is a table')
check_error("group: an unknown state", function() t:group(function() return "a" end, { "nap" }) end,
    'no state "nap"')
check_error("group: not a function", function() t:group(5) end, "function or table expected")

-- The number of entities in some states, at the start and each change.
local function series(s)
	local out = {}
	for _, p in ipairs(s) do out[#out + 1] = p.count .. "@" .. p.time end
	return table.concat(out, " ")
end
check_eq("count_series over the trace", series(t:count_series({ "user" })),
    "0@0 1@100 0@160 1@200 2@220 1@300")
check_eq("count_series over a range", series(t:count_series({ "user" }, 150, 250)),
    "1@150 0@160 1@200 2@220")
check_eq("count_series of two states", series(t:count_series({ "user", "sys" }, "150ns", "230ns")),
    "2@150 1@160 2@210 1@215 2@220")
check_error("count_series: no states", function() t:count_series({}) end, "needs a list of states")
check_error("count_series: an unknown state", function() t:count_series({ "nap" }) end, 'no state "nap"')

-- Events, like intervals.
local evs = {}
for ev in t:events() do evs[#evs + 1] = ev end
check_eq("events: every event", evs, { { time = 310, entity = "cpu0", event = "wakeup", target = "cpu1" } })
local n = 0
for _ in t:events{ from = 311 } do n = n + 1 end
check_eq("events: from", n, 0)
n = 0
for _ in t:events{ entities = { t:entity("cpu1") } } do n = n + 1 end
check_eq("events: by entity", n, 0)
n = 0
for _ in t:events{ entities = { "cpu0" }, events = { "wakeup" }, to = "311ns" } do n = n + 1 end
check_eq("events: by entity, kind and range", n, 1)
check_error("events: bad filter", function() t:events{ events = "wakeup" } end, "events must be a list")
