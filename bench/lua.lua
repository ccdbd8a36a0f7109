-- bench/lua.lua TRACE WHAT: the Lua cases of make bench.
--   load     load the trace into the store
--   time_in  load, then time in each state over the whole trace
--   map      load, then map every (state, tag) pair to one of two states
--   png      load, then draw the whole trace as a 1920-pixel PNG
local sm = require "statemap"
local path, what = arg[1], arg[2] or "load"
local t = sm.load(path)
if what == "time_in" then
	local total = 0
	for _, ns in pairs(t:time_in()) do total = total + ns end
	assert(total > 0)
elseif what == "map" then
	local m = t:map(function(state) return state == "state0" and "zero" or "other" end)
	assert(m.transitions > 0)
elseif what == "png" then
	sm.render{ output = path:gsub("%.out$", "") .. ".png", trace = t,
	    width = 1920 }
end
