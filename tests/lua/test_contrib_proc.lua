-- Tests for contrib/proc-statemap.lua: live sampling of a workload it
-- starts (tests/contrib/workload.c: threads that compute, sleep and do
-- I/O), of a process by pid, and of the whole system. Timing on a busy
-- machine varies, so the checks are about structure and large shares.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq

local dir = os.tmpname()
os.remove(dir)
os.execute("mkdir -p " .. dir)
local exe = dir .. "/workload"
local built = os.execute("cc -O2 -pthread -o " .. exe .. " " .. C.quote(C.samples .. "/workload.c"))
check("proc: the workload builds", built)

local out, status, err = C.run("proc-statemap.lua", "--", exe, "1", dir .. "/data")
check_eq("proc: samples a command until it exits", { status, err }, { 0, "" })
check("proc: metadata first, then time order", C.in_order(out))
local t = sm.load(out)
local by = {}
for _, e in ipairs(t:entities()) do
	local thread = (e.description or ""):match(": (%w+)$") or "main"
	by[thread] = e
end
check("proc: one entity per thread, described by the process and thread names",
	by.spin and by.nap and by.io and by.main and #t:entities() == 4, unit.show(C.names(t:entities())))
local named = true
for thread, e in pairs(by) do
	local want = thread == "main" and "workload" or thread
	if not e.name:match("^" .. want .. "/%d+$") then named = false end
end
check("proc: entities are named COMM/TID", named, unit.show(C.names(t:entities())))
local hf = io.open("/proc/sys/kernel/hostname")
check_eq("proc: the host is this machine", t.host, hf and hf:read("l"))
if hf then hf:close() end
check_eq("proc: states", C.names(t.states),
	{ "dead", "disk-wait", "runnable", "running", "sleeping", "stopped", "zombie" })
check("proc: sampled for about the workload's second", t.finish - t.begin >= 900000000
	and t.finish - t.begin < 10000000000, t.finish - t.begin)
local function share(e, states)
	local ti, total, n = e:time_in(), 0, 0
	for s, ns in pairs(ti) do
		total = total + ns
		for _, x in ipairs(states) do if s == x then n = n + ns end end
	end
	return total > 0 and n / total or 0, ti
end
if by.nap then
	local f, ti = share(by.nap, { "sleeping", "dead" })
	check("proc: the napping thread sleeps most of the time", f > 0.6, unit.show(ti))
end
if by.spin then
	local f, ti = share(by.spin, { "running", "runnable", "dead" })
	check("proc: the computing thread is running or runnable", f > 0.8, unit.show(ti))
end
if by.main then
	check("proc: the main thread's description", by.main.description:match("^workload %(pid %d+%)$") ~= nil,
		by.main.description)
end
os.remove(out)

-- -p PID with -d: a sleeping process, for 300ms.
local p = io.popen("sleep 3 > /dev/null 2>&1 & echo $!")
local pid = p:read("l")
p:close()
out, status, err = C.run("proc-statemap.lua", "-p", pid, "-d", "300ms", "-i", "20ms")
t = status == 0 and sm.load(out)
check_eq("proc: -p and -d", t and { C.names(t:entities()), t.finish - t.begin, (t:entity("sleep/" .. pid):at(250000000)) },
	{ { "sleep/" .. pid }, 300000000, "sleeping" })
os.execute("kill " .. pid .. " 2> /dev/null")
os.remove(out)

-- -c: a shell and the sleep it runs (": " keeps the shell from exec'ing it).
p = io.popen("sh -c 'sleep 3; :' > /dev/null 2>&1 & echo $!")
pid = p:read("l")
p:close()
os.execute("sleep 0.2")
out, status, err = C.run("proc-statemap.lua", "-p", pid, "-c", "-d", "200ms", "-i", "20ms")
t = status == 0 and sm.load(out)
local descs, kill = {}, { pid }
for _, e in ipairs(t and t:entities() or {}) do
	descs[#descs + 1] = e.description:match("^%S+")
	local tid = e.name:match("/(%d+)$")
	if tid ~= pid then kill[#kill + 1] = tid end
end
table.sort(descs)
check_eq("proc: -c follows children", descs, { "sh", "sleep" })
os.execute("kill " .. table.concat(kill, " ") .. " 2> /dev/null")
os.remove(out)

out, status, err = C.run("proc-statemap.lua", "-a", "-d", "50ms")
t = status == 0 and sm.load(out)
check("proc: -a sees many threads", t and #t:entities() >= 2, err)
os.remove(out)

-- Ctrl-C (SIGINT) stops sampling and the output is written: run in the
-- background with -o, wait until the first samples reached the spool in
-- TMPDIR, interrupt it, and wait for it to end (no time limits: each wait
-- is for a condition, polled).
do
	local d = C.tmpdir()
	os.execute("mkdir " .. C.quote(d .. "/tmp"))
	local p2 = io.popen("TMPDIR=" .. C.quote(d .. "/tmp") .. " " .. C.quote(C.sm) .. " "
		.. C.quote(C.top .. "/contrib/proc-statemap.lua") .. " -a -i 20ms -o " .. C.quote(d .. "/sys.out")
		.. " > /dev/null 2> " .. C.quote(d .. "/err") .. " < /dev/null & echo $!")
	local bg = p2:read("l")
	p2:close()
	local function poll(cond)
		for _ = 1, 6000 do
			if cond() then return true end
			os.execute("sleep 0.05")
		end
		return false
	end
	local started = poll(function()
		return os.execute("find " .. C.quote(d .. "/tmp") .. " -type f -size +0 | grep -q .")
	end)
	os.execute("kill -INT " .. bg)
	local ended = poll(function() return not os.execute("kill -0 " .. bg .. " 2> /dev/null") end)
	local ok, t2 = pcall(sm.load, d .. "/sys.out")
	check_eq("proc: Ctrl-C stops sampling and writes the output", { started, ended, ok and #t2:entities() > 0,
		C.slurp(d .. "/err"), C.ls(d), C.ls(d .. "/tmp") },
		{ true, true, true, "", { "err", "sys.out", "tmp" }, {} })
	C.rmdir(d)
end

out, status, err = C.run("proc-statemap.lua", "--", "/nonexistent/command")
check("proc: a command that does not start is an error",
	status == 1 and err:find("no thread was sampled", 1, true) ~= nil, err)
os.remove(out)

C.check_all_or_nothing("proc: a command that does not start", "proc-statemap.lua",
	{ "--", "/nonexistent/command" }, 1, "^proc%-statemap: no thread was sampled", 2)
out, status, err = C.run("proc-statemap.lua", "-p", "x")
check_eq("proc: a bad option is status 2", { status, err }, { 2, "proc-statemap: -p wants a process id\n" })
os.remove(out)
out, status = C.run("proc-statemap.lua", "--help")
check("proc: --help", status == 0 and io.open(out):read("a"):find("usage:", 1, true))
os.remove(out)
os.execute("rm -rf " .. dir)
