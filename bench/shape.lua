-- bench/shape.lua TRACE: the in-process goals of make bench on one trace
-- (bench/shapes runs it once per shape, the cache warm), each timed in
-- this process: one "key value" line per figure.
--   transitions, entities, states   what the trace holds
--   cs_first        t:count_series({first state}) over the whole trace,
--                   the trace's columns already read once (warm), s
--   cs_second       the same call again in this process, s
--   cs_whole        the same, the fastest of three more calls, each
--                   after a collection (as cs_quarter is timed)
--   cs_steps        its steps
--   cs_quarter      the same states over the trace's first quarter of
--                   transitions (a range of its own), the fastest of
--                   three calls, s, and
--   cs_quarter_tr   the transitions in that range: cs_whole / cs_quarter
--                   against transitions / cs_quarter_tr says whether the
--                   sweep is linear in them
--   cs_rss_mb       resident memory the first call added, MB
--   at_calls        how many calls a round of t:at below makes: 2000,
--                   fewer above 1000 entities (2 million entity answers
--                   a round, at least 100 calls)
--   at_first_us     t:at(time) at random times (a fixed seed), µs a call
--                   over the first two rounds of the process: while t:at
--                   learns that the times jump (40 calls) and makes its
--                   index, once far searches have cost as much (within
--                   the first round on most shapes, in the second on a
--                   trace of few long columns)
--   at_random_us    t:at(time) at random times, the median of three
--                   rounds after those, µs a call: what a call costs once
--                   the index is made (the goal); the script holds the
--                   trace and no entity objects then
--   at_step_us      t:at stepping through the trace in a round's calls,
--                   µs
-- A trace of values alone has no states to count: cs_* are "-".
local sm = require "statemap"
local t = sm.load(arg[1])
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

local function out(k, v)
	if math.type(v) == "float" then
		print(string.format("%s %.6f", k, v))
	else
		print(k .. " " .. tostring(v))
	end
end

local span = t.finish - t.begin
out("transitions", t.transitions)
out("entities", #t:entities())
out("kind", t:entities()[1].kind)
out("states", #t.states)
-- Every column read once: what follows is warm.
t:time_in()

local es = t:entities()
local states_kept = 0
for _, e in ipairs(es) do
	if e.kind ~= "values" then states_kept = states_kept + e.transitions end
end
if #t.states > 0 and states_kept > 0 then
	local states = { t.states[1].name }
	-- The time by which a quarter of the transitions have happened: the
	-- count of a slice is its transitions.
	local lo, hi = t.begin, t.finish
	for _ = 1, 40 do
		local mid = lo + (hi - lo) // 2
		if t:slice(t.begin, mid).transitions < t.transitions // 4 then
			lo = mid
		else
			hi = mid
		end
	end
	local q_tr = t:slice(t.begin, hi).transitions
	collectgarbage(); collectgarbage()
	-- The fastest of three: a call of a few ms is at the mercy of a busy
	-- machine.
	local q_s = math.huge
	for _ = 1, 3 do
		q_s = math.min(q_s, (time(function()
		    return t:count_series(states, t.begin, hi) end)))
	end
	collectgarbage(); collectgarbage()
	local rss0 = rss_mb()
	local first, s1 = time(function() return t:count_series(states) end)
	local rss = rss_mb() - rss0
	local steps = #s1
	local second, s2 = time(function() return t:count_series(states) end)
	assert(#s1 == #s2 and s1:count(#s1) == s2:count(#s2))
	s1, s2 = nil, nil
	-- For linearity, the whole range as the quarter was timed: the
	-- fastest of three, each after a collection, so that both sides
	-- write their steps into memory freed before, not memory the
	-- kernel must first map (the first two calls' series are new
	-- memory, 32 MB for 10 M transitions; the quarter's a quarter).
	local whole_s = math.huge
	for _ = 1, 3 do
		collectgarbage(); collectgarbage()
		whole_s = math.min(whole_s, (time(function()
		    return t:count_series(states) end)))
	end
	out("cs_first", first)
	out("cs_second", second)
	out("cs_whole", whole_s)
	out("cs_steps", steps)
	out("cs_quarter", q_s)
	out("cs_quarter_tr", q_tr)
	out("cs_rss_mb", rss)
	collectgarbage(); collectgarbage()
else
	for _, k in ipairs{ "cs_first", "cs_second", "cs_whole", "cs_steps",
	    "cs_quarter", "cs_quarter_tr", "cs_rss_mb" } do out(k, "-") end
end

local ncalls = math.max(100, math.min(2000, 2000000 // #es))
-- t:at alone: the list of entity objects is let go, or every cycle of
-- the collector would walk it (on e100k, 100,000 objects: 1.2 ms more a
-- call, what a script that keeps them pays).
es = nil
collectgarbage(); collectgarbage()
local rnd = 12345
local function at_random()
	for _ = 1, ncalls do
		rnd = (rnd * 1103515245 + 12345) % 2147483648
		t:at(t.begin + math.floor(span * (rnd / 2147483648)))
	end
end
out("at_calls", ncalls)
out("at_first_us", (time(at_random) + time(at_random)) / (2 * ncalls) * 1e6)
-- The median of three more rounds: a round is a fraction of a second,
-- and on a shared machine one such may fall in a slow moment.
local rounds = { time(at_random), time(at_random), time(at_random) }
table.sort(rounds)
out("at_random_us", rounds[2] / ncalls * 1e6)
local at_step = time(function()
	for i = 1, ncalls do t:at(t.begin + span * i // (ncalls + 1)) end
end)
out("at_step_us", at_step / ncalls * 1e6)
