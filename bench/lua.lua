-- bench/lua.lua TRACE WHAT: the Lua cases of make bench.
--   load     load the trace into the store
--   time_in  load, then time in each state over the whole trace
--   map      load, then map every (state, tag) pair to one of two states
--   png      load, then a pixel-exact 1920-pixel-wide PNG of the whole trace
--            (of its first 30000 entities when it has more: a picture
--            is at most 32767 pixels tall); a third argument is another
--            width
--   stats    load (a counter trace), then prints the time of one e:stats
--            over a random range, in microseconds (a mean over many)
--   build    (TRACE is a number N) N b:set calls on a builder of 1000
--            entities, then b:finish
local sm = require "statemap"
local path, what = arg[1], arg[2] or "load"
if what == "build" then
	local n = math.tointeger(tonumber(path))
	local b = sm.new { states = { "idle", "busy", "io" } }
	local names = {}
	for i = 1, 1000 do names[i] = tostring(i) end
	local set = b.set
	for i = 1, n do set(b, i, names[i % 1000 + 1], i % 3) end
	assert(b:finish().transitions == n)
	return
end
local t = sm.load(path)
if what == "time_in" then
	local total = 0
	for _, ns in pairs(t:time_in()) do total = total + ns end
	assert(total > 0)
elseif what == "map" then
	local m = t:map(function(state) return state == "state0" and "zero" or "other" end)
	assert(m.transitions > 0)
elseif what == "stats" then
	local e, calls, finish = t:entities()[1], 200000, t.finish
	math.randomseed(1)
	local from, to = {}, {}
	for i = 1, calls do
		local a, b = math.random(0, finish), math.random(0, finish)
		from[i], to[i] = math.min(a, b), math.max(a, b)
	end
	local c = os.clock()
	for i = 1, calls do e:stats(from[i], to[i]) end
	print(string.format("%.3f", (os.clock() - c) / calls * 1e6))
elseif what == "png" then
	local out = os.tmpname() .. ".png"
	local es = t:entities()
	sm.render{ output = out, trace = t, width = math.tointeger(tonumber(arg[3] or 1920)), row_height = 1,
	    entities = #es > 30000 and table.move(es, 1, 30000, 1, {}) or nil }
	os.remove(out)
end
