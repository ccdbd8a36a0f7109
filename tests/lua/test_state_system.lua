-- Tests for the generic state system's queries (src/lua/lua_store.c,
-- lua_snapshot.c, lua_tree.c, lua_value_summary.c, lua_catalog.c):
-- value entities, nested states, the attribute tree, tag definitions.
-- The trace below is worked out by hand:
--   Threads/1/Status: idle@0 push run/t1@10 push io@20 pop@30 pop@40
--   mem/rss: 100@0 2.5@10 null@20 300@30;  name: "boot"@0 "up"@25
--   Threads/10/Status: run@0 idle@50;  Threads/2/Status: io@5
--   the trace ends at 50, the last datum.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

local function write(lines)
	local path = unit.tmpname(".out")
	local f = assert(io.open(path, "w"))
	f:write(table.concat(lines, "\n"), "\n")
	f:close()
	return path
end

local path = write {
	'{"start": [0, 0], "title": "sys", "states": {"idle": {"value": 0}, "run": {"value": 1}, "io": {"value": 2}}}',
	'{"entity": "Threads/1/Status", "description": "thread 1"}',
	'{"time": "0", "entity": "Threads/1/Status", "state": 0}',
	'{"time": "10", "entity": "Threads/1/Status", "push": 1, "tag": "t1"}',
	'{"state": 1, "tag": "t1", "pid": 42, "execname": "postgres"}',
	'{"time": "20", "entity": "Threads/1/Status", "push": "io"}',
	'{"time": "30", "entity": "Threads/1/Status", "pop": 2}',
	'{"time": "40", "entity": "Threads/1/Status", "pop": "run"}',
	'{"entity": "mem/rss", "type": "number"}',
	'{"time": "0", "entity": "mem/rss", "value": 100}',
	'{"time": "10", "entity": "mem/rss", "value": 2.5}',
	'{"time": "20", "entity": "mem/rss", "value": null}',
	'{"time": "30", "entity": "mem/rss", "value": 300}',
	'{"time": "0", "entity": "Threads/10/Status", "state": 1}',
	'{"time": "5", "entity": "Threads/2/Status", "state": 2}',
	'{"time": "0", "entity": "name", "value": "boot"}',
	'{"time": "25", "entity": "name", "value": "up"}',
	'{"time": "50", "entity": "Threads/10/Status", "state": 0}',
}
local t = sm.load(path)
os.remove(path)
check_eq("trace bounds", { t.begin, t.finish }, { 0, 50 })

-- kinds
local th = t:entity("Threads/1/Status")
local rss, name = t:entity("mem/rss"), t:entity("name")
check_eq("entity kinds", { th.kind, rss.kind, name.kind, t:entity("Threads/2/Status").kind },
    { "nested", "values", "values", "states" })

-- nested states: e:at is the top of the stack
check_eq("e:at of a nested entity is its top", { th:at(25) }, { "io", nil, 20, 30, nil })
check_eq("e:at gives the tag", { th:at(15) }, { "run", "t1", 10, 20 })
check_eq("e:at after the pops", { th:at(35) }, { "run", "t1", 30, 40 })
check_eq("t:at with intervals gives the tag's definition", t:at(15, { intervals = true })["Threads/1/Status"],
    { state = "run", tag = "t1", depth = 2, start = 10, finish = 20, tag_fields = { pid = 42, execname = "postgres" } })
check_eq("e:stack_at bottom first", { th:stack_at(25) }, { { "idle", "run", "io" }, { false, "t1", false } })
check_eq("e:stack_at at depth 1", { th:stack_at(45) }, { { "idle" }, { false } })
check_eq("e:stack_at before the first state", { t:entity("Threads/2/Status"):stack_at(1) }, { {}, {} })
check_eq("e:stack_at of a plain entity", { t:entity("Threads/2/Status"):stack_at(7) }, { { "io" }, { false } })
check_error("e:stack_at of a value entity", function() rss:stack_at(1) end,
    'e:stack_at: entity "mem/rss" holds values, not states')

-- values
check_eq("e:at of a value entity", { rss:at(15) }, { 2.5, nil, 10, 20 })
check_eq("e:value_at of a number", { rss:value_at(5) }, { 100, 0, 10 })
check("a declared numeric entity's numbers are floats, whole ones too", math.type(rss:value_at(5)) == "float")
check_eq("e:value_at of null", { rss:value_at(25) }, { nil, 20, 30 })
check_eq("the last value runs to the end", { rss:value_at(49) }, { 300, 30, 50 })
check_eq("e:value_at of a string", { name:value_at(30) }, { "up", 25, 50 })
check_eq("e:value_at at the end", { rss:value_at(50) }, {})
check_error("e:value_at of a state entity", function() th:value_at(1) end,
    'e:value_at: entity "Threads/1/Status" holds states, not values')

