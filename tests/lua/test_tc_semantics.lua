-- Tests for the state system's semantics as Trace Compass keeps them
-- (issue 37, seed 002): stacks started by a push, times outside the trace,
-- the builder's queries while building, null values counted as zero.
-- Every expected answer is worked out by hand in the comments.
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

-- 1. A push on an entity with no state starts its stack at depth 1
-- (pushAttribute on an empty stack), in a file and in a builder alike:
--   a: push run@1, push idle@3, pop@5: run [1,3), run+idle [3,5), run [5,9)
local header = '{"start": [0, 0], "states": {"idle": {"value": 0}, "run": {"value": 1}}}'
local path = write {
	header,
	'{"time": "1", "entity": "a", "push": 1}',
	'{"time": "3", "entity": "a", "push": 0}',
	'{"time": "5", "entity": "a", "pop": 0}',
	'{"time": "9", "entity": "b", "state": 0}',
}
local function stacks(t)
	local e, out = t:entity("a"), {}
	for _, x in ipairs { 0, 1, 2, 3, 4, 5, 8 } do
		local states = e:stack_at(x)
		out[#out + 1] = { x, states }
	end
	return out
end
local want = {
	{ 0, {} }, { 1, { "run" } }, { 2, { "run" } }, { 3, { "run", "idle" } }, { 4, { "run", "idle" } },
	{ 5, { "run" } }, { 8, { "run" } },
}
local loaded = sm.load(path)
check_eq("file: a push on no state starts the stack", stacks(loaded), want)
check_eq("file: it is a nested entity", loaded:entity("a").kind, "nested")
local b = sm.new { states = { "idle", "run" } }
b:push(1, "a", "run")
b:push(3, "a", "idle")
b:pop(5, "a", "idle")
b:set(9, "b", "idle")
local built = b:finish()
check_eq("builder: a push on no state starts the stack", stacks(built), want)
-- Popping the last state leaves no state (no data), as popAttribute
-- leaves null: a: push run@1, pop@2, push idle@4: run [1,2), nothing
-- [2,4), idle [4,9); nothing more to pop in between.
local function popped(t)
	local e = t:entity("a")
	local ivs = {}
	for iv in t:intervals { entities = { "a" } } do ivs[#ivs + 1] = { iv.state, iv.start, iv.finish, iv.depth } end
	return { (e:at(1)), (e:at(2)), (e:at(3)), (e:at(4)), #e:stack_at(3), ivs, e:time_in().run, e.kind }
end
local want_popped = { "run", nil, nil, "idle", 0, { { "run", 1, 2, 1 }, { "idle", 4, 9, 1 } }, 1, "nested" }
local b2 = sm.new { states = { "idle", "run" } }
b2:push(1, "a", "run")
b2:pop(2, "a")
check_error("builder: nothing to pop after the last", function() b2:pop(3, "a") end,
    'b:pop: entity "a" has no state (its data ended): nothing to pop')
check_error("builder: pop of a new entity", function() b2:pop(2, "z") end,
    'b:pop: entity "z" has nothing pushed')
b2:push(4, "a", "idle")
check_eq("builder: popping the last state leaves no data", popped(b2:finish(9)), want_popped)
local popfile = write { header, '{"time": "1", "entity": "a", "push": 1}',
	'{"time": "2", "entity": "a", "pop": 1}', '{"time": "4", "entity": "a", "push": 0}',
	'{"time": "9", "entity": "b", "state": 0}' }
check_eq("file: popping the last state leaves no data", popped(sm.load(popfile)), want_popped)
local ok, err = pcall(sm.load, write { header, '{"time": "1", "entity": "a", "push": 1}',
	'{"time": "2", "entity": "a", "pop": 1}', '{"time": "3", "entity": "a", "pop": 1}' })
check("file: nothing to pop after the last", not ok and err:find(':4:30: pop on entity "a", whose data have ended', 1,
    true), err)
-- Written and read back, an entity whose only push started its stack
-- stays nested.
local b3 = sm.new { states = { "idle", "run" } }
b3:push(1, "only", "run")
b3:set(4, "only", "idle")
local out = unit.tmpname(".out")
b3:finish():write(out)
local back = sm.load(out)
check_eq("written: a stack started by a push stays nested", { back:entity("only").kind, (back:entity("only"):at(2)) },
    { "nested", "run" })
os.remove(out)

-- 2. A time outside the trace is an error for single and full queries, as
-- TimeRangeException is; the end itself is inside (nothing has a state
-- there, the window being [begin, end)).  loaded covers [0, 9).
local va = sm.new { states = { "s" } }
va:value(2, "v", 5)
va:set(0, "st", "s")
local vt = va:finish(10)
for _, q in ipairs {
	{ "e:at", function(x) return loaded:entity("a"):at(x) end, loaded },
	{ "e:stack_at", function(x) return loaded:entity("a"):stack_at(x) end, loaded },
	{ "t:at", function(x) return loaded:at(x) end, loaded },
	{ "e:value_at", function(x) return vt:entity("v"):value_at(x) end, vt },
} do
	local name, f, tr = q[1], q[2], q[3]
	check_error(name .. ": after the end", function() f(tr.finish + 1) end,
	    name .. ": time " .. (tr.finish + 1) .. " ns is after the trace, which covers [0, " .. tr.finish .. ") ns")
	check(name .. ": at the end, no error", pcall(f, tr.finish))
	check(name .. ": at the start, no error", pcall(f, 0))
end
local sl = loaded:slice(2, 6)
check_error("e:at: before a slice", function() sl:entity("a"):at(1) end,
    "e:at: time 1 ns is before the trace, which covers [2, 6) ns")

-- 3. The builder answers while it is built (a state provider's queries):
--   a: idle@0, push run/t1@5;  c: +1@3 (from nothing: 1), +2.5@6 (3.5),
--   removed@8 (null);  s: "x"@1.  Current end: 6, then 8.
local qb = sm.new { states = { "idle", "run" } }
check_eq("b:current_end before any datum", qb:current_end(), 0)
qb:set(0, "a", "idle")
qb:push(5, "a", "run", "t1")
qb:declare("c", "number")
qb:increment(3, "c")
qb:increment(6, "c", 2.5)
qb:value(1, "s", "x")
check_eq("b:current_end", qb:current_end(), 6)
check_eq("b:at: a closed interval", { qb:at(4, "a") }, { "idle", nil, 0, 5 })
check_eq("b:at: the open one (top of the stack)", { qb:at(6, "a") }, { "run", "t1", 5 })
check_eq("b:at: before any datum", { qb:at(2, "c") }, {})
check_eq("b:at: incremented from nothing", { qb:at(4, "c") }, { 1, nil, 3, 6 })
check_eq("b:at: incremented by 2.5", { qb:at(6, "c") }, { 3.5, nil, 6 })
check_eq("b:at: a string value", { qb:at(6, "s") }, { "x", nil, 1 })
check_error("b:at: after the current end", function() qb:at(7, "a") end,
    "b:at: time 7 ns is after the builder's current end, 6 ns")
check_error("b:at: no such entity", function() qb:at(1, "zz") end, 'b:at: no entity "zz"')
check_eq("b:entity", { qb:entity("c"), qb:entity("a"), qb:entity("zz") },
    { { name = "c", kind = "values", count = 2 }, { name = "a", kind = "nested", count = 2 } })
qb:describe("d", "described only")
check_eq("b:entity: no data yet", qb:entity("d"), { name = "d", kind = "none", count = 0 })
check_error("b:increment: strings", function() qb:increment(7, "s") end,
    'b:increment: entity "s" has string values, so it cannot be incremented')
check_error("b:increment: states", function() qb:increment(7, "a") end, 'b:increment: entity "a" has states')
check_error("b:increment: not a number", function() qb:increment(7, "c", "x") end,
    "b:increment: the increment is a number, not string")
qb:remove(8, "c")
check_eq("b:remove: a value entity has no value from then on", { qb:at(8, "c") }, { nil, nil, 8 })
-- On a state entity, b:remove ends its data (removeAttribute): no state,
-- its whole stack gone; b:set(time, entity, nil) does the same.
qb:remove(9, "a")
check_eq("b:remove: a state entity has no state from then on", { qb:at(9, "a") }, {})
check_eq("b:remove: before it, the stack", { qb:at(8, "a") }, { "run", "t1", 5, 9 })
qb:set(10, "a", "idle")
qb:set(11, "a", nil)
check_eq("b:set nil: no state", { qb:at(11, "a") }, {})
check_error("b:set nil: no tag", function() qb:set(12, "a", nil, "t") end, "b:set: a nil state (no data) has no tag")
local qt = qb:finish()
check_eq("finished: the increments are values", { qt:entity("c"):value_at(7) }, { 3.5, 6, 8 })

-- 4. e:stats{nulls = "zero"}: the mean over the whole range with null
-- (and no value yet) counted as zero, as queryRangeAverage; "ignore" (the
-- default) over the time with a number.  By hand: 4@[2,4), null@[4,6),
-- 2@[6,10) in [0, 10): integral 16; ignore 16/6, zero 16/10.
local sb = sm.new { states = { "s" } }
sb:value(2, "v", 4)
sb:value(4, "v", nil)
sb:value(6, "v", 2)
local st = sb:finish(10)
local v = st:entity("v")
check_eq("stats: nulls ignored", v:stats(), { min = 2, max = 4, integral = 16, mean = 16 / 6 })
check_eq("stats: nulls as zero", v:stats { nulls = "zero" }, { min = 2, max = 4, integral = 16, mean = 1.6 })
check_eq("stats: as zero over [0, 3)", v:stats(0, 3, { nulls = "zero" }), { min = 4, max = 4, integral = 4, mean = 4 / 3 })
check_eq("stats: as zero, from and to in the table", v:stats { from = 0, to = 3, nulls = "zero" },
    v:stats(0, 3, { nulls = "zero" }))
check_eq("stats: as zero with no number in range", v:stats(4, 6, { nulls = "zero" }), { integral = 0, mean = 0 })
check_eq("stats: ignored with no number in range", v:stats(4, 6), nil)
check_error("stats: a bad choice", function() v:stats { nulls = "x" } end, 'e:stats: nulls must be "ignore" or "zero"')
check_error("stats: an unknown option", function() v:stats { null = "zero" } end, 'e:stats: unknown option "null"')

-- Both against a linear scan of a random counter with nulls (the values
-- are integers and halves, so every sum is exact).
local rb = sm.new { states = { "s" } }
local r, data, time = 12345, {}, 0
local function rnd(n)
	r = (r * 1103515245 + 12345) % 2147483648
	return r % n
end
for _ = 1, 3000 do
	time = time + 1 + rnd(20)
	local x = rnd(10) == 0 and nil or (rnd(200) - 100) / 2
	rb:value(time, "c", x)
	data[#data + 1] = { time, x }
end
local finish = time + 7
local rt = rb:finish(finish)
local function scan(from, to, zero)
	local integral, covered, mn, mx = 0, 0, nil, nil
	for i, d in ipairs(data) do
		local a, b = d[1], data[i + 1] and data[i + 1][1] or finish
		if a < from then a = from end
		if b > to then b = to end
		if b > a and d[2] ~= nil then
			integral = integral + d[2] * (b - a)
			covered = covered + (b - a)
			mn = (mn == nil or d[2] < mn) and d[2] or mn
			mx = (mx == nil or d[2] > mx) and d[2] or mx
		end
	end
	if zero then return { min = mn, max = mx, integral = integral, mean = integral / (to - from) } end
	if covered == 0 then return nil end
	return { min = mn, max = mx, integral = integral, mean = integral / covered }
end
local rc, ok_zero, ok_ignore, bad = rt:entity("c"), true, true, nil
for _ = 1, 200 do
	local a = rnd(finish)
	local b = a + 1 + rnd(finish - a)
	local got, want = rc:stats(a, b, { nulls = "zero" }), scan(a, b, true)
	if not unit.same(got, want) then ok_zero, bad = false, unit.show { a, b, got, want } end
	got, want = rc:stats(a, b), scan(a, b, false)
	if not unit.same(got, want) then ok_ignore, bad = false, unit.show { a, b, got, want } end
end
check("stats: nulls as zero equal a linear scan", ok_zero, bad)
check("stats: nulls ignored equal a linear scan", ok_ignore, bad)

-- 5. ".." in patterns and paths steps to the parent (getQuarks with "..").
-- Entities: CPUs, CPUs/2, CPUs/0/Status, CPUs/0/Current_thread,
-- CPUs/1/Current_thread, Threads/7, Threads/7/Status, and one whose name
-- holds a literal "..": odd/../x.
local tb = sm.new { states = { "s" } }
for _, n in ipairs { "CPUs/0/Status", "CPUs/0/Current_thread", "CPUs/1/Current_thread", "CPUs/2", "CPUs",
	"Threads/7/Status", "odd/../x", "Threads/7" } do
	tb:set(0, n, "s")
end
local tt = tb:finish(5)
local function names(p)
	local r = {}
	for _, e in ipairs(tt:entities(p)) do r[#r + 1] = e.name end
	return r
end
check_eq("..: the parents of every Status", names("**/Status/.."), { "Threads/7" })
check_eq("..: a node's parent", names("CPUs/0/.."), { "CPUs" })
check_eq("..: parents of a glob, deduplicated", names("CPUs/*/.."), { "CPUs" })
check_eq("..: two levels up", names("CPUs/*/*/../.."), { "CPUs" })
check_eq("..: then down again, only where the sibling is",
    names("*/*/Status/../Current_thread"), { "CPUs/0/Current_thread" })
check_eq("..: a parent that is only a prefix selects no entity", names("CPUs/*/Status/.."), {})
check_eq("..: the top's parent is the root, no entity", names("CPUs/.."), {})
check_eq("..: escaped, a literal component", names("odd/\\../x"), { "odd/../x" })
check_eq("..: t:stats takes the same patterns", tt:stats("CPUs/0/.."), {})
check_error("..: a pattern cannot start with it", function() tt:entities("../x") end,
    't:entities: bad pattern "../x": a pattern cannot start with ".."')
check_eq("..: t:children of a path with a parent step", tt:children("CPUs/0/.."),
    { "CPUs/0", "CPUs/1", "CPUs/2" })
check_eq("..: t:children up to the top", tt:children("CPUs/.."), { "CPUs", "Threads", "odd" })
check_eq("..: t:children of a name with a literal ..", tt:children("odd/.."), { "odd/../x" })
check_error("..: t:children above the top", function() tt:children("..") end, 't:children: no path ".."')
check_error("..: t:children through a missing node", function() tt:children("CPUs/9/..") end,
    't:children: no path "CPUs/9/.."')

-- 6. t:sample(times [, entities]): t:at at each time, in one call.
-- loaded: a run@[1,3) run+idle@[3,5) run@[5,9); b idle@9 (the end).
check_eq("t:sample: every entity", loaded:sample { 0, 4, 1, 8, 9 },
    { {}, { a = "idle" }, { a = "run" }, { a = "run" }, {} })
check_eq("t:sample: listed entities, by name or object", loaded:sample({ 4, 2 }, { "b", loaded:entity("a") }),
    { { a = "idle" }, { a = "run" } })
check_eq("t:sample: durations as times", loaded:sample { "4ns" }, { { a = "idle" } })
check_eq("t:sample: no times", loaded:sample {}, {})
check_eq("t:sample: values, nulls left out", vt:sample { 0, 1, 3, 10 }, { { st = "s" }, { st = "s" }, { st = "s", v = 5 }, {} })
check_error("t:sample: a time after the end", function() loaded:sample { 1, 10 } end,
    "t:sample: times: item 2, 10 ns, is after the trace, which covers [0, 9) ns")
check_error("t:sample: not a time", function() loaded:sample { 1, {} } end,
    "t:sample: times: item 2 is a table, not a time")
check_error("t:sample: an unknown entity", function() loaded:sample({ 1 }, { "zz" }) end, "zz")
-- Against t:at on the bulk trace of the random counter and a state trace
-- of many entities, at random times in any order.
local mb = sm.new { states = { "x", "y", "z" } }
local mt = 0
for _ = 1, 4000 do
	mt = mt + rnd(5)
	mb:set(mt, "e" .. rnd(50), ({ "x", "y", "z" })[1 + rnd(3)])
end
local mtr = mb:finish(mt + 3)
local probe = {}
for i = 1, 300 do probe[i] = rnd(mt + 4) end
local all, ok_all, ok_sel = mtr:sample(probe), true, true
local some = { "e1", "e7", "e49" }
local picked = mtr:sample(probe, some)
for i, x in ipairs(probe) do
	local want = mtr:at(x)
	if not unit.same(all[i], want) then ok_all = false end
	local w = {}
	for _, name in ipairs(some) do w[name] = want[name] end
	if not unit.same(picked[i], w) then ok_sel = false end
end
check("t:sample is t:at at every time", ok_all)
check("t:sample of listed entities is t:at's entries of them", ok_sel)

-- A stack a push started stays nested in every trace derived from it and
-- through the cache of loaded traces (the second load reads it back).
local cpath = write { header, '{"time": "1", "entity": "a", "push": 1}', '{"time": "3", "entity": "a", "state": 0}' }
for round = 1, 2 do
	local ct = sm.load(cpath)
	check_eq("nested kept, load " .. round, {
		ct:entity("a").kind, ct:map(function(s) return s end):entity("a").kind,
		ct:slice(2, 3):entity("a").kind, sm.merge { ct }:entities()[1].kind,
	}, { "nested", "nested", "nested", "nested" })
end
