--- palette: colour sets for states, and ways to apply them to a trace.
--
--   local palette = require "statemap.palette"
--   t = palette.apply(t, "okabe_ito")                 -- states in value order
--   t = palette.apply(t, "okabe_ito", { "on-cpu", "off-cpu-io" })
--   t = palette.apply(t, { "#000000", "tomato" })     -- a list of your own
--
-- Every function returns a new trace (through t:recolor); the trace it is
-- given is untouched.

local palette = {}

--- Okabe and Ito's eight colours, told apart with any colour vision.
palette.okabe_ito = {
	"#e69f00", "#56b4e9", "#009e73", "#f0e442",
	"#0072b2", "#d55e00", "#cc79a7", "#000000",
}

--- Ten well-separated colours, as many plotting tools use by default.
palette.tableau10 = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
}

--- Greys from light to dark, for states that should recede.
palette.greys = { "#f0f0f0", "#d0d0d0", "#a8a8a8", "#808080", "#585858", "#303030" }

local function hex(r, g, b)
	return string.format("#%02x%02x%02x", math.floor(r * 255 + 0.5),
	    math.floor(g * 255 + 0.5), math.floor(b * 255 + 0.5))
end

-- HSL to RGB with fixed saturation and lightness, hue in turns.
local function hue(h, s, l)
	local function channel(n)
		local k = (n + h * 12) % 12
		local a = s * math.min(l, 1 - l)
		return l - a * math.max(-1, math.min(k - 3, 9 - k, 1))
	end
	return hex(channel(0), channel(8), channel(4))
end

--- n distinct colours: hues a golden angle apart, so neighbours in the
--- list differ the most, and the first ones stay the same as n grows.
function palette.auto(n)
	local out = {}
	for i = 0, n - 1 do
		out[#out + 1] = hue((i * 0.618033988749895) % 1, 0.55, 0.55)
	end
	return out
end

local function resolve(colours)
	if type(colours) == "string" then
		local named = palette[colours]
		if type(named) ~= "table" then
			error(("no palette %q (there are okabe_ito, tableau10 and greys)"):format(colours), 3)
		end
		return named
	end
	if type(colours) ~= "table" then
		error("a palette is a name or a list of colours", 3)
	end
	return colours
end

--- A new trace with states coloured from a palette: `states` (names, in
--- order; default every state in value order) take the palette's colours
--- in turn; when the palette runs out, automatic colours follow.
function palette.apply(t, colours, states)
	colours = resolve(colours)
	if states == nil then
		states = {}
		for i, s in ipairs(t.states) do states[i] = s.name end
	end
	local extra = palette.auto(math.max(0, #states - #colours))
	local map = {}
	for i, name in ipairs(states) do
		map[name] = colours[i] or extra[i - #colours]
	end
	return t:recolor(map)
end

return palette
