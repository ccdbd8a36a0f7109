-- msgflow-report.lua: message and message-flow statistics of nodes'
-- statemaps written by msgflow2statemap.lua: incoming-to-handle times,
-- transport latency and clock offset per node pair, message counts, and
-- per flow tag the size, reach and blocked time of its message flows;
-- or, with --log, the merged log of the message flows.
--
--   statemap-lua contrib/msgflow-report.lua [--picture OUT] NODE.out NODE.out ...
--   statemap-lua contrib/msgflow-report.lua --log OUT NODE.out NODE.out ...
--
-- --picture draws the nodes' threads on one time axis, each node's
-- clock moved by the offset the report found (a .png, .pdf, or .svg:
-- the interactive statemap).
--
-- The traces are merged (statemap.merge: entities NODE/THREAD), their
-- messages matched (t:flows) and the clocks compared (t:align); see
-- contrib/README.md for what each figure means.
--
-- --log reads the files as streams in two passes, without statemap.load:
-- the first counts the references to each message, the second merges
-- the nodes' events in wall-time order and writes each message flow as
-- soon as no further control flow can join it (see write_log below).
local sm = require "statemap"
local report = require "statemap.report"
local json = sm.json

local usage = [[
usage: statemap-lua contrib/msgflow-report.lua [--picture OUT] NODE.out NODE.out ...
       statemap-lua contrib/msgflow-report.lua --log OUT NODE.out NODE.out ...

NODE.out: each node's statemap written by contrib/msgflow2statemap.lua.
Without --log, prints the message and message-flow statistics;
--picture OUT also draws the nodes' threads on one clock (.png, .pdf,
.svg). --log OUT writes the merged log of message flows instead (OUT
"-": standard output): each flow as "MF N", its messages
"SOURCE -> DESTINATIONS: ID", then its events in wall-time order.
]]

local function die(msg, status)
	io.stderr:write("msgflow-report.lua: ", msg, "\n")
	os.exit(status or 1)
end

