-- Tests for contrib/perf-sched2statemap.lua on two `perf script` captures
-- made on a real kernel (tests/contrib/perf-record.txt: perf record of
-- sched_switch, sched_wakeup, sched_waking, sched_process_exit and
-- sched_migrate_task; tests/contrib/perf-sched-record.txt: perf sched
-- record, which has sched_waking and no sched_wakeup), on a hand-written
-- sample (tests/contrib/perf-sched.txt) and on small inputs written here.
-- The expected intervals are worked out by hand from the lines quoted in
-- the comments (times relative to the first event, in ns).
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq

-- perf record -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking
--     -e sched:sched_process_exit -e sched:sched_migrate_task -a -- ./exits 3
-- (tests/contrib/exits.c: the main thread "exits" starts a thread "brief"
-- and forks a process "child", three times). The first event is at
-- 628.488186 s; the last at 628.494902 s (6716000 ns) ends the trace.
local out, status, err = C.run("perf-sched2statemap.lua", C.samples .. "/perf-record.txt")
check_eq("perf record: converts the capture", { status, err }, { 0, "" })
check("perf record: metadata first, then time order", C.in_order(out))
local t = sm.load(out)
check_eq("perf record: start is the first event", t.start, 628488186000)
check_eq("perf record: threads named COMM/TID by their last name, and CPUs", C.names(t:entities()), {
	"brief/24449", "brief/24451", "brief/24453", "child/24450", "child/24452", "child/24454",
	"cpu0", "cpu1", "exits/24447", "migration\\/0/18", "migration\\/1/21", "perf/24446", "rcu_preempt/15" })
-- 24447 is perf's child "perf-exec" until it execs ./exits.
check_eq("perf record: a thread that execs is one entity, named and described by its new name",
	{ t:entity("exits/24447").description, (t:entity("exits/24447"):at(120000)) }, { "exits", "runnable" })
-- A thread exits: "brief 24451 [000] 628.491844: sched_process_exit", then
-- ":-1 -1 [000] 628.491853: sched_switch: prev_comm=brief prev_pid=24451
-- prev_state=X ==> next_comm=exits next_pid=24447": the dead thread leaves
-- the CPU and "exits" takes it, until it sleeps at 628.491857.
check_eq("perf record: an exiting thread runs until its last switch-out", { t:entity("brief/24451"):at(3660000) },
	{ "on-cpu", nil, 3607000, 3667000 })
check_eq("perf record: no data from the :-1 line's switch-out (prev_state X) on", { t:entity("brief/24451"):at(3700000) },
	{})
check_eq("perf record: the :-1 line's next thread is on the CPU", { t:entity("cpu0"):at(3668000) },
	{ "on-cpu", "exits/24447", 3667000, 3671000 })
check_eq("perf record: ... and on-cpu", { t:entity("exits/24447"):at(3668000) }, { "on-cpu", nil, 3667000, 3671000 })
-- A process exits: "child 24450 ... prev_state=Z" at 628.490300.
check_eq("perf record: a process has no data from its last switch-out (Z)", { t:entity("child/24450"):at(2200000) },
	{})
check_eq("perf record: preempted (R) while exiting is runnable, then on-cpu again",
	{ { t:entity("child/24450"):at(2015000) }, { t:entity("child/24450"):at(2050000) } },
	{ { "runnable", nil, 2011000, 2018000 }, { "on-cpu", nil, 2018000, 2114000 } })
-- The capture lacks the switch-in of 24449 on cpu1 (as it lacks every
-- event of the idle task on cpu1): it is seen switched out in D at
-- 628.489637, woken at 628.489682 (sched_waking, no sched_wakeup), and
-- "brief 24449 [001] 628.490170: sched_process_exit" shows it running.
check_eq("perf record: a thread seen running on a CPU is on-cpu there (lost switch-in)", {
	{ t:entity("brief/24449"):at(1470000) }, { t:entity("brief/24449"):at(1500000) },
	{ t:entity("brief/24449"):at(2000000) }, { t:entity("brief/24449"):at(2100000) },
	{ t:entity("cpu1"):at(2000000) } }, {
	{ "io-wait", nil, 1451000, 1496000 }, { "runnable", nil, 1496000, 1984000 },
	{ "on-cpu", nil, 1984000, 2023000 }, {},
	{ "on-cpu", "brief/24449", 1984000, 2023000 } })
