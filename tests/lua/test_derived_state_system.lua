-- Traces derived from one with values and nested states (src/trace/transform.c,
-- src/trace/merge_traces.c, store_view and store_append_depth in
-- src/store/store_view.c and store_append.c):
-- t:slice, t:keep, t:map, t:shift and statemap.merge keep value entities
-- and stacks, so that their queries answer as the source's do; t:write of
-- each reads back to the same answers.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq = unit.check, unit.check_eq

-- The first place two values differ, or nil (answers are long lists).
local function differ(x, y, where)
	if type(x) ~= "table" or type(y) ~= "table" then
		if x ~= y then return where .. ": " .. tostring(x) .. " vs " .. tostring(y) end
		return nil
	end
	for k, v in pairs(x) do
		local d = differ(v, y[k], where .. "." .. tostring(k))
		if d then return d end
	end
	for k in pairs(y) do
		if x[k] == nil then return where .. "." .. tostring(k) .. ": missing" end
	end
	return nil
end
local function check_same(name, got, want)
	local d = differ(got, want, "")
	check(name, d == nil, d)
end

-- A trace of nested threads, number and string values, built from a fixed
-- sequence of pseudo-random calls (a small LCG: the same every run).
local seed = 12345
local function rand(n)
	seed = (seed * 1103515245 + 12345) % 2147483648
	return seed % n
end

local function build(host)
	local b = sm.new { title = "derived", host = host, start = { 1700000000, 0 },
		states = { "idle", "run", "io", "lock" } }
	local names = { "idle", "run", "io", "lock" }
	local depth = {}
	for i = 1, 3 do
		local e = "proc/1/t" .. i
		b:set(0, e, "idle")
		depth[e] = 1
	end
	b:declare("mem/rss", "number")
	b:value(0, "mem/rss", 100)
	b:value(0, "proc/1/name", "init")
	local time = 0
	for _ = 1, 600 do
		time = time + 1 + rand(20)
		local r = rand(10)
		local e = "proc/1/t" .. (1 + rand(3))
		if r < 4 and depth[e] < 6 then
			b:push(time, e, names[1 + rand(4)], rand(3) == 0 and "k" .. rand(3) or nil)
			depth[e] = depth[e] + 1
		elseif r < 7 and depth[e] > 1 then
			b:pop(time, e)
			depth[e] = depth[e] - 1
		elseif r == 7 then
			b:set(time, e, names[1 + rand(4)])
			depth[e] = 1
		elseif r == 8 then
			b:value(time, "mem/rss", rand(7) == 0 and nil or (rand(1000) - 300) / 4)
		else
			b:value(time, "proc/1/name", ({ "init", "run", "stop" })[1 + rand(3)])
		end
	end
	return b:finish(time + 10)
end

local t = build("h1")
local last = t.finish

-- What a script sees of entity name at times from..to-1 in trace d, with
-- each state passed through rename (a function, or nil).
local function answers(d, name, from, to, rename)
	local e = d:entity(name)
	local out = { kind = e.kind }
	rename = rename or function(s) return s end
	for x = from, to - 1, 3 do
		if e.kind == "values" then
			out[#out + 1] = (e:value_at(x))
		else
			local states, tags = e:stack_at(x)
			local mapped = {}
			for i, s in ipairs(states or {}) do mapped[i] = rename(s) end
			out[#out + 1] = { mapped, tags }
		end
	end
	if e.kind == "values" then
		for k = 0, 5 do
			local a = from + k * (to - from) // 7
			local s = e:stats(a, math.min(to, a + (to - from) // 3))
			out[#out + 1] = s and { s.min, s.max, s.integral } or false
		end
	end
	return out
end

local names = { "proc/1/t1", "proc/1/t2", "proc/1/t3", "mem/rss", "proc/1/name" }
local function same_as_source(what, d, from, to, rename, name_in)
	for _, n in ipairs(names) do
		check_same(what .. ": " .. n, answers(d, name_in and name_in(n) or n, from, to),
		    answers(t, n, from, to, rename))
	end
end

check_eq("the source has nested and value entities",
    { t:entity("proc/1/t1").kind, t:entity("mem/rss").kind, t:entity("proc/1/name").kind },
    { "nested", "values", "values" })

-- ---- slice ----
local a, b = last // 3, 2 * last // 3
local s = t:slice(a, b)
same_as_source("slice", s, a, b)
same_as_source("slice of a slice", s:slice(a + 7, b - 9), a + 7, b - 9)

-- ---- keep ----
same_as_source("keep", t:keep(function() return true end), 0, last)
local kept = t:keep("^proc/1/t2$|^mem")
check_eq("keep: the entities kept", #kept:entities(), 2)
check_same("keep: a stack", answers(kept, "proc/1/t2", 0, last), answers(t, "proc/1/t2", 0, last))
check_same("keep: a value", answers(kept, "mem/rss", 0, last), answers(t, "mem/rss", 0, last))
same_as_source("keep of a slice", s:keep(function() return true end), a, b)

-- ---- map ----
local upper = t:map(function(state) return state:upper() end)
same_as_source("map: each frame mapped", upper, 0, last, string.upper)
same_as_source("map of a slice", s:map(function(state) return state:upper() end), a, b,
    string.upper)
-- A map that makes two states one keeps the stack's shape all the same.
local merged = t:map(function(state) return (state == "io" or state == "lock") and "wait" or nil end)
same_as_source("map: two states one", merged, 0, last,
    function(x) return (x == "io" or x == "lock") and "wait" or x end)

-- ---- shift ----
local shifted = t:shift(-1000000000)
check_eq("shift: the start moved", shifted.start, t.start - 1000000000)
same_as_source("shift", shifted, 0, last)

-- ---- merge ----
local m, prefixes = sm.merge { t, s }
check_eq("merge: the prefixes", prefixes, { "#1", "#2" })
same_as_source("merge: the first input", m, 0, last, nil, function(n) return "#1/" .. n end)
-- The second is the slice, its own window [a, b): the merged trace
-- holds its data before a too, which a copy of it would not: compare
-- over the slice's window only.
for _, n in ipairs(names) do
	check_same("merge: the sliced input: " .. n, answers(m:slice(a, b), "#2/" .. n, a, b),
	    answers(t, n, a, b))
end

-- ---- write ----
local function round_trip(what, d, from, to, rename, name_in)
	local path = unit.tmpname(".out")
	d:write(path)
	local back = sm.load(path, { cache = false })
	os.remove(path)
	same_as_source(what, back, from, to, rename, name_in)
end
round_trip("t:write of a keep", t:keep(function() return true end), 0, last)
round_trip("t:write of a map", upper, 0, last, string.upper)
round_trip("t:write of a slice", s, a, b)
round_trip("t:write of a merge", m, 0, last, nil, function(n) return "#1/" .. n end)
round_trip("t:write of a shift", shifted, 0, last)

-- ---- group and count: over states ----
local g = t:group(function(e) return e.name:match("^proc/") and "proc" or "other" end)
check_eq("group: value entities add no state to a group", { g:entity("other"):at(5) }, {})
check_eq("group: a nested member counts by its top state", (g:entity("proc"):at(last - 1)) ~= nil, true)
local c = t:count({ "run" }, "running")
check(c:entity("running") ~= nil and "count over the nested entities' top states", true)
