-- Tests for contrib/perf-sched2statemap.lua on a hand-written sample of
-- `perf script` output (tests/contrib/perf-sched.txt); the expected
-- intervals are worked out by hand from its lines.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq

local out, status, err = C.run("perf-sched2statemap.lua", C.samples .. "/perf-sched.txt")
check_eq("perf: converts the sample", { status, err }, { 0, "" })
check("perf: metadata first, then time order", C.in_order(out))
local t = sm.load(out)
check_eq("perf: start is the first event", t.start, 5001000100000)
check_eq("perf: threads (COMM/TID) and CPUs", C.names(t:entities()),
	{ "Web Content/103", "cpu0", "cpu1", "dbwriter/102", "sleeper/104", "worker/101" })
check_eq("perf: states", C.names(t.states),
	{ "dead", "idle", "io-wait", "on-cpu", "runnable", "sleeping", "stopped" })
check_eq("perf: comm with a space", t:entity("Web Content/103").description, "Web Content")
local e102 = t:entity("dbwriter/102")
check_eq("perf: on-cpu until switched out", { e102:at(100000) }, { "on-cpu", nil, 0, 200000 })
check_eq("perf: prev_state D is io-wait until the wakeup", { e102:at(500000) }, { "io-wait", nil, 200000, 900000 })
check_eq("perf: woken, runnable until switched in", { e102:at(1000000) }, { "runnable", nil, 900000, 1400000 })
check_eq("perf: prev_state S is sleeping", { e102:at(2000000) }, { "sleeping", nil, 1900000, 2900000 })
check_eq("perf: R+ is runnable (preempted)", { t:entity("worker/101"):at(100000) }, { "runnable", nil, 0, 200000 })
check_eq("perf: a thread moves to another CPU", { t:entity("worker/101"):at(2000000) }, { "on-cpu", nil, 1500000, 2900000 })
check_eq("perf: dead after sched_process_exit, X keeps it dead",
	{ t:entity("sleeper/104"):at(1200000) }, { "dead", nil, 1100000, 2900000 })
check_eq("perf: a CPU shows the running thread as its tag", { t:entity("cpu0"):at(300000) },
	{ "on-cpu", "worker/101", 200000, 1400000 })
check_eq("perf: a CPU running the idle task is idle", { t:entity("cpu0"):at(2000000) },
	{ "idle", nil, 1900000, 2500000 })
check_eq("perf: time per state of cpu1", t:entity("cpu1"):time_in(), {
	["on-cpu"] = 2250000, idle = 350000, runnable = 0, sleeping = 0, ["io-wait"] = 0,
	stopped = 0, dead = 0 })
local tagdef
for _, r in ipairs(C.records(out)) do
	if r.tag == "Web Content/103" and r.comm then tagdef = r end
end
check_eq("perf: a CPU's tag is the thread's name; its definition carries pid and comm", tagdef,
	{ state = 0, tag = "Web Content/103", pid = 103, comm = "Web Content" })
local ev = {}
for _, e in ipairs(C.events(out)) do ev[#ev + 1] = e.entity .. ">" .. e.target .. "@" .. e.time end
check_eq("perf: wakeups are events from waker to wakee (the CPU for the idle task)", ev,
	{ "Web Content/103>sleeper/104@600000", "worker/101>dbwriter/102@900000", "cpu0>Web Content/103@2400000" })
os.remove(out)

C.check_output_option("perf", "perf-sched2statemap.lua", { C.samples .. "/perf-sched.txt" })
out, status = C.run("perf-sched2statemap.lua", "--cpus", C.samples .. "/perf-sched.txt")
check_eq("perf: --cpus keeps only CPUs", { status, C.names(sm.load(out):entities()) }, { 0, { "cpu0", "cpu1" } })
os.remove(out)

-- pid/tid columns (perf script -F +pid), nanosecond times, and errors.
local input = os.tmpname()
local f = io.open(input, "w")
f:write("  java  7/9 [003]  10.000000001: sched:sched_switch: prev_comm=java prev_pid=9 prev_prio=120 prev_state=S ==> next_comm=swapper/3 next_pid=0 next_prio=120\n",
	"  this is not perf output\n",
	"  swapper  0 [003]  10.000000501: sched:sched_switch: prev_comm=swapper/3 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=java next_pid=9 next_prio=120\n")
f:close()
out, status, err = C.run("perf-sched2statemap.lua", input)
check_eq("perf: a malformed line stops with its number", { status, err:match(":(%d+): ") }, { 1, "2" })
os.remove(out)
C.check_all_or_nothing("perf: a bad line", "perf-sched2statemap.lua", { input }, 1, "^.+:2: .+$")
out, status, err = C.run("perf-sched2statemap.lua", "--lenient", input)
local t2 = status == 0 and sm.load(out)
check_eq("perf: --lenient, pid/tid and nanoseconds", t2 and { t2:entity("java/9"):at(0) }, { "sleeping", nil, 0, 500 })
os.remove(out)
-- A thread that renames itself (exec, prctl) keeps one entity, named by
-- its last command name; its description follows the name.
f = io.open(input, "w")
f:write("  sh  50 [000]  1.000000: sched:sched_switch: prev_comm=sh prev_pid=50 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=51 next_prio=120\n",
	"  sleep  51 [000]  1.000100: sched:sched_switch: prev_comm=sleep prev_pid=51 prev_prio=120 prev_state=S ==> next_comm=sh next_pid=50 next_prio=120\n")
f:close()
out, status = C.run("perf-sched2statemap.lua", input)
t2 = status == 0 and sm.load(out)
check_eq("perf: a renamed thread is one entity with its last name", t2 and {
	C.names(t2:entities()), { t2:entity("sleep/51"):at(0) }, t2:entity("sleep/51").description },
	{ { "cpu0", "sh/50", "sleep/51" }, { "on-cpu", nil, 0, 100000 }, "sleep" })
os.remove(out)
os.remove(input)
out, status = C.run("perf-sched2statemap.lua", "--help")
check("perf: --help", status == 0 and io.open(out):read("a"):find("usage:", 1, true))
os.remove(out)
