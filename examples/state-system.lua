-- state-system.lua LOG [OUT.out]: builds a trace from a job server's log
-- (examples/data/jobs.log) with nested states and counters, queries it,
-- and writes it as a statemap file if OUT is given.
--
-- Each worker is an entity Workers/NAME/Status whose calls nest (a db
-- query inside a request: pushed and popped); the queue's depth and each
-- worker's memory are value entities (counters) under Queue/ and Memory/.
local sm = require "statemap"

local log, out = arg[1], arg[2]
if not log then
	io.stderr:write("usage: statemap-lua examples/state-system.lua LOG [OUT.out]\n")
	os.exit(2)
end

local b = sm.new { title = "jobs", entity_kind = "Worker",
	states = { idle = { value = 0, color = "#e8e8e8" }, request = { value = 1, color = "#4e79a7" },
		parse = { value = 2, color = "#f28e2b" }, db = { value = 3, color = "#e15759" },
		render = { value = 4, color = "#59a14f" } } }
local n = 0
for line in io.lines(log) do
	n = n + 1
	if not line:match("^#") and line:match("%S") then
		local ms, what, who, arg = line:match("^(%d+) (%a+) (%S+) ?(%S*)$")
		if not ms then error(log .. ":" .. n .. ": cannot read this line") end
		local t, w = tonumber(ms) * 1000000, "Workers/" .. who .. "/Status"
		if what == "idle" then b:set(t, w, "idle")
		elseif what == "begin" then b:push(t, w, arg)
		elseif what == "end" then b:pop(t, w, arg)
		elseif what == "queue" then b:value(t, "Queue/depth", tonumber(arg))
		elseif what == "mem" then b:value(t, "Memory/" .. who, tonumber(arg) * 1024)
		else error(log .. ":" .. n .. ": unknown event " .. what) end
	end
end
local t = b:finish()
print(t)

-- The attribute tree.
print("top:", table.concat(t:children(), " "))
print("workers:", table.concat(t:children("Workers"), " "))

-- Nested states: what each worker is doing at 10 ms, the whole stack.
for _, e in ipairs(t:entities("Workers/*/Status")) do
	print(string.format("%-18s at 10ms: %-8s stack: %s", e.name, e:at("10ms"),
	    table.concat(e:stack_at("10ms"), " > ")))
end

-- Time in each state (the innermost call counts).
local w1 = t:entity("Workers/w1/Status")
for _, s in ipairs(t.states) do
	print(string.format("w1 %-8s %s", s.name, sm.format_ns(w1:time_in()[s.name])))
end

-- Counters: min, max and time-weighted mean, over the trace and 10-20 ms.
local function show(name, s)
	print(string.format("%-14s min %8.1f  max %8.1f  mean %10.3f", name, s.min, s.max, s.mean))
end
show("queue", t:entity("Queue/depth"):stats())
show("queue 10-20ms", t:entity("Queue/depth"):stats("10ms", "20ms"))
local mem = t:stats("Memory/*")
for _, name in ipairs { "Memory/w1", "Memory/w2" } do
	local s = mem[name]
	print(string.format("%-14s min %6d KB  max %6d KB  mean %8.1f KB", name, s.min // 1024, s.max // 1024,
	    s.mean / 1024))
end

-- The full state of the system at 15 ms, with each interval's bounds.
local at = t:at("15ms", { intervals = true })
local names = {}
for name in pairs(at) do names[#names + 1] = name end
table.sort(names)
for _, name in ipairs(names) do
	local iv = at[name]
	print(string.format("15ms %-18s %-8s depth %s  [%s, %s)", name, tostring(iv.state or iv.value),
	    tostring(iv.depth or "-"), sm.format_ns(iv.start), sm.format_ns(iv.finish)))
end

if out then
	t:write(out)
	print("wrote " .. out)
end
