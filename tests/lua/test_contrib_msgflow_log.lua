-- Tests for contrib/msgflow-report.lua --log: the merged log of message
-- flows, on the three nodes' logs of tests/contrib/msgflow (the story is
-- told in test_contrib_msgflow.lua). Two flows are checked whole, their
-- every line worked out by hand below; the others by their headers.
--
-- Wall times: node1's header says its wall clock read 1700000000.000000
-- (22:13:20 UTC) when its nanosecond clock read 1000000000, node2's
-- ...000300 at 5000000000, node3's 1699999999.999800 at 2000000000; an
-- event's wall time is its node's wall at nano= plus (NANOTIME - nano=).
-- Events of all nodes are merged in that order (the nodes' clocks
-- disagree: node3's events come 200 µs early, node2's 300 µs late), and
-- at the same wall time in the order the files are given.
--
-- Stability (node1/timer-1 multicasts M(STABLE):7 at 1010; node2 gets it
-- at 1060 by its clock, +300 µs = wall .001360; node3 misses it;
-- node1/retransmit-1 sends it again at 1505: node3 gets it at 1555, -200
-- = wall .001355, node2 at 1855, its Retransmission event saying the
-- copy is ignored). retransmit-1 only sends a message sent before by
-- another control flow: it is non-causal, its two sends are shown (with
-- "(non-causal)") in the flow of the message they carry, and its
-- control flow joins none. The first pass counted 18 references to
-- M(STABLE):7 (timer-1 2, retransmit-1 2, node2 incoming-1 3 + 2, node2
-- oob-1 2, node3 incoming-1 3, node3 oob-1 2): the flow is written at the
-- last one's control flow's TPComplete, node2's at wall .001857.
--
-- GetCommand (node3/app-1 sends U(GET):4 to node2 at its 2010, wall
-- .001810, lost; node3/retransmit-1 sends it again at 2405, wall .002205;
-- node2 gets it at 2455, wall .002755, and answers U(RSP):2 at 2475,
-- wall .002775, which node3 gets at 2525, wall .002325: before it was
-- sent, by the wall clocks). Columns: node3/app-1, node3/retransmit-1,
-- node3/incoming-1, node3/oob-1, node2/incoming-1, node2/oob-1.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq

local stability = [[
MF 1
node1 -> node3, node2: node1|M(STABLE):7
22:13:20.001000000       -       -  *       node1  timer-1       FlowTag         Stability
22:13:20.001000000       0       0  *       node1  timer-1       ODStarted       node1|M(STABLE):7
22:13:20.001010000   10000   10000  *       node1  timer-1       ODFinished      node1|M(STABLE):7
22:13:20.001015000    5000    5000  *       node1  timer-1       TPComplete
22:13:20.001355000  340000       -   *      node3  incoming-1    Incoming        node1|M(STABLE):7
22:13:20.001357000    2000    2000   *      node3  incoming-1    THStarted       node1|M(STABLE):7
22:13:20.001359000    2000    2000   *      node3  incoming-1    THSuccess       node1|M(STABLE):7
22:13:20.001359000       0       0   *      node3  incoming-1    TPComplete
22:13:20.001360000    1000       -    *     node2  incoming-1    Incoming        node1|M(STABLE):7
22:13:20.001360000       0    1000     *    node3  oob-1         Handling        node1|M(STABLE):7
22:13:20.001362000    2000    2000    *     node2  incoming-1    THStarted       node1|M(STABLE):7
22:13:20.001362000       0    2000     *    node3  oob-1         MsgTag          StableMessage
22:13:20.001364000    2000    2000    *     node2  incoming-1    THSuccess       node1|M(STABLE):7
22:13:20.001364000       0       0    *     node2  incoming-1    TPComplete
22:13:20.001365000    1000    3000     *    node3  oob-1         TPComplete
22:13:20.001370000    5000    6000      *   node2  oob-1         Handling        node1|M(STABLE):7
22:13:20.001372000    2000    2000      *   node2  oob-1         MsgTag          StableMessage
22:13:20.001380000    8000    8000      *   node2  oob-1         TPComplete
22:13:20.001500000  120000  485000       *  node1  retransmit-1  ODStarted       node1|M(STABLE):7 (non-causal)
22:13:20.001505000    5000    5000       *  node1  retransmit-1  ODFinished      node1|M(STABLE):7 (non-causal)
22:13:20.001855000  350000  475000    *     node2  incoming-1    Incoming        node1|M(STABLE):7
22:13:20.001856000    1000    1000    *     node2  incoming-1    Retransmission  node1|M(STABLE):7
22:13:20.001857000    1000    1000    *     node2  incoming-1    TPComplete
]]

