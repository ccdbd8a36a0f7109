-- bench/bulk.lua TRACE: the bulk Lua queries of make bench, each timed
-- within one process against the slow path it replaces, printed as
-- ratios measured in this run (the machine's speed drifts between runs;
-- within one it is the same for both sides):
--   count_series     vs t:count over the same states (one C sweep each)
--   ipairs(series)   the old way of reading a count_series, per step
--   columns          t:columns{"state", "duration"} vs iterating t:intervals
--   reduce           t:reduce{by = "state"} vs summing t:intervals by state
--   at               t:at(time) over every entity, in microseconds a call:
--                    stepping through the trace (new table, or one table
--                    refilled), at random times; against e:at per entity
--   sample           t:sample(times) over every entity and over ten, in
--                    (time, entity) answers a second, against t:at and
--                    e:at called for each time (paired, in this run)
--   slice            a 1 ms slice: time, transitions and RSS it adds
-- Each line: name, seconds (or µs), a rate, the ratio and its goal.
local sm = require "statemap"
local path = arg[1]
local t = sm.load(path)
local clock = os.clock

local function rss_mb()
	local f = io.open("/proc/self/status")
	if not f then return 0 end
	local kb = f:read("a"):match("VmRSS:%s*(%d+)")
	f:close()
	return tonumber(kb) / 1024
end

local function time(f)
	local t0 = clock()
	local r = f()
	return clock() - t0, r
end

local function row(name, seconds, rate, note)
	print(string.format("  %-34s %10.4f %14s  %s", name, seconds, rate, note))
end

local states = { t.states[1].name }
local span = t.finish - t.begin