local files, picture, log = {}, nil, nil
local i = 1
while i <= #arg do
	local a = arg[i]
	if a == "--help" or a == "-h" then
		io.write(usage)
		os.exit(0)
	elseif a == "--picture" or a == "--log" then
		local v = arg[i + 1]
		if not v or v == "" then die(a .. " needs a file name (see --help)", 2) end
		if a == "--picture" then picture = v else log = v end
		i = i + 1
	elseif a:match("^%-.") then
		die("unknown option " .. a .. " (see --help)", 2)
	else
		files[#files + 1] = a
	end
	i = i + 1
end
if #files == 0 then
	io.stderr:write(usage)
	os.exit(2)
end
if log and picture then die("--log and --picture do not go together: run it twice", 2) end

-- ---- The merged log (--log) ----------------------------------------------

-- The records of one node's statemap, one JSON object a line as
-- msgflow2statemap.lua writes them: an iterator of (record, line), the
-- metadata first (checked). Any other file is a one-line error.
local function records(path)
	local f, err = io.open(path)
	if not f then die(err) end
	local n = 0
	local meta
	return function()
		while true do
			local text = f:read("l")
			if not text then
				f:close()
				if not meta then die(path .. ": empty: not a statemap of msgflow2statemap.lua") end
				return nil
			end
			n = n + 1
			if text:match("%S") then
				local ok, rec = pcall(json.decode, text, path)
				if not ok or type(rec) ~= "table" then
					die(string.format("%s:%d: not one JSON object a line, as msgflow2statemap.lua writes", path, n))
				end
				if not meta then
					if type(rec.start) ~= "table" or math.type(rec.start[1]) ~= "integer"
						or math.type(rec.start[2]) ~= "integer" or type(rec.host) ~= "string"
						or rec.title ~= "message flow" then
						die(string.format("%s:%d: no metadata with start, host and the title 'message flow': "
							.. "not a statemap of msgflow2statemap.lua", path, n))
					end
					meta = rec
				end
				return rec, n, meta
			end
		end
	end
end

-- An event record of a converted log: its time (ns), message (id or
-- message member) and the tracer's event; nil for other records.
local function event_of(path, rec, n)
	if rec.event == nil then return nil end
	local t = math.tointeger(tonumber(rec.time))
	if not t or type(rec.entity) ~= "string" then
		die(string.format("%s:%d: an event without a time or an entity", path, n))
	end
	if type(rec.tracer_event) ~= "string" or type(rec.cf) ~= "string" then
		die(string.format("%s:%d: event '%s' has no tracer_event or cf: convert the log again with "
			.. "msgflow2statemap.lua", path, n, tostring(rec.event)))
	end
	local msg = rec.id or rec.message
	if msg ~= nil and type(msg) ~= "string" then die(string.format("%s:%d: a message that is not text", path, n)) end
	return t, msg
end

local function is_send(rec) return rec.event == "odstarted" or rec.event == "send" end

-- First pass: how many events refer to each message, and which control
-- flows are non-causal: those that only send messages sent before by
-- another control flow (a retransmission thread's). The seed's tracer
-- marks such threads; a log here carries no mark, so the sends say it.
local function first_pass()
	local refs, sent, noncausal = {}, {}, {}
	local messages = 0
	for _, path in ipairs(files) do
		local open = {}	-- control flows of this node still open: {resends =, causal =}
		local function close(cf)
			local st = open[cf]
			if st.resends and not st.causal then noncausal[cf] = true end
			open[cf] = nil
		end
		for rec, n in records(path) do
			local t, msg = event_of(path, rec, n)
			if t then
				local cf = rec.cf
				local st = open[cf]
				if not st then
					st = {}
					open[cf] = st
				end
				if msg then
					if not refs[msg] then messages = messages + 1 end
					refs[msg] = (refs[msg] or 0) + 1
					if is_send(rec) then
						if sent[msg] and sent[msg] ~= cf then st.resends = true else st.causal = true end
						sent[msg] = sent[msg] or cf
					else
						st.causal = true
					end
				elseif rec.event ~= "tpcomplete" then
					st.causal = true
				end
				if rec.event == "tpcomplete" then close(cf) end
			end
		end
		for cf in pairs(open) do close(cf) end
	end
	return refs, noncausal, messages
end

-- The wall clock as the log prints it: UTC time of day to the ns.
local function wall_text(ns)
	return os.date("!%H:%M:%S", ns // 1000000000) .. string.format(".%09d", ns % 1000000000)
end

local function pad(s, n) return s .. string.rep(" ", n - #s) end
local function lpad(s, n) return string.rep(" ", n - #s) .. s end

-- One flow's text: "MF N", its messages, then its events (already in
-- wall-time order).
local function flow_text(flow)
	local out = { "MF " .. #flow.messages }
	for _, msg in ipairs(flow.messages) do
		local src, dests, seen = nil, {}, {}
		for _, e in ipairs(flow.events) do
			if e.msg == msg then
				if e.send and not src then src = e.node end
				if e.receive and not seen[e.node] then
					seen[e.node] = true
					dests[#dests + 1] = e.node
				end
			end
		end
		out[#out + 1] = string.format("%s -> %s: %s", src or "unknown",
			#dests > 0 and table.concat(dests, ", ") or "nobody", msg)
	end
	-- Columns: one per thread of a node, in order of its first event.
	local cols, col_of = 0, {}
	local w = { wd = 1, ld = 1, node = 0, thread = 0, type = 0 }
	local prev_wall, prev_local = nil, {}
	local rows = {}
	for _, e in ipairs(flow.events) do
		local key = e.node .. "/" .. e.thread
		if not col_of[key] then
			cols = cols + 1
			col_of[key] = cols
		end
		local wd = prev_wall and tostring(e.wall - prev_wall) or "-"
		local ld = prev_local[e.node] and tostring(e.time - prev_local[e.node]) or "-"
		prev_wall, prev_local[e.node] = e.wall, e.time
		rows[#rows + 1] = { e, wd, ld }
		w.wd, w.ld = math.max(w.wd, #wd), math.max(w.ld, #ld)
		w.node, w.thread = math.max(w.node, #e.node), math.max(w.thread, #e.thread)
		w.type = math.max(w.type, #e.type)
	end
	for _, r in ipairs(rows) do
		local e = r[1]
		local stars = {}
		for c = 1, cols do stars[c] = c == col_of[e.node .. "/" .. e.thread] and "*" or " " end
		local line = table.concat({ wall_text(e.wall), lpad(r[2], w.wd), lpad(r[3], w.ld),
			table.concat(stars), pad(e.node, w.node), pad(e.thread, w.thread), pad(e.type, w.type),
			e.data }, "  ")
		out[#out + 1] = (line:gsub("%s+$", ""))
	end
	return table.concat(out, "\n") .. "\n\n"
end

-- Second pass: the nodes' events merged in wall-time order (each node's
-- file is in its own time order). What it holds: the message counts of
-- the first pass, each dropped when its last reference is read; the
-- flows still open, each with its events and messages; which open
-- control flow and which still-referenced message belong to which flow;
-- and the next record of each file. A flow is written, and forgotten,
-- once all its control flows have ended (TPComplete, or the end of
-- their node's log) and every reference to each of its messages has
-- been read: no further control flow can join it.
local function write_log(out)
	local refs, noncausal = first_pass()
	local cf_flow, msg_flow = {}, {}
	local seq = 0
	local written = 0

	local function new_flow()
		return { messages = {}, events = {}, cfs = {}, ncfs = 0, pending = 0, first = seq }
	end
	local function add_message(flow, msg)
		flow.messages[#flow.messages + 1] = msg
		msg_flow[msg] = flow
		flow.pending = flow.pending + 1
	end
	-- Merges flow b into flow a (a keeps its identity).
	local function merge(a, b)
		for cf in pairs(b.cfs) do
			a.cfs[cf] = true
			cf_flow[cf] = a
		end
		a.ncfs, a.pending = a.ncfs + b.ncfs, a.pending + b.pending
		for _, m in ipairs(b.messages) do
			a.messages[#a.messages + 1] = m
			if msg_flow[m] == b then msg_flow[m] = a end
		end
		local ev, x, y = {}, 1, 1
		local ea, eb = a.events, b.events
		while x <= #ea or y <= #eb do
			local p, q = ea[x], eb[y]
			if q == nil or (p ~= nil and (p.wall < q.wall or (p.wall == q.wall and p.seq < q.seq))) then
				ev[#ev + 1] = p
				x = x + 1
			else
				ev[#ev + 1] = q
				y = y + 1
			end
		end
		a.events = ev
		a.first = math.min(a.first, b.first)
		return a
	end
	local function done(flow)
		if flow.ncfs == 0 and flow.pending == 0 and not flow.written then
			flow.written = true
			written = written + 1
			out:write(flow_text(flow))
		end
	end
	local function close_cf(cf)
		local flow = cf_flow[cf]
		if not flow then return end
		cf_flow[cf] = nil
		flow.cfs[cf] = nil
		flow.ncfs = flow.ncfs - 1
		done(flow)
	end
	local function unref(msg)
		local left = refs[msg] - 1
		if left > 0 then
			refs[msg] = left
			return
		end
		refs[msg] = nil
		local flow = msg_flow[msg]
		msg_flow[msg] = nil
		flow.pending = flow.pending - 1
		done(flow)
	end
	-- The flow a message belongs to, joining it with `flow` (may be nil).
	local function join(flow, msg)
		local other = msg_flow[msg]
		if not other then
			if not refs[msg] then return flow end	-- every reference read: a late straggler
			flow = flow or new_flow()
			add_message(flow, msg)
			return flow
		end
		if flow == nil or flow == other then return other end
		if #other.events > #flow.events then flow, other = other, flow end
		return merge(flow, other)
	end

	-- The files as streams, each with its next event.
	local streams = {}
	for k, path in ipairs(files) do
		local it = records(path)
		local s = { path = path, it = it, open = {} }
		function s.advance()
			while true do
				local rec, n, meta = s.it()
				if not rec then
					s.rec = nil
					return
				end
				s.node = s.node or meta.host
				s.start = s.start or (meta.start[1] * 1000000000 + meta.start[2])
				local t, msg = event_of(s.path, rec, n)
				if t then
					s.rec, s.time, s.msg, s.wall = rec, t, msg, s.start + t
					return
				end
			end
		end
		s.advance()
		streams[k] = s
	end
	while true do
		local s
		for _, c in ipairs(streams) do
			if c.rec and (not s or c.wall < s.wall) then s = c end
		end
		if not s then break end
		local rec, msg = s.rec, s.msg
		seq = seq + 1
		local e = { wall = s.wall, time = s.time, seq = seq, node = s.node, thread = rec.entity,
			type = rec.tracer_event, msg = msg, data = rec.tag or msg or rec.text or "",
			send = is_send(rec), receive = rec.event == "receive" }
		local cf = rec.cf
		if noncausal[cf] then
			-- A retransmission: its sends show in the flow of the message
			-- they carry (whose count includes them), the thread's control
			-- flow joins no flow.
			if msg then
				local flow = join(nil, msg)
				if flow then
					e.data = e.data .. " (non-causal)"
					table.insert(flow.events, e)
					unref(msg)
				end
			end
		else
			local flow = cf_flow[cf]
			if not flow then
				flow = new_flow()
				flow.cfs[cf], flow.ncfs = true, 1
				cf_flow[cf] = flow
				s.open[cf] = true
			end
			if msg then flow = join(flow, msg) end
			flow.events[#flow.events + 1] = e
			if msg then unref(msg) end
			if rec.event == "tpcomplete" then
				s.open[cf] = nil
				close_cf(cf)
			end
		end
		s.advance()
		if not s.rec then
			-- The node's log has ended: its control flows with it.
			local left = {}
			for c in pairs(s.open) do left[#left + 1] = c end
			table.sort(left)
			for _, c in ipairs(left) do close_cf(c) end
			s.open = {}
		end
	end
	return written
end

if log then
	-- All or nothing: the log goes to a temporary file beside OUT (or
	-- in TMPDIR, for standard output), renamed over OUT (copied out) only
	-- once every flow is written.
	local tmp
	if log == "-" then
		local p = io.popen("mktemp 2> /dev/null")
		tmp = p and p:read("l")
		if p then p:close() end
		if not tmp or tmp == "" then die("cannot make a temporary file (TMPDIR)") end
	else
		local f = io.open("/proc/self/stat")
		local pid = f and f:read("n")
		if f then f:close() end
		tmp = log .. ".tmp." .. tostring(math.tointeger(pid) or os.time())
	end
	local out, err = io.open(tmp, "w")
	if not out then die(err) end
	local real_die = die
	die = function(msg, status)
		out:close()
		os.remove(tmp)
		real_die(msg, status)
	end
	local ok, werr = pcall(write_log, out)
	if not ok then die(tostring(werr)) end
	local closed, cerr = out:close()
	if not closed then
		os.remove(tmp)
		real_die(log .. ": " .. tostring(cerr))
	end
	if log == "-" then
		local f = io.open(tmp)
		local text = f:read("a")
		f:close()
		os.remove(tmp)
		io.write(text)
	else
		local renamed, rerr = os.rename(tmp, log)
		if not renamed then
			os.remove(tmp)
			real_die(tostring(rerr))
		end
	end
	os.exit(0)
end

-- ---- The statistics --------------------------------------------------------

local inputs = {}
for k, f in ipairs(files) do inputs[k] = sm.load(f) end
local m = sm.merge(inputs)

local function node_of(name) return name:match("^([^/]*)") end
local function dur(ns)
	if not ns then return "-" end
	local r = math.floor(math.abs(ns) + 0.5)
	return (ns < 0 and r > 0 and "-" or "") .. sm.format_ns(r)
end
local function num(x) return x and (math.type(x) == "integer" and tostring(x) or ("%.2f"):format(x)) or "-" end

-- ---- what the events say ----
local received = {}	-- node .. "\0" .. id -> first receive time
local handled = {}	-- node .. "\0" .. id -> first handle time
local discarded, ignored = 0, 0
local msg_tag = {}	-- message id -> its MsgTag
local flow_tag = {}	-- control flow -> its FlowTag
local sent_by = {}	-- control flow -> {id = true}
local parent = {}	-- union-find over "cf:KEY" and "id:ID"
local ids = {}

local function find(x)
	local p = parent[x]
	if p == nil then parent[x] = x return x end
	if p == x then return x end
	local r = find(p)
	parent[x] = r
	return r
end
local function union(a, b)
	local ra, rb = find(a), find(b)
	if ra ~= rb then parent[rb] = ra end
end
local function touch(cf, id)
	if cf and id then union("cf:" .. cf, "id:" .. id) end
end

for e in m:events() do
	local f = e.fields or {}
	local node = node_of(e.entity)
	local msg = e.id or f.message
	if msg then ids[msg] = true end
	if e.event == "receive" then
		local k = node .. "\0" .. e.id
		received[k] = received[k] or e.time
		touch(f.cf, e.id)
	elseif e.event == "handle" then
		local k = node .. "\0" .. f.message
		handled[k] = handled[k] or e.time
		touch(f.cf, f.message)
	elseif e.event == "send" then
		touch(f.cf, e.id)
		if f.cf then
			sent_by[f.cf] = sent_by[f.cf] or {}
			sent_by[f.cf][e.id] = true
		end
	elseif e.event == "discard" then
		discarded = discarded + 1
		touch(f.cf, f.message)
	elseif e.event == "ignored" then
		ignored = ignored + 1
		touch(f.cf, f.message)
	elseif e.event == "msgtag" and f.message then
		msg_tag[f.message] = msg_tag[f.message] or f.tag
	elseif e.event == "flowtag" and f.cf then
		flow_tag[f.cf] = flow_tag[f.cf] or f.tag
	end
end

-- Blocked time of each control flow: its time in any state but idle.
local blocked = {}
for iv in m:intervals() do
	if iv.tag and iv.state ~= "idle" then
		blocked[iv.tag] = (blocked[iv.tag] or 0) + (iv.finish - iv.start)
		find("cf:" .. iv.tag)
	end
end

-- ---- incoming to handle ----
print("Incoming to handle time (from reading a message off the socket to handling it, per node)")
local per_node, nodes_seen = {}, {}
for k, t in pairs(received) do
	local h = handled[k]
	if h then
		local node = k:match("^(.-)%z")
		local s = per_node[node]
		if not s then
			s = { n = 0, sum = 0 }
			per_node[node] = s
			nodes_seen[#nodes_seen + 1] = node
		end
		local d = h - t
		s.n, s.sum = s.n + 1, s.sum + d
		s.min = math.min(s.min or d, d)
		s.max = math.max(s.max or d, d)
	end
end
table.sort(nodes_seen)
local rows, all = {}, { n = 0, sum = 0 }
for _, node in ipairs(nodes_seen) do
	local s = per_node[node]
	rows[#rows + 1] = { node, s.n, dur(s.sum / s.n), dur(s.min), dur(s.max) }
	all.n, all.sum = all.n + s.n, all.sum + s.sum
	all.min = math.min(all.min or s.min, s.min)
	all.max = math.max(all.max or s.max, s.max)
end
if all.n > 0 then rows[#rows + 1] = { "all", all.n, dur(all.sum / all.n), dur(all.min), dur(all.max) } end
print(report.table(rows, { { "node" }, { "messages", "number" }, { "average" }, { "min" }, { "max" } }))

-- ---- transport ----
print("\nTransport latency per node pair (L = (avg(Rb - Ta) + avg(Ra - Tb)) / 2; offset: b's clock ahead of a's)")
local al = m:align()
if picture then
	-- The nodes on one clock: each moved by its offset from the reference.
	local list = { offsets = al.offsets }
	for k, t in ipairs(inputs) do list[k] = t end
	local aligned = sm.merge(list)
	sm.render { output = picture, trace = aligned, interactive = picture:match("%.svg$") ~= nil,
		title = "Message flow of " .. #inputs .. " nodes, clocks aligned to " .. tostring(al.reference) }
end
rows = {}
for _, p in ipairs(al.pairs) do
	rows[#rows + 1] = { p.a, p.b, p.messages_ab, p.messages_ba, dur(p.latency), dur(p.offset) }
end
print(report.table(rows, { { "a" }, { "b" }, { "a->b", "number" }, { "b->a", "number" },
	{ "latency" }, { "offset" } }))
local count = { matched = 0, lost = 0, duplicate = 0, unsent = 0 }
local total = 0
for fl in m:flows() do
	count[fl.status] = count[fl.status] + 1
	total = total + 1
end
local unique = 0
for _ in pairs(ids) do unique = unique + 1 end
print()
print(report.table({
	{ "unique", unique, "logical messages (distinct identifiers)" },
	{ "total", total, "copies on the network: every receive, and every send nothing received" },
	{ "discarded", discarded, "refused when passed to another thread, or dropped" },
	{ "ignored", ignored, "retransmissions of a message already processed" },
	{ "lost", count.lost, "sent, never received" },
	{ "duplicate", count.duplicate, "received more often than sent" },
	{ "unsent", count.unsent, "received, never seen sent (no send logged)" },
}, { { "Transport" }, { "count", "number" }, { "" } }))

-- ---- message flows ----
local flows = {}	-- root -> {cfs = n, nodes = {}, ids = {}, tag =, blocked =}
local function flow_of(cf)
	local r = find("cf:" .. cf)
	local f = flows[r]
	if not f then
		f = { cfs = 0, nodes = {}, ids = {}, blocked = 0 }
		flows[r] = f
	end
	return f
end
local cfs = {}
for x in pairs(parent) do
	local cf = x:match("^cf:(.*)$")
	if cf then cfs[#cfs + 1] = cf end
end
table.sort(cfs)
for _, cf in ipairs(cfs) do
	local f = flow_of(cf)
	f.cfs = f.cfs + 1
	f.nodes[node_of(cf)] = true
	f.blocked = f.blocked + (blocked[cf] or 0)
	f.tag = f.tag or flow_tag[cf]
	for id in pairs(sent_by[cf] or {}) do f.ids[id] = true end
end
local by_tag, tags, untagged = {}, {}, 0
for _, f in pairs(flows) do
	if not f.tag then
		untagged = untagged + 1
	else
		local g = by_tag[f.tag]
		if not g then
			g = { n = 0, msgs = 0, nodes = 0, threads = 0, blocked = 0, per_msg_tag = {} }
			by_tag[f.tag] = g
			tags[#tags + 1] = f.tag
		end
		local n, nn = 0, 0
		for id in pairs(f.ids) do
			n = n + 1
			local t = msg_tag[id]
			if t then g.per_msg_tag[t] = (g.per_msg_tag[t] or 0) + 1 end
		end
		for _ in pairs(f.nodes) do nn = nn + 1 end
		g.n = g.n + 1
		g.msgs = g.msgs + n
		g.min = math.min(g.min or n, n)
		g.max = math.max(g.max or n, n)
		g.nodes = g.nodes + nn
		g.threads = g.threads + f.cfs
		g.blocked = g.blocked + f.blocked
	end
end
table.sort(tags)
print("\nMessage flows by flow tag (messages: sent per flow; threads: control flows; blocked: summed over its threads)")
rows = {}
for _, tag in ipairs(tags) do
	local g = by_tag[tag]
	rows[#rows + 1] = { tag, g.n, g.min, num(g.msgs / g.n), g.max, num(g.nodes / g.n),
		num(g.threads / g.n), dur(g.blocked / g.n) }
end
print(report.table(rows, { { "flow tag" }, { "flows", "number" }, { "min", "number" },
	{ "avg" }, { "max", "number" }, { "nodes" }, { "threads" }, { "blocked" } }))
for _, tag in ipairs(tags) do
	local g = by_tag[tag]
	local names = {}
	for t in pairs(g.per_msg_tag) do names[#names + 1] = t end
	table.sort(names)
	local parts = {}
	for _, t in ipairs(names) do parts[#parts + 1] = ("%s %s"):format(t, num(g.per_msg_tag[t] / g.n)) end
	print(("%s: messages per flow by tag: %s"):format(tag, #parts > 0 and table.concat(parts, ", ") or "none"))
end
print(("untagged flows: %d"):format(untagged))
