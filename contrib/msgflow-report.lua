-- msgflow-report.lua: message and message-flow statistics of nodes'
-- statemaps written by msgflow2statemap.lua: incoming-to-handle times,
-- transport latency and clock offset per node pair, message counts, and
-- per flow tag the size, reach and blocked time of its message flows.
--
--   statemap-lua contrib/msgflow-report.lua [--picture OUT] NODE.out NODE.out ...
--
-- --picture draws the nodes' threads on one time axis, each node's
-- clock moved by the offset the report found (a .png, .pdf, or .svg:
-- the interactive statemap).
--
-- The traces are merged (statemap.merge: entities NODE/THREAD), their
-- messages matched (t:flows) and the clocks compared (t:align); see
-- contrib/README.md for what each figure means.
local sm = require "statemap"
local report = require "statemap.report"

local usage = "usage: statemap-lua contrib/msgflow-report.lua [--picture OUT] NODE.out NODE.out ...\n"
local files, picture = {}, nil
local i = 1
while i <= #arg do
	if arg[i] == "--help" or arg[i] == "-h" then
		io.write(usage)
		os.exit(0)
	elseif arg[i] == "--picture" then
		picture = arg[i + 1]
		if not picture then io.stderr:write(usage) os.exit(2) end
		i = i + 1
	else
		files[#files + 1] = arg[i]
	end
	i = i + 1
end
if #files == 0 then
	io.stderr:write(usage)
	os.exit(2)
end
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
