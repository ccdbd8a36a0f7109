-- check.lua SVG BUDGET TRACE...: the detail block of SVG (written from
-- the TRACEs, stacked in that order) against the traces themselves.  Every
-- count of level 0 and every window's rectangle must be what its trace
-- says: its n the intervals with time inside it, its states' times the
-- trace's over its span, an entity's rectangles tiling the window; windows
-- are where detail.h says, and the block fits BUDGET bytes (0: any) but
-- for the counts.  A value entity's rectangles have, besides, its values'
-- min, max and time-weighted mean there (e:stats); a nested entity's
-- window gives each depth's row, whose rectangles have the time the
-- frame at that depth spent in each state.  Prints a summary.
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
			-- (A value entity's intervals have a value, no state.)
			if iv.state then
				times[iv.state] = (times[iv.state] or 0) + iv.finish - iv.start
			end
		end
	end
	return n, times
end

-- The time the frame at depth d of a nested entity's stack spends in each
-- state over [a, b): the stack is the same all through an interval.
local function depth_truth(name, d, a, b)
	local times, e = {}, t:entity(name)
	if a < 0 then a = 0 end
	if b <= a then return times end
	for iv in t:intervals{ entities = { name }, from = a, to = b } do
		if iv.finish > iv.start then
			local stack = e:stack_at(iv.start)
			if stack[d] then
				times[stack[d]] = (times[stack[d]] or 0) + iv.finish - iv.start
			end
		end
	end
	return times
end

local function near(x, y)
	return x == y or math.abs(x - y) <= 1e-9 * math.max(math.abs(x), math.abs(y))
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
local depths_checked, values_checked = 0, 0
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
			local kind = smi.entities[i].kind
			if e.kind ~= kind then fail("window %d %s: kind %s, level 0 says %s", w, name, tostring(e.kind), tostring(kind)) end
			for _, r in ipairs(e.rects) do
				local n, times = truth(name, r.start, r.start + r.duration)
				if r.n ~= n then fail("window %d %s at %d: n %d, the trace has %d", w, name, r.start, r.n, n) end
				if kind == "values" then
					-- (No statistics where the rectangle has no number.)
					local st = t:entity(name):stats(r.start, r.start + r.duration) or {}
					if r.min and not (st.min and near(r.min, st.min) and near(r.max, st.max) and
					    near(r.mean, st.mean)) then
						fail("window %d %s at %d: min %s max %s mean %s, the trace has %s %s %s", w, name, r.start,
						    r.min, r.max, r.mean, st.min, st.max, st.mean)
					end
					if (r.min == nil) ~= (st.min == nil) then fail("window %d %s at %d: numbers differ", w, name, r.start) end
					values_checked = values_checked + 1
				elseif not same_times(r.states, times) then
					fail("window %d %s at %d: states differ", w, name, r.start)
				end
				if at and r.start ~= at then fail("window %d %s: a gap before %d", w, name, r.start) end
				at = r.start + r.duration
				ntr, nrect = ntr + r.n, nrect + 1
			end
			if kind == "nested" then
				for d, row in ipairs(e.depths or {}) do
					for _, r in ipairs(row) do
						if not same_times(r.states, depth_truth(name, d, r.start, r.start + r.duration)) then
							fail("window %d %s depth %d at %d: states differ", w, name, d, r.start)
						end
						depths_checked = depths_checked + 1
					end
				end
			end
			local _, all = truth(name, smi.begin + win.from, smi.begin + win.to)
			local sum = 0
			for _, v in pairs(all) do sum = sum + v end
			if kind == "values" then
				-- Every value's time in the window, none or string too.
				sum = 0
				for iv in t:intervals{ entities = { name }, from = smi.begin + win.from, to = smi.begin + win.to } do
					sum = sum + iv.finish - iv.start
				end
			end
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
if values_checked > 0 then print(values_checked .. " value rectangles checked") end
if depths_checked > 0 then print(depths_checked .. " depth rows' rectangles checked") end
print(bad == 0 and "every count and window agrees with the trace" or (bad .. " disagreements"))
