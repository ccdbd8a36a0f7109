-- recolor.lua: the same trace in other colours.  States you name get your
-- colours; the rest take a palette (colour-blind-safe by default).
--
--   statemap-lua examples/recolor.lua TRACE OUT.svg|OUT.png [STATE=COLOUR ...]
--       [--palette okabe_ito|tableau10|greys]
--
-- An .svg is the interactive statemap of the command line, recoloured.
local sm = require "statemap"
local palette = require "statemap.palette"

local path, out, mine, pal = arg[1], arg[2], {}, "okabe_ito"
if not path or not out then
	io.stderr:write("usage: statemap-lua recolor.lua TRACE OUT.svg|OUT.png [STATE=COLOUR ...] [--palette NAME]\n")
	os.exit(2)
end
local i = 3
while arg[i] do
	if arg[i] == "--palette" then
		pal, i = arg[i + 1], i + 2
	else
		local state, colour = arg[i]:match("^(.-)=(.+)$")
		if not state then
			io.stderr:write("recolor.lua: expected STATE=COLOUR, got ", arg[i], "\n")
			os.exit(2)
		end
		mine[state], i = colour, i + 1
	end
end

local t = sm.load(path)
-- The palette goes to the states not named on the command line.
local rest = {}
for _, s in ipairs(t.states) do
	if not mine[s.name] then rest[#rest + 1] = s.name end
end
t = palette.apply(t, pal, rest):recolor(mine)
for _, s in ipairs(t.states) do print(("%-20s %s"):format(s.name, s.color)) end
sm.render{ output = out, trace = t, entities = t:sorted(), interactive = out:match("%.svg$") ~= nil }
