-- dump.lua TRACE [FILTER] OUT: everything a load produced, written as a
-- statemap file (t:write: values as %.17g, stacks as pushes and pops)
-- and summed up on stdout, so that two loads can be compared with cmp.
local sm = require "statemap"
local t = sm.load(arg[1], { cache = false, filter = #arg > 2 and arg[2] or nil })
t:write(arg[#arg])
print(tostring(t), t.records, t.transitions)
for _, e in ipairs(t:entities()) do
	print("entity", e.name, e.transitions)
end
