-- bench/query.lua TRACE [LOAD OPTIONS]: loads a trace and prints what the
-- queries of the "larger than memory" checks give (time_in, at, intervals,
-- count), as digests: two loads of one trace must print the same lines.
-- With a second argument "nocache", the trace is read without the cache;
-- a third, a fraction, limits the intervals to that share of the window
-- around its middle (for big traces: every interval is a Lua call).
local sm = require "statemap"
local path, how, share = arg[1], arg[2], tonumber(arg[3])
local t = sm.load(path, { cache = how ~= "nocache" })
local function line(name, tbl)
	local keys = {}
	for k in pairs(tbl) do keys[#keys + 1] = k end
	table.sort(keys)
	local parts = {}
	for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. tostring(tbl[k]) end
	print(name, table.concat(parts, " "))
end
print("transitions", t.transitions, "records", t.records)
line("time_in", t:time_in())
local span = t.finish - t.begin
line("time_in mid", t:time_in(t.begin + span // 3, t.begin + 2 * span // 3))
for _, f in ipairs({ 0.1, 0.5, 0.9 }) do
	local at, n = t:at(t.begin + math.floor(span * f)), 0
	local h = 0
	local names = {}
	for name in pairs(at) do names[#names + 1] = name end
	table.sort(names)
	for _, name in ipairs(names) do
		n = n + 1
		for i = 1, #at[name] do h = (h * 31 + at[name]:byte(i)) % 4294967291 end
	end
	print("at", f, n, h)
end
-- Every interval, folded: a sum over starts, ends and states.
local n, sum = 0, 0
local range = {}
if share then
	range.from = t.begin + math.floor(span * (1 - share) / 2)
	range.to = range.from + math.floor(span * share)
end
for iv in t:intervals(range) do
	n = n + 1
	sum = (sum + iv.start * 7 + iv.finish * 13 + #iv.state + (iv.tag and #iv.tag or 0)) % 4294967291
end
print("intervals", n, sum)
local states = {}
for i, s in ipairs(t.states) do if i % 2 == 1 then states[#states + 1] = s.name end end
local c = t:count(states)
line("count time_in", c:time_in())