-- stats: 100 x 10 + 2.5 x 10 + 300 x 20 over the 40 ns with a number
check_eq("e:stats over the window", rss:stats(), { min = 2.5, max = 300, mean = 7025 / 40, integral = 7025 })
check_eq("e:stats over a range", rss:stats(5, 15), { min = 2.5, max = 100, mean = 51.25, integral = 512.5 })
check_eq("e:stats where only null", { rss:stats(21, 29) }, {})
check_eq("e:stats of strings", { name:stats() }, {})
check_eq("t:stats over a pattern", t:stats("mem/*", 5, 15),
    { ["mem/rss"] = { min = 2.5, max = 100, mean = 51.25, integral = 512.5 } })
check_eq("t:stats of every value entity", t:stats(), { ["mem/rss"] = rss:stats() })

-- the attribute tree
check_eq("t:children of the top", t:children(), { "Threads", "mem", "name" })
check_eq("t:children in natural order", t:children("Threads"), { "Threads/1", "Threads/2", "Threads/10" })
check_eq("t:children of a leaf", t:children("mem/rss"), {})
check_error("t:children of no path", function() t:children("Nope") end, 't:children: no path "Nope"')
local function names(es)
	local out = {}
	for i, e in ipairs(es) do out[i] = e.name end
	return out
end
check_eq("t:entities with a glob", names(t:entities("Threads/*/Status")),
    { "Threads/1/Status", "Threads/10/Status", "Threads/2/Status" })
check_eq("t:entities with **", names(t:entities("Threads/**")),
    { "Threads/1/Status", "Threads/10/Status", "Threads/2/Status" })
check_eq("t:entities with ** first", names(t:entities("**/rss")), { "mem/rss" })
check_eq("t:entities with ?", names(t:entities("Threads/?/Status")), { "Threads/1/Status", "Threads/2/Status" })
check_eq("t:entities with a set", names(t:entities("Threads/[!1]*/Status")), { "Threads/2/Status" })
check_eq("a star never crosses /", names(t:entities("*")), { "name" })

-- t:at with values, and with intervals
check_eq("t:at with values", t:at(25),
    { ["Threads/1/Status"] = "io", ["Threads/2/Status"] = "io", ["Threads/10/Status"] = "run", name = "up" })
check_eq("t:at with intervals", t:at(25, { intervals = true }), {
	["Threads/1/Status"] = { state = "io", depth = 3, start = 20, finish = 30 },
	["Threads/2/Status"] = { state = "io", depth = 1, start = 5, finish = 50 },
	["Threads/10/Status"] = { state = "run", depth = 1, start = 0, finish = 50 },
	["mem/rss"] = { start = 20, finish = 30 },
	name = { value = "up", start = 25, finish = 50 },
})

-- tag definitions
check_eq("t.tags", t.tags, { { state = "run", tag = "t1", defined = true, fields = { pid = 42, execname = "postgres" } } })

