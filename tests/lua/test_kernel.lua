-- The kernel analyses on real traces: a trace.dat recorded here, around
-- a small workload (tests/kernel/workload.sh: a make -j2, a dd with
-- oflag=direct, a sleeper), by tests/kernel/record.sh (the events
-- enabled under tracefs, then trace-cmd extract), and the captures
-- committed in tests/kernel. Each is checked against an independent
-- reading of the same file (tests/kernel/report.lua: the text of
-- trace-cmd report, parsed here): every thread's time running,
-- runnable, sleeping and blocked (none once it has exited: no data), every CPU's time idle,
-- running, in irq and in softirq, every block device's time in flight,
-- to the nanosecond. Without root, tracefs or trace-cmd the recording
-- is a counted skip.
local sm = require "statemap"
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. here .. "/../kernel/?.lua;" .. package.path
local unit = require "unit"
local report = require "report"
local check, check_eq = unit.check, unit.check_eq
local kdir = here .. "/../kernel"

local function have(cmd)
	return os.execute("command -v " .. cmd .. " > /dev/null 2>&1")
end

-- Time per state, without the states at 0, of a table of states to ns.
local function nonzero(t)
	local out = {}
	for k, v in pairs(t) do if v ~= 0 then out[k] = v end end
	return out
end

-- Entities' times summed by a key their name gives.
local function by_key(t, pattern, tonum)
	local out = {}
	for _, e in ipairs(t:entities()) do
		local key = e.name:match(pattern)
		if key then
			if tonum then key = tonumber(key) end
			local acc = out[key] or {}
			for state, ns in pairs(e:time_in()) do acc[state] = (acc[state] or 0) + ns end
			out[key] = acc
		end
	end
	for k, v in pairs(out) do out[k] = nonzero(v) end
	return out
end

