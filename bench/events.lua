-- bench/events.lua TRACE WHAT: a kernel trace's events in Lua, for
-- bench/kernel.
--   threads  statemap.load with the threads analysis (the C one)
--   empty    statemap.events, a handler that counts the events
--   builder  a handler that calls the builder on every event: each CPU's
--            entity enters the state named by its latest event, tagged
--            with the task that was running; then b:finish
local sm = require "statemap"
local path, what = arg[1], arg[2] or "empty"
if what == "threads" then
	assert(sm.load(path, { analysis = "threads" }).transitions > 0)
	return
elseif what == "empty" then
	local n = 0
	sm.events(path, function() n = n + 1 end)
	assert(n > 0)
	return
end
assert(what == "builder", "bench/events.lua: WHAT is threads, empty or builder")
-- The events tests/kernel/record.sh enables, and two more a trace may hold.
local b = sm.new { states = {
	"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
	"sched_process_fork", "sched_process_exec", "sched_process_exit",
	"sched_process_free", "task_newtask", "task_rename", "irq_handler_entry",
	"irq_handler_exit", "softirq_entry", "softirq_exit", "block_rq_issue",
	"block_rq_complete", "sched_migrate_task", "sched_stat_runtime",
} }
local cpus = {}
sm.events(path, function(ev)
	local name = cpus[ev.cpu]
	if name == nil then
		name = "cpu" .. ev.cpu
		cpus[ev.cpu] = name
	end
	b:set(ev.time, name, ev.name, ev.comm)
end)
assert(b:finish().transitions > 0)
