-- Tests for contrib/proc-statemap.lua: live sampling of a workload it
-- starts (tests/contrib/workload.c: threads that compute, sleep and do
-- I/O), of a process by pid (and its children), and of the whole system.
--
-- Nothing here depends on how fast the machine is. The workload runs
-- until the test tells it to stop, which it does once the sampler has
-- seen what the checks need (polled in the sampler's spool file); the
-- processes sampled by pid sleep until the test kills them. The checks
-- are about structure: samples in order, the workload's threads found
-- and named, states each thread can be in, -d's exact end.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq

local dir = C.tmpdir()
os.execute("mkdir " .. C.quote(dir .. "/tmp"))
local exe = dir .. "/workload"
local built = os.execute("cc -O2 -pthread -o " .. C.quote(exe) .. " " .. C.quote(C.samples .. "/workload.c"))
check("proc: the workload builds", built)

-- Waits (polling) until cond() is true; false only if it never is within
-- ten minutes, which is a hang, not slowness.
local function poll(cond)
	for _ = 1, 12000 do
		if cond() then return true end
		os.execute("sleep 0.05")
	end
	return false
end

-- Starts a shell command in the background; returns its pid.
local function background(cmd)
	local p = io.popen("(" .. cmd .. ") > /dev/null 2>&1 < /dev/null & echo $!")
	local pid = p:read("l")
	p:close()
	return pid
end

local function alive(pid)
	return os.execute("kill -0 " .. pid .. " 2> /dev/null")
end

-- What the sampler has written so far: its spool file in our TMPDIR.
local function spool()
	local text = ""
	for _, f in ipairs(C.ls(dir .. "/tmp")) do text = text .. (C.slurp(dir .. "/tmp/" .. f) or "") end
	return text
end

-- The workload, until we stop it: the sampler starts it (-- COMMAND), in
-- the background, its exit status kept in a file.
local out = dir .. "/proc.out"
local sampler = background("TMPDIR=" .. C.quote(dir .. "/tmp") .. " " .. C.quote(C.sm) .. " "
	.. C.quote(C.top .. "/contrib/proc-statemap.lua") .. " -o " .. C.quote(out) .. " -i 5ms -- "
	.. C.quote(exe) .. " 0 " .. C.quote(dir .. "/data") .. " 2> " .. C.quote(dir .. "/err")
	.. "; echo $? > " .. C.quote(dir .. "/status"))
-- Wait until it has seen the three threads, and "nap" sleeping (state 2
-- in the spool's records), then let the workload end.
local seen = poll(function()
	local s = spool()
	local nap = s:match('E"(%d+)"[^\n]*"description":"workload %(pid %d+%): nap"')
	return s:find(': spin"', 1, true) and s:find(': io"', 1, true) and nap
		and s:find('E"' .. nap .. '"\t[^\n]*"state":2', 1) ~= nil
end)
check("proc: the sampler sees the workload's threads", seen)
local f = io.open(dir .. "/data.stop", "w")
f:close()
local ended = poll(function() return not alive(sampler) end)
check_eq("proc: samples a command until it exits", { ended, C.slurp(dir .. "/status"), C.slurp(dir .. "/err") },
	{ true, "0\n", "" })
check("proc: metadata first, then time order", C.in_order(out))
local ok, t = pcall(sm.load, out)
check("proc: the output loads", ok, t)
if not ok then t = nil end
local by = {}
for _, e in ipairs(t and t:entities() or {}) do
	local thread = (e.description or ""):match(": (%w+)$") or "main"
	by[thread] = e
end
check("proc: one entity per thread, described by the process and thread names",
	by.spin and by.nap and by.io and by.main and #t:entities() == 4, t and unit.show(C.names(t:entities())))
local named, pids = true, {}
for thread, e in pairs(by) do
	local want = thread == "main" and "workload" or thread
	local tid = e.name:match("^" .. want .. "/(%d+)$")
	if not tid then named = false end
	pids[e.description:match("%(pid (%d+)%)")] = true
	if thread == "main" and tid ~= e.description:match("%(pid (%d+)%)") then named = false end
end
local npids = 0
for _ in pairs(pids) do npids = npids + 1 end
check("proc: entities are named COMM/TID, all of one process whose main thread is its pid",
	named and npids == 1, t and unit.show(C.names(t:entities())))
local hf = io.open("/proc/sys/kernel/hostname")
check_eq("proc: the host is this machine", t and t.host, hf and hf:read("l"))
if hf then hf:close() end
check_eq("proc: states", t and C.names(t.states),
	{ "disk-wait", "runnable", "running", "sleeping", "stopped", "zombie" })
-- Each thread is only ever in states its code can put it in, and was seen
-- alive; the sampling itself shows in the first and last samples.
local function only(e, allowed)
	local bad = {}
	for s, ns in pairs(e:time_in()) do
		if ns > 0 and not allowed[s] then bad[#bad + 1] = s end
	end
	return #bad == 0, bad
end
local plausible = {
	spin = { running = true, runnable = true, ["disk-wait"] = true },
	nap = { sleeping = true, running = true, runnable = true, ["disk-wait"] = true },
	io = { sleeping = true, running = true, runnable = true, ["disk-wait"] = true },
	main = { sleeping = true, running = true, runnable = true, ["disk-wait"] = true, zombie = true },
}
for thread, allowed in pairs(plausible) do
	if by[thread] then
		local fine, bad = only(by[thread], allowed)
		check("proc: " .. thread .. " is only in states it can be in", fine, unit.show(bad))
	end
end
if by.spin then
	local ti = by.spin:time_in()
	check("proc: the computing thread was seen running or runnable", ti.running + ti.runnable > 0, unit.show(ti))
end
if by.nap then
	check("proc: the napping thread was seen sleeping", by.nap:time_in().sleeping > 0, unit.show(by.nap:time_in()))
end
if by.main then
	check("proc: the main thread's description", by.main.description:match("^workload %(pid %d+%)$") ~= nil,
		by.main.description)
end

-- -p PID with -d: a process that sleeps until we kill it, sampled for
-- 300ms of its life: the trace ends exactly at -d.
local pid = background("exec sleep 600")
local o, status, err = C.run("proc-statemap.lua", "-p", pid, "-d", "300ms", "-i", "20ms")
t = status == 0 and sm.load(o)
check_eq("proc: -p and -d", t and { C.names(t:entities()), t.finish - t.begin, (t:entity("sleep/" .. pid):at(250000000)) },
	{ { "sleep/" .. pid }, 300000000, "sleeping" })
os.execute("kill " .. pid .. " 2> /dev/null")
os.remove(o)

-- -c: a shell and the sleep it runs (": " keeps the shell from exec'ing
-- it), once the sleep is there.
pid = background("exec sh -c 'sleep 600; :'")
local child
poll(function()
	local p = io.popen("pgrep -P " .. pid)
	child = p:read("l")
	p:close()
	return child ~= nil
end)
o, status, err = C.run("proc-statemap.lua", "-p", pid, "-c", "-d", "200ms", "-i", "20ms")
t = status == 0 and sm.load(o)
check_eq("proc: -c follows children", t and C.names(t:entities()), { "sh/" .. pid, "sleep/" .. tostring(child) })
if child then os.execute("kill " .. child .. " 2> /dev/null") end
os.execute("kill " .. pid .. " 2> /dev/null")
os.remove(o)

o, status, err = C.run("proc-statemap.lua", "-a", "-d", "50ms")
t = status == 0 and sm.load(o)
check("proc: -a sees many threads", t and #t:entities() >= 2, err)
os.remove(o)

-- Ctrl-C (SIGINT) stops sampling and the output is written: run in the
-- background with -o, wait until the first samples reached the spool in
-- TMPDIR, interrupt it, and wait for it to end.
do
	local d = C.tmpdir()
	os.execute("mkdir " .. C.quote(d .. "/tmp"))
	local bg = background("TMPDIR=" .. C.quote(d .. "/tmp") .. " exec " .. C.quote(C.sm) .. " "
		.. C.quote(C.top .. "/contrib/proc-statemap.lua") .. " -a -i 20ms -o " .. C.quote(d .. "/sys.out")
		.. " 2> " .. C.quote(d .. "/err"))
	local started = poll(function()
		return os.execute("find " .. C.quote(d .. "/tmp") .. " -type f -size +0 | grep -q .")
	end)
	os.execute("kill -INT " .. bg)
	local stopped = poll(function() return not alive(bg) end)
	local loaded, t2 = pcall(sm.load, d .. "/sys.out")
	check_eq("proc: Ctrl-C stops sampling and writes the output", { started, stopped, loaded and #t2:entities() > 0,
		C.slurp(d .. "/err"), C.ls(d), C.ls(d .. "/tmp") },
		{ true, true, true, "", { "err", "sys.out", "tmp" }, {} })
	C.rmdir(d)
end

C.check_all_or_nothing("proc: a command that does not start", "proc-statemap.lua",
	{ "--", "/nonexistent/command" }, 1,
	"^proc%-statemap: cannot run /nonexistent/command: not found, or not executable$")
o, status, err = C.run("proc-statemap.lua", "-p", "x")
check_eq("proc: a bad option is status 2", { status, err }, { 2, "proc-statemap: -p wants a process id\n" })
os.remove(o)
o, status = C.run("proc-statemap.lua", "--help")
check("proc: --help", status == 0 and io.open(o):read("a"):find("usage:", 1, true))
os.remove(o)
C.rmdir(dir)
