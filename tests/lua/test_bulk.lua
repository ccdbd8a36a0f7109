-- Tests for the bulk queries kept in C: t:count_series' series
-- (src/lua/lua_count_series.c), t:columns and its arrays, t:reduce
-- (src/lua/lua_reduce.c, src/store/reduce.c) and t:at over every entity
-- (src/store/snapshot.c).  Each is checked against the slow path it stands for
-- (t:intervals, e:at, the count entity of t:count, t:time_in) on the
-- bundled traces, whole, sliced (views), mapped and kept; then the edges
-- and the errors.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local top = here .. "/../.."

local files = {
	top .. "/tests/golden/json-basic/input.out",
	top .. "/tests/golden/ref-merges-c2-tags/in0.out",
	top .. "/tests/golden/svg-escape/input.out",
	top .. "/examples/data/cpu.out",
	top .. "/examples/data/db-threads.out",
}
-- The examples in part (a few thousand intervals), so that the slow
-- paths stay quick under valgrind.
local windows = { [4] = { begin = "0.3s", duration = "0.15s" }, [5] = { begin = "0.8s", duration = "0.2s" } }

-- The slow path: t:intervals' tables, as columns of plain values.
local function slow_columns(t, opts)
	local c = { start = {}, finish = {}, duration = {}, entity = {}, state = {}, tag = {} }
	for iv in t:intervals(opts) do
		local n = #c.start + 1
		c.start[n], c.finish[n] = iv.start, iv.finish
		c.duration[n] = iv.finish - iv.start
		c.entity[n], c.state[n], c.tag[n] = iv.entity, iv.state, iv.tag or false
	end
	return c
end

-- The same from t:columns, names looked up through the arrays.
local function fast_columns(t, opts)
	local o = { "start", "finish", "duration", "entity", "state", "tag" }
	for k, v in pairs(opts) do o[k] = v end
	local s, f, d, e, st, tg = t:columns(o)
	local c = { start = s:table(), finish = f:table(), duration = d:table(),
	    entity = {}, state = {}, tag = {} }
	local en, sn, tn = e.names, st.names, tg.names
	for i = 1, #s do
		c.entity[i] = en[e[i]]
		c.state[i] = sn[st[i]]
		c.tag[i] = tg[i] ~= 0 and tn[tg[i]] or false
		assert(c.entity[i] == e:name(i) and c.state[i] == st:name(i))
	end
	return c, d
end

-- The slow path of t:reduce: sums over t:intervals by a function of one.
local function slow_reduce(t, opts, key)
	local r = {}
	for iv in t:intervals(opts) do
		local k = key(iv)
		if k ~= nil then
			local s = r[k] or { time = 0, count = 0 }
			s.time, s.count = s.time + iv.finish - iv.start, s.count + 1
			r[k] = s
		end
	end
	return r
end

local by_state = function(iv) return iv.state end
local by_entity = function(iv) return iv.entity end
local by_tag = function(iv) return iv.tag end

