--- threads: the threads analysis of kernel traces written in Lua, over
--- statemap.events and statemap.new: a state provider to copy and change.
--
--   local threads = require "statemap.threads"
--   local t = threads.load("trace.dat")             -- a trace, as statemap.load gives
--   local t = threads.load("trace.dat", { from = "1s", to = "2s" })
--
-- It follows the rules of the C analysis (statemap.load(path, {analysis =
-- "threads"}); src/ingest/kernel_threads.h) and gives the same entities,
-- states, tags and times (tests/lua/test_kernel.lua checks); the C one is
-- the fast path. Two differences: the trace's metadata start is 0 (its
-- times are the same: ns since the trace's first event), and prev_state
-- is read with the kernel's usual bits (S 1, D 2, T 4, t 8, X 16, Z 32,
-- P 64, I 128), where the C reader takes them from the trace's format.
local sm = require "statemap"

local threads = {}

local CLONE_THREAD = 0x00010000
local COMM_MAX = 32	-- bytes kept of a name, as the C analysis keeps
local PENDING_MAX = 8

--- The states, in the C analysis's order and colours.
threads.states = {
	running = { value = 0, color = "#2ca02c" },
	runnable = { value = 1, color = "#ffb000" },
	sleeping = { value = 2, color = "#dce6f0" },
	blocked = { value = 3, color = "#d62728" },
}

-- prev_state's bits and what each says: the lowest bit set that has a
-- letter decides; none (0, or only the preemption bit) is runnable.
local state_bits = {
	{ 0x01, "sleeping" }, { 0x02, "blocked" }, { 0x04, "sleeping" }, { 0x08, "sleeping" },
	{ 0x10, "exited" }, { 0x20, "exited" }, { 0x40, "sleeping" }, { 0x80, "sleeping" },
}

local function left_for(prev_state)
	if prev_state == nil then return "sleeping" end
	for _, b in ipairs(state_bits) do
		if prev_state & b[1] ~= 0 then return b[2] end
	end
	return "runnable"
end

-- A name as one component of an entity's path: "/" and "\" quoted.
local function component(s)
	return (s:gsub("[/\\]", "\\%0"))
end

-- A field of either format's name (LTTng's tid, ftrace's pid).
local function field(f, lttng, ftrace)
	local v = f[lttng]
	if v == nil and ftrace then v = f[ftrace] end
	return v
end

