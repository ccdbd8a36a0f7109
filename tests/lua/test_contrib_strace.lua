-- Tests for contrib/strace2statemap.lua on a captured sample
-- (tests/contrib/strace-sh.txt) and on a live strace run.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq

local out, status, err = C.run("strace2statemap.lua", C.samples .. "/strace-sh.txt")
check_eq("strace: converts the sample", { status, err }, { 0, "" })
check("strace: metadata first, then time order", C.in_order(out))
local t = sm.load(out)
check_eq("strace: start is the first timestamp", t.start, 1795398980877970000)
check_eq("strace: one entity per process, named COMM/PID by the program it ran last",
	C.names(t:entities()), { "cat/20067", "getent/20066", "sh/20064", "sleep/20065" })
check_eq("strace: states", C.names(t.states),
	{ "file-io", "network", "other", "sleep", "user", "wait" })
check_eq("strace: names from execve", {
	t:entity("sh/20064").description, t:entity("sleep/20065").description,
	t:entity("getent/20066").description, t:entity("cat/20067").description },
	{ "sh", "sleep", "getent", "cat" })
-- clock_nanosleep <unfinished ...> at .893251, resumed at .913490
check_eq("strace: an unfinished call lasts until it is resumed",
	{ t:entity("sleep/20065"):at(20000000) }, { "sleep", "clock_nanosleep", 15281000, 35520000 })
-- connect at .893658 for 0.000036
check_eq("strace: connect is network", { t:entity("getent/20066"):at(15700000) },
	{ "network", "connect", 15688000, 15724000 })
-- wait4 <unfinished ...> at .887110, resumed at .895350
check_eq("strace: wait4 is wait", { t:entity("sh/20064"):at(10000000) },
	{ "wait", "wait4", 9140000, 17380000 })
-- read(3, ...) at .894471 for 0.000021, then user until .894560
check_eq("strace: read of a file is file-io", { t:entity("getent/20066"):at(16501000) },
	{ "file-io", "read", 16501000, 16522000 })
check_eq("strace: user time between calls", { t:entity("getent/20066"):at(16550000) },
	{ "user", nil, 16522000, 16590000 })
check_eq("strace: no data from +++ exited on", { t:entity("getent/20066"):at(17305000) }, {})
local ev = C.events(out)
local sigchld, clones = 0, 0
for _, e in ipairs(ev) do
	if e.event == "SIGCHLD" and e.target == "sh/20064" then sigchld = sigchld + 1 end
	if (e.event == "clone" or e.event == "vfork") and e.entity == "sh/20064" then clones = clones + 1 end
end
check_eq("strace: SIGCHLD events from child to parent", sigchld, 3)
check_eq("strace: clone and vfork events from parent to child", clones, 3)
os.remove(out)

C.check_output_option("strace", "strace2statemap.lua", { C.samples .. "/strace-sh.txt" })

-- Malformed input: line numbers, non-zero exit, and --lenient.
local bad = os.tmpname()
local f = io.open(bad, "w")
f:write("100 1.000000 read(3, \"\", 10) = 0 <0.000010>\n", "garbage here\n",
	"100 1.000100 close(3) = 0 <0.000001>\n")
f:close()
out, status, err = C.run("strace2statemap.lua", bad)
check_eq("strace: a bad line is an error with its number",
	{ status, err:match(":(%d+): ") }, { 1, "2" })
os.remove(out)
C.check_all_or_nothing("strace: a bad line", "strace2statemap.lua", { bad }, 1, "^.+:2: .+$")
out, status, err = C.run("strace2statemap.lua", "--lenient", bad)
check("strace: --lenient skips it (no program known: the entity is the pid)",
	status == 0 and sm.load(out):entity("100").transitions == 4, err)