-- The differences between two tables of tables, for a failure message.
local function diff(got, want)
	local lines = {}
	for k, w in pairs(want) do
		if not unit.same(got[k], w) then
			lines[#lines + 1] = tostring(k) .. ": got " .. unit.show(got[k]) .. ", want " .. unit.show(w)
		end
	end
	for k, g in pairs(got) do
		if want[k] == nil then lines[#lines + 1] = tostring(k) .. ": got " .. unit.show(g) .. ", want none" end
	end
	table.sort(lines)
	return #lines .. " differ: " .. table.concat(lines, "; ", 1, math.min(#lines, 5))
end

-- Every interval of a trace as text, sorted, to compare two traces.
local function intervals(t)
	local out = {}
	for iv in t:intervals{} do
		out[#out + 1] = table.concat({ iv.entity, iv.state, tostring(iv.tag), iv.start, iv.finish }, " ")
	end
	table.sort(out)
	return out
end

-- The Lua provider (lua/threads.lua) gives what the C analysis does.
local function check_lua_threads(name, path)
	local threads = require "statemap.threads"
	local c = sm.load(path, { analysis = "threads", cache = false })
	local l = threads.load(path)
	local a, b = intervals(c), intervals(l)
	local first
	for i = 1, math.max(#a, #b) do
		if a[i] ~= b[i] then first = "C: " .. tostring(a[i]) .. "; Lua: " .. tostring(b[i]); break end
	end
	check(name .. ": lua/threads.lua gives the C threads analysis's intervals (" .. #a .. ")", first == nil and #a > 0, first)
	check_eq(name .. ": lua/threads.lua ends where the C analysis does", l.finish, c.finish)
end

-- The Lua provider lua/cpus.lua gives what the C analysis does.
local cpus = require "statemap.cpus"
local function stacked(t)
	local out = {}
	for iv in t:intervals{} do
		out[#out + 1] = table.concat({ iv.entity, iv.state, tostring(iv.tag), iv.depth or 0, iv.start, iv.finish }, " ")
	end
	table.sort(out)
	return out
end
local function check_lua_cpus(name, path)
	local c = sm.load(path, { analysis = "cpus", cache = false })
	local l = cpus.load(path)
	local a, b = stacked(c), stacked(l)
	local first
	for i = 1, math.max(#a, #b) do
		if a[i] ~= b[i] then first = "C: " .. tostring(a[i]) .. "; Lua: " .. tostring(b[i]); break end
	end
	check(name .. ": lua/cpus.lua gives the C cpus analysis's intervals (" .. #a .. ")", first == nil and #a > 0, first)
	check_eq(name .. ": lua/cpus.lua ends where the C analysis does", l.finish, c.finish)
end

-- The Lua provider lua/block.lua gives what the C analysis does: every
-- slot's intervals with their tags, every in-flight value.
local block = require "statemap.block"
local function with_values(t)
	local out = {}
	for iv in t:intervals{} do
		out[#out + 1] = table.concat({ iv.entity, tostring(iv.state or iv.value), tostring(iv.tag), iv.start,
			iv.finish }, " ")
	end
	table.sort(out)
	return out
end
local function check_lua_block(name, path)
	local c = sm.load(path, { analysis = "block", cache = false })
	local l = block.load(path)
	local a, b = with_values(c), with_values(l)
	local first
	for i = 1, math.max(#a, #b) do
		if a[i] ~= b[i] then first = "C: " .. tostring(a[i]) .. "; Lua: " .. tostring(b[i]); break end
	end
	check(name .. ": lua/block.lua gives the C block analysis's intervals and values (" .. #a .. ")",
		first == nil and #a > 0, first)
	check_eq(name .. ": lua/block.lua ends where the C analysis does", l.finish, c.finish)
	local names = {}
	for i, e in ipairs(c:entities()) do names[i] = e.name .. (e.name == l:entities()[i].name and "" or " ~= " .. l:entities()[i].name) end
	check_eq(name .. ": lua/block.lua's entities in the C analysis's order", #c:entities(), #l:entities())
	check(name .. ": lua/block.lua's entities named and ordered as the C analysis's",
		not table.concat(names, ";"):find(" ~= ", 1, true), table.concat(names, "; "))
end

local function check_trace(name, path, analyses)
	local events, why = report.read(path)
	if not events then return unit.skip(name .. ": trace-cmd report", why) end
	local last = events[#events].time
	if analyses.threads then
		local t = sm.load(path, { analysis = "threads", cache = false })
		local want, exited = report.threads(events)
		local got = by_key(t, "%[(%d+)%]$", true)
		check(name .. ": threads: each thread's time per state, to the ns, as trace-cmd report says",
		    unit.same(got, want), diff(got, want))
		-- An exited thread has no data from its exit on (no state
		-- "exited"): nothing at its exit's time nor after.
		local after, nexited = {}, 0
		for _, e in ipairs(t:entities()) do
			local tid = tonumber(e.name:match("%[(%d+)%]$"))
			local at = tid and exited[tid]
			if at and at < t.finish then
				nexited = nexited + 1
				if e:at(at) ~= nil or e:at(t.finish - 1) ~= nil then after[#after + 1] = e.name end
			end
		end
		local names = {}
		for _, s in ipairs(t.states) do names[#names + 1] = s.name end
		check_eq(name .. ": threads: its states", names, { "running", "runnable", "sleeping", "blocked" })
		check(name .. ": threads: exited threads (" .. nexited .. ") have no data after their exit",
		    nexited > 0 and #after == 0, table.concat(after, ", "))
		check_eq(name .. ": threads: the trace ends at its last event", t.finish, last)
		local n = 0
		for _ in pairs(want) do n = n + 1 end
		check(name .. ": threads: there are threads (" .. n .. ")", n > 3)
		check_lua_threads(name, path)
	end
	if analyses.cpus then
		local t = sm.load(path, { analysis = "cpus", cache = false })
		local got, want = by_key(t, "^cpu(%d+)$", true), report.cpus(events)
		check(name .. ": cpus: each CPU's time idle, running, in irq and softirq, as trace-cmd report says",
		    unit.same(got, want), diff(got, want))
		local idle_got, idle_want = 0, 0
		for c, s in pairs(want) do
			idle_want = idle_want + (s.idle or 0)
			idle_got = idle_got + ((got[c] or {}).idle or 0)
		end
		check_eq(name .. ": cpus: the sum of idle time per CPU", idle_got, idle_want)
		check_lua_cpus(name, path)
	end
	if analyses.block then
		local t = sm.load(path, { analysis = "block", cache = false })
		local want = report.block(events)
		local got = {}
		for _, e in ipairs(t:entities()) do
			local dev, what = e.name:match("^block (%d+:%d+)/(.*)$")
			local d = got[dev] or { requests = 0, ns = 0 }
			got[dev] = d
			if what == "in flight" then
				d.in_flight = (e:stats() or {}).integral
			else
				local ti = e:time_in()
				d.ns = d.ns + (ti.read or 0) + (ti.write or 0) + (ti.other or 0)
			end
		end
		local requests = 0
		for iv in t:intervals{} do
			if iv.state and iv.state ~= "idle" then requests = requests + 1 end
		end
		local reqs_want, ok = 0, true
		for dev, d in pairs(want) do
			reqs_want = reqs_want + d.requests
			ok = ok and got[dev] and got[dev].ns == d.ns and got[dev].in_flight == d.ns
		end
		check(name .. ": block: each device's time in flight (slots and the in-flight value), as trace-cmd report says",
		    ok, unit.show(got) .. " vs " .. unit.show(want))
		check(name .. ": block: there are requests", reqs_want > 0)
		check_lua_block(name, path)
	end
end

-- A trace recorded here, now.
local function record()
	if not have("trace-cmd") then return nil, "no trace-cmd (apt-get install trace-cmd)" end
	local dir = os.tmpname()
	os.remove(dir)
	os.execute("mkdir -p '" .. dir .. "'")
	local out = dir .. "/trace.dat"
	local errf = dir .. "/err"
	local ok, _, code = os.execute(kdir .. "/record.sh '" .. out .. "' " .. kdir .. "/workload.sh '" ..
	    dir .. "/w' 2> '" .. errf .. "'")
	local f = io.open(errf)
	local msg = f and f:read("a"):gsub("%s+$", "") or ""
	if f then f:close() end
	if not ok then
		os.execute("rm -rf '" .. dir .. "'")
		return nil, code == 77 and msg or ("record.sh failed (" .. tostring(code) .. "): " .. msg), code ~= 77
	end
	return out, dir
end

local path, dir, failed = record()
if path then
	check_trace("recorded", path, { threads = true, cpus = true, block = true })
	os.execute("rm -rf '" .. dir .. "'")
elseif failed then
	check("recorded: a real trace", false, dir)
else
	unit.skip("recorded: a real trace of sched, irq and block events", dir)
end

-- The capture committed for the golden case (tests/golden/kernel-tracedat),
-- checked the same way where trace-cmd is here to read it.
if have("trace-cmd") then
	check_trace("committed small.dat", kdir .. "/small.dat", { threads = true, cpus = true, block = true })
else
	unit.skip("committed small.dat against trace-cmd report", "no trace-cmd (apt-get install trace-cmd)")
end

-- A real LTTng trace, where LTTng is here: userspace events (LTTng's
-- kernel tracer needs lttng-modules, which this machine's kernel cannot
-- load), recorded by tests/kernel/record-ust.sh and read through
-- libbabeltrace2: every event with its fields; no analysis without
-- sched events, said in one line.
do
	local dir = os.tmpname()
	os.remove(dir)
	local p = io.popen("sh " .. kdir .. "/record-ust.sh '" .. dir .. "' 2>&1; echo \"rc=$?\"")
	local text = p:read("a")
	p:close()
	local code = tonumber(text:match("rc=(%d+)%s*$"))
	local trace = text:match("^(/[^\n]*)\n")
	if code == 0 and trace then
		local n, mallocs, sized = 0, 0, true
		sm.events(trace, function(ev)
			n = n + 1
			if ev.name == "lttng_ust_libc:malloc" then
				mallocs = mallocs + 1
				sized = sized and math.type(ev.fields.size) == "integer"
			end
		end)
		check("lttng-ust: a real CTF trace's events (" .. n .. ", " .. mallocs .. " mallocs) with their fields",
			n > 0 and mallocs > 0 and sized)
		local ok, err = pcall(sm.load, trace, { cache = false })
		check("lttng-ust: no sched events, no analysis: " .. tostring(err),
			not ok and tostring(err):find("no sched_switch events", 1, true) ~= nil)
	elseif code == 77 then
		unit.skip("lttng-ust: a real CTF trace", (text:gsub("%s*rc=%d+%s*$", "")))
	else
		check("lttng-ust: record-ust.sh", false, text)
	end
	os.execute("rm -rf '" .. dir .. "'")
end

-- CTF: a trace laid out as LTTng writes a kernel trace (tests/kernel/ctf.lua;
-- no LTTng here to record one), read through libbabeltrace2, each thread's
-- and CPU's time per state as worked out by hand from the rules of
-- kernel_threads.h and kernel_cpus.h.
do
	local ctf = require "ctf"
	local T = 100000000000	-- the events' times, from the clock's origin
	local function sw(t, cpu, pc, pt, ps, nc, nt)
		return { time = T + t, cpu = cpu, name = "sched_switch", f = { prev_comm = pc, prev_tid = pt,
			prev_state = ps, next_comm = nc, next_tid = nt, prev_prio = 120, next_prio = 120 } }
	end
	local function dump(tid, pid, name)
		return { time = T + 1000, cpu = 0, name = "lttng_statedump_process_state", f = { tid = tid, pid = pid, name = name } }
	end
	local events = {
		dump(10, 10, "app"), dump(11, 10, "app-worker"), dump(20, 20, "kworker/0:1"),
		sw(2000, 0, "swapper/0", 0, 0, "app", 10),
		sw(3000, 1, "swapper/1", 0, 0, "kworker/0:1", 20),
		sw(5000, 0, "app", 10, 1, "app-worker", 11),	-- S
		{ time = T + 6000, cpu = 1, name = "irq_handler_entry", f = { irq = 5, name = "eth0" } },
		{ time = T + 6500, cpu = 1, name = "irq_handler_exit", f = { irq = 5, ret = 1 } },
		sw(7000, 1, "kworker/0:1", 20, 2, "swapper/1", 0),	-- D
		{ time = T + 8000, cpu = 1, name = "sched_waking", f = { comm = "app", tid = 10, target_cpu = 0 } },
		sw(9000, 0, "app-worker", 11, 0, "app", 10),	-- R: preempted
		{ time = T + 10000, cpu = 1, name = "sched_waking", f = { comm = "kworker/0:1", tid = 20, target_cpu = 1 } },
		sw(11000, 1, "swapper/1", 0, 0, "kworker/0:1", 20),
		sw(12000, 0, "app", 10, 1, "app-worker", 11),
		sw(13000, 1, "kworker/0:1", 20, 1, "swapper/1", 0),
	}
	local dir = os.tmpname()
	os.remove(dir)
	ctf.write(dir, events)
	local function times(t)
		local out = {}
		for _, e in ipairs(t:entities()) do out[e.name] = nonzero(e:time_in()) end
		return out
	end
	local t = sm.load(dir, { analysis = { "threads", "cpus" }, cache = false })
	local want = {
		["app[10]/app[10]"] = { running = 6000, sleeping = 4000, runnable = 1000 },
		["app[10]/app-worker[11]"] = { running = 5000, runnable = 3000 },
		["kworker\\/0:1[20]/kworker\\/0:1[20]"] = { running = 6000, blocked = 3000, runnable = 1000 },
		-- cpu0's first event names no task (the state dump: LTTng's events
		-- name none, and no switch has said which runs there yet)
		cpu0 = { idle = 1000, running = 11000 },
		cpu1 = { running = 5500, irq = 500, idle = 4000 },
	}
	local got = times(t)
	check("ctf: each thread's and CPU's time per state, by hand", unit.same(got, want), diff(got, want))
	check_eq("ctf: times from the first event", t.finish, 12000)
	-- (the clock's offset_s = 100 puts its origin 100 s after its zero)
	check_eq("ctf: the metadata start is the first event's time", t.start, 100000000000 + T + 1000)
	local tags = {}
	for iv in t:intervals{ entities = { "app[10]/app[10]" }, states = { "running" } } do tags[#tags + 1] = iv.tag end
	check_eq("ctf: the CPU a thread runs on is its tag", table.concat(tags, " "), "cpu0 cpu0")
	check_lua_threads("ctf", dir)
	check_eq("ctf: the metadata file names the trace too",
	    #sm.load(dir .. "/metadata", { cache = false }):entities(), 3)
	-- The cache: an entry for the directory, and stale once a file changes.
	local a = #sm.load(dir):entities()
	events[#events + 1] = sw(14000, 1, "swapper/1", 0, 0, "late", 30)
	ctf.write(dir, events)
	local b = #sm.load(dir):entities()
	check("ctf: the cache keeps a CTF trace, and a changed trace is read anew (" .. a .. ", " .. b .. ")",
	    a == 3 and b == 4)
	-- Errors name the directory.
	local function fails(path, opts, want_msg, what)
		local ok, err = pcall(sm.load, path, opts)
		check("ctf: " .. what .. ": " .. tostring(err), not ok and tostring(err):find(want_msg, 1, true) ~= nil)
	end
	fails(dir, { analysis = "block", cache = false }, dir .. ": no block_rq_issue events", "no block events")
	local f = io.open(dir .. "/metadata", "a")
	f:write("trace { broken")
	f:close()
	fails(dir, { cache = false }, dir .. ": not a CTF trace that libbabeltrace2 can read", "damaged metadata")
	os.execute("rm -rf '" .. dir .. "'")
	ctf.write(dir, { events[1] })
	os.remove(dir .. "/channel0_0")
	fails(dir, { cache = false }, dir .. ": a CTF trace that holds no events", "no streams")
	os.execute("rm -rf '" .. dir .. "'")
end

-- statemap.events: each event, in time order, with its fields by the
-- format's names; the options choose events and a range; the handler
-- stops the reading by returning false; errors.
do
	local path = kdir .. "/small.dat"
	local n, last, ordered, names, first_switch = 0, 0, true, {}, nil
	-- Every event of a kind has the same keys (the names are kept from
	-- its first event on) and its own values (a switch's next is the
	-- CPU's prev at its next switch).
	local keys_of, same_keys, next_of, chained, switches = {}, true, {}, 0, 0
	sm.events(path, function(ev)
		n = n + 1
		ordered = ordered and ev.time >= last
		last = ev.time
		names[ev.name] = (names[ev.name] or 0) + 1
		if ev.name == "sched_switch" and not first_switch then first_switch = ev end
		local ks = {}
		for k in pairs(ev.fields) do ks[#ks + 1] = k end
		table.sort(ks)
		ks = table.concat(ks, " ")
		keys_of[ev.name] = keys_of[ev.name] or ks
		same_keys = same_keys and keys_of[ev.name] == ks and ev.time ~= nil and
		    ev.cpu ~= nil and ev.pid ~= nil and ev.comm ~= nil
		if ev.name == "sched_switch" then
			switches = switches + 1
			if next_of[ev.cpu] == ev.fields.prev_pid then chained = chained + 1 end
			next_of[ev.cpu] = ev.fields.next_pid
		end
	end)
	check("events: every event of a kind has its kind's keys", same_keys)
	check("events: each switch's prev is its CPU's last next (" .. chained .. " of " .. switches .. ")",
	    switches > 100 and chained >= switches - 8, chained)
	local t = sm.load(path, { analysis = "threads", cache = false })
	check_eq("events: every event of the trace", n, t.records)
	check("events: in time order", ordered)
	check_eq("events: the last one at the trace's end", last, t.finish)
	local f = first_switch.fields
	check("events: a sched_switch's fields by ftrace's names and types",
	    type(f.prev_comm) == "string" and math.type(f.prev_pid) == "integer" and
	    math.type(f.prev_state) == "integer" and type(f.next_comm) == "string" and f.common_pid == nil,
	    unit.show(f))
	check("events: time, cpu, pid and comm", math.type(first_switch.time) == "integer" and
	    math.type(first_switch.cpu) == "integer" and first_switch.pid == f.prev_pid and
	    first_switch.comm == f.prev_comm, unit.show(first_switch))
	local some, all_switches = 0, true
	local from, to = math.floor(t.finish / 4), math.floor(t.finish / 2)
	sm.events(path, { events = { "sched_switch", "no_such_event" }, from = from, to = to }, function(ev)
		some = some + 1
		all_switches = all_switches and ev.name == "sched_switch" and ev.time >= from and ev.time <= to
	end)
	local want = 0
	sm.events(path, function(ev)
		if ev.name == "sched_switch" and ev.time >= from and ev.time <= to then want = want + 1 end
	end)
	check("events: events, from and to choose (" .. some .. " of " .. names.sched_switch .. " switches)",
	    all_switches and some == want and some > 0 and some < names.sched_switch)
	local seen = 0
	sm.events(path, function() seen = seen + 1; if seen == 10 then return false end end)
	check_eq("events: a handler that returns false stops the reading", seen, 10)
	local function fails(what, want_msg, ...)
		local ok, err = pcall(sm.events, ...)
		check("events: " .. what .. ": " .. tostring(err), not ok and tostring(err):find(want_msg, 1, true) ~= nil)
	end
	fails("the handler's error", "boom", path, function() error("boom") end)
	fails("not a kernel trace", "not a kernel trace", here .. "/test_kernel.lua", function() end)
	fails("an unknown option", "unknown option", path, { form = 1 }, function() end)
	fails("from after to", "from must not be after to", path, { from = 10, to = 5 }, function() end)
	fails("no handler", "function expected", path)
	local ok = pcall(sm.events, path, function() error("again") end)
	check("events: the trace is closed after an error (read again)", not ok and
	    pcall(sm.events, path, { to = 0 }, function() end))
end

-- lua/cpus.lua (statemap.cpus) gives what the C CPUs analysis does, stacks
-- and tags included, on a CTF trace whose handlers began before it (the
-- captures are checked in check_trace).
do
	local ctf = require "ctf"
	local dir = os.tmpname()
	os.remove(dir)
	ctf.write(dir, {
		{ time = 1000, cpu = 0, name = "irq_handler_entry", f = { irq = 3, name = "timer" } },
		{ time = 1500, cpu = 0, name = "sched_switch", f = { prev_comm = "a", prev_tid = 5, prev_state = 1,
			next_comm = "b", next_tid = 6 } },
		{ time = 2000, cpu = 1, name = "irq_handler_exit", f = { irq = 3, ret = 1 } },
		{ time = 2500, cpu = 1, name = "irq_handler_entry", f = { irq = 4, name = "disk" } },
		{ time = 3000, cpu = 0, name = "sched_switch", f = { prev_comm = "b", prev_tid = 6, prev_state = 0,
			next_comm = "swapper/0", next_tid = 0 } },
	})
	check_lua_cpus("ctf", dir)
	os.execute("rm -rf '" .. dir .. "'")
end
