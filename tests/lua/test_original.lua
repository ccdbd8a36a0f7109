-- The original tool, where STATEMAP_REF names its binary (bench/README.md
-- says how to build it): on generated traces of several shapes, at the
-- default budget and two others, our classic SVG draws the rectangles the
-- original's does, row by row, each at the same x and of the same width
-- (to our three decimals), and a rectangle of one state in that state's
-- colour in both (to a unit: the original's floats).  Without it, a
-- counted skip: no Debian package has the original.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"

local name = "original: the same rectangles as the original tool"
local ref = os.getenv("STATEMAP_REF")
if ref == nil or ref == "" then
	unit.skip(name, "STATEMAP_REF does not name the original tool")
	return
end

local colors = { "#2ca02c", "#f9f9f9", "#f0f0f0", "#ffc300", "#c70039", "#581845" }

-- A trace of n data over nent entities, every time new (the original
-- panics on two data of an entity at one time); heavy, durations drawn
-- from a heavy tail; tagged, a tag on half the data.
local function trace(path, nent, n, heavy, tagged)
	local f = assert(io.open(path, "w"))
	local states = {}
	for i, c in ipairs(colors) do
		states[#states + 1] = string.format('"s%d": {"value": %d, "color": "%s"}', i - 1, i - 1, c)
	end
	f:write('{"start": [1700000000, 0], "title": "ref", "states": {', table.concat(states, ", "), "}}\n")
	local t = 0
	for i = 1, n do
		local step = heavy and math.floor(10 / (math.random() ^ 1.5)) or math.random(1, 2000)
		t = t + step
		local tag = ""
		if tagged and i % 2 == 0 then
			tag = string.format(', "tag": "t%d"', math.random(1, 40))
		end
		f:write(string.format('{"time": "%d", "entity": "e%d", "state": %d%s}\n',
		    t, math.random(1, nent), math.random(0, #colors - 1), tag))
	end
	f:close()
end

-- Rows of rectangles by y: {x, width, colour}; ours by fill="#rrggbb",
-- the original's by its style="fill:rgb(r, g, b)".
local function rows(svg, ours)
	local f = assert(io.open(svg))
	local text = f:read("a")
	f:close()
	local out, n = {}, 0
	local pattern = ours and
	    '<rect x="([%d.]+)" y="([%d.]+)" width="([%d.]+)" height="[%d.]+" fill="#(%x%x)(%x%x)(%x%x)" />' or
	    '<rect x="([%d.]+)" y="([%d.]+)" width="([%d.]+)" height="[%d.]+" onclick="mapclick%(evt, %d+%)" style="fill:rgb%((%d+), (%d+), (%d+)%)" />'
	for x, y, w, r, g, b in text:gmatch(pattern) do
		if ours then r, g, b = tonumber(r, 16), tonumber(g, 16), tonumber(b, 16) end
		local row = out[y] or {}
		out[y] = row
		r, g, b = tonumber(r), tonumber(g), tonumber(b)
		row[#row + 1] = { tonumber(x), tonumber(w),
		    { r, g, b, text = string.format("%d,%d,%d", r, g, b) } }
		n = n + 1
	end
	-- In order of x and width as our SVG rounds them: two rectangles
	-- less than a thousandth apart are then in the same order in both.
	local function key(v) return tonumber(string.format("%.3f", v)) end
	for _, row in pairs(out) do
		table.sort(row, function(a, b)
			local xa, xb = key(a[1]), key(b[1])
			if xa ~= xb then return xa < xb end
			return key(a[2]) < key(b[2])
		end)
	end
	return out, n
end

local palette = {}
for _, c in ipairs(colors) do
	palette[string.format("%d,%d,%d", tonumber(c:sub(2, 3), 16),
	    tonumber(c:sub(4, 5), 16), tonumber(c:sub(6, 7), 16))] = true
end

-- Compares one command's two SVGs: nil, or what differs first.
local function compare(theirs, ours)
	local a, na = rows(theirs, false)
	local b, nb = rows(ours, true)
	if na == 0 then return "no rectangles in the original's SVG" end
	if na ~= nb then return string.format("%d rectangles against the original's %d", nb, na) end
	for y, ra in pairs(a) do
		local rb = b[y] or {}
		if #ra ~= #rb then return string.format("row y=%s: %d rectangles against %d", y, #rb, #ra) end
		for i, x in ipairs(ra) do
			local o = rb[i]
			if math.abs(x[1] - o[1]) > 0.0015 or math.abs(x[2] - o[2]) > 0.0015 then
				return string.format("row y=%s, rectangle %d: x %.3f width %.3f against %s %s", y, i, o[1], o[2], x[1], x[2])
			end
			-- Where ours is a state's own colour, so is the
			-- original's, to a unit (its floats, and its blend of
			-- a state with a trace of another); a blend may differ
			-- more (the man page's DIFFERENCES).
			local d = 0
			for k = 1, 3 do d = math.max(d, math.abs(o[3][k] - x[3][k])) end
			if palette[o[3].text] and d > 1 then
				return string.format("row y=%s, rectangle %d: colour %s against %s", y, i, o[3].text, x[3].text)
			end
		end
	end
	return nil
end

math.randomseed(39)
local shapes = {
	{ "40 entities, uniform", 40, 30000, false, false },
	{ "40 entities, heavy-tailed, tagged", 40, 30000, true, true },
	{ "3000 entities (more than the budget)", 3000, 40000, false, false },
}
local path, theirs, ours = unit.tmpname(".out"), unit.tmpname(".svg"), unit.tmpname(".svg")
for _, s in ipairs(shapes) do
	trace(path, s[2], s[3], s[4], s[5])
	for _, budget in ipairs({ "", "-c 50 ", "-c 2000 " }) do
		local what = string.format("%s: %s, %sthe default budget otherwise", name, s[1], budget)
		local ok1 = os.execute(ref .. " " .. budget .. path .. " > " .. theirs .. " 2> /dev/null")
		local ok2 = os.execute(C.sm .. " " .. budget .. path .. " > " .. ours .. " 2> /dev/null")
		if not ok1 then
			unit.check(what, false, "the original failed on the trace")
		elseif not ok2 then
			unit.check(what, false, "ours failed on the trace")
		else
			local why = compare(theirs, ours)
			unit.check(what, why == nil, why)
		end
	end
end
os.remove(path)
os.remove(theirs)
os.remove(ours)