-- intervals carry depth, values and tag fields
local ivs = {}
for iv in t:intervals { entities = { "Threads/1/Status", "mem/rss" } } do ivs[#ivs + 1] = iv end
check_eq("intervals of a nested entity and a value entity", ivs, {
	{ entity = "Threads/1/Status", state = "idle", depth = 1, start = 0, finish = 10 },
	{ entity = "Threads/1/Status", state = "run", tag = "t1", depth = 2, start = 10, finish = 20,
	  tag_fields = { pid = 42, execname = "postgres" } },
	{ entity = "Threads/1/Status", state = "io", depth = 3, start = 20, finish = 30 },
	{ entity = "Threads/1/Status", state = "run", tag = "t1", depth = 2, start = 30, finish = 40,
	  tag_fields = { pid = 42, execname = "postgres" } },
	{ entity = "Threads/1/Status", state = "idle", depth = 1, start = 40, finish = 50 },
	{ entity = "mem/rss", value = 100, start = 0, finish = 10 },
	{ entity = "mem/rss", value = 2.5, start = 10, finish = 20 },
	{ entity = "mem/rss", start = 20, finish = 30 },
	{ entity = "mem/rss", value = 300, start = 30, finish = 50 },
})
local n = 0
for _ in t:intervals { states = { "io" } } do n = n + 1 end
check_eq("a states filter leaves values out", n, 2)

-- The summary against a linear scan: random counters (fixed seed), random
-- ranges, including ranges within one interval and beyond the ends.
math.randomseed(21)
local lines = { '{"start": [0, 0], "states": {"a": {"value": 0}}}',
	'{"entity": "c", "type": "number"}' }
local times, vals, time = {}, {}, 0
for i = 1, 5000 do
	time = time + math.random(0, 20)
	local v
	local r = math.random()
	if r < 0.05 then v = nil
	elseif r < 0.5 then v = math.random(-1000, 1000)
	else v = math.random() * 1e6 - 5e5 end
	times[i], vals[i] = time, v
	lines[#lines + 1] = string.format('{"time": "%d", "entity": "c", "value": %s}', time,
	    v == nil and "null" or (math.type(v) == "integer" and tostring(v) or string.format("%.17g", v)))
end
local endt = time + 7
lines[#lines + 1] = string.format('{"time": "%d", "entity": "x", "value": 0}', endt)
local rp = write(lines)
local rt = sm.load(rp)
os.remove(rp)
local c = rt:entity("c")
local function scan(a, b)
	local min, max, integral, covered = math.huge, -math.huge, 0, 0
	for i = 1, #times do
		local s, e = times[i], times[i + 1] or endt
		if s < a then s = a end
		if e > b then e = b end
		if e > s and vals[i] ~= nil then
			min, max = math.min(min, vals[i]), math.max(max, vals[i])
			integral, covered = integral + vals[i] * (e - s), covered + (e - s)
		end
	end
	if covered == 0 then return nil end
	return { min = min, max = max, integral = integral, mean = integral / covered }
end
local function close(x, y)
	if x == nil or y == nil then return x == y end
	for _, k in ipairs { "min", "max", "integral", "mean" } do
		if math.abs(x[k] - y[k]) > 1e-9 * math.max(1, math.abs(y[k]), math.abs(y.integral)) then
			return false
		end
	end
	return true
end
local bad = 0
for _ = 1, 2000 do
	local a = math.random(0, endt + 10)
	local b = a + (math.random() < 0.3 and math.random(1, 30) or math.random(1, endt))	-- from = to: an error
	if not close(c:stats(a, b), scan(a, b)) then bad = bad + 1 end
end
check_eq("e:stats from the summary agrees with a linear scan", bad, 0)
check("e:stats over the whole trace agrees", close(c:stats(), scan(0, endt)))

-- An integer entity's min and max are exact integers (beyond 2^53 too),
-- from the summary as from a linear scan; its mean and integral floats.
math.randomseed(22)
lines = { '{"start": [0, 0], "states": {"a": {"value": 0}}}' }
local ivals, itimes = {}, {}
time = 0
for i = 1, 3000 do
	time = time + math.random(0, 20)
	local r, v = math.random()
	if r < 0.05 then v = nil
	elseif r < 0.1 then v = math.random(math.mininteger, math.maxinteger)
	elseif r < 0.15 then v = 9007199254740993 + math.random(-3, 3)
	else v = math.random(-1000, 1000) end
	itimes[i], ivals[i] = time, v
	lines[#lines + 1] = string.format('{"time": "%d", "entity": "n", "value": %s}', time,
	    v == nil and "null" or tostring(v))
end
local iendt = time + 7
lines[#lines + 1] = string.format('{"time": "%d", "entity": "x", "value": 0}', iendt)
rp = write(lines)
local it = sm.load(rp)
os.remove(rp)
local ne = it:entity("n")
local function iscan(a, b)
	local min, max
	for i = 1, #itimes do
		local s, e = itimes[i], itimes[i + 1] or iendt
		if s < a then s = a end
		if e > b then e = b end
		if e > s and ivals[i] ~= nil then
			if min == nil or ivals[i] < min then min = ivals[i] end
			if max == nil or ivals[i] > max then max = ivals[i] end
		end
	end
	return min, max
end
bad = 0
local typed = true
for _ = 1, 2000 do
	local a = math.random(0, iendt + 5)
	local b = a + math.random(1, iendt)
	local s, min, max = ne:stats(a, b), iscan(a, b)
	if s == nil then
		if min ~= nil then bad = bad + 1 end
	else
		if s.min ~= min or s.max ~= max then bad = bad + 1 end
		if math.type(s.min) ~= "integer" or math.type(s.max) ~= "integer" or
		    math.type(s.mean) ~= "float" then typed = false end
	end
end
check_eq("e:stats of integers: exact min and max, as a linear scan", bad, 0)
check("e:stats of integers: integer min and max, float mean", typed)
for i = 1, #itimes do
	if ivals[i] ~= nil then
		local v = ne:value_at(itimes[i + 1] == itimes[i] and itimes[i] - 1 or itimes[i])
		if itimes[i + 1] ~= itimes[i] and (v ~= ivals[i] or math.type(v) ~= "integer") then
			bad = bad + 1
		end
	end
end
check_eq("e:value_at of integers: bit-exact Lua integers", bad, 0)
