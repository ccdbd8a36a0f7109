-- png.lua: draw a statemap input file as a PNG (every pixel exact, no
-- coalescing), entities in natural name order.
--
--   statemap-lua contrib/png.lua TRACE OUT.png [WIDTH [SORT]]
--
-- SORT is a state name (most time in it first) or "name" (the default).
local sm = require "statemap"
if not arg[2] or arg[1] == "--help" then
	io.write("usage: statemap-lua contrib/png.lua TRACE OUT.png [WIDTH [SORT]]\n")
	os.exit(arg[1] == "--help" and 0 or 2)
end
local t = sm.load(arg[1])
local sort = arg[4] or "name"
sm.render{ output = arg[2], trace = t, width = math.tointeger(tonumber(arg[3] or "1000")) or 1000,
	entities = t:sorted(sort ~= "name" and sort or nil) }
