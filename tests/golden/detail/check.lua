-- check.lua SVG BUDGET TRACE...: the detail block of SVG (written from
-- the TRACEs, stacked in that order) against the traces themselves.  Every
-- count of level 0 and every window's rectangle must be what its trace
-- says: its n the intervals with time inside it, its states' times the
-- trace's over its span, an entity's rectangles tiling the window; windows
-- are where detail.h says, and the block fits BUDGET bytes (0: any) but
-- for the counts.  Prints a summary.
local sm = require "statemap"
local svg_path, budget = arg[1], tonumber(arg[2])
if budget == 0 then budget = nil end
local svg = assert(io.open(svg_path)):read("a")
local function block(id)
	local text = svg:match('id="' .. id:gsub("%-", "%%-") .. '"><!%[CDATA%[\n(.-)%]%]></script>')
	return text and sm.json.decode(text, id)
end
local data, detail = block("statemap-data"), block("statemap-detail")
local traces = {}
for i = 3, #arg do traces[#traces + 1] = sm.load(arg[i], { cache = false }) end
local t
local bad = 0
local function fail(fmt, ...)
	bad = bad + 1
	if bad <= 10 then print("BAD " .. string.format(fmt, ...)) end
end

-- What the trace says of an entity over [a, b): intervals with time, and
-- ns per state.
local function truth(name, a, b)
	local n, times = 0, {}
	if a < 0 then a = 0 end		-- before the trace's own start: nothing
	if b <= a then return n, times end
	for iv in t:intervals{ entities = { name }, from = a, to = b } do
		if iv.finish > iv.start then
			n = n + 1
			times[iv.state] = (times[iv.state] or 0) + iv.finish - iv.start
		end
	end
	return n, times
end

local function same_times(got, want)
	for k, v in pairs(got) do if want[k] ~= v then return false end end
	for k, v in pairs(want) do if got[k] ~= v then return false end end
	return true
end

-- Level 0's counts.
local counted = 0
for i, smi in ipairs(data.statemaps) do
	t = traces[i]
	for k, e in ipairs(smi.entities) do
		local c = detail.counts[i][k]
		for j, r in ipairs(e.rects) do
			local n = c == 1 and 1 or c[j]
			local want = truth(e.name, r.start, r.start + r.duration)
			if n ~= want then fail("level 0 %s rect %d: n %s, the trace has %d", e.name, j, tostring(n), want) end
			counted = counted + 1
		end
	end
end

-- The windows.
local levels, total, bytes = {}, 0, 0
local span = detail.span
for w, win in ipairs(detail.windows) do
	local h = 1 << (win.level + 1)
	local k = -((-win.from * h) // span)
	if span * k // h ~= win.from or span * (k + 2) // h ~= win.to then
		fail("window %d [%d, %d) is not a window of level %d", w, win.from, win.to, win.level)
	end
	levels[win.level] = (levels[win.level] or 0) + 1
	local ntr, nrect = 0, 0
	for s, smw in ipairs(win.statemaps) do
		local smi = data.statemaps[s]
		t = traces[s]
		for i, e in ipairs(smw.entities) do
			local name = smi.entities[i].name
			local at = nil
			for _, r in ipairs(e.rects) do
				local n, times = truth(name, r.start, r.start + r.duration)
				if r.n ~= n then fail("window %d %s at %d: n %d, the trace has %d", w, name, r.start, r.n, n) end
				if not same_times(r.states, times) then fail("window %d %s at %d: states differ", w, name, r.start) end
				if at and r.start ~= at then fail("window %d %s: a gap before %d", w, name, r.start) end
				at = r.start + r.duration
				ntr, nrect = ntr + r.n, nrect + 1
			end
			local _, all = truth(name, smi.begin + win.from, smi.begin + win.to)
			local sum = 0
			for _, v in pairs(all) do sum = sum + v end
			local got = 0
			for _, r in ipairs(e.rects) do got = got + r.duration end
			if got ~= sum then fail("window %d %s: %d ns drawn, the trace has %d", w, name, got, sum) end
		end
	end
	if ntr ~= win.transitions or nrect ~= win.rects then
		fail("window %d: says %d transitions in %d rects, has %d in %d", w, win.transitions, win.rects, ntr, nrect)
	end
	total = total + 1
end
local text = svg:match('id="statemap%-detail"><!%[CDATA%[\n(.-)%]%]></script>')
local counts_text = text:match('"counts": %b[]')
if budget and #text - #counts_text > budget then
	fail("the block is %d bytes, %d without the counts: over %d", #text, #text - #counts_text, budget)
end
local lv = {}
for l, n in pairs(levels) do lv[#lv + 1] = string.format("level %d: %d", l, n) end
table.sort(lv)
print(string.format("%d level-0 rectangles counted; %d windows (%s); window budget %d rectangles",
    counted, total, table.concat(lv, ", "), detail.coalesce))
print(bad == 0 and "every count and window agrees with the trace" or (bad .. " disagreements"))