local get = [[
MF 2
node3 -> node2: node3|node2|U(GET):4
node2 -> node3: node2|node3|U(RSP):2
22:13:20.001800000       -       -  *       node3  app-1         FlowTag     GetCommand
22:13:20.001800000       0       0  *       node3  app-1         ODStarted   node3|node2|U(GET):4
22:13:20.001810000   10000   10000  *       node3  app-1         ODFinished  node3|node2|U(GET):4
22:13:20.002200000  390000  390000   *      node3  retransmit-1  ODStarted   node3|node2|U(GET):4 (non-causal)
22:13:20.002205000    5000    5000   *      node3  retransmit-1  ODFinished  node3|node2|U(GET):4 (non-causal)
22:13:20.002325000  120000  120000    *     node3  incoming-1    Incoming    node2|node3|U(RSP):2
22:13:20.002326000    1000    1000    *     node3  incoming-1    THStarted   node2|node3|U(RSP):2
22:13:20.002327000    1000    1000    *     node3  incoming-1    THSuccess   node2|node3|U(RSP):2
22:13:20.002327000       0       0    *     node3  incoming-1    TPComplete
22:13:20.002330000    3000    3000     *    node3  oob-1         Handling    node2|node3|U(RSP):2
22:13:20.002331000    1000    1000     *    node3  oob-1         MsgTag      Response
22:13:20.002335000    4000    4000     *    node3  oob-1         TPComplete
22:13:20.002340000    5000    5000  *       node3  app-1         TPComplete
22:13:20.002755000  415000       -      *   node2  incoming-1    Incoming    node3|node2|U(GET):4
22:13:20.002757000    2000    2000      *   node2  incoming-1    THStarted   node3|node2|U(GET):4
22:13:20.002759000    2000    2000      *   node2  incoming-1    THSuccess   node3|node2|U(GET):4
22:13:20.002759000       0       0      *   node2  incoming-1    TPComplete
22:13:20.002760000    1000    1000       *  node2  oob-1         Handling    node3|node2|U(GET):4
22:13:20.002762000    2000    2000       *  node2  oob-1         MsgTag      GetKeyValueCommand
22:13:20.002770000    8000    8000       *  node2  oob-1         ODStarted   node2|node3|U(RSP):2
22:13:20.002775000    5000    5000       *  node2  oob-1         ODFinished  node2|node3|U(RSP):2
22:13:20.002780000    5000    5000       *  node2  oob-1         TPComplete
]]

local logs = C.samples .. "/msgflow/"
local d = C.tmpdir()
local outs = {}
for i, node in ipairs { "node1", "node2", "node3" } do
	outs[i] = d .. "/" .. node .. ".out"
	local o, status, err = C.run("msgflow2statemap.lua", "-o", outs[i], logs .. node .. ".log")
	check_eq("msgflow log: converts " .. node, { status, err }, { 0, "" })
	os.remove(o)
end

-- Every line of a log is an event with the tracer's event type, in
-- its control flow (TPComplete only inside one).
local n, types, no_cf = 0, {}, 0
for _, r in ipairs(C.events(outs[3])) do
	n = n + 1
	types[r.tracer_event] = (types[r.tracer_event] or 0) + 1
	if not r.cf then no_cf = no_cf + 1 end
end
check_eq("msgflow log: the converter keeps every line of node3's log as an event",
	{ n, no_cf, types.THStarted, types.TPComplete, types.ODStarted, types.Incoming },
	{ 32, 0, 3, 9, 3, 4 })

