-- api-report.lua: the Island's report over an API timeline, read as the
-- profiler prints it or from the trace apitimeline2statemap.lua made of
-- it: its summary, the amount used of each resource, the timeline, and
-- the time each thread (and all of them) spent live, on the CPU, stopped
-- and in each resource, a stop during a call compensated by the time the
-- call was expected to take; then what the Island's report leaves out:
-- the limits, each thread's amounts, and each thread's share of CPU
-- against the CPU limit.
--
--   statemap-lua contrib/api-report.lua [--RESOURCE LIMIT ...] TIMELINE-or-TRACE
--
-- Both inputs come to the same description (read_timeline, read_trace):
-- the threads' lives, what each thread did when (segments), and the
-- calls; the report is computed from that, in seconds, as the Island
-- computes it.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local sm = require "statemap"
local timeline = require "apitimeline"
local num = timeline.number_text

local usage = [[
usage: statemap-lua contrib/api-report.lua [--RESOURCE LIMIT ...] FILE

Prints the Island's report for FILE: an API timeline as the profiler
prints it (see contrib/apitimeline2statemap.lua --help; a line
"Total 'cpu': SECONDS" gives the runtime's own CPU figure), or the
statemap contrib/apitimeline2statemap.lua made of one (a file whose
first character is '{'). The options are the program's resource limits,
per second: --filewrite 100000 (bytes a second), --fileread, --tcpsend,
--tcprecv, --udpsend, --udprecv, --random, --cpu 0.10 (a share of one
CPU: the check of each thread's cpu / (cpu + stopped)), or any resource
of the timeline (an API the Island does not know is its own resource).
A call that was stopped needs the limit of its resource: the time it
was expected to take is what the limit allows (a rate lets one second's
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
			die("one FILE only (see --help)", 2)
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

-- ---- The two inputs, to one description ------------------------------------
--
-- island = {
--   threads  = { {name =, created =, exited = (nil: live at the end)} }
--              in order of creation; times in seconds
--   segments = { [name] = { {state =, call =, from =, to =} } }: what
--              each thread did, outside calls (call nil: cpu or stopped)
--              and in them (its category, or stopped); not once exited
--   calls    = { {thread =, api =, amount =, amount_text =, start_line =,
--              end_line =, start =, finish =} } in order of start
--   lines    = the timeline as the report prints it, one text a line
--   cpu_total = the runtime's own CPU seconds, as text, or nil
-- }

-- A timeline line as the Island prints it: TOC, thread, API and amount
-- separated by spaces, the amount empty where there is none (so that
-- a creation ends with a space).
local function line_text(toc, thread, api, amount)
	return string.format("%s %s %s %s", toc, thread, api, amount)
end

local function read_timeline(f)
	local model = timeline.model()
	local lines, n = {}, 0
	for text in f:lines() do
		n = n + 1
		local ev, msg, col = timeline.parse_line(text)
		if ev == false then die(string.format("%s:%d:%d: %s", path, n, col, msg)) end
		if ev then
			local ok
			ok, msg, col = model:feed(ev, n)
			if not ok then die(string.format("%s:%d:%d: %s", path, n, col, msg)) end
			if ev.kind == "stop" then
				lines[#lines + 1] = string.format("%s ALL Stopped %s", ev.toc, ev.seconds_text)
			elseif ev.kind == "create" or ev.kind == "destroy" then
				lines[#lines + 1] = line_text(ev.toc, ev.thread,
					ev.kind == "create" and "island_create_thread" or "island_destroy_thread", "")
			elseif ev.kind == "start" then
				lines[#lines + 1] = string.format("%s %s start call %s", ev.toc, ev.thread, ev.api)
			elseif ev.kind == "return" then
				lines[#lines + 1] = line_text(ev.toc, ev.thread, ev.api, ev.amount_written)
			end
		end
	end
	f:close()
	model:finish()
	if #model.threads == 0 then die(path .. ": no thread in the timeline") end
	local island = { threads = {}, segments = {}, calls = {}, lines = lines, finish = model.last_s,
		cpu_total = model.cpu_total and model.cpu_total.text }
	local by_name, open = {}, {}
	local function close(name, at)
		local seg = open[name]
		if seg then
			seg.to = at
			open[name] = nil
		end
	end
	for _, o in ipairs(model.out) do
		if o.life == "island_create_thread" then
			local th = { name = o.thread, created = o.s }
			by_name[o.thread] = th
			island.threads[#island.threads + 1] = th
			island.segments[o.thread] = {}
		elseif o.life == "island_destroy_thread" then
			by_name[o.thread].exited = o.s
		elseif o.state then
			close(o.thread, o.s)
			if o.state ~= "exited" then
				local seg = { state = o.state, call = o.call, from = o.s }
				local list = island.segments[o.thread]
				list[#list + 1] = seg
				open[o.thread] = seg
			end
		end
	end
	for name in pairs(open) do close(name, model.last_s) end
	for _, c in ipairs(model.calls) do
		island.calls[#island.calls + 1] = { thread = c.thread, api = c.api, amount = c.amount,
			amount_text = c.amount_text, start_line = c.start_line, end_line = c.end_line,
			start = c.start_s, finish = c.finish_s or model.last_s, key = c }
	end
	-- Segments name their call by the model's call: by ours instead.
	local mine = {}
	for _, c in ipairs(island.calls) do mine[c.key] = c end
	for _, list in pairs(island.segments) do
		for _, seg in ipairs(list) do seg.call = seg.call and mine[seg.call] end
	end
	return island
end

local function read_trace()
	local ok, t = pcall(sm.load, path)
	if not ok then die((tostring(t):gsub("\n.*", ""))) end
	local function not_ours(what)
		die(string.format("%s: %s: not a trace from apitimeline2statemap.lua", path, what))
	end
	local s = function(ns) return ns / 1e9 end
	local island = { threads = {}, segments = {}, calls = {}, lines = {}, finish = s(t.finish) }
	local by_tag = {}
	local function call_of(entity, tag, start)
		local c = by_tag[tag]
		if c then return c end
		c = timeline.parse_label(tag)
		if not c then not_ours(string.format("thread %s has tag '%s'", entity, tag)) end
		c.thread, c.start, c.finish = entity, s(start), s(start)
		by_tag[tag] = c
		island.calls[#island.calls + 1] = c
		return c
	end
	-- Creation and exit are events (an interval cannot say that a thread
	-- exits at the trace's very end: it would last no time). The events
	-- are read up to just past the end, since the trace's window,
	-- [begin, finish), leaves out an event at its finish: the last line's.
	local through_end = { to = t.finish + 1 }
	local life = {}
	for ev in t:events(through_end) do
		local l = life[ev.entity] or {}
		life[ev.entity] = l
		if ev.event == "island_create_thread" then
			l.created = s(ev.time)
		elseif ev.event == "island_destroy_thread" then
			l.exited = s(ev.time)
		elseif ev.event == "runtime cpu" then
			island.cpu_total = ev.fields and tostring(ev.fields.seconds)
		else
			local c = timeline.parse_label(ev.event)
			if not c then not_ours(string.format("event '%s'", ev.event)) end
			c.thread, c.start, c.finish = ev.entity, s(ev.time), s(ev.time)
			island.calls[#island.calls + 1] = c
		end
	end
	for _, e in ipairs(t:entities()) do
		local l = life[e.name] or {}
		if not l.created then not_ours(string.format("thread %s has no island_create_thread", e.name)) end
		island.threads[#island.threads + 1] = { name = e.name, created = l.created, exited = l.exited }
		local list = {}
		island.segments[e.name] = list
		for iv in t:intervals{ entities = { e } } do
			if iv.state ~= "exited" then
				local c
				if iv.tag then
					c = call_of(e.name, iv.tag, iv.start)
					c.finish = s(iv.finish)
				elseif iv.state ~= "cpu" and iv.state ~= "stopped" then
					not_ours(string.format("thread %s is in '%s' outside a call", e.name, iv.state))
				end
				list[#list + 1] = { state = iv.state, call = c, from = s(iv.start), to = s(iv.finish) }
			end
		end
	end
	table.sort(island.threads, function(a, b) return a.created < b.created end)
	-- The timeline again, as the trace holds it. At one time: stops and
	-- creations first, then the calls' lines in the order of the
	-- timeline, then exits.
	local entries = {}
	local function entry(time, group, line, text) entries[#entries + 1] = { time, group, line, text } end
	local toc = function(x) return num(x) end
	for _, th in ipairs(island.threads) do
		entry(th.created, 0, 1, line_text(toc(th.created), th.name, "island_create_thread", ""))
		if th.exited then entry(th.exited, 2, 0, line_text(toc(th.exited), th.name, "island_destroy_thread", "")) end
	end
	for _, c in ipairs(island.calls) do
		if c.start_line then
			entry(c.start, 1, c.start_line, string.format("%s %s start call %s", toc(c.start), c.thread, c.api))
		end
		if c.end_line then entry(c.finish, 1, c.end_line, line_text(toc(c.finish), c.thread, c.api, c.amount_text)) end
	end
	local stops = {}
	for iv in t:intervals{ states = { "stopped" } } do stops[#stops + 1] = { iv.start, iv.finish } end
	table.sort(stops, function(a, b) return a[1] < b[1] end)
	local run
	for _, st in ipairs(stops) do
		if run and st[1] <= run[2] then
			run[2] = math.max(run[2], st[2])
		else
			run = { st[1], st[2] }
			entry(s(st[1]), 0, 0, run)
		end
	end
	table.sort(entries, function(a, b)
		for k = 1, 3 do
			if a[k] ~= b[k] then return a[k] < b[k] end
		end
		return false
	end)
	for _, l in ipairs(entries) do
		local text = l[4]
		if type(text) == "table" then
			text = string.format("%s ALL Stopped %s", toc(s(text[1])), timeline.seconds_text(text[2] - text[1]))
		end
		island.lines[#island.lines + 1] = text
	end
	return island
end

local island
do
	local f, err = io.open(path)
	if not f then die(err) end
	local head = f:read(64) or ""
	if head:match("^%s*{") then
		f:close()
		island = read_trace()
	else
		f:seek("set", 0)
		island = read_timeline(f)
	end
end
local threads, calls = island.threads, island.calls
table.sort(calls, function(a, b)
	if a.start ~= b.start then return a.start < b.start end
	return (a.start_line or a.end_line) < (b.start_line or b.end_line)
end)

-- ---- Resources and the order of things ---------------------------------------

-- The Global Sum's resources: the restriction file's, in the order the
-- Island prints them, then those of APIs it does not know, in order of
-- first use. 'sleep' is no resource of the restriction file: a sleep's
-- seconds are not summed (its time is in the threads' blocks).
local island_order = { "fileread", "filesopened", "tcpsend", "random", "insockets", "filewrite",
	"events", "udpsend", "udprecv", "tcprecv", "outsockets" }
local sums_order, is_resource = {}, {}
for _, r in ipairs(island_order) do
	sums_order[#sums_order + 1] = r
	is_resource[r] = true
end
local unknown = {}
for _, c in ipairs(calls) do
	local api = timeline.api(c.api)
	if api.unknown and not is_resource[api.resource] then
		is_resource[api.resource] = true
		sums_order[#sums_order + 1] = api.resource
		unknown[#unknown + 1] = api.resource
	end
end
-- The categories of a thread's block: the rates of the restriction file
-- in the Global Sum's order, 'live', 'sleep', other APIs' categories,
-- 'stopped', 'cpu' (the Island's own order in its examples: filewrite,
-- live, sleep, stopped, cpu).
local block_order = {}
for _, r in ipairs(island_order) do
	if timeline.resources[r] == "rate" then block_order[#block_order + 1] = r end
end
for _, c in ipairs { "live", "sleep" } do block_order[#block_order + 1] = c end
for _, r in ipairs(unknown) do block_order[#block_order + 1] = r end
block_order[#block_order + 1] = "stopped"
block_order[#block_order + 1] = "cpu"

local known_names = { "cpu", "sleep" }
for _, r in ipairs(sums_order) do known_names[#known_names + 1] = r end
local valid = {}
for _, r in ipairs(known_names) do valid[r] = true end
for _, name in ipairs(limit_order) do
	if not valid[name] then
		local list = {}
		for r in pairs(valid) do if r ~= "cpu" then list[#list + 1] = r end end
		table.sort(list)
		die(string.format("--%s: no resource '%s' (the resources: cpu, %s)", name, name,
			table.concat(list, ", ")), 2)
	end
end

-- ---- Expected times and compensation -----------------------------------

-- The time a call was expected to take, in seconds, or nil if its limit
-- is not given. A rate works as the Island's runtime enforces it: use
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
	if api.time == "sleep" then return c.amount end
	local limit = limits[api.time]
	if not limit then return nil end
	local p = pending[api.time] or { level = 0, at = c.start }
	local level = math.max(0, p.level - limit * (c.start - p.at)) + c.amount
	pending[api.time] = { level = level, at = c.start }
	return math.max(0, level - limit) / limit
end

-- Each thread's time per category: outside calls cpu or stopped as the
-- timeline says; each call split between its category and stopped (a
-- stop counts only past the expected time).
local by_name = {}
for _, th in ipairs(threads) do
	by_name[th.name] = th
	th.time = { cpu = 0, stopped = 0 }
	th.live = (th.exited or island.finish) - th.created
	for _, seg in ipairs(island.segments[th.name]) do
		local d = seg.to - seg.from
		if seg.call then
			if seg.state == "stopped" then seg.call.stopped = (seg.call.stopped or 0) + d end
		else
			th.time[seg.state] = th.time[seg.state] + d
		end
	end
end
for _, c in ipairs(calls) do
	local whole = c.finish - c.start
	local stopped = c.stopped or 0
	local e = expected(c)
	if stopped > 0 and not e then
		die(string.format("%s: %s's call to %s at %s s was stopped: its expected time needs --%s LIMIT",
			path, c.thread, c.api, num(c.start), timeline.api(c.api).time))
	end
	local stop = math.min(stopped, math.max(0, whole - (e or 0)))
	local tm = by_name[c.thread].time
	local cat = timeline.api(c.api).time
	tm[cat] = (tm[cat] or 0) + whole - stop
	tm.stopped = tm.stopped + stop
end

-- ---- The report ----------------------------------------------------------

local out = {}
local function say(fmt, ...) out[#out + 1] = string.format(fmt, ...) end

-- A share as the Island prints it: a percentage rounded to 0.01.
local function percent(part, whole)
	local share = whole > 0 and math.floor(part / whole * 10000 + 0.5) / 100 or 0
	return num(share + 0.0)
end

local function consumption(time, live)
	for _, cat in ipairs(block_order) do
		local x = cat == "live" and live or (time[cat] or 0)
		if x > 0 or cat == "live" or cat == "cpu" then
			say("  Total '%s': %s (%s%%)", cat, num(x + 0.0), percent(x, live))
		end
	end
end

-- Summary: threads, and files and sockets opened and still open. A
-- close the Island did not log is not seen; an Island with no thread
-- left has ended, and its files and sockets with it.
local live_threads, sum, closed = 0, {}, { file = 0, socket = 0 }
local per_thread = {}	-- thread -> resource -> amount
for _, th in ipairs(threads) do
	if not th.exited then live_threads = live_threads + 1 end
	per_thread[th.name] = {}
end
for _, c in ipairs(calls) do
	local api = timeline.api(c.api)
	if api.resource and c.amount and is_resource[api.resource] then
		sum[api.resource] = (sum[api.resource] or 0) + c.amount
		local mine = per_thread[c.thread]
		mine[api.resource] = (mine[api.resource] or 0) + c.amount
	end
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

local all, all_live = {}, 0
for _, th in ipairs(threads) do
	all_live = all_live + th.live
	for cat, x in pairs(th.time) do all[cat] = (all[cat] or 0) + x end
end

say("--- Global Sum ---")
say("")
for _, r in ipairs(sums_order) do say("Total '%s': %s", r, num(sum[r] or 0)) end
-- 'cpu': what the runtime measured, when the timeline says; else the
-- threads' cpu time as this report counts it.
say("Total 'cpu': %s", island.cpu_total or num(all.cpu + 0.0))
say("")

say("--- Island Timeline ---")
say("")
say("TOC, Thread, API, Amount")
for _, l in ipairs(island.lines) do say("%s", l) end
say("")

say("--- Thread Time Consumption ---")
say("")
for _, th in ipairs(threads) do
	say("Thread:")
	say("  Name: %s", th.name)
	consumption(th.time, th.live)
	say("")
end
say("All Threads (Global)")
consumption(all, all_live)

-- What the Island's report leaves out.
say("")
say("--- Resource Limits ---")
say("")
if #limit_order == 0 then say("(none given)") end
for _, name in ipairs(limit_order) do
	say("Limit '%s': %s%s", name, num(limits[name]), name == "cpu" and " of a CPU" or " a second")
end
say("")
say("--- Thread Resource Use ---")
say("")
for _, th in ipairs(threads) do
	say("Thread:")
	say("  Name: %s", th.name)
	local any = false
	for _, r in ipairs(sums_order) do
		local x = per_thread[th.name][r]
		if x and x > 0 then
			say("  Total '%s': %s", r, num(x))
			any = true
		end
	end
	if not any then say("  (none)") end
	say("")
end
say("--- CPU Check ---")
say("")
local cpu_limit = limits.cpu
say("cpu / (cpu + stopped)%s", cpu_limit and string.format(", against the CPU limit %s:", num(cpu_limit))
	or " (no --cpu limit given):")
local function check_cpu(name, time)
	local cpu, stopped = time.cpu or 0, time.stopped or 0
	if cpu + stopped <= 0 then
		say("  %s: no cpu or stopped time", name)
		return
	end
	local share = cpu / (cpu + stopped)
	local text = string.format("%.4g", share)
	if not cpu_limit then
		say("  %s: %s", name, text)
		return
	end
	local ratio = share / cpu_limit
	local verdict = ratio > 1.1 and "above it" or ratio < 0.9 and "below it" or "matches it"
	say("  %s: %s = %.2f x the limit (%s)", name, text, ratio, verdict)
end
for _, th in ipairs(threads) do check_cpu(th.name, th.time) end
check_cpu("All Threads (Global)", all)
io.write(table.concat(out, "\n"), "\n")
