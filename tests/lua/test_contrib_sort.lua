-- Tests for contrib/sort-records.lua, and a parse check of
-- contrib/sched-statemap.bt where bpftrace is installed.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq

local input = os.tmpname()
local function write(lines)
	local f = io.open(input, "w")
	f:write(table.concat(lines, "\n"), "\n")
	f:close()
end
write({
	'{"start":[0,0],"states":{"a":{"value":0},"b":{"value":1}}}',
	'{"time":"5","entity":"x","state":0}',
	'{"time":"3","entity":"x","state":1}',
	'{"entity":"x","description":"d"}',
	'{"time":"3","entity":"y","state":0}',
	'{"time":"4","entity":"y","event":"wakeup","target":"x"}',
	'{"time":"9","entity":"x","state":0}',
	'{"time":"20","entity":"x","state":1}',
	'{"time":"12","entity":"y","state":1}',
})
local out, status, err = C.run("sort-records.lua", "--window", "10", input)
check_eq("sort: exits 0", { status, err }, { 0, "" })
local times = {}
for _, r in ipairs(C.records(out)) do times[#times + 1] = r.time or "-" end
check_eq("sort: records in time order, the others passed through", times,
	{ "-", "-", "3", "3", "4", "5", "9", "12", "20" })
local t = sm.load(out)
check_eq("sort: the result loads", { t:entity("x"):at(4) }, { "b", nil, 3, 5 })
os.remove(out)
C.check_output_option("sort", "sort-records.lua", { "--window", "10", input })
write({
	'{"start":[0,0],"states":{"a":{"value":0}}}',
	'{"time":"50","entity":"x","state":0}',
	'{"time":"70","entity":"x","state":0}',
	'{"time":"30","entity":"x","state":0}',
})
out, status, err = C.run("sort-records.lua", "--window", "10", input)
check_eq("sort: a record later than the window is an error with its line", { status, err:match(":(%d+): ") }, { 1, "4" })
os.remove(out)
C.check_all_or_nothing("sort: a late record", "sort-records.lua", { "--window", "10", input }, 1, "^.+:4: .+$")

-- The input is a stream of JSON values, not one a line: metadata
-- pretty-printed over several lines, two records on a line, a record
-- broken over lines.
write({
	'{',
	'  "start": [0, 0],',
	'  "states": {',
	'    "a": {"value": 0},',
	'    "b": {"value": 1, "color": "#ff0000"}',
	'  },',
	'  "title": "braces { and a \\" in a string"',
	'}',
	'{"time":"5","entity":"x","state":0}{"time":"3","entity":"x","state":1}',
	'  {"time": "4",',
	'   "entity": "y", "state": 0}',
})
out, status, err = C.run("sort-records.lua", "--window", "10", input)
check_eq("sort: metadata over several lines, several records a line", { status, err }, { 0, "" })
local recs = C.records(out)
check_eq("sort: one record a line out, in time order", { #recs, recs[1].title, recs[2].time, recs[3].time, recs[4].time },
	{ 4, 'braces { and a " in a string', "3", "4", "5" })
t = sm.load(out)
check_eq("sort: the result loads", { t:entity("y"):at(4), t.states[2].color }, { "a", "#ff0000" })
os.remove(out)
write({
	'{"start": [0, 0],',
	' "states": {"a": {"value": 0}},',
	' "title": "x",,',
	'}',
	'{"time":"1","entity":"x","state":0}',
	'[1, 2]',
	'{"time":"2","entity":"x",',
	' "state": 0',
})
out, status, err = C.run("sort-records.lua", input)
check_eq("sort: an error inside a record spanning lines names its own line", { status, err:match("^(.*):(%d+): [^\n]+\n$") },
	{ 1, input, "3" })
os.remove(out)
out, status, err = C.run("sort-records.lua", "--lenient", input)
check_eq("sort: --lenient reports each bad record, goes on", { status, (err:gsub("^[^\n]*:3: [^\n]*\n", "", 1)) },
	{ 0, input .. ":6: a record must be a JSON object\n" ..
	  input .. ":7: a JSON object that does not end before the end of the input\n" ..
	  input .. ": 3 bad lines skipped\n" })
os.remove(out)
-- bpftrace's own lines: "Lost N events" is a warning, its banner (no -q)
-- an error that says so.
write({
	'{"start":[0,0],"states":{"a":{"value":0}}}',
	'{"time":"1","entity":"x","state":0}',
	'Lost 12 events',
	'{"time":"2","entity":"x","state":0}',
	'',
	'@comm[10]: kworker/0:0H',
	'@oncpu[7]: 1',
})
out, status, err = C.run("sort-records.lua", input)
check_eq("sort: bpftrace's Lost N events is a warning with its line, its maps at exit are left out",
	{ status, err, #C.records(out) },
	{ 0, input .. ":3: bpftrace lost 12 events (the statemap misses them)\n", 3 })
os.remove(out)
write({ 'Attaching 6 probes...', '{"start":[0,0],"states":{"a":{"value":0}}}' })
out, status, err = C.run("sort-records.lua", input)
check_eq("sort: bpftrace's banner is an error that says to use -q", { status, err },
	{ 1, input .. ":1: bpftrace's banner: run bpftrace with -q\n" })
os.remove(out)

-- --names: an entity with a description is DESCRIPTION/ENTITY (the last
-- one), a tag that names such an entity too.
write({
	'{"start":[0,0],"states":{"on":{"value":0},"off":{"value":1}}}',
	'{"entity":"7","description":"sh"}',
	'{"state":0,"tag":"7","pid":7,"comm":"sh"}',
	'{"time":"1","entity":"7","state":0}',
	'{"time":"1","entity":"cpu0","state":0,"tag":"7"}',
	'{"entity":"7","description":"sleep"}',
	'{"time":"2","entity":"cpu0","event":"wakeup","target":"7"}',
	'{"time":"3","entity":"7","state":1}',
})
out, status, err = C.run("sort-records.lua", "--names", input)
t = status == 0 and sm.load(out)
check_eq("sort: --names", t and { C.names(t:entities()), select(2, t:entity("cpu0"):at(1)),
	C.events(out)[1].target }, { { "cpu0", "sleep/7" }, "sleep/7", "sleep/7" })
os.remove(out)
os.remove(input)

-- sched-statemap.bt. Without kernel tracing, bpftrace (as root) can still
-- parse, check and compile the script if it sees the tracepoints'
-- layouts: bpftrace-compile.sh supplies them in a private mount namespace.
-- Where bpftrace can trace (root, and tracefs mounted, or mountable in a
-- private mount namespace), the script runs for real on
-- tests/contrib/exits.c.
local function sh(cmd)
	local p = io.popen(cmd .. " 2>&1")
	local text = p:read("a")
	local ok = p:close()
	return ok, text
end
local bt = C.quote(C.top .. "/contrib/sched-statemap.bt")
local have_bpftrace = os.execute("command -v bpftrace > /dev/null 2>&1")
local root = select(2, sh("id -u")) == "0\n"
local have_unshare = os.execute("command -v unshare > /dev/null 2>&1")
if not have_bpftrace then
	unit.skip("bpftrace: sched-statemap.bt compiles to BPF", "bpftrace is not installed")
elseif not (root and have_unshare) then
	unit.skip("bpftrace: sched-statemap.bt compiles to BPF", "needs root and unshare (a private mount namespace)")
else
	local d = C.tmpdir()
	local ok, text = sh("unshare -m sh " .. C.quote(C.samples .. "/bpftrace-compile.sh") .. " " .. bt .. " "
		.. C.quote(d .. "/sched.o"))
	check("bpftrace: sched-statemap.bt compiles to BPF", ok and (C.slurp(d .. "/sched.o") or ""):sub(1, 4) == "\127ELF",
		text:sub(1, 300))
	C.rmdir(d)
end

-- Runs a shell command where tracepoints can be traced: as it is if
-- tracefs is there, else (root) in a private mount namespace with tracefs
-- mounted. Returns nil and why if neither can be.
local function tracing_command(cmd)
	if io.open("/sys/kernel/tracing/events/sched/sched_switch/format") then return cmd end
	if io.open("/sys/kernel/debug/tracing/events/sched/sched_switch/format") then return cmd end
	if not (root and have_unshare) then return nil, "no tracefs at /sys/kernel/tracing, and not root to mount one" end
	return "unshare -m sh -c " .. C.quote("mount -t tracefs nodev /sys/kernel/tracing && " .. cmd)
end
local live = "bpftrace: sched-statemap.bt traces a workload"
local why
if not have_bpftrace then
	why = "bpftrace is not installed"
elseif not os.execute("command -v cc > /dev/null 2>&1") then
	why = "no C compiler for tests/contrib/exits.c"
else
	local probe, err2 = tracing_command("timeout 120 bpftrace -q -e 'tracepoint:sched:sched_switch { exit(); }'")
	if not probe then
		why = err2
	else
		local ok, text = sh(probe)
		if not ok then why = "bpftrace cannot trace here: " .. (text:match("([^\n]+)\n*$") or "") end
	end
end
if why then
	unit.skip(live, why)
else
	local d = C.tmpdir()
	os.execute("cc -O2 -pthread -o " .. C.quote(d .. "/exits") .. " " .. C.quote(C.samples .. "/exits.c"))
	local function trace(q, file)
		-- bpftrace -c splits its command at spaces (no shell): mktemp -d
		-- names have none. Large buffers, so that a busy machine loses
		-- no event (if it does, the checks that need them all are skipped).
		return os.execute(tracing_command("BPFTRACE_PERF_RB_PAGES=1024 bpftrace " .. q .. " -c "
			.. C.quote(d .. "/exits 2") .. " "
			.. bt .. " > " .. C.quote(d .. "/" .. file) .. " 2> /dev/null"))
	end
	-- Without -q, bpftrace's first line is "Attaching N probes...".
	trace("", "noisy.out")
	local noisy = C.slurp(d .. "/noisy.out") or ""
	out, status, err = C.run("sort-records.lua", d .. "/noisy.out")
	check_eq("bpftrace: without -q the first line is not JSON, and sorting it fails there",
		{ noisy:match("^Attaching %d+ probes%.%.%.\n") ~= nil, status, err:match(":(%d+): [^\n]*%-q\n") },
		{ true, 1, "1" })
	os.remove(out)
	trace("-q", "raw.out")
	local raw = C.slurp(d .. "/raw.out") or ""
	check("bpftrace: with -q the output begins with the metadata", raw:match('^{"start":%[%d+,%d+%],') ~= nil,
		raw:sub(1, 100))
	out, status, err = C.run("sort-records.lua", "--names", "-o", d .. "/sched.out", d .. "/raw.out")
	local lost = err:match("bpftrace lost %d+ events")
	check_eq("bpftrace: sort-records --names takes it", { status, (err:gsub("[^\n]*bpftrace lost %d+ events[^\n]*\n", "")) },
		{ 0, "" })
	local ok, tr = pcall(sm.load, d .. "/sched.out")
	check("bpftrace: the sorted output loads", ok, tr)
	if ok and lost then
		unit.skip("bpftrace: the workload's threads in the trace", "bpftrace lost events on this busy machine: " .. lost)
	elseif ok then
		local briefs, children, mains, cpus = {}, {}, {}, {}
		for _, e in ipairs(tr:entities()) do
			if e.name:match("^brief/%d+$") then briefs[#briefs + 1] = e end
			if e.name:match("^child/%d+$") then children[#children + 1] = e end
			if e.name:match("^exits/%d+$") then mains[#mains + 1] = e end
			if e.name:match("^cpu%d+$") then cpus[#cpus + 1] = e end
		end
		check_eq("bpftrace: the workload's threads, named COMM/TID by their last names",
			{ #briefs, #children, #mains, #cpus > 0 }, { 2, 2, 1, true })
		-- Each thread and process that exited ran, then has no data from
		-- its last switch-out (its last interval's end) on, and no CPU
		-- shows it from then on.
		local gone, why_not = true, {}
		for _, e in ipairs({ briefs[1], briefs[2], children[1], children[2] }) do
			local st = e:at(tr.finish - 1)
			local from
			for iv in tr:intervals { entities = { e } } do from = iv.finish end
			local ran = (e:time_in()["on-cpu"] or 0) > 0
			if st ~= nil or not ran or not from or from >= tr.finish then
				gone = false
				why_not[#why_not + 1] = string.format("%s ends %s, on-cpu %s", e.name, tostring(st), tostring(ran))
			end
			for _, c in ipairs(cpus) do
				if from and select(2, c:at(from)) == e.name then
					gone = false
					why_not[#why_not + 1] = string.format("%s still shows %s at %d", c.name, e.name, from)
				end
			end
		end
		check("bpftrace: exited threads ran, have no data from their last switch-out and leave their CPU", gone,
			table.concat(why_not, "; "))
		local exits, wakeups = 0, 0
		for _, ev in ipairs(C.events(d .. "/sched.out")) do
			if ev.event == "exit" and (ev.entity:match("^brief/") or ev.entity:match("^child/")) then exits = exits + 1 end
			if ev.event == "wakeup" and ev.target == mains[1].name then wakeups = wakeups + 1 end
		end
		check_eq("bpftrace: exit events for the 4 that exited; the main thread is woken", { exits, wakeups > 0 }, { 4, true })
	end
	os.remove(out)
	C.rmdir(d)
end
