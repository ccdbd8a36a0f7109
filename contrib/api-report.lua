-- api-report.lua: the Island's report over a trace that
-- apitimeline2statemap.lua made: its summary, the amount used of each
-- resource, the timeline, and the time each thread (and all of them)
-- spent live, on the CPU, stopped and in each resource, a stop during a
-- call compensated by the time the call was expected to take.
--
--   statemap-lua contrib/api-report.lua [--RESOURCE LIMIT ...] TRACE
--
-- Everything is read from the trace with statemap.load: a thread's
-- events give its life and its instant calls, its intervals its calls
-- (each call is a tag) and the rest of its time.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local sm = require "statemap"
local timeline = require "apitimeline"
local num, secs = timeline.number_text, timeline.seconds_text

local usage = [[
usage: statemap-lua contrib/api-report.lua [--RESOURCE LIMIT ...] TRACE

Prints the Island's report for TRACE, a statemap that
contrib/apitimeline2statemap.lua made from an API timeline. The options
are the program's resource limits, per second: --filewrite 100000 (bytes
a second), --fileread, --tcpsend, --tcprecv, --udpsend, --udprecv,
--random, --cpu 0.10 (a share of one CPU, shown only), or any resource
of the trace (an API the Island does not know is its own resource). A
call that was stopped needs the limit of its resource: the time it was
expected to take is what the limit allows (a rate lets one second's
worth through at once, more waits), and only the part of the stop past
it counts as stopped; a sleep is expected to take the seconds it asks.
]]

local function die(msg, status)
	io.stderr:write("api-report.lua: ", msg, "\n")
	os.exit(status or 1)
end

-- ---- Command line --------------------------------------------------------

