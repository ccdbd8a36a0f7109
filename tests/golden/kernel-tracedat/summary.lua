-- summary.lua TRACE ANALYSIS: what a kernel trace read through an
-- analysis holds: its title, states, entities, and the time each entity
-- spends in each state.
local sm = require "statemap"
local a = arg[2]
if a:find(",") then
	local list = {}
	for w in a:gmatch("[^,]+") do list[#list + 1] = w end
	a = list
end
local t = sm.load(arg[1], { analysis = a, cache = false })
print(("title %s, %d records, %d entities, from %d to %d ns"):format(t.title, t.records,
    #t:entities(), t.begin, t.finish))
local names = {}
for _, s in ipairs(t.states) do names[#names + 1] = s.name end
print("states: " .. table.concat(names, " "))
for _, e in ipairs(t:entities()) do
	local ti, parts, keys = e:time_in(), {}, {}
	for k in pairs(ti) do keys[#keys + 1] = k end
	table.sort(keys)
	for _, k in ipairs(keys) do
		if ti[k] > 0 then parts[#parts + 1] = k .. "=" .. ti[k] end
	end
	print(e.name .. ": " .. table.concat(parts, " "))
end