-- count_series against t:count: the same sweep, kept as a series.
collectgarbage(); collectgarbage()
local heap0, rss0 = collectgarbage("count"), rss_mb()
local cs_s, series = time(function() return t:count_series(states) end)
local heap, rss = collectgarbage("count") - heap0, rss_mb() - rss0
local count_s = time(function() return t:count(states, "n") end)
row("count_series", cs_s, string.format("%d steps", #series),
    string.format("x t:count %.2f; Lua heap +%.1f MB, RSS +%.1f MB (goal <= 0.2 s, <= 50 MB)",
    cs_s / count_s, heap / 1024, rss))
local ip_s = time(function()
	local n = 0
	for _, p in ipairs(series) do n = n + p.count end
	return n
end)
local each_s = time(function()
	local n = 0
	for _, _, c in series:each() do n = n + c end
	return n
end)
row("  ipairs(series) (a table a step)", ip_s, string.format("%.0f ns/step", ip_s / #series * 1e9),
    string.format("x s:each() %.1f", ip_s / each_s))
series = nil
collectgarbage()

-- columns and reduce against iterating t:intervals.
local iv_s, n = time(function()
	local n, sum = 0, 0
	for iv in t:intervals{} do n = n + 1; sum = sum + (iv.finish - iv.start) end
	return n
end)
row("t:intervals iteration", iv_s, string.format("%.1f M/s", n / iv_s / 1e6),
    string.format("%.0f ns/interval", iv_s / n * 1e9))
local col_s = time(function()
	local st, d = t:columns{ "state", "duration" }
	return d:sum()
end)
row("t:columns{state, duration} + sum", col_s, string.format("%.1f M/s", n / col_s / 1e6),
    string.format("x intervals %.3f (goal >= 50 M/s)", col_s / iv_s))
local red_s = time(function() return t:reduce{ by = "state" } end)
row("t:reduce{by = state}", red_s, string.format("%.1f M/s", n / red_s / 1e6),
    string.format("x intervals %.3f (goal >= 50 M/s)", red_s / iv_s))
local red_e = time(function() return t:reduce{ by = "entity" } end)
row("t:reduce{by = entity}", red_e, string.format("%.1f M/s", n / red_e / 1e6), "")
collectgarbage(); collectgarbage()

-- t:at over every entity: many calls, stepping through the trace, then
-- at random times; e:at over every entity, the slow path.
local ncalls = 2000
local es = t:entities()
local at_step = time(function()
	for i = 1, ncalls do t:at(t.begin + span * i // (ncalls + 1)) end
end)
local into = {}
local at_into = time(function()
	for i = 1, ncalls do t:at(t.begin + span * i // (ncalls + 1), into) end
end)
local rnd = 12345
local at_rand = time(function()
	for _ = 1, ncalls do
		rnd = (rnd * 1103515245 + 12345) % 2147483648
		t:at(t.begin + math.floor(span * (rnd / 2147483648)))
	end
end)
local e_at = time(function()
	for i = 1, 20 do
		local tm = t.begin + span * i // 21
		for _, e in ipairs(es) do e:at(tm) end
	end
end) / 20
row("t:at stepping (" .. #es .. " entities)", at_step / ncalls * 1e6, "µs/call",
    string.format("x e:at loop %.3f (goal <= 50 µs)", at_step / ncalls / e_at))
row("t:at stepping, into one table", at_into / ncalls * 1e6, "µs/call",
    string.format("x e:at loop %.3f", at_into / ncalls / e_at))
local nfine = 20000
local at_fine = time(function()
	for i = 1, nfine do t:at(t.begin + span * i // (nfine + 1)) end
end)
local at_fine_into = time(function()
	for i = 1, nfine do t:at(t.begin + span * i // (nfine + 1), into) end
end)
row("t:at, 10 times finer steps", at_fine / nfine * 1e6, "µs/call",
    string.format("x e:at loop %.3f", at_fine / nfine / e_at))
row("t:at, finer steps, into one table", at_fine_into / nfine * 1e6, "µs/call",
    string.format("x e:at loop %.3f", at_fine_into / nfine / e_at))
row("t:at at random times", at_rand / ncalls * 1e6, "µs/call",
    string.format("x e:at loop %.3f", at_rand / ncalls / e_at))

-- t:sample: full queries at a list of times in one call, against t:at
-- called for each time, interleaved three times (the median of each);
-- then ten entities listed, against e:at for each.  Rates in (time,
-- entity) answers a second: every entity with a state counts one.
local function median3(f)
	local a, b, c = f(), f(), f()
	return math.max(math.min(a, b), math.min(math.max(a, b), c))
end
local stimes = {}
for i = 1, ncalls do stimes[i] = t.begin + span * i // (ncalls + 1) end
local answers = 0
for _, r in ipairs(t:sample(stimes)) do for _ in pairs(r) do answers = answers + 1 end end
local sample_s, loop_s = {}, {}
for k = 1, 3 do
	collectgarbage()
	sample_s[k] = time(function() return t:sample(stimes) end)
	collectgarbage()
	loop_s[k] = time(function()
		local out = {}
		for i, x in ipairs(stimes) do out[i] = t:at(x) end
		return out
	end)
end
local smed = median3(function() return table.remove(sample_s) end)
local lmed = median3(function() return table.remove(loop_s) end)
row("t:sample, " .. ncalls .. " times, every entity", smed,
    string.format("%.1f M/s", answers / smed / 1e6),
    string.format("x t:at loop %.3f (goal >= 1 M answers/s)", smed / lmed))
local ten = {}
for i = 1, math.min(10, #es) do ten[i] = es[i * #es // math.min(10, #es)] end
local ften = time(function() return t:sample(stimes, ten) end)
local eten = time(function()
	local out = {}
	for i, x in ipairs(stimes) do
		local r = {}
		for _, e in ipairs(ten) do r[e.name] = e:at(x) end
		out[i] = r
	end
	return out
end)
row("t:sample, " .. ncalls .. " times, 10 entities", ften,
    string.format("%.1f M/s", ncalls * #ten / ften / 1e6),
    string.format("x e:at loop %.3f", ften / eten))
collectgarbage()

-- A 1 ms slice in the middle: a view of t's columns.
collectgarbage(); collectgarbage()
local rss0 = rss_mb()
local mid = t.begin + span // 2
local sl_s, sl = time(function() return t:slice(mid, mid + 1000000) end)
row("t:slice 1 ms", sl_s * 1e3, "ms",
    string.format("%d of %d transitions; RSS +%.1f MB", sl.transitions, t.transitions, rss_mb() - rss0))
