-- dump.lua TRACE [FILTER]: everything a load produced, one line per fact,
-- so that two loads can be compared with cmp: metadata, entities in order
-- with descriptions, every interval with its tag, every event.
local sm = require "statemap"
local t = sm.load(arg[1], { cache = false, filter = arg[2] })
print(tostring(t), t.records, t.transitions)
for _, e in ipairs(t:entities()) do
	print("entity", e.name, e.transitions, tostring(e.description))
end
for iv in t:intervals{} do
	print(iv.entity, iv.start, iv.finish, iv.state, tostring(iv.tag))
end
for ev in t:events{} do
	print("event", ev.entity, ev.time, ev.event, tostring(ev.target))
end