-- The log, to a file.
local log = d .. "/flows.log"
local o, status, err = C.run("msgflow-report.lua", "--log", log, outs[1], outs[2], outs[3])
check_eq("msgflow log: runs, writing nothing but the file", { status, err, C.slurp(o) }, { 0, "", "" })
os.remove(o)
local text = C.slurp(log) or ""
local blocks = {}
for b in (text .. "\n"):gmatch("(MF .-\n)\n") do blocks[#blocks + 1] = b end
local heads = {}
for i, b in ipairs(blocks) do heads[i] = b:match("^(MF.-)\n%d%d:") end
-- Flows in the order they end: PutCommand #1 when node2/oob-1, the last
-- to refer to its messages, completes (wall .000510); Stability at
-- .001857; GetCommand at .002780; PutCommand #2 when node2 refuses
-- RSP:3 (.003427); the PING's, which nobody sent, at node3's .003802.
check_eq("msgflow log: five flows, each with its messages, in the order no control flow can join them",
	heads, {
		"MF 4\nnode1 -> node3: node1|node3|U(PUT):1\nnode3 -> node1: node3|node1|U(RSP):1\n"
			.. "node1 -> node2: node1|node2|U(PUT):1\nnode2 -> node1: node2|node1|U(RSP):1",
		"MF 1\nnode1 -> node3, node2: node1|M(STABLE):7",
		"MF 2\nnode3 -> node2: node3|node2|U(GET):4\nnode2 -> node3: node2|node3|U(RSP):2",
		"MF 2\nnode2 -> node1: node2|node1|U(PUT):9\nnode1 -> node2: node1|node2|U(RSP):3",
		"MF 1\nunknown -> node3: node1|PING:1700000004" })
check_eq("msgflow log: the Stability flow, line by line", blocks[2], stability)
check_eq("msgflow log: the GetCommand flow, line by line", blocks[3], get)
local lines = 0
for _ in text:gmatch("\n") do lines = lines + 1 end
-- The logs' 39 + 36 + 32 events less the two non-causal TPCompletes,
-- 5 MF lines, 10 message lines, and a blank line after each flow.
check_eq("msgflow log: every event of every flow once (the non-causal TPCompletes in none)", lines, 125)
local dup = text:match("\n([^\n]*U%(PUT%):9)\n[^\n]*\n[^\n]*Discard")
check("msgflow log: the duplicate PUT:9 and its Discard are in PutCommand #2", dup and dup:find("Incoming"))

-- Standard output gives the same; nothing else is left behind.
o, status, err = C.run("msgflow-report.lua", "--log", "-", outs[1], outs[2], outs[3])
check_eq("msgflow log: --log - writes the same to standard output", { status, err, C.slurp(o) == text },
	{ 0, "", true })
os.remove(o)
check_eq("msgflow log: no temporary file left", C.ls(d), { "flows.log", "node1.out", "node2.out", "node3.out" })

-- Bad inputs and arguments: one line, a non-zero status, OUT as it was.
local function fails(name, args, want_status, pattern)
	local f = io.open(log, "w")
	f:write("earlier\n")
	f:close()
	local out, st, e = C.run("msgflow-report.lua", table.unpack(args))
	check_eq("msgflow log: " .. name, { st, select(2, e:gsub("\n", "")), e:match(pattern) ~= nil,
		C.slurp(out), C.slurp(log) }, { want_status, 1, true, "", "earlier\n" })
	os.remove(out)
end
fails("a log not converted", { "--log", log, outs[1], logs .. "node2.log" }, 1,
	"^msgflow%-report%.lua: .*node2%.log:1: not one JSON object a line")
local old = d .. "/old.out"
local f = io.open(old, "w")
for line in io.lines(outs[2]) do f:write((line:gsub(',"tracer_event":"[^"]*"', "")), "\n") end
f:close()
fails("a statemap from an older converter", { "--log", log, outs[1], old }, 1,
	"old%.out:3: event 'receive' has no tracer_event or cf: convert the log again")
fails("a trace that is not msgflow2statemap's", { "--log", log, C.top .. "/examples/data/cpu.out" }, 1,
	"cpu%.out:1: no metadata with start, host and the title 'message flow'")
fails("a missing file", { "--log", log, outs[1], d .. "/nothing.out" }, 1, "nothing%.out")
fails("--log without a file", { outs[1], "--log" }, 2, "%-%-log needs a file name")
fails("--log with --picture", { "--log", log, "--picture", d .. "/p.png", outs[1] }, 2,
	"do not go together")
fails("an unknown option", { "--lgo", log, outs[1] }, 2, "unknown option %-%-lgo")
local o2, st2, e2 = C.run("msgflow-report.lua", "--log", d .. "/no/such/dir/flows.log", outs[1])
check_eq("msgflow log: OUT in a directory that does not exist: one line, status 1",
	{ st2, select(2, e2:gsub("\n", "")), e2:find("no/such/dir", 1, true) ~= nil }, { 1, 1, true })
os.remove(o2)
os.remove(old)
check_eq("msgflow log: failures leave no temporary file", C.ls(d),
	{ "flows.log", "node1.out", "node2.out", "node3.out" })
C.rmdir(d)