os.remove(out)
-- Written to a terminal: no prefix until the first fork, strace's own
-- message cutting a line in two, then "[pid N]" on every line.
f = io.open(bad, "w")
f:write("10.000000 execve(\"/bin/sh\", [\"sh\"], 0x0 /* 1 var */) = 0 <0.000100>\n",
	"10.000200 clone(child_stack=NULL, flags=SIGCHLDstrace: Process 43 attached\n",
	" <unfinished ...>\n",
	"[pid    43] 10.000300 set_robust_list(0x1, 24 <unfinished ...>\n",
	"[pid    42] 10.000400 <... clone resumed>, child_tidptr=0x2) = 43 <0.000200>\n",
	"[pid    43] 10.000450 <... set_robust_list resumed>) = 0 <0.000150>\n",
	"[pid    43] 10.000460 prctl(PR_SET_NAME, \"worker\") = 0 <0.000010>\n",
	"[pid    42] 10.000500 wait4(-1,  <unfinished ...>\n",
	"[pid    43] 10.000600 +++ exited with 0 +++\n",
	"[pid    42] 10.000700 <... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 43 <0.000200>\n",
	"[pid    42] 10.000800 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=43, si_uid=0} ---\n")
f:close()
out, status, err = C.run("strace2statemap.lua", bad)
t = status == 0 and sm.load(out)
check_eq("strace: terminal output, the first process is found (sh/42)", t and {
	C.names(t:entities()), { t:entity("sh/42"):at(300000) }, { t:entity("sh/42"):at(600000) },
	t:entity("worker/43").description }, { { "sh/42", "worker/43" }, { "other", "clone", 200000, 400000 },
	{ "wait", "wait4", 500000, 700000 }, "sh" })
check_eq("strace: terminal output, events", status == 0 and C.events(out), {
	{ time = "400000", entity = "sh/42", event = "clone", target = "worker/43" },
	{ time = "800000", entity = "worker/43", event = "SIGCHLD", target = "sh/42" } })
os.remove(out)
-- No fork: the first process's pid never shows.
f = io.open(bad, "w")
f:write("10.000000 execve(\"/usr/bin/true\", [\"true\"], 0x0 /* 1 var */) = 0 <0.000100>\n",
	"10.000200 exit_group(0) = ?\n", "10.000300 +++ exited with 0 +++\n")
f:close()
out, status = C.run("strace2statemap.lua", bad)
check_eq("strace: the first process without a known pid is COMM/main",
	status == 0 and C.names(sm.load(out):entities()), { "true/main" })
os.remove(out)
os.remove(bad)

out, status = C.run("strace2statemap.lua", "--help")
check("strace: --help", status == 0 and io.open(out):read("a"):find("usage:", 1, true))
os.remove(out)

-- A real run: strace a shell that sleeps in a child and reads a file.
-- Where strace is missing or cannot trace (no ptrace), this is skipped,
-- and fails with REQUIRE_STRACE=1.
local live = "strace: a live capture converts"
local have = os.execute("command -v strace > /dev/null 2>&1")
local raw = os.tmpname()
local why
if not have then
	why = "strace is not installed"
else
	local p = io.popen("strace -f -ttt -T -o " .. raw ..
		" sh -c 'sleep 0.3 & cat /etc/passwd > /dev/null; wait' 2>&1 > /dev/null")
	local text = p:read("a")
	if not p:close() then why = "strace cannot trace here: " .. (text:match("[^\n]*") or "") end
end
if why then
	if os.getenv("REQUIRE_STRACE") == "1" then
		check(live, false, why)
	else
		unit.skip(live, why)
	end
else
	out, status, err = C.run("strace2statemap.lua", raw)
	check_eq(live, { status, err }, { 0, "" })
	local ok, t3 = pcall(sm.load, out)
	local sleeper
	for _, e in ipairs(ok and t3:entities() or {}) do
		if e.description == "sleep" then sleeper = e end
	end
	check("strace: the sleep process is found, named sleep/PID", sleeper ~= nil and sleeper.name:match("^sleep/%d+$") ~= nil)
	if sleeper then
		-- sleep 0.3 cannot sleep less than 0.3 s, however slow the machine.
		local ti = sleeper:time_in()
		check("strace: it sleeps at least 0.29s", (ti.sleep or 0) >= 290000000, unit.show(ti))
	end
	os.remove(out)
end
os.remove(raw)
