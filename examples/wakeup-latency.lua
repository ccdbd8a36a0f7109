-- wakeup-latency.lua TRACE [OUT.out]: a state provider for a kernel trace
-- (trace.dat, or a CTF trace's directory): how long each woken thread
-- waited for a CPU, from its sched_waking (or sched_wakeup) to the
-- sched_switch that ran it, as a value track per CPU ("latency/cpuN",
-- in microseconds, the thread's name as a tag would not fit a value: the
-- worst ones are printed instead), next to the CPU's running thread.
-- Prints the count, mean and worst latencies; writes the trace with
-- t:write if OUT is given.
local sm = require "statemap"

local path, out = arg[1], arg[2]
if not path then
	io.stderr:write("usage: statemap-lua examples/wakeup-latency.lua TRACE [OUT.out]\n")
	os.exit(2)
end

local b = sm.new { title = "wakeup latency", states = { idle = { value = 0, color = "#f0f0f0" },
	running = { value = 1, color = "#2ca02c" } } }
local woken = {}	-- tid -> the time it was woken
local waits = {}	-- { ns, who, cpu, time } per thread run after a wakeup
local last = 0

sm.events(path, { events = { "sched_waking", "sched_wakeup", "sched_switch" } }, function(ev)
	local f = ev.fields
	last = ev.time
	if ev.name == "sched_switch" then
		local tid = f.next_tid or f.next_pid
		b:set(ev.time, "cpu" .. ev.cpu, tid == 0 and "idle" or "running",
		    tid ~= 0 and (f.next_comm .. "[" .. tid .. "]") or nil)
		local since = woken[tid]
		if since then
			woken[tid] = nil
			local ns = ev.time - since
			waits[#waits + 1] = { ns, f.next_comm .. "[" .. tid .. "]", ev.cpu, ev.time }
			b:value(ev.time, "latency/cpu" .. ev.cpu, ns / 1000)
		end
	else
		local tid = f.tid or f.pid
		-- the first of waking and wakeup counts
		if not woken[tid] then woken[tid] = ev.time end
	end
end)
local t = b:finish(last)

local sum = 0
for _, w in ipairs(waits) do sum = sum + w[1] end
print(("%d wakeups run, mean latency %.3f us"):format(#waits, #waits > 0 and sum / #waits / 1000 or 0))
table.sort(waits, function(x, y) return x[1] > y[1] or (x[1] == y[1] and x[4] < y[4]) end)
for i = 1, math.min(5, #waits) do
	local w = waits[i]
	print(("  %10.3f us  %s on cpu%d at %d ns"):format(w[1] / 1000, w[2], w[3], w[4]))
end
for _, e in ipairs(t:entities("latency/*")) do
	local s = e:stats() or {}
	print(("%s: max %.3f us, time-weighted mean %.3f us"):format(e.name, s.max or 0, s.mean or 0))
end
if out then
	t:write(out)
	print("wrote " .. out)
end
