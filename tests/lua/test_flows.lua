-- Messages across traces (issue 22): statemap.merge, t:shift, t:flows and
-- t:align on two nodes' traces whose clocks we skewed by hand.
--
-- True time runs from the epoch + 100 s on both nodes.  node2's clock is
-- 500 ns ahead of node1's: every time node2 logs is its true time + 500.
-- Messages (true times; latency 100 ns, except the second one: 140 ns):
--
--   id U:1  node1 worker-1 -> node2 io-1   sent 1000, received 1100 (logged 1600)
--   id U:2  node1 worker-1 -> node2 io-1   sent 3000, received 3140 (logged 3640)
--   id U:3  node2 io-1 -> node1 worker-1   sent 2000 (logged 2500), received 2100
--   id U:4  node1 -> node2, sent at 4000 and again at 4200 (a
--           retransmission), received once at 4300 (logged 4800): the
--           first send is lost
--   id U:5  node1 -> node2, sent at 5000, never received: lost
--   id U:6  node2 receives at 6600 (logged) twice more than sent: one
--           send at 6000 (node1), receives logged 6600 and 6700: the
--           second is a duplicate
--   id M:7  node1 multicasts to "cluster" at 7000; node2 receives it at
--           7600 (logged); that is one matched flow to node2
--   id U:8  node2 receives at 8000 something node1 never logged: unsent
--
-- So matched one way (node1 -> node2, R2 - T1): U:1 600, U:2 640, U:4
-- (4800 - 4200) 600, U:6 (6600 - 6000) 600, M:7 600: mean 608; the
-- other way (node2 -> node1, R1 - T2): U:3 2100 - 2500 = -400.  L =
-- (608 + -400) / 2 = 104, O = 608 - 104 = 504: node2 is 504 ns ahead,
-- the true 500 off by half the latency asymmetry (the mean latency one
-- way is 108, the other 100: 8 / 2 = 4).  So node2's offset is -504.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local sm = require "statemap"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

local function write(text)
	local name = unit.tmpname(".out")
	local f = assert(io.open(name, "w"))
	f:write(text)
	f:close()
	return name
end

local meta = '{"start": [100, 0], "states": {"idle": {"value": 0}, ' ..
    '"busy": {"value": 1}}, "host": "%s", "title": "%s"}\n'

local f1 = write(meta:format("node1", "messages") .. [[
{"time": "0", "entity": "worker-1", "state": 0}
{"time": "1000", "entity": "worker-1", "event": "send", "target": "node2/io-1", "id": "U:1", "type": "MSG"}
{"time": "2100", "entity": "worker-1", "event": "receive", "id": "U:3"}
{"time": "3000", "entity": "worker-1", "event": "send", "target": "node2/io-1", "id": "U:2"}
{"time": "4000", "entity": "worker-1", "event": "send", "target": "node2/io-1", "id": "U:4"}
{"time": "4200", "entity": "worker-1", "event": "send", "target": "node2/io-1", "id": "U:4"}
{"time": "5000", "entity": "worker-1", "event": "send", "target": "node2/io-1", "id": "U:5"}
{"time": "5500", "entity": "worker-1", "state": 1}
{"time": "6000", "entity": "worker-1", "event": "send", "target": "node2/io-1", "id": "U:6"}
{"time": "7000", "entity": "worker-1", "event": "send", "target": "cluster", "id": "M:7"}
{"time": "9000", "entity": "worker-1", "state": 0}
]])
local f2 = write(meta:format("node2", "messages") .. [[
{"time": "500", "entity": "io-1", "state": 0}
{"time": "1600", "entity": "io-1", "event": "receive", "id": "U:1"}
{"time": "2500", "entity": "io-1", "event": "send", "target": "node1/worker-1", "id": "U:3"}
{"time": "3640", "entity": "io-1", "event": "receive", "id": "U:2"}
{"time": "4800", "entity": "io-1", "event": "receive", "id": "U:4"}
{"time": "6600", "entity": "io-1", "event": "receive", "id": "U:6"}
{"time": "6700", "entity": "io-1", "event": "receive", "id": "U:6"}
{"time": "7600", "entity": "io-1", "event": "receive", "id": "M:7"}
{"time": "8000", "entity": "io-1", "event": "receive", "id": "U:8"}
{"time": "9500", "entity": "io-1", "state": 1}
]])
local t1 = sm.load(f1, { cache = false })
local t2 = sm.load(f2, { cache = false })