check_eq("perf record: a CPU running the idle task (swapper/0) is idle", { t:entity("cpu0"):at(3000000) },
	{ "idle", nil, 2135000, 3214000 })
check_eq("perf record: I (an idle kernel thread) is sleeping", { t:entity("rcu_preempt/15"):at(2000000) },
	{ "sleeping", nil, 1718000, 6716000 })
check_eq("perf record: time per state of cpu1", t:entity("cpu1"):time_in(), {
	["on-cpu"] = 43000 + 39000 + 82000 + 64000 + 5000 + 21000,
	idle = 6716000 - 110000 - (43000 + 39000 + 82000 + 64000 + 5000 + 21000),
	runnable = 0, sleeping = 0, ["io-wait"] = 0, stopped = 0 })
-- sched_waking and then sched_wakeup for the same thread are one wakeup,
-- from the waker: "perf 24446 [001] 628.488296: sched_waking:
-- comm=perf-exec pid=24447", then "swapper 0 [000] 628.488327:
-- sched_wakeup: comm=perf-exec pid=24447" from cpu0's interrupt.
local ev, wakeups, exits = C.events(out), 0, {}
for _, e in ipairs(ev) do
	if e.event == "wakeup" then wakeups = wakeups + 1 end
	if e.event == "exit" then exits[#exits + 1] = e.entity .. "@" .. e.time end
end
check_eq("perf record: the first wakeup is the waking, from the waker", ev[1],
	{ time = "0", entity = "perf/24446", event = "wakeup", target = "migration\\/0/18" })
check_eq("perf record: a remote wakeup comes from the waking thread, not the woken CPU", ev[3],
	{ time = "110000", entity = "perf/24446", event = "wakeup", target = "exits/24447" })
check_eq("perf record: one wakeup per sched_waking (20), none for the sched_wakeup after it", wakeups, 20)
check_eq("perf record: sched_process_exit is an exit event", exits, { "brief/24449@1984000", "child/24450@2076000",
	"brief/24451@3658000", "child/24452@3702000", "brief/24453@5316000", "child/24454@5363000",
	"exits/24447@6550000" })
local tagdef
for _, r in ipairs(C.records(out)) do
	if r.tag == "exits/24447" and r.comm then tagdef = r end
end
check_eq("perf record: a CPU's tag is the thread's name, defined with pid and final comm", tagdef,
	{ state = 0, tag = "exits/24447", pid = 24447, comm = "exits" })
os.remove(out)

-- perf sched record -- ./exits 2: sched_waking, no sched_wakeup, no
-- sched_process_exit, and sched_stat_runtime, sched_process_fork,
-- sched_wakeup_new and sched_migrate_task. First event 663.626571 s, last
-- 663.631488 s (4917000 ns).
out, status, err = C.run("perf-sched2statemap.lua", C.samples .. "/perf-sched-record.txt")
check_eq("perf sched record: converts the capture", { status, err }, { 0, "" })
t = sm.load(out)
check_eq("perf sched record: threads and CPUs", C.names(t:entities()), {
	"brief/27638", "brief/27640", "child/27639", "child/27641", "cpu0", "cpu1", "exits/27636",
	"migration\\/0/18", "migration\\/1/21", "perf/27635", "rcu_preempt/15" })
-- "exits 27636 [000] 663.628124: sched_switch: ... prev_state=S ==>
-- next_comm=exits next_pid=27638", "brief 27638 [000] 663.628374:
-- sched_waking: comm=exits pid=27636", switched out R at 663.628384.
check_eq("perf sched record: sched_waking is the wakeup", {
	{ t:entity("exits/27636"):at(1700000) }, { t:entity("exits/27636"):at(1810000) } },
	{ { "sleeping", nil, 1553000, 1803000 }, { "runnable", nil, 1803000, 1813000 } })
check_eq("perf sched record: sched_wakeup_new makes a new thread runnable", { t:entity("brief/27638"):at(1500000) },
	{ "runnable", nil, 1429000, 1553000 })
check_eq("perf sched record: :-1 switch-out (X) is the end of its data", { t:entity("brief/27638"):at(1950000) },
	{})
check_eq("perf sched record: its CPU goes to the next thread", { t:entity("cpu0"):at(1905000) },
	{ "on-cpu", "exits/27636", 1901000, 1911000 })
-- "child 27639 [001] 663.628529: sched_stat_runtime" shows the process
-- running on cpu1 (its switch-in is not in the capture); Z at 663.628560.
check_eq("perf sched record: any line shows who runs on its CPU", {
	{ t:entity("child/27639"):at(1970000) }, { t:entity("cpu1"):at(1970000) }, (t:entity("child/27639"):at(2000000)) },
	{ { "on-cpu", nil, 1958000, 1989000 }, { "on-cpu", "child/27639", 1958000, 1989000 }, nil })
wakeups = 0
for _, e in ipairs(C.events(out)) do
	if e.event == "wakeup" then wakeups = wakeups + 1 end
end
check_eq("perf sched record: 15 sched_waking and 4 sched_wakeup_new are 19 wakeups", wakeups, 19)
os.remove(out)

-- The hand-written sample: thread 102 ("dbwriter") runs until 0.2 ms,
-- blocks in D until 101's wakeup at 0.9 ms, waits for a CPU until 1.4 ms.
out, status, err = C.run("perf-sched2statemap.lua", C.samples .. "/perf-sched.txt")
check_eq("perf: converts the sample", { status, err }, { 0, "" })
check("perf: metadata first, then time order", C.in_order(out))
t = sm.load(out)
check_eq("perf: start is the first event", t.start, 5001000100000)
check_eq("perf: threads (COMM/TID) and CPUs", C.names(t:entities()),
	{ "Web Content/103", "cpu0", "cpu1", "dbwriter/102", "sleeper/104", "worker/101" })
check_eq("perf: states", C.names(t.states),
	{ "idle", "io-wait", "on-cpu", "runnable", "sleeping", "stopped" })
check_eq("perf: comm with a space", t:entity("Web Content/103").description, "Web Content")
local e102 = t:entity("dbwriter/102")
check_eq("perf: on-cpu until switched out", { e102:at(100000) }, { "on-cpu", nil, 0, 200000 })
check_eq("perf: prev_state D is io-wait until the wakeup", { e102:at(500000) }, { "io-wait", nil, 200000, 900000 })
check_eq("perf: woken, runnable until switched in", { e102:at(1000000) }, { "runnable", nil, 900000, 1400000 })
check_eq("perf: prev_state S is sleeping", { e102:at(2000000) }, { "sleeping", nil, 1900000, 2900000 })
check_eq("perf: R+ is runnable (preempted)", { t:entity("worker/101"):at(100000) }, { "runnable", nil, 0, 200000 })
check_eq("perf: a thread moves to another CPU", { t:entity("worker/101"):at(2000000) }, { "on-cpu", nil, 1500000, 2900000 })
check_eq("perf: on-cpu between sched_process_exit and the last switch-out, no data after",
	{ { t:entity("sleeper/104"):at(1120000) }, { t:entity("sleeper/104"):at(1200000) } },
	{ { "on-cpu", nil, 700000, 1150000 }, {} })
check_eq("perf: a CPU shows the running thread's name as its tag", { t:entity("cpu0"):at(300000) },
	{ "on-cpu", "worker/101", 200000, 1400000 })
check_eq("perf: a CPU running the idle task is idle", { t:entity("cpu0"):at(2000000) },
	{ "idle", nil, 1900000, 2500000 })
check_eq("perf: time per state of cpu1", t:entity("cpu1"):time_in(), {
	["on-cpu"] = 2250000, idle = 350000, runnable = 0, sleeping = 0, ["io-wait"] = 0,
	stopped = 0 })
local ev2 = {}
for _, e in ipairs(C.events(out)) do ev2[#ev2 + 1] = e.entity .. ">" .. (e.target or e.event) .. "@" .. e.time end
check_eq("perf: wakeups are events from waker to wakee (the CPU for the idle task); exits", ev2,
	{ "Web Content/103>sleeper/104@600000", "worker/101>dbwriter/102@900000", "sleeper/104>exit@1100000",
	  "cpu0>Web Content/103@2400000" })
os.remove(out)

out, status = C.run("perf-sched2statemap.lua", "--cpus", C.samples .. "/perf-sched.txt")
check_eq("perf: --cpus keeps only CPUs", { status, C.names(sm.load(out):entities()) }, { 0, { "cpu0", "cpu1" } })
os.remove(out)
C.check_output_option("perf", "perf-sched2statemap.lua", { C.samples .. "/perf-record.txt" })

-- pid/tid columns (perf script -F +pid), nanosecond times, and errors.
local input = os.tmpname()
local function write(...)
	local f = io.open(input, "w")
	f:write(...)
	f:close()
end
write("  java  7/9 [003]  10.000000001: sched:sched_switch: prev_comm=java prev_pid=9 prev_prio=120 prev_state=S ==> next_comm=swapper/3 next_pid=0 next_prio=120\n",
	"  this is not perf output\n",
	"  swapper  0/0 [003]  10.000000501: sched:sched_switch: prev_comm=swapper/3 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=java next_pid=9 next_prio=120\n")
out, status, err = C.run("perf-sched2statemap.lua", input)
check_eq("perf: a malformed line stops with its number", { status, err:match(":(%d+): ") }, { 1, "2" })
os.remove(out)
C.check_all_or_nothing("perf: a bad line", "perf-sched2statemap.lua", { input }, 1, "^.+:2: .+$")
out, status, err = C.run("perf-sched2statemap.lua", "--lenient", input)
local t2 = status == 0 and sm.load(out)
check_eq("perf: --lenient, pid/tid and nanoseconds", t2 and { t2:entity("java/9"):at(0) }, { "sleeping", nil, 0, 500 })
os.remove(out)
-- With -F +pid, a task perf no longer knows is "-1/-1"; a sched_waking
-- it writes comes from the thread on that CPU.
write("  worker  5/6 [000]  1.000000: sched:sched_process_exit: comm=worker pid=6 prio=120 group_dead=false\n",
	"  :-1  -1/-1 [000]  1.000010: sched:sched_waking: comm=main pid=5 prio=120 target_cpu=000\n",
	"  :-1  -1/-1 [000]  1.000020: sched:sched_switch: prev_comm=worker prev_pid=6 prev_prio=120 prev_state=X ==> next_comm=main next_pid=5 next_prio=120\n")
out, status, err = C.run("perf-sched2statemap.lua", input)
t2 = status == 0 and sm.load(out)
check_eq("perf: -1/-1 lines, a wakeup from an exiting thread", t2 and {
	{ t2:entity("worker/6"):at(0) }, (t2:entity("main/5"):at(15000)), C.events(out)[2] }, {
	{ "on-cpu", nil, 0, 20000 }, "runnable", { time = "10000", entity = "worker/6", event = "wakeup", target = "main/5" } })
os.remove(out)
-- A thread that renames itself (exec, prctl) keeps one entity, named by
-- its last command name; its description follows the name.
write("  sh  50 [000]  1.000000: sched:sched_switch: prev_comm=sh prev_pid=50 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=51 next_prio=120\n",
	"  sleep  51 [000]  1.000100: sched:sched_switch: prev_comm=sleep prev_pid=51 prev_prio=120 prev_state=S ==> next_comm=sh next_pid=50 next_prio=120\n")
out, status = C.run("perf-sched2statemap.lua", input)
t2 = status == 0 and sm.load(out)
check_eq("perf: a renamed thread is one entity with its last name", t2 and {
	C.names(t2:entities()), { t2:entity("sleep/51"):at(0) }, t2:entity("sleep/51").description },
	{ { "cpu0", "sh/50", "sleep/51" }, { "on-cpu", nil, 0, 100000 }, "sleep" })
os.remove(out)
-- A reused thread id: after its last switch-out, a wakeup or switch-in
-- is a new thread.
write("  a  60 [000]  1.000000: sched:sched_switch: prev_comm=a prev_pid=60 prev_prio=120 prev_state=Z ==> next_comm=swapper/0 next_pid=0 next_prio=120\n",
	"  swapper  0 [000]  1.000100: sched:sched_wakeup_new: comm=a pid=60 prio=120 target_cpu=000\n",
	"  swapper  0 [000]  1.000200: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=60 next_prio=120\n")
out, status = C.run("perf-sched2statemap.lua", input)
t2 = status == 0 and sm.load(out)
check_eq("perf: a reused id lives again", t2 and { (t2:entity("a/60"):at(50000)), (t2:entity("a/60"):at(150000)) },
	{ nil, "runnable" })
os.remove(out)
os.remove(input)
out, status = C.run("perf-sched2statemap.lua", "--help")
check("perf: --help", status == 0 and io.open(out):read("a"):find("usage:", 1, true))
os.remove(out)
