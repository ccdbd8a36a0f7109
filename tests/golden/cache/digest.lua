-- digest.lua TRACE [nocache]: one line that changes if anything loaded
-- changes: metadata, entities, transitions, every interval and its tag.
local sm = require "statemap"
local t = sm.load(arg[1], arg[2] == "nocache" and { cache = false } or nil)
local out = { tostring(t), t.records, t.transitions }
local ti, names = t:time_in(), {}
for k in pairs(ti) do names[#names + 1] = k end
table.sort(names)
for _, k in ipairs(names) do out[#out + 1] = k .. "=" .. ti[k] end
local n, sum = 0, 0
for iv in t:intervals{} do
	n = n + 1
	sum = (sum * 31 + (iv.finish - iv.start) * #iv.state +
	    #tostring(iv.tag) + #iv.entity) % 1000000007
end
out[#out + 1] = n .. "/" .. sum
for _, e in ipairs(t:entities()) do
	out[#out + 1] = e.name .. ":" .. e.transitions .. ":" ..
	    tostring(e.description)
end
print(table.concat(out, " "))
