-- Tests for contrib/msgflow2statemap.lua and contrib/msgflow-report.lua
-- on the sample logs tests/contrib/msgflow/node{1,2,3}.log, written by
-- hand for a story whose every figure we know (times in µs of true time;
-- every message takes 50 µs on the wire):
--
--   clocks: node1's wall clock is true; node2's reads 300 µs ahead,
--     node3's 200 µs behind (their headers' wall=).
--   PutCommand from node1/app-1 (100-300): PUT:1 to node2 and node3,
--     each answered (RSP:1); then PutCommand from node2/app-1
--     (3000-3100): PUT:9 to node1, which the network delivers twice
--     (node1 discards the copy), answered by RSP:3, which node2's
--     thread pool refuses (THFailure: discarded).
--   Stability from node1/timer-1: multicast M(STABLE):7 at 1010, got
--     by node2 only; node1/retransmit-1 sends it again at 1505: node3
--     handles it, node2 ignores it (Retransmission).
--   GetCommand from node3/app-1 (2000-2540): GET:4 at 2010 is lost,
--     node3/retransmit-1 sends it again at 2405; node2 answers (RSP:2).
--   node3 receives a PING (4000) whose send no log has.
--
-- Hand-computed figures (checked below against the report):
--   messages: 10 identifiers; copies 14 = 11 matched + 1 lost (GET:4's
--     first send) + 1 duplicate (PUT:9's second copy) + 1 unsent (PING);
--     discarded 2 (PUT:9's copy, RSP:3), ignored 1 (M:7 at node2).
--   incoming to handle: node1 RSP:1 from node3 245->250, from node2
--     255->260, PUT:9 3060->3065: 5, 5, 5; node2 PUT:1 160->175, M:7
--     1060->1070, GET:4 2455->2460: 15, 10, 5 (avg 10); node3 PUT:1
--     170->180, M:7 1555->1560, RSP:2 2525->2530: 10, 5, 5 (avg
--     6.667); all 65 / 9 = 7.222 µs.
--   latency: R - T seen is 50 + (receiver's skew - sender's skew):
--     node1->node2 350 (PUT:1, M:7 twice, RSP:3: 4), back -250 (RSP:1,
--     PUT:9: 2): L = (350 - 250) / 2 = 50, offset 350 - 50 = 300;
--     node1->node3 -150 (PUT:1, M:7), back 250 (RSP:1): L 50, offset
--     -200; node2->node3 -450 (RSP:2), back 550 (GET:4): L 50, offset
--     -500.  So t:align gives node2 -300 µs and node3 +200 µs.
--   flows (threads are control flows, blocked their summed times):
--     PutCommand #1: 4 messages (PUT:1 x2, RSP:1 x2), nodes 3, threads
--       9 (node1 app-1 200, incoming-1 2 + 2, oob-1 4, oob-2 5; node2
--       incoming-1 10, oob-1 35; node3 incoming-1 4, oob-1 16) = 278;
--     PutCommand #2: 2 messages (PUT:9, RSP:3), nodes 2, threads 5
--       (node2 app-1 100, incoming-1 2; node1 incoming-1 2 + 2, oob-1
--       11) = 117; so 2 flows, 2/3/4 messages, 2.5 nodes, 7 threads,
--       197.5 µs; per flow PutKeyValueCommand (2 + 1) / 2 = 1.5,
--       Response (2 + 0) / 2 = 1.
--     Stability: 1 message, 3 nodes, 7 threads (node1 timer-1 15,
--       retransmit-1 6; node2 incoming-1 4 + 2, oob-1 10; node3
--       incoming-1 4, oob-1 5) = 46; StableMessage 1.
--     GetCommand: 2 messages, 2 nodes, 6 threads (node3 app-1 540,
--       retransmit-1 6, incoming-1 2, oob-1 5; node2 incoming-1 4,
--       oob-1 20) = 577; GetKeyValueCommand 1, Response 1.
--     untagged: the PING's, 1.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq

local logs = C.samples .. "/msgflow/"
local outs, traces = {}, {}
for i, node in ipairs { "node1", "node2", "node3" } do
	local out, status, err = C.run("msgflow2statemap.lua", logs .. node .. ".log")
	check_eq("msgflow: converts " .. node, { status, err }, { 0, "" })
	check("msgflow: " .. node .. " metadata first, then time order", C.in_order(out))
	outs[i] = out
	traces[i] = sm.load(out, { cache = false })
end
local t1 = traces[1]
check_eq("msgflow: host and start from the header", { t1.host, t1.start, traces[2].start, traces[3].start },
	{ "node1", 1700000000000000000, 1700000000000300000, 1699999999999800000 })
check_eq("msgflow: one entity per thread", C.names(t1:entities()),
	{ "app-1", "incoming-1", "oob-1", "oob-2", "retransmit-1", "timer-1" })
check_eq("msgflow: states", C.names(t1.states), { "handling", "idle", "sending", "waiting" })
-- app-1: FlowTag and ODStarted at 100 µs, sending until ODFinished at 110
check_eq("msgflow: sending from ODStarted to ODFinished, the control flow the tag",
	{ t1:entity("app-1"):at(105000) }, { "sending", "node1/app-1#1", 100000, 110000 })
check_eq("msgflow: waiting from THStarted to THSuccess",
	{ t1:entity("incoming-1"):at(246500) }, { "waiting", "node1/incoming-1#1", 246000, 247000 })
check_eq("msgflow: idle after TPComplete", (t1:entity("app-1"):at(400000)), "idle")
local sends = {}
for e in t1:events { events = { "send" } } do
	sends[#sends + 1] = ("%d %s %s %s"):format(e.time, e.entity, e.target, e.id)
end
check_eq("msgflow: sends at ODFinished, to the node or the cluster", { sends[1], sends[3], #sends },
	{ "110000 app-1 node2 node1|node2|U(PUT):1", "1010000 timer-1 cluster node1|M(STABLE):7", 5 })

-- The clocks: the skews chosen above, recovered exactly (every message
-- takes the same time both ways).
local m = sm.merge(traces)
local al = m:align()
check_eq("msgflow: align recovers the skews", al.offsets,
	{ node1 = 0, node2 = -300000, node3 = 200000 })
local aligned = sm.merge { traces[1], traces[2], traces[3], offsets = al.offsets }
local forward, n = true, 0
for fl in aligned:flows { status = "matched" } do
	n = n + 1
	forward = forward and fl.received - fl.sent == 50000
end
check_eq("msgflow: aligned, every matched message takes 50 µs", { n, forward }, { 11, true })

-- The report, every figure computed by hand above.
local rep, status, err = C.run("msgflow-report.lua", outs[1], outs[2], outs[3])
check_eq("msgflow report: runs", { status, err }, { 0, "" })
local text = C.slurp(rep) or ""
os.remove(rep)
local function has(name, pattern)
	check(name, text:find(pattern) ~= nil, "no /" .. pattern .. "/ in:\n" .. text)
end
has("report: incoming to handle node1", "\nnode1 +3 +5%.000us +5%.000us +5%.000us\n")
has("report: incoming to handle node2", "\nnode2 +3 +10%.000us +5%.000us +15%.000us\n")
has("report: incoming to handle node3", "\nnode3 +3 +6%.667us +5%.000us +10%.000us\n")
has("report: incoming to handle all", "\nall +9 +7%.222us +5%.000us +15%.000us\n")
has("report: latency node1 node2", "\nnode1 +node2 +4 +2 +50%.000us +300%.000us\n")
has("report: latency node1 node3", "\nnode1 +node3 +2 +1 +50%.000us +%-200%.000us\n")
has("report: latency node2 node3", "\nnode2 +node3 +1 +1 +50%.000us +%-500%.000us\n")
for _, c in ipairs { { "unique", 10 }, { "total", 14 }, { "discarded", 2 }, { "ignored", 1 },
	{ "lost", 1 }, { "duplicate", 1 }, { "unsent", 1 } } do
	has("report: " .. c[1], "\n" .. c[1] .. " +" .. c[2] .. " ")
end
has("report: PutCommand", "\nPutCommand +2 +2 +3%.00 +4 +2%.50 +7%.00 +197%.500us\n")
has("report: Stability", "\nStability +1 +1 +1%.00 +1 +3%.00 +7%.00 +46%.000us\n")
has("report: GetCommand", "\nGetCommand +1 +2 +2%.00 +2 +2%.00 +6%.00 +577%.000us\n")
has("report: PutCommand's message tags", "PutCommand: messages per flow by tag: PutKeyValueCommand 1%.50, Response 1%.00\n")
has("report: untagged", "untagged flows: 1\n")
for _, out in ipairs(outs) do os.remove(out) end

C.check_output_option("msgflow", "msgflow2statemap.lua", { logs .. "node1.log" })

-- Malformed input: the line's number, non-zero exit, no output; --lenient.
local bad = os.tmpname()
local f = io.open(bad, "w")
f:write("# node=n1 wall=1.5\n", "100 t Incoming a|b|U(X):1\n", "garbage\n",
	"200 t Handling not-an-id\n", "300 t TPComplete\n")
f:close()
local out
out, status, err = C.run("msgflow2statemap.lua", bad)
check_eq("msgflow: a bad line is an error with its number", { status, err:match(":(%d+): ") }, { 1, "3" })
os.remove(out)
C.check_all_or_nothing("msgflow: a bad line", "msgflow2statemap.lua", { bad }, 1, "^.+:3: .+$")
out, status, err = C.run("msgflow2statemap.lua", "--lenient", bad)
local t = status == 0 and sm.load(out, { cache = false })
check_eq("msgflow: --lenient skips bad lines", { status, t and t.host, t and t.start,
	t and t:entity("t").transitions, select(2, err:gsub("\n", "")) }, { 0, "n1", 1500000000, 2, 3 })
os.remove(out)
os.remove(bad)