-- ---- merge ----
local m, prefixes = sm.merge { t1, t2 }
check_eq("merge: prefixes are the hosts", prefixes, { "node1", "node2" })
local names = {}
for _, e in ipairs(m:entities()) do names[#names + 1] = e.name end
check_eq("merge: entities prefixed by host, input by input", names,
    { "node1/worker-1", "node2/io-1" })
check_eq("merge: the start is the inputs' earliest", m.start, 100 * 1000000000)
check_eq("merge: title and host shared or none", { m.title, m.host },
    { "messages", nil })
check_eq("merge: a state at a time of each input",
    { m:at(600)["node1/worker-1"], m:at(400)["node2/io-1"],
      m:at(5600)["node1/worker-1"], m:at(5600)["node2/io-1"] },
    { "idle", nil, "busy", "idle" })
local evs = {}
for e in m:events() do
	evs[#evs + 1] = ("%d %s %s %s"):format(e.time, e.entity, e.event,
	    tostring(e.target))
end
check_eq("merge: events in time order, own targets qualified, others kept",
    { evs[1], evs[2], evs[3], #evs },
    { "1000 node1/worker-1 send node2/io-1", "1600 node2/io-1 receive nil",
      "2100 node1/worker-1 receive nil", 16 })
local first = m:events()()
check_eq("merge: fields kept", first.fields, { type = "MSG" })

-- ---- flows ----
local function flows(tr, opts)
	local out = {}
	for fl in tr:flows(opts) do
		out[#out + 1] = ("%s %s %s>%s %s-%s"):format(tostring(fl.id),
		    fl.status, tostring(fl.from_node), tostring(fl.to_node),
		    tostring(fl.sent), tostring(fl.received))
	end
	return out
end
check_eq("flows: matched, lost, duplicate, unsent, by time sent", flows(m), {
	"U:1 matched node1>node2 1000-1600",
	"U:3 matched node2>node1 2500-2100",
	"U:2 matched node1>node2 3000-3640",
	"U:4 lost node1>node2 4000-nil",
	"U:4 matched node1>node2 4200-4800",
	"U:5 lost node1>node2 5000-nil",
	"U:6 matched node1>node2 6000-6600",
	"U:6 duplicate node1>node2 6000-6700",
	"M:7 matched node1>node2 7000-7600",
	"U:8 unsent nil>node2 nil-8000",
})
check_eq("flows: status and range filters",
    flows(m, { status = { "lost", "unsent" }, from = 4100 }),
    { "U:5 lost node1>node2 5000-nil", "U:8 unsent nil>node2 nil-8000" })
local one = m:flows()()
check_eq("flows: a record's entities and fields", { one.from, one.to,
    one.target, one.event, one.fields },
    { "node1/worker-1", "node2/io-1", "node2/io-1", "send", { type = "MSG" } })
check_error("flows: unknown status", function() m:flows { status = "gone" } end,
    "unknown status gone")
-- A node function: every entity its own node, so no send reaches a node
-- by name ("node2/io-1" is one) and the multicast goes to every node.
check_eq("flows: nodes named by a function", #flows(m, { node = function(n) return n end }), 10)

-- ---- align ----
local al = m:align()
check_eq("align: reference and offsets", { al.reference, al.offsets },
    { "node1", { node1 = 0, node2 = -504 } })
local p = al.pairs[1]
check_eq("align: the pair's figures", { p.a, p.b, p.messages_ab,
    p.messages_ba, p.mean_ab, p.mean_ba, p.latency, p.offset },
    { "node1", "node2", 5, 1, 608.0, -400.0, 104.0, 504.0 })
check("align: within half the latency asymmetry of the true skew",
    math.abs(p.offset - 500) <= (108 - 100) / 2)
check_eq("align: another reference", m:align { reference = "node2" }.offsets,
    { node1 = 504, node2 = 0 })
check_error("align: an unknown reference", function() m:align { reference = "x" } end,
    'no node "x"')

-- Merged again with the offsets: every matched message arrives after it
-- was sent (the arrows point forward).
local aligned = sm.merge { t1, t2, offsets = al.offsets }
local forward = true
for fl in aligned:flows { status = "matched" } do
	forward = forward and fl.received > fl.sent
end
check("merge with offsets: every message received after it was sent", forward)
check_eq("merge with offsets: node2 earlier by 504",
    { aligned.start, aligned:at(0)["node2/io-1"], aligned:at(504)["node2/io-1"] },
    { 100 * 1000000000 - 504, nil, "idle" })
-- The interactive SVG carries each matched send's receives, on the
-- aligned clock, for the viewer's arrows (whole messages say it
-- themselves): U:1's receive, logged at 1600 by node2, is 504 earlier
-- on the aligned clock, in ns from the merged start.
local svg = unit.tmpname(".svg")
sm.render { output = svg, trace = aligned, interactive = true }
local f = assert(io.open(svg))
local text = f:read("a")
f:close()
os.remove(svg)
local received = 100 * 1000000000 + 1600 - 504 - aligned.start
check_eq("interactive SVG: U:1's send lists its receive",
    text:match('"id": "U:1",[^\n]*("received": %[[^%]]*%])'),
    ('"received": [{"entity": "node2/io-1", "time": %d}]'):format(received))
check_eq("interactive SVG: U:6 its receive and the duplicate",
    select(2, text:match('"id": "U:6",[^\n]*"received": %[([^%]]*)%]'):gsub('"entity"', '')), 2)
check("interactive SVG: a lost send lists none", not text:find('"id": "U:5", "received"'))
check_eq("merge with offsets by place", sm.merge { t1, t2, offsets = { 0, "-504ns" } }.start,
    aligned.start)

-- ---- shift ----
local s = t1:shift("1.5us")
check_eq("shift: the start moves", s.start - t1.start, 1500)
check_eq("shift: times in its own clock stay", { s:at(5600)["worker-1"], s.finish, s.begin },
    { "busy", t1.finish, t1.begin })
local sm1 = sm.merge { t1, s, prefixes = { "a", "b" } }
check_eq("shift: a merge sees it later", { sm1:at(5600)["a/worker-1"],
    sm1:at(5600)["b/worker-1"], sm1:at(7000)["b/worker-1"] },
    { "busy", "idle", "busy" })
check_eq("shift back: the same trace", t1:shift(-1000):shift(1000).start, t1.start)
check_eq("shift to the epoch", t1:shift(-100 * 1000000000).start, 0)
check_error("shift before the epoch", function() t1:shift(-100 * 1000000000 - 1) end,
    "before the epoch")

-- ---- qualifiers ----
local a, pa = sm.merge { t1, t1 }
check_eq("prefixes: hosts clash, titles clash: by place", pa, { "#1", "#2" })
local g = write('{"start": [0, 0], "states": {"x": {"value": 0}}, "title": "other"}\n' ..
    '{"time": "1", "entity": "e", "state": 0}\n')
local tg = sm.load(g, { cache = false })
check_eq("prefixes: a title where no host", select(2, sm.merge { t1, tg }),
    { "node1", "other" })
check_eq("merge: the union of states by name", #a.states, 2)

-- ---- errors ----
check_error("merge: empty", function() sm.merge {} end, "one trace or more")
check_error("merge: not a trace", function() sm.merge { t1, 3 } end,
    "item 2 is a number")
check_error("merge: a bad prefix", function() sm.merge { t1, t2, prefixes = { "a/b", "c" } } end,
    "must not be empty")
check_error("merge: a prefix twice", function() sm.merge { t1, t2, prefixes = { "a", "a" } } end,
    "given twice")
check_error("merge: a bad offset", function() sm.merge { t1, t2, offsets = { "soon" } } end,
    "bad time")
check_error("merge: an offset past 2^63", function()
	sm.merge { t1, t2, offsets = { math.maxinteger } } end, "past 2^63")
-- An options table whose __index takes a trace out of the list and
-- collects it: merge reads its options before it takes the traces'
-- pointers (under valgrind and ASan, the other order reads freed memory).
do
	local list = setmetatable({ sm.load(f1, { cache = false }), t2 }, { __index = function(tb)
		rawset(tb, 1, nil)
		collectgarbage()
		collectgarbage()
	end })
	local ok, err = pcall(sm.merge, list)
	check("merge: an __index that collects an input", not ok and tostring(err):find("item 1 is a nil")
	    or not ok and tostring(err):find("one trace or more"), tostring(err))
end
check_error("shift: not a time", function() t1:shift({}) end, "shift must be ns")

-- t:write keeps message events whole: the merged trace written and read
-- back has the same messages.
do
	local out = unit.tmpname(".out")
	m:write(out)
	local back = sm.load(out, { cache = false })
	check_eq("write: message events read back the same", flows(back), flows(m))
	local e = back:events()()
	check_eq("write: an event's members read back", { e.id, e.fields }, { "U:1", { type = "MSG" } })
	os.remove(out)
end

-- A flows iterator resurrected after its finalizer ran (by one made
-- after it, so finalized before it) says so.
do
	local it = m:flows()
	setmetatable({}, { __gc = function() FLOWS = it end })
end
collectgarbage()
collectgarbage()
check_error("a finalized flows iterator is an error", function() return FLOWS() end,
	"this flows object was finalized (garbage collected): it can no longer be used")
FLOWS = nil

os.remove(f1)
os.remove(f2)
os.remove(g)
