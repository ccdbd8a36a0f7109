-- perf-sched2statemap.lua: `perf script` output of Linux scheduler
-- tracepoints to a statemap of threads and CPUs. Run with statemap-lua;
-- see --help and contrib/README.md.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local smout = require "smout"

local usage = [[
usage: statemap-lua contrib/perf-sched2statemap.lua [OPTIONS] [FILE]

Reads `perf script` output of the scheduler's tracepoints (FILE or
standard input): sched_switch, sched_waking and/or sched_wakeup,
sched_wakeup_new, sched_process_exit; others (sched_migrate_task,
sched_stat_runtime, sched_process_fork ...) only tell who runs where.
Writes a statemap with two kinds of entity:

  threads (named COMM/TID by their last command name, described by it):
    on-cpu, runnable (preempted, or woken and not yet running), sleeping
    (prev_state S or I), io-wait (prev_state D: uninterruptible, usually
    disk I/O) and stopped (T, t); a thread that exited has no data from
    its last switch-out (prev_state X or Z) on ("state": null: the
    viewer's "no data");
  CPUs (named cpu0, cpu1, ...): idle, or on-cpu with the running thread's
    name as the tag (tag definitions carry pid and comm).

A wakeup is sched_waking (on the waker's CPU: the waker is known), or
sched_wakeup where no sched_waking came before it for that thread; each
is also an event "wakeup" from the waking thread (or the CPU, for the
idle task) to the woken one. sched_process_exit is an event "exit".
Lines whose task perf no longer knows (":-1  -1", after a thread exits)
are read like the others. A line's COMM TID [CPU] says who runs on that
CPU: a thread whose switch-in is missing (lost events) is on-cpu from
then on.

Capture:  perf record -e sched:sched_switch -e sched:sched_waking \
              -e sched:sched_process_exit -a -- sleep 5
          perf script > sched.txt
    or:   perf sched record -- sleep 5; perf script > sched.txt

The statemap's start is perf's timestamp of the first event (seconds of
the kernel's monotonic clock, not wall time).

  --threads   only the thread entities
  --cpus      only the CPU entities
  -o FILE     write FILE (replaced only once the whole input is converted)
              rather than standard output
  --lenient   skip malformed lines (reported on stderr) instead of stopping
  --title T   the statemap's title (default "Linux scheduler")
]]

local opts, files = smout.options(arg, {
	["--lenient"] = { "lenient" }, ["--title"] = { "title", true },
	["--threads"] = { "threads" }, ["--cpus"] = { "cpus" } }, usage)
local want_threads = opts.threads or not opts.cpus
local want_cpus = opts.cpus or not opts.threads
local input, name = smout.open(files[1])
local report = smout.reporter(name, opts.lenient)

local w <close> = smout.writer({ title = opts.title or "Linux scheduler", entityKind = "Thread or CPU" }, {
	{ "on-cpu", "#2ca02c" }, { "runnable", "#d62728" }, { "sleeping", "#e8e8e8" },
	{ "io-wait", "#ff7f0e" }, { "stopped", "#9467bd" }, { "idle", "#ffffff" },
}, opts.output)

local prev_state = { R = "runnable", S = "sleeping", I = "sleeping", D = "io-wait",
	T = "stopped", t = "stopped", X = "dead", Z = "dead" }

local origin, last
local state = {}	-- tid -> the state its entity shows
local comms = {}	-- tid -> its latest command name
local running = {}	-- cpu -> the tid on it ("0": idle), as far as we know
local shown = {}	-- cpu -> the tid its entity shows
local waking = {}	-- tid -> true: woken by a sched_waking, its sched_wakeup still to come
local tagged = {}	-- tids that were a CPU's tag, in order, and as a set

local function named(tid, comm)
	if comm and comms[tid] ~= comm then
		comms[tid] = comm
		w:label(tid, smout.thread_name(comm, tid))
		if want_threads then w:describe(tid, comm) end
	end
end

local function thread(now, tid, st, comm)
	if tid == "0" or tid == "-1" then return end
	named(tid, comm)
	if state[tid] == st then return end
	state[tid] = st
	-- An exited thread's data end (no "dead" state).
	if want_threads and st == "dead" then
		w:stop(now, tid)
	elseif want_threads then
		w:datum(now, tid, st)
	end
end

local function cpu(now, c, tid, comm)
	running[c] = tid
	if not want_cpus or shown[c] == tid then return end
	shown[c] = tid
	local e = "cpu" .. c
	if tid == "0" then
		w:datum(now, e, "idle")
	else
		named(tid, comm)
		if not tagged[tid] then
			tagged[tid] = true
			tagged[#tagged + 1] = tid
		end
		w:datum(now, e, "on-cpu", tid, true)
	end
end

-- Who did what a line reports: its thread, the CPU for the idle task, or
-- for a task perf no longer knows (-1), the thread we saw switched in.
local function actor(c, tid)
	if tid == "-1" then tid = running[c] or "0" end
	return tid ~= "0" and tid or ("cpu" .. c)
end

local function wakeup(now, c, tid, wp, wc)
	if state[wp] ~= "on-cpu" then thread(now, wp, "runnable", wc) end
	if want_threads then w:event(now, actor(c, tid), "wakeup", wp) end
end

local lineno = 0
for line in input:lines() do
	lineno = lineno + 1
	if line:match("^%s*#") or line:match("^%s*$") then goto next end
	do
		local head, ts, ev, fields = line:match("^(.-)%s+(%d+%.%d+):%s+%d*%s*[%w_]+:([%w_]+):%s*(.*)$")
		local comm, tid, c
		if head then
			comm, tid, c = head:match("^%s*(.-)%s+%-?%d+/(%-?%d+)%s+%[(%d+)%]$")
			if not comm then comm, tid, c = head:match("^%s*(.-)%s+(%-?%d+)%s+%[(%d+)%]$") end
		end
		if not comm then
			report:bad(lineno, "expected COMM TID [CPU] SECONDS: EVENT: FIELDS (perf script)")
			goto next
		end
		c = tostring(tonumber(c))
		local ns = smout.seconds_ns(ts)
		if not origin then
			origin = ns
			w:start(ns)
		end
		local now = ns - origin
		if last and now < last then
			report:bad(lineno, "time goes backwards (perf script sorts events by time)")
			goto next
		end
		last = now
		if ev == "sched_switch" then
			local pc, pp, ps, nc, np = fields:match(
				"^prev_comm=(.-) prev_pid=(%d+) prev_prio=%-?%d+ prev_state=(%S+) ==> next_comm=(.-) next_pid=(%d+) next_prio=%-?%d+")
			if not pc then
				report:bad(lineno, "sched_switch fields: expected prev_comm= prev_pid= prev_prio= prev_state= ==> next_comm= next_pid= next_prio=")
				goto next
			end
			local st = prev_state[ps:sub(1, 1)] or "sleeping"
			if st == "dead" then waking[pp] = nil end
			thread(now, pp, st, pc)
			thread(now, np, "on-cpu", nc)
			cpu(now, c, np, nc)
			goto next
		end
		-- Any other line is written by the task on that CPU: a thread we
		-- did not see switched in (a lost event) runs there from now on.
		if tid == "0" then
			if running[c] ~= "0" then cpu(now, c, "0") end
		elseif tid ~= "-1" and (running[c] ~= tid or state[tid] ~= "on-cpu") then
			thread(now, tid, "on-cpu", comm)
			cpu(now, c, tid, comm)
		end
		if ev == "sched_waking" or ev == "sched_wakeup" or ev == "sched_wakeup_new" then
			local wc, wp = fields:match("^comm=(.-) pid=(%d+) prio=%-?%d+")
			if not wc then
				report:bad(lineno, ev .. " fields: expected comm= pid= prio=")
				goto next
			end
			if ev == "sched_waking" then
				waking[wp] = true
				wakeup(now, c, tid, wp, wc)
			elseif ev == "sched_wakeup" and waking[wp] then
				waking[wp] = nil	-- the end of the wakeup its sched_waking began
			else
				wakeup(now, c, tid, wp, wc)
			end
		elseif ev == "sched_process_exit" then
			local xc, xp = fields:match("^comm=(.-) pid=(%d+)")
			if not xc then
				report:bad(lineno, "sched_process_exit fields: expected comm= pid=")
				goto next
			end
			named(xp, xc)
			if want_threads then w:event(now, xp, "exit") end
		end
	end
	::next::
end
-- The CPUs' tags are the threads' names; their definitions, with the
-- final command names, come last.
for _, tid in ipairs(tagged) do
	w:tag("on-cpu", tid, { pid = tonumber(tid), comm = comms[tid] }, true)
end
report:finish()
w:finish()
