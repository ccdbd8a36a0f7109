-- digest.lua TRACE [nocache]: one line that changes if anything loaded
-- through the threads analysis changes.
local sm = require "statemap"
local t = sm.load(arg[1], arg[2] == "nocache" and { cache = false } or nil)
local n, sum = 0, 0
for iv in t:intervals{} do
	n = n + 1
	sum = (sum * 31 + (iv.finish - iv.start) * #iv.state + #tostring(iv.tag) + #iv.entity) % 1000000007
end
print(t.records, t.transitions, n, sum)
