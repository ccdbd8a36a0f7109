-- tests/kernel/report.lua: an independent reading of a trace.dat, for the
-- kernel tests to check the C analyses against: the text `trace-cmd
-- report -N -t` prints (the kernel's own formats, no plugins, times to
-- the nanosecond), parsed line by line, and the time each thread and
-- each CPU spends in each state worked out from it by the rules that
-- src/ingest/kernel_threads.h and kernel_cpus.h state. It shares no code
-- with the program: not its reader (libtracecmd's records), nor its
-- fields, nor its analyses.
local report = {}

--- The events of path as {time = ns since the first, cpu =, pid =,
--- comm =, name =, text = the fields as printed}, or nil and why.
function report.read(path)
	local p = io.popen("trace-cmd report -N -t -i '" .. path .. "' 2>/dev/null")
	if not p then return nil, "cannot run trace-cmd" end
	local events, first = {}, nil
	for line in p:lines() do
		-- "[INSTANCE:] COMM-PID [CPU] SECS.NSECS: EVENT: FIELDS"; COMM
		-- may hold spaces and dashes, so the PID is the last "-digits"
		-- before the CPU.
		local comm, pid, cpu, s, ns, name, text = line:match(
		    "^%s*(.-)%-(%d+)%s+%[(%d+)%]%s+(%d+)%.(%d+):%s+([%w_]+):%s*(.-)%s*$")
		if comm then
			-- An instance's name prefixes the lines of its buffer.
			comm = comm:gsub("^[%w_.-]+:%s+", "")
			local t = tonumber(s) * 1000000000 + tonumber(ns)
			first = first or t
			events[#events + 1] = { time = t - first, cpu = tonumber(cpu), pid = tonumber(pid),
				comm = comm, name = name, text = text }
		end
	end
	p:close()
	if #events == 0 then return nil, "trace-cmd report printed no events" end
	return events
end

local function switch_fields(text)
	local pc, pp, ps, nc, np = text:match(
	    "^prev_comm=(.-) prev_pid=(%-?%d+) prev_prio=%-?%d+ prev_state=(%S+) ==> next_comm=(.-) next_pid=(%-?%d+) next_prio=%-?%d+$")
	return pc, tonumber(pp), ps, nc, tonumber(np)
end

-- prev_state as printed: the first letter says it ("R+", "S", "D|K"...).
local function left_for(state)
	local c = state:sub(1, 1)
	if c == "R" then return "runnable" end
	if c == "D" then return "blocked" end
	if c == "X" or c == "Z" then return "exited" end
	return "sleeping"
end

local function add(totals, key, state, ns)
	if ns <= 0 then return end
	local t = totals[key]
	if not t then t = {}; totals[key] = t end
	t[state] = (t[state] or 0) + ns
end

--- Each thread's time in each state, {[tid] = {state = ns}}, up to the
--- last event: a thread is in no state until the first event that gives
--- it one (running where an event shows it as the CPU's task), nor once
--- it has exited (its time then counts in no state); and the tids that
--- exited, {[tid] = time}.
function report.threads(events)
	local cur, since, exiting, totals, exited = {}, {}, {}, {}, {}
	local function enter(tid, state, t)
		if tid <= 0 or cur[tid] == state then return end
		if cur[tid] and cur[tid] ~= "exited" then add(totals, tid, cur[tid], t - since[tid]) end
		cur[tid], since[tid] = state, t
		if state == "exited" then exited[tid] = t end
	end
	for _, e in ipairs(events) do
		if e.name == "sched_switch" then
			local _, pp, ps, _, np = switch_fields(e.text)
			local to = left_for(ps)
			if exiting[pp] then to = "exited" end
			enter(pp, to, e.time)
			enter(np, "running", e.time)
		else
			if e.pid > 0 and not cur[e.pid] then enter(e.pid, "running", e.time) end
			if e.name == "sched_waking" or e.name == "sched_wakeup" or e.name == "sched_wakeup_new" then
				local pid = tonumber(e.text:match("pid=(%d+) prio="))
				local c = cur[pid]
				if c == nil or c == "sleeping" or c == "blocked" then enter(pid, "runnable", e.time) end
			elseif e.name == "sched_process_exit" then
				exiting[tonumber(e.text:match("pid=(%d+) prio="))] = true
			end
		end
	end
	local last = events[#events].time
	for tid, state in pairs(cur) do
		if state ~= "exited" then add(totals, tid, state, last - since[tid]) end
	end
	return totals, exited
end

--- Each CPU's time in each state, {[cpu] = {state = ns}}: idle or
--- running from its first event, irq and softirq on top while their
--- handlers run (an exit that matches no entry ignored).
function report.cpus(events)
	local stack, since, totals = {}, {}, {}
	local function top(c) local s = stack[c]; return s and s[#s] end
	local function change(c, t, f)
		local was = top(c)
		f(stack[c])
		if was then add(totals, c, was, t - since[c]) end
		since[c] = t
	end
	for _, e in ipairs(events) do
		local c = e.cpu
		if e.name == "sched_switch" then
			local _, _, _, _, np = switch_fields(e.text)
			if not stack[c] then stack[c] = {} end
			change(c, e.time, function(s)
				for i = #s, 1, -1 do s[i] = nil end
				s[1] = np == 0 and "idle" or "running"
			end)
		else
			if not stack[c] then
				stack[c] = {}
				change(c, e.time, function(s) s[1] = e.pid == 0 and "idle" or "running" end)
			end
			local s = stack[c]
			if e.name == "irq_handler_entry" or e.name == "softirq_entry" then
				local state = e.name == "irq_handler_entry" and "irq" or "softirq"
				if #s < 17 then change(c, e.time, function(st) st[#st + 1] = state end) end
			elseif (e.name == "irq_handler_exit" and s[#s] == "irq") or
			    (e.name == "softirq_exit" and s[#s] == "softirq") then
				if #s > 1 then change(c, e.time, function(st) st[#st] = nil end) end
			end
		end
	end
	local last = events[#events].time
	for c in pairs(stack) do
		local was = top(c)
		if was then add(totals, c, was, last - since[c]) end
	end
	return totals
end

--- Each block device's requests: {["MAJ:MIN"] = {requests = n, ns =
--- the sum of their times in flight}}, a completion matched with the
--- earliest request outstanding at its sector, one that matches none
--- left out, and requests still outstanding counted to the last block
--- event.
function report.block(events)
	local out, pending, last = {}, {}, 0
	for _, e in ipairs(events) do
		local maj, min, sector
		if e.name == "block_rq_issue" or e.name == "block_rq_complete" then
			maj, min, sector = e.text:match("^(%d+),(%d+) %S+ .-%) (%d+) %+")
			last = e.time
		end
		if maj then
			local dev = maj .. ":" .. min
			local d = out[dev] or { requests = 0, ns = 0 }
			out[dev] = d
			pending[dev] = pending[dev] or {}
			local list = pending[dev]
			if e.name == "block_rq_issue" then
				list[#list + 1] = { sector = sector, time = e.time }
				d.requests = d.requests + 1
			else
				for i, r in ipairs(list) do
					if r.sector == sector then
						d.ns = d.ns + e.time - r.time
						table.remove(list, i)
						break
					end
				end
			end
		end
	end
	for dev, list in pairs(pending) do
		for _, r in ipairs(list) do out[dev].ns = out[dev].ns + last - r.time end
	end
	return out
end

return report