--- Reads the kernel trace at path (options: from=, to= as for
--- statemap.events) and returns the trace the threads analysis makes.
function threads.load(path, options)
	sm.check_options("threads.load", options, { "from", "to" })
	local b = sm.new{ title = "threads", states = threads.states }
	local tab, order, last = {}, {}, 0	-- threads by tid, and by first sight

	local function thread_of(tid)
		local th = tab[tid]
		if not th then
			th = { tid = tid, tgid = -1, comm = "<...>", pend = {} }
			tab[tid] = th
			order[#order + 1] = th
		end
		return th
	end

	local function field_thread(v)
		if type(v) ~= "number" or v <= 0 or v > 0x7fffffff then return nil end
		return thread_of(v)
	end

	local function set_comm(th, s)
		if s then th.comm = s:sub(1, COMM_MAX) end
	end

	-- An exited thread has no data from then on (b:set of nil).
	local function emit(th, time, state, cpu)
		if state == "exited" then
			b:set(time, th.entity, nil)
			return
		end
		b:set(time, th.entity, state, state == "running" and ("cpu" .. cpu) or nil)
	end

	local function name(th)
		local tgid = th.tgid >= 0 and th.tgid or th.tid
		local leader = th
		if tgid ~= th.tid and tab[tgid] then leader = tab[tgid] end
		th.entity = component(leader.comm) .. "[" .. tgid .. "]/" ..
		    component(th.comm) .. "[" .. th.tid .. "]"
		th.named = true
		for _, p in ipairs(th.pend) do emit(th, p[1], p[2], p[3]) end
		th.pend = {}
	end

	local function transition(th, time, state, cpu)
		if th.state == state and (state ~= "running" or th.cpu == cpu) then return end
		th.state, th.cpu = state, cpu
		if not th.named and not th.fresh then name(th) end
		if th.named then
			emit(th, time, state, cpu)
			return
		end
		th.pend[#th.pend + 1] = { time, state, cpu }
		if #th.pend == PENDING_MAX then name(th) end
	end

	-- A thread made during the trace: afresh, even if its id was used.
	local function fresh(tid, comm)
		local th = field_thread(tid)
		if not th or (th.state == nil and th.fresh) then return th end
		if th.state ~= nil or th.named then
			th.tgid, th.state, th.named, th.exiting, th.entity = -1, nil, nil, nil, nil
			th.comm, th.pend, th.cpu = "", {}, nil
		end
		th.fresh = true
		set_comm(th, comm)
		return th
	end

	local handlers = {}
	function handlers.sched_switch(ev, f)
		local th = field_thread(field(f, "prev_tid", "prev_pid"))
		if th then
			set_comm(th, f.prev_comm)
			local to = left_for(f.prev_state)
			if th.exiting then to = "exited" end
			if not th.named then name(th) end
			transition(th, ev.time, to, ev.cpu)
		end
		th = field_thread(field(f, "next_tid", "next_pid"))
		if th then
			set_comm(th, f.next_comm)
			transition(th, ev.time, "running", ev.cpu)
		end
	end
	local function wakeup(ev, f, new)
		local tid = field(f, "tid", "pid")
		local th = new and fresh(tid, f.comm) or field_thread(tid)
		if not th then return end
		set_comm(th, f.comm)
		if th.state == nil or th.state == "sleeping" or th.state == "blocked" then
			transition(th, ev.time, "runnable", ev.cpu)
		end
	end
	function handlers.sched_waking(ev, f) wakeup(ev, f, false) end
	handlers.sched_wakeup = handlers.sched_waking
	function handlers.sched_wakeup_new(ev, f) wakeup(ev, f, true) end
	function handlers.sched_process_fork(_, f)
		fresh(field(f, "child_tid", "child_pid"), f.child_comm)
	end
	function handlers.task_newtask(ev, f)
		local tgid = -1
		if f.clone_flags and f.clone_flags & CLONE_THREAD ~= 0 and ev.pid > 0 then
			local creator = thread_of(ev.pid)
			tgid = creator.tgid >= 0 and creator.tgid or creator.tid
		end
		local th = fresh(field(f, "tid", "pid"), f.comm)
		if th and tgid > 0 then th.tgid = tgid end
	end
	function handlers.lttng_statedump_process_state(_, f)
		local th = field_thread(f.tid)
		if th then
			set_comm(th, f.name)
			if type(f.pid) == "number" and f.pid > 0 and f.pid <= 0x7fffffff then th.tgid = f.pid end
		end
	end
	function handlers.task_rename(_, f)
		local th = field_thread(field(f, "tid", "pid"))
		if th then set_comm(th, f.newcomm) end
	end
	function handlers.sched_process_exit(_, f)
		local th = field_thread(field(f, "tid", "pid"))
		if th then
			th.exiting = true
			if not th.named and th.state ~= nil then name(th) end
		end
	end

	sm.events(path, options, function(ev)
		last = ev.time
		local h = handlers[ev.name]
		if h == handlers.sched_switch then return h(ev, ev.fields) end
		-- The task running on the CPU runs, if nothing said so yet.
		if ev.pid > 0 then
			local th = thread_of(ev.pid)
			if th.state == nil then
				if not th.fresh and ev.comm ~= "<...>" then set_comm(th, ev.comm) end
				transition(th, ev.time, "running", ev.cpu)
			end
		end
		if h then h(ev, ev.fields) end
	end)
	-- Threads whose naming still waits are named as they are now.
	for _, th in ipairs(order) do
		if not th.named and #th.pend > 0 then name(th) end
	end
	return b:finish(last)
end

return threads