local function parse_args(argv)
	local limits, order, path = {}, {}, nil
	local i = 1
	while i <= #argv do
		local a = argv[i]
		if a == "--help" or a == "-h" then
			io.write(usage)
			os.exit(0)
		elseif a:match("^%-%-.") then
			local name, value = a:match("^%-%-([^=]+)=(.*)$")
			if not name then
				name = a:sub(3)
				i = i + 1
				value = argv[i]
			end
			if value == nil then die("--" .. name .. " needs a limit", 2) end
			local n = tonumber(value)
			if not n or n ~= n or n <= 0 or n == math.huge then
				die(string.format("--%s: the limit must be a number above 0, not '%s'", name, value), 2)
			end
			if not limits[name] then order[#order + 1] = name end
			limits[name] = n
		elseif path then
			die("one TRACE only (see --help)", 2)
		else
			path = a
		end
		i = i + 1
	end
	if not path then
		io.stderr:write(usage)
		os.exit(2)
	end
	return limits, order, path
end

local limits, limit_order, path = parse_args(arg)
local ok, t = pcall(sm.load, path)
if not ok then die((tostring(t):gsub("\n.*", ""))) end

-- ---- What the trace says: threads and calls ---------------------------

local function not_ours(what)
	die(string.format("%s: %s: not a trace from apitimeline2statemap.lua", path, what))
end

-- Each thread: its life and its time outside calls. Each call: its
-- thread, label fields, and its time in the trace (whole and stopped).
local threads, calls, by_tag = {}, {}, {}

local function call_of(entity, tag, start)
	local c = by_tag[tag]
	if c then return c end
	c = timeline.parse_label(tag)
	if not c then not_ours(string.format("thread %s has tag '%s'", entity, tag)) end
	c.thread, c.start, c.finish, c.stopped = entity, start, start, 0
	by_tag[tag] = c
	calls[#calls + 1] = c
	return c
end

-- Creation and exit are events (an interval cannot say that a thread
-- exits at the trace's very end: it would last no time). The events
-- are read up to just past the end, since the trace's window,
-- [begin, finish), leaves out an event at its finish: the last line's.
local through_end = { to = t.finish + 1 }
local life, life_event = {}, { island_create_thread = true, island_destroy_thread = true }
for ev in t:events{ to = through_end.to, events = { "island_create_thread", "island_destroy_thread" } } do
	life[ev.entity] = life[ev.entity] or {}
	life[ev.entity][ev.event == "island_create_thread" and "created" or "exited"] = ev.time
end

for _, e in ipairs(t:entities()) do
	local th = { name = e.name, cpu = 0, stopped = 0 }
	th.created, th.exited = (life[e.name] or {}).created, (life[e.name] or {}).exited
	if not th.created then not_ours(string.format("thread %s has no island_create_thread", e.name)) end
	for iv in t:intervals{ entities = { e } } do
		local d = iv.finish - iv.start
		if iv.state == "exited" then
			-- no longer live
		elseif iv.tag then
			local c = call_of(e.name, iv.tag, iv.start)
			c.finish = iv.finish
			if iv.state == "stopped" then c.stopped = c.stopped + d end
		elseif iv.state == "cpu" or iv.state == "stopped" then
			th[iv.state] = th[iv.state] + d
		else
			not_ours(string.format("thread %s is in '%s' outside a call", e.name, iv.state))
		end
	end
	th.live = (th.exited or t.finish) - th.created
	threads[#threads + 1] = th
end
for ev in t:events(through_end) do
	if life_event[ev.event] then goto next end
	local c = timeline.parse_label(ev.event)
	if not c then not_ours(string.format("event '%s'", ev.event)) end
	c.thread, c.start, c.finish, c.stopped = ev.entity, ev.time, ev.time, 0
	calls[#calls + 1] = c
	::next::
end
table.sort(calls, function(a, b)
	if a.start ~= b.start then return a.start < b.start end
	return (a.start_line or a.end_line) < (b.start_line or b.end_line)
end)

-- Resources: the Island's, and those of APIs it does not know.
local resources, is_resource = {}, {}
local function add_resource(r)
	if r and not is_resource[r] then
		is_resource[r] = true
		resources[#resources + 1] = r
	end
end
for r in pairs(timeline.resources) do add_resource(r) end
for _, c in ipairs(calls) do add_resource(timeline.api(c.api).resource) end
table.sort(resources)
for _, name in ipairs(limit_order) do
	if name ~= "cpu" and not is_resource[name] then
		die(string.format("--%s: no resource '%s' (the resources: cpu, %s)", name, name,
			table.concat(resources, ", ")), 2)
	end
end

-- ---- Expected times and compensation -----------------------------------

-- The time a call was expected to take, in ns, or nil if its limit is
-- not given. A rate works as the Island's runtime enforces it: use
-- accumulates and drains at the limit per second, a call may bring it
-- up to one second's worth (the limit) without waiting, and waits while
-- the rest drains. So writing 200000 bytes at 100000 a second is
-- expected to take 1 s when nothing is pending, more just after
-- another write. A sleep asks for its seconds; calls that take a count
-- (open, settimer) only work, and are expected to take no time.
local pending = {}	-- rate resource -> {level =, at =} for the drain
local function expected(c)
	local api = timeline.api(c.api)
	if not c.amount or api.time == "cpu" then return 0 end
	if api.time == "sleep" then return c.amount * 1e9 end
	local limit = limits[api.time]
	if not limit then return nil end
	local p = pending[api.time] or { level = 0, at = c.start }
	local level = math.max(0, p.level - limit * (c.start - p.at) / 1e9) + c.amount
	pending[api.time] = { level = level, at = c.start }
	return math.max(0, level - limit) / limit * 1e9
end

-- Each thread's time per category: its calls split between their
-- category and "stopped" (a stop counts only past the expected time),
-- the rest of its life cpu or stopped as the trace says.
local by_name = {}
for _, th in ipairs(threads) do
	by_name[th.name] = th
	th.time = { cpu = th.cpu, stopped = th.stopped }
end
for _, c in ipairs(calls) do
	local whole = c.finish - c.start
	local e = expected(c)
	if c.stopped > 0 and not e then
		die(string.format("%s: %s's call to %s at %s s was stopped: its expected time needs --%s LIMIT",
			path, c.thread, c.api, secs(c.start), timeline.api(c.api).time))
	end
	local stop = math.min(c.stopped, math.max(0, whole - (e or 0)))
	local tm = by_name[c.thread].time
	local cat = timeline.api(c.api).time
	tm[cat] = (tm[cat] or 0) + whole - stop
	tm.stopped = tm.stopped + stop
end

-- ---- The report ----------------------------------------------------------

local out = {}
local function say(fmt, ...) out[#out + 1] = string.format(fmt, ...) end

-- The categories in the order they are printed: cpu, the resources'
-- as the trace's states list them, stopped.
local order = { "cpu" }
for _, s in ipairs(t.states) do
	if not timeline.reserved[s.name] then order[#order + 1] = s.name end
end
order[#order + 1] = "stopped"

local function consumption(time, live)
	say("  Total 'live': %s (100.0%%)", secs(live))
	for _, cat in ipairs(order) do
		local ns = time[cat] or 0
		if ns > 0 or cat == "cpu" then
			local share = live > 0 and math.floor(ns / live * 10000 + 0.5) / 100 or 0
			say("  Total '%s': %s (%s%%)", cat, secs(ns), num(share + 0.0))
		end
	end
end

if #limit_order > 0 then
	say("--- Resource Limits ---")
	say("")
	for _, name in ipairs(limit_order) do
		say("Limit '%s': %s%s", name, num(limits[name]), name == "cpu" and " of a CPU" or " a second")
	end
	say("")
end

-- Summary: threads, and files and sockets opened and still open. The
-- trace does not see a close that the Island did not log; an Island
-- with no thread left has ended, and its files and sockets with it.
local live_threads, sum, closed = 0, {}, { file = 0, socket = 0 }
for _, th in ipairs(threads) do
	if not th.exited then live_threads = live_threads + 1 end
end
for _, c in ipairs(calls) do
	local api = timeline.api(c.api)
	if api.resource and c.amount then sum[api.resource] = (sum[api.resource] or 0) + c.amount end
	if api.closes and c.end_line then closed[api.closes] = closed[api.closes] + 1 end
end
local files = sum.filesopened or 0
local sockets = (sum.insockets or 0) + (sum.outsockets or 0)
local function still_open(n, kind)
	if live_threads == 0 then return 0 end
	return math.max(0, n - closed[kind])
end
say("--- Island Summary ---")
say("")
say("Total threads: %d", #threads)
say("Live threads: %d", live_threads)
say("Total files: %s", num(files))
say("Open files: %s", num(still_open(files, "file")))
say("Total sockets: %s", num(sockets))
say("Open sockets: %s", num(still_open(sockets, "socket")))
say("")
say("--- Global Sum ---")
say("")
for _, r in ipairs(resources) do say("Total '%s': %s", r, num(sum[r] or 0)) end
say("")

-- The timeline again, as the trace holds it: creations and exits,
-- calls, and the stops (each stopped stretch of any thread).
say("--- Island Timeline ---")
say("")
say("TOC, Thread, API, Amount")
-- At one time: stops and creations first, then the calls' lines in the
-- order of the timeline, then exits.
local lines = {}
local function entry(time, group, line, text) lines[#lines + 1] = { time, group, line, text } end
for _, th in ipairs(threads) do
	entry(th.created, 0, 1, th.name .. " island_create_thread")
	if th.exited then entry(th.exited, 2, 0, th.name .. " island_destroy_thread") end
end
for _, c in ipairs(calls) do
	if c.start_line then entry(c.start, 1, c.start_line, c.thread .. " start call " .. c.api) end
	if c.end_line then entry(c.finish, 1, c.end_line, string.format("%s %s %s", c.thread, c.api, c.amount_text)) end
end
local stops = {}
for iv in t:intervals{ states = { "stopped" } } do stops[#stops + 1] = { iv.start, iv.finish } end
table.sort(stops, function(a, b) return a[1] < b[1] end)
local run
for _, s in ipairs(stops) do
	if run and s[1] <= run[2] then
		run[2] = math.max(run[2], s[2])
	else
		run = { s[1], s[2] }
		entry(s[1], 0, 0, run)
	end
end
table.sort(lines, function(a, b)
	for k = 1, 3 do
		if a[k] ~= b[k] then return a[k] < b[k] end
	end
	return false
end)
for _, l in ipairs(lines) do
	local text = l[4]
	if type(text) == "table" then text = "ALL Stopped " .. secs(text[2] - text[1]) end
	say("%s %s", secs(l[1]), text)
end
say("")

say("--- Thread Time Consumption ---")
say("")
local all, all_live = {}, 0
for _, th in ipairs(threads) do
	say("Thread:")
	say("  Name: %s", th.name)
	consumption(th.time, th.live)
	say("")
	all_live = all_live + th.live
	for cat, ns in pairs(th.time) do all[cat] = (all[cat] or 0) + ns end
end
say("All Threads (Global)")
consumption(all, all_live)
io.write(table.concat(out, "\n"), "\n")
