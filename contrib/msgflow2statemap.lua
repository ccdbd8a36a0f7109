-- msgflow2statemap.lua: one node's control-flow log (a message-flow
-- tracer's) to a statemap of its threads with message events.
-- Run with statemap-lua; see --help and contrib/README.md.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local smout = require "smout"

local usage = [[
usage: statemap-lua contrib/msgflow2statemap.lua [-o OUT] [--lenient] [--node NAME] [FILE]

Reads one node's control-flow log and writes a statemap of its threads
(host: the node) whose events are the node's messages, for
statemap.merge and contrib/msgflow-report.lua. The log is lines of

  NANOTIME THREAD EVENT [DATA]

(white space between fields; NANOTIME the node's own nanosecond clock,
THREAD without spaces) after a header line

  # node=NAME wall=SECONDS.NANOSECONDS nano=NANOTIME

saying what the node's wall clock read when its nanosecond clock read
NANOTIME (the trace starts there; nano= defaults to 0). Events:
Incoming M (read from the socket), THStarted/THSuccess/THFailure M
(handed to another thread: accepted, or rejected and discarded),
Handling M, TPComplete, ODStarted/ODFinished M (sending; the message
leaves at ODFinished), Discard M, Retransmission M (a copy of M that
was already processed: ignored), MsgTag T, FlowTag T, Checkpoint TEXT,
Stackpoint TEXT. M is a message identifier: src|dest|U(type):seqno
(unicast to dest), src|M(type):seqno (multicast to every node) or
src[|dest]|(protocol)...

Threads are idle until an event starts a control flow, "handling" in
one, "sending" from ODStarted to ODFinished, "waiting" from THStarted
to THSuccess or THFailure, idle again after TPComplete; each control
flow is the tag (NODE/THREAD#N). Every line in a control flow is also an
event (receive, handle, thstarted, thsuccess, discard, ignored,
odstarted, send, msgtag, flowtag, tpcomplete, checkpoint, stackpoint)
with members cf (the control flow) and tracer_event (the line's EVENT),
so that contrib/msgflow-report.lua --log can print the merged flows.

  -o OUT       write OUT (replaced only once the whole input is converted)
  --lenient    skip malformed lines (reported on stderr) instead of stopping
  --node NAME  the node's name (default: the header's, else the file's
               name without its extension)
]]

local opts, files = smout.options(arg, {
	["--lenient"] = { "lenient" }, ["--node"] = { "node", true } }, usage)
local input, name = smout.open(files[1])
local report = smout.reporter(name, opts.lenient)

local states = {
	{ "idle", "#e8e8e8" }, { "handling", "#9bd18b" }, { "sending", "#4e8fd9" },
	{ "waiting", "#e8a33d" },
}

-- The destination of a message by its identifier: a node, or "cluster"
-- for a multicast (every node); nil if it is no identifier.
local function destination(id)
	local src, rest = id:match("^([^|]+)|(.+)$")
	if not src then return nil end
	if rest:match("^M%(") then return "cluster" end
	local dest = rest:match("^([^|(]+)|")
	return dest or "cluster"
end

local header_node, wall, nano0
local lines = {}
for line in input:lines() do lines[#lines + 1] = line end
for i, line in ipairs(lines) do
	if line:match("^#") then
		header_node = header_node or line:match("node=(%S+)")
		local w = line:match("wall=(%S+)")
		if w then
			wall = smout.seconds_ns(w)
			if not wall then report:bad(i, "wall=" .. w .. " is not seconds") end
			nano0 = tonumber(line:match("nano=(%d+)") or "0")
		end
	end
end
local node = opts.node or header_node or
	(name ~= "-" and name:match("([^/]+)$"):gsub("%.[^.]*$", "")) or "node"
if node:find("/") or node == "" then smout.fail(name .. ": the node name must not hold '/'") end

local w <close> = smout.writer({ title = "message flow", host = node, entityKind = "Thread" },
	states, opts.output)
w:start(wall or 0)
nano0 = nano0 or 0

local threads = {}	-- by name: {cf = key or nil, n = flows so far, handled = M}
local function thread(tn)
	local t = threads[tn]
	if not t then
		t = { n = 0 }
		threads[tn] = t
	end
	return t
end

-- A thread enters a control flow if it is in none: its key and state.
local function enter(t, tn, time)
	if t.cf then return end
	t.n = t.n + 1
	t.cf = node .. "/" .. tn .. "#" .. t.n
	t.handled = nil
	w:datum(time, tn, "handling", t.cf)
end

local need_id = { Incoming = true, THStarted = true, THSuccess = true, THFailure = true,
	Handling = true, ODStarted = true, ODFinished = true, Discard = true,
	Retransmission = true }
local last = -1
for i, line in ipairs(lines) do
	if line:match("^#") or line:match("^%s*$") then goto next end
	local ns, tn, ev, data = line:match("^%s*(%d+)%s+(%S+)%s+(%a+)%s*(.-)%s*$")
	if not ns then
		report:bad(i, "not NANOTIME THREAD EVENT [DATA]")
		goto next
	end
	local time = tonumber(ns) - nano0
	if not math.type(time) or time < 0 then
		report:bad(i, "time " .. ns .. " is before the header's nano=")
		goto next
	end
	if time < last then
		report:bad(i, "time " .. ns .. " goes back")
		goto next
	end
	if tn:find("/") then
		report:bad(i, "thread " .. tn .. " holds a '/'")
		goto next
	end
	if need_id[ev] and not destination(data) then
		report:bad(i, ev .. " needs a message identifier, not '" .. data .. "'")
		goto next
	end
	last = time
	local t = thread(tn)
	-- Each line is an event record too, carrying the tracer's own event
	-- type (tracer_event) and its data, so that the merged flow log
	-- (msgflow-report.lua --log) can print the line as it was.
	local function event(name, fields)
		fields.time, fields.entity, fields.event = tostring(time), tn, name
		fields.tracer_event, fields.cf = ev, t.cf
		w:record(fields)
	end
	if ev == "Incoming" then
		enter(t, tn, time)
		t.handled = t.handled or data
		event("receive", { id = data })
	elseif ev == "Handling" then
		enter(t, tn, time)
		t.handled = t.handled or data
		event("handle", { message = data })
	elseif ev == "THStarted" then
		enter(t, tn, time)
		w:datum(time, tn, "waiting", t.cf)
		event("thstarted", { message = data })
	elseif ev == "THSuccess" or ev == "THFailure" then
		enter(t, tn, time)
		w:datum(time, tn, "handling", t.cf)
		event(ev == "THFailure" and "discard" or "thsuccess", { message = data })
	elseif ev == "Discard" then
		enter(t, tn, time)
		event("discard", { message = data })
	elseif ev == "Retransmission" then
		enter(t, tn, time)
		event("ignored", { message = data })
	elseif ev == "ODStarted" then
		enter(t, tn, time)
		w:datum(time, tn, "sending", t.cf)
		event("odstarted", { message = data })
	elseif ev == "ODFinished" then
		enter(t, tn, time)
		event("send", { target = destination(data), id = data })
		w:datum(time, tn, "handling", t.cf)
	elseif ev == "MsgTag" or ev == "FlowTag" then
		enter(t, tn, time)
		event(ev == "MsgTag" and "msgtag" or "flowtag", { tag = data, message = t.handled })
	elseif ev == "TPComplete" then
		if t.cf then
			event("tpcomplete", {})
			w:datum(time, tn, "idle")
			t.cf = nil
		end
	elseif ev == "Checkpoint" or ev == "Stackpoint" then
		enter(t, tn, time)
		event(ev:lower(), { text = data })
	else
		report:bad(i, "unknown event " .. ev)
	end
	::next::
end
-- Threads still in a control flow end idle at the last time, so that
-- every flow's time is bounded by the log.
local names = {}
for tn, t in pairs(threads) do if t.cf then names[#names + 1] = tn end end
table.sort(names)
for _, tn in ipairs(names) do w:datum(math.max(last, 0), tn, "idle") end
report:finish()
w:finish()