-- Times to ask about: the bounds, every transition of a few entities and
-- the times just before, in an order that goes back and forth.
local function probe_times(t)
	local times = { t.begin, t.finish, t.finish - 1, t.begin + 1 }
	local es = t:entities()
	for i = 1, math.min(#es, 3) do
		local n = 0
		for iv in t:intervals{ entities = { es[i] } } do
			times[#times + 1] = iv.start
			if iv.start > t.begin then times[#times + 1] = iv.start - 1 end
			n = n + 1
			if n > 60 then break end
		end
	end
	-- Far jumps both ways, then small steps backwards.
	local span = t.finish - t.begin
	for i = 0, 20 do times[#times + 1] = t.begin + (span * ((i * 7) % 21)) // 20 end
	for i = 10, 0, -1 do times[#times + 1] = t.begin + (span * i) // 10 end
	-- Random jumps, enough for t:at to make its index and use it.
	local r = 7
	for _ = 1, 300 do
		r = (r * 1103515245 + 12345) % 2147483648
		times[#times + 1] = t.begin + span * r // 2147483648
	end
	return times
end

local function slow_at(t, time)
	local r = {}
	for _, e in ipairs(t:entities()) do
		local state = e:at(time)
		if state then r[e.name] = state end
	end
	return r
end

-- The count entity's intervals over [from, to), as count_series was.
local function slow_series(t, states, from, to)
	local c = t:count(states, "bulk count")
	local r = {}
	for iv in c:intervals{ from = from, to = to } do
		r[#r + 1] = { time = iv.start, count = tonumber(iv.state) }
	end
	return r
end

local function check_trace(label, t)
	local es = t:entities()
	local states = {}
	for _, s in ipairs(t.states) do states[#states + 1] = s.name end
	local mid = t.begin + (t.finish - t.begin) // 3
	local late = t.begin + 2 * (t.finish - t.begin) // 3
	local selections = {
		{},
		{ from = mid, to = late },
		{ from = mid, to = mid + 1 },	-- (from = to is an error: an empty range)
		{ states = { states[1] } },
		{ entities = { es[#es], es[1] }, from = mid },
		{ entities = { es[1].name }, states = { states[#states] }, to = late },
		{ entities = {} },
		{ states = {}, from = mid },
		{ entities = { es[1], es[1] }, to = mid },
	}
	for i, opts in ipairs(selections) do
		local name = label .. " selection " .. i
		local want = slow_columns(t, opts)
		local got, d = fast_columns(t, opts)
		check_eq(name .. ": columns are the intervals' fields", got, want)
		local sum = 0
		for _, v in ipairs(want.duration) do sum = sum + v end
		check_eq(name .. ": duration sum", d:sum(), sum)
		if #want.duration > 0 then
			check_eq(name .. ": duration min, max", { d:min(), d:max() },
			    { math.min(table.unpack(want.duration)), math.max(table.unpack(want.duration)) })
		else
			check_eq(name .. ": empty min, max", { d:min(), d:max() }, {})
		end
		for by, key in pairs({ state = by_state, entity = by_entity, tag = by_tag }) do
			local o = { by = by }
			for k, v in pairs(opts) do o[k] = v end
			check_eq(name .. ": reduce by " .. by, t:reduce(o), slow_reduce(t, opts, key))
		end
	end
	-- reduce by state over everything is time_in.
	local ti = {}
	for k, v in pairs(t:reduce{ by = "state" }) do ti[k] = v.time end
	local want = t:time_in()
	for k, v in pairs(want) do if v == 0 then want[k] = nil end end
	check_eq(label .. ": reduce by state is time_in", ti, want)
	-- t:at over every entity, against e:at, in a back and forth order.
	local ok, bad, into, same = true, nil, {}, true
	for _, time in ipairs(probe_times(t)) do
		local want = slow_at(t, time)
		if not unit.same(t:at(time), want) then ok, bad = false, time; break end
		same = same and rawequal(t:at(time, into), into) and unit.same(into, want)
	end
	check(label .. ": t:at is e:at for every entity", ok, "differs at " .. tostring(bad))
	check(label .. ": t:at into a table, reused", same)
	-- count_series against the count entity, and count_at at each step.
	local counted = { states[1], states[#states] }
	for _, r in ipairs({ { nil, nil }, { mid, late }, { mid, mid + 1 } }) do	-- (mid, mid: an error)
		local s = t:count_series(counted, r[1], r[2])
		local name = label .. " count_series " .. tostring(r[1])
		check_eq(name .. ": steps", s:table(), slow_series(t, counted, r[1], r[2]))
		local each, steps = {}, {}
		for i, time, count in s:each() do each[i] = { time = time, count = count } end
		for i, p in ipairs(s) do steps[i] = p end
		check_eq(name .. ": each and ipairs", { each, steps }, { s:table(), s:table() })
		local good = true
		for i = 1, math.min(#s, 100) do
			local c = t:count_at(s:time(i))
			local n = 0
			for _, st in ipairs(counted) do n = n + c[st] end
			if n ~= s:count(i) or s:at(s:time(i)) ~= n then good = false end
		end
		check(name .. ": each step's count is count_at's", good)
		local st = s:stats()
		local want = t:count(counted, "c"):entity("c"):stats(r[1], r[2])
		check(name .. ": stats as the count entity's",
		    (st == nil and want == nil) or (st ~= nil and want ~= nil and st.min == want.min and
		    st.max == want.max and math.abs(st.mean - want.mean) <= 1e-9 * math.max(1, want.mean)),
		    unit.show(st) .. " vs " .. unit.show(want))
	end
end

for i, path in ipairs(files) do
	local t = sm.load(path, windows[i])
	local label = path:match("([^/]+/[^/]+)$")
	check_trace(label, t)
	local mid = t.begin + (t.finish - t.begin) // 2
	-- A slice at a transition time (a view of t's columns), its slice.
	local es = t:entities()
	local at
	for iv in t:intervals{ entities = { es[1] }, from = mid } do at = iv.start; break end
	at = at or mid
	local s = t:slice(at, t.finish)
	check_trace(label .. " sliced", s)
	check_trace(label .. " sliced twice", s:slice(at + 1, at + (t.finish - at) // 2 + 1))
	check_trace(label .. " mapped", t:map(function(state) return state == t.states[1].name and "first" or nil end))
	check_trace(label .. " kept", t:keep(function(e) return e.name == es[#es].name end))
end

-- By a tag field: a member of the tags' definitions.  In json-basic only
-- postgres is defined (pid 42); vim has no definition, untagged intervals
-- no tag: both are left out.
do
	local t = sm.load(files[1])
	check_eq("reduce by a tag field", t:reduce{ by = "pid" },
	    { [42] = { time = 60 + 100, count = 2 } })
	check_eq("reduce by a string tag field", t:reduce{ by = "execname" },
	    { postgres = { time = 160, count = 2 } })
	check_eq("reduce by field = a reserved name", t:reduce{ field = "state" }, {})
	check_eq("reduce by tag", t:reduce{ by = "tag" },
	    { postgres = { time = 160, count = 2 }, vim = { time = 180, count = 1 } })
	check_eq("reduce by a field in a window", t:reduce{ by = "pid", from = 150, to = 250 },
	    { [42] = { time = 10 + 50, count = 2 } })
	check_eq("reduce by an unknown field", t:reduce{ by = "nosuch" }, {})
end
do
	-- db-threads' I/O tags are "device:op", defined with those members.
	local t = sm.load(files[5])
	local want = slow_reduce(t, {}, function(iv)
		return iv.state == "off-cpu-io" and iv.tag and iv.tag:match("^(.-):") or nil
	end)
	check_eq("reduce by device", t:reduce{ by = "device" }, want)
	local want_op = slow_reduce(t, { from = "0.5s", to = "1.5s" }, function(iv)
		return iv.state == "off-cpu-io" and iv.tag and iv.tag:match(":(.*)$") or nil
	end)
	check_eq("reduce by op in a window", t:reduce{ by = "op", from = "0.5s", to = "1.5s" }, want_op)
end

-- Edges: empty windows, windows outside the trace, entities with no
-- transitions in the window.
do
	local t = sm.load(files[1])
	check_error("columns over an empty window: an error", function() return t:columns{ "start", from = 100, to = 100 } end,
	    "columns: the range from 100ns to 100ns is empty")
	check_error("columns with from after to: an error", function() return t:columns{ "start", from = 300, to = 100 } end,
	    "columns: the range from 300ns to 100ns is reversed")
	local s = t:columns{ "start", from = 400, to = 900 }
	check_eq("columns past the end", { #s, s:sum(), s:min(), s[1], s:table() }, { 0, 0, nil, nil, {} })
	check_error("reduce over an empty window: an error", function() return t:reduce{ by = "state", from = 5, to = 5 } end,
	    "reduce: the range from 5ns to 5ns is empty")
	local st, d = t:columns{ "state", "duration", from = 380, to = 1000 }
	check_eq("columns clipped to the trace", { st:table(), d:table(), st.names[st[1]] }, { { 1, 2 }, { 20, 20 }, "idle" })
	local a, b = t:columns{ "duration", "duration" }
	check("a column asked twice is one array", rawequal(a, b))
	check_eq("array fields", { a.column, tostring(a), a[0], a[#a + 1] }, { "duration", "<array duration: 10 values>", nil, nil })
	check_eq("a times array has no names", a.names, nil)
	local tg = t:columns{ "tag" }
	check_eq("an untagged interval's tag is 0, its name nil", { tg[1], tg:name(1) }, { 0, nil })
	-- A slice with no transition of an entity inside it still has the
	-- interval that covers it.
	local sl = t:slice(230, 240)
	check_eq("slice: an interval that began before", sl:reduce{ by = "entity" },
	    { cpu0 = { time = 10, count = 1 }, cpu1 = { time = 10, count = 1 } })
	check_eq("slice at: in, at the end", { sl:at(230), sl:at(240) },
	    { { cpu0 = "user", cpu1 = "user" }, {} })
	check_error("slice at: a time before it is an error", function() sl:at(229) end,
	    "t:at: time 229 ns is before the trace, which covers [230, 240) ns")
	check_error("at: a time after the end is an error", function() t:at(401) end,
	    "t:at: time 401 ns is after the trace")
	check_eq("at past the end", t:at(400), {})
	local r = { cpu0 = "stale", cpu7 = "stale", other = 1 }
	check_eq("at into: entities without a state cleared, other keys kept",
	    t:at(400, r), { cpu7 = "stale", other = 1 })
	check_eq("at into: filled", t:at(150, r), { cpu0 = "user", cpu1 = "sys", cpu7 = "stale", other = 1 })
	check_eq("at: an entity with no state yet", sm.load(files[2]):at(0) ~= nil, true)
	-- The arrays keep their trace alive: names still work after it goes.
	local e = t:columns{ "entity" }
	t = nil
	collectgarbage(); collectgarbage()
	check_eq("an array keeps its trace", e:name(1), "cpu1")
end

-- Errors name the call and what is wrong.
do
	local t = sm.load(files[1])
	check_error("columns: none named", function() t:columns{} end, "columns: name the columns to return")
	check_error("columns: no options", function() t:columns() end, "columns: name the columns to return")
	check_error("columns: an unknown column", function() t:columns{ "begin" } end,
	    'columns: no column "begin" (columns are start, finish, duration, entity, state, tag)')
	check_error("columns: a column that is not a string", function() t:columns{ 3 } end, "columns: no column")
	check_error("columns: a misspelt option", function() t:columns{ "start", form = 3 } end,
	    'columns: unknown option "form" (did you mean "from"?); options are: from, to, entities, states')
	check_error("columns: a bad time", function() t:columns{ "start", from = "soon" } end, 'bad time "soon"')
	check_error("columns: an unknown state", function() t:columns{ "start", states = { "nap" } } end, 'no state "nap"')
	check_error("columns: an unknown entity", function() t:columns{ "start", entities = { "cpu9" } } end, 'cpu9')
	check_error("columns: entities not a list", function() t:columns{ "start", entities = "cpu0" } end,
	    "columns: entities must be a list")
	check_error("reduce: by required", function() t:reduce{} end, "reduce: by is required")
	check_error("reduce: by and field", function() t:reduce{ by = "state", field = "pid" } end, "reduce: give by or field, not both")
	check_error("reduce: by not a string", function() t:reduce{ by = 1 } end, "reduce: by must be a string, not 1")
	check_error("reduce: a misspelt option", function() t:reduce{ by = "state", too = 3 } end,
	    'reduce: unknown option "too" (did you mean "to"?); options are: from, to, entities, states, by, field')
	check_error("reduce: positional options", function() t:reduce{ "state" } end, "reduce: options are named")
	local a = t:columns{ "start" }
	check_error("array: a float index", function() return a[1.5] end, "index (an integer)")
	check_error("array: names of times", function() a:name(1) end, "a start array holds times")
	check_error("at: a bad time", function() t:at(-1) end, "time (ns as a non-negative integer")
	check_error("at: into not a table", function() t:at(0, "r") end, "table expected, got string")
	local s = t:count_series({ "user" })
	check_error("series: a float step", function() return s[1.5] end, "step number (an integer)")
end

-- A slice is a view of its source's columns: it keeps them alive when the
-- source is collected first, as do slices of slices and slices of maps.
do
	local t = sm.load(files[1])
	local want_at, want_red = t:at(230), t:reduce{ by = "state", from = 220, to = 300 }
	local s = t:slice(220, 300)
	local ss = s:slice(225, 260)
	local m = t:map(function(state) return state == "idle" and "rest" or nil end):slice(100, 300)
	t = nil
	collectgarbage(); collectgarbage()
	check_eq("a slice outlives its source", { s:at(230), s:reduce{ by = "state" }, s.transitions },
	    { want_at, want_red, 4 })
	check_eq("a slice of a slice outlives both", { ss:at(230), #ss:columns{ "start" } }, { want_at, 2 })
	check_eq("a slice of a map outlives the map", m:reduce{ by = "state", from = 160, to = 215 },
	    { rest = { time = 50, count = 1 }, sys = { time = 5 + 40, count = 2 }, user = { time = 15, count = 1 } })
	s = nil
	collectgarbage(); collectgarbage()
	check_eq("a slice of a slice outlives its parent slice", ss:reduce{ by = "entity" },
	    { cpu0 = { time = 35, count = 1 }, cpu1 = { time = 35, count = 1 } })
end

-- Arrays and series count against --memory-limit: kept, they stop the
-- script with the limit's error; dropped, the collector frees them.
do
	local SM = os.getenv("SM") or (top .. "/statemap-lua")
	local function run(code)
		local p = io.popen("'" .. SM .. "' --memory-limit 64M --no-cache -E '" .. code .. "' '" ..
		    files[5] .. "' 2>&1")
		local out = p:read("a")
		return out, p:close()
	end
	local out, ok = run('local a = {} for i = 1, 1000 do a[i] = t:columns{"start", "finish", "duration"} end')
	check("kept arrays reach the memory limit", not ok and out:find("memory limit of 64 MB", 1, true) ~= nil, out)
	out, ok = run('local a = {} for i = 1, 1000 do a[i] = t:count_series({"on-cpu"}) end')
	check("kept series reach the memory limit", not ok and out:find("memory limit of 64 MB", 1, true) ~= nil, out)
	out, ok = run('for i = 1, 1000 do local a = t:columns{"start", "finish", "duration"} end print("done")')
	check("arrays dropped are freed", ok and out == "done\n", out)
end

-- t:at of a trace with values: each value entity's value found from where
-- the last call left it (snapshot.c), as e:at gives it, numbers, strings
-- and nil (no value: left out), beside state entities; whole and sliced.
do
	local b = sm.new { states = { idle = { value = 0 }, run = { value = 1 } } }
	local r = 11
	local function rnd(n)
		r = (r * 1103515245 + 12345) % 2147483648
		return r % n
	end
	for i = 1, 40 do
		local time = rnd(50)
		-- Numbers of both kinds (integers and quarters) on one entity.
		if i % 4 ~= 0 then b:declare("v" .. i, "number") end
		for j = 1, 300 do
			local k = rnd(10)
			local v = k == 0 and nil or i % 4 == 0 and ("s" .. k) or k < 5 and (j * 0.25) or j
			b:value(time, "v" .. i, v)
			time = time + 1 + rnd(i % 3 == 0 and 200 or 20)
		end
	end
	for i = 1, 10 do
		local time = rnd(100)
		for j = 1, 200 do
			b:set(time, "st" .. i, j % 2 == 0 and "idle" or "run")
			time = time + 1 + rnd(50)
		end
	end
	local t = b:finish(8000)
	for _, c in ipairs({ { "values", t }, { "values sliced", t:slice(1234, 5678) } }) do
		local ok, bad = true, nil
		for _, time in ipairs(probe_times(c[2])) do
			if not unit.same(c[2]:at(time), slow_at(c[2], time)) then ok, bad = false, time; break end
		end
		check("t:at of " .. c[1] .. " is e:at for every entity", ok, "differs at " .. tostring(bad))
	end
end
