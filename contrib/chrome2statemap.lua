-- chrome2statemap.lua: Chrome Trace Event Format / Perfetto JSON to a
-- statemap of threads. Run with statemap-lua; see --help and
-- contrib/README.md.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local smout = require "smout"
local json = statemap.json
-- The trace is built in memory (statemap.new) and written with t:write.

local usage = [[
usage: statemap-lua contrib/chrome2statemap.lua [OPTIONS] [FILE]

Reads a trace in the Chrome Trace Event Format (a JSON array of events, or
an object with "traceEvents"; FILE or standard input), as written by
Chrome, Perfetto's JSON export, Go, tracing-chrome and many profilers,
and writes a statemap: one entity per thread (named NAME/TID by its
thread_name, or its process_name; PID:TID for a TID two processes use;
described by both names), whose slices are nested states: "idle" at the
bottom, each open slice pushed on top of the one it is in, so the state
drawn is the innermost slice's name and scripts read the whole stack
(e:stack_at). With --outermost, only the outermost slice is kept (a flat
state). Duration slices are "B"/"E" pairs and complete "X" events (ts
and dur in microseconds); instant, counter, async and other events are
skipped. Flow events ("s", "t", "f" with the same id, or bind_id with
flow_out / flow_in) become events from one thread to the next, named
after the flow.

The whole file is read into memory (JSON has no streaming form here).
Errors name the event by its position: FILE: event N: message.

  --outermost    the outermost slice names the state (default innermost)
  --max-states N keep the N names with the most time as states, the rest
                 become "other" (default 40)
  -o FILE        write FILE (replaced only once the whole trace is
                 converted) rather than standard output; the file has
                 each thread's data together, not all in time order
  --lenient      skip bad events (reported on stderr) instead of stopping
  --title T      the statemap's title (default: the file name)
]]

local opts, files = smout.options(arg, {
	["--outermost"] = { "outermost" }, ["--max-states"] = { "max", true },
	["--lenient"] = { "lenient" }, ["--title"] = { "title", true } }, usage)
local max_states = math.tointeger(tonumber(opts.max or "40"))
if not max_states or max_states < 1 then
	io.stderr:write("chrome2statemap: --max-states wants a positive integer\n")
	os.exit(2)
end
local input, name = smout.open(files[1])
local text = input:read("a")
local ok, doc = pcall(json.decode, text, name)
if not ok then smout.fail(tostring(doc)) end
local events = doc
if type(doc) == "table" and doc.traceEvents then events = doc.traceEvents end
if type(events) ~= "table" or (next(events) ~= nil and events[1] == nil) then
	smout.fail(name .. ": expected an array of events or {\"traceEvents\": [...]}")
end

local bad_count = 0
local function bad(i, msg)
	io.stderr:write(string.format("%s: event %d: %s\n", name, i, msg))
	if not opts.lenient then smout.fail() end
	bad_count = bad_count + 1
end

-- Microseconds (integer or fractional) to integer nanoseconds.
local function ns(us)
	if math.type(us) == "integer" then return us * 1000 end
	return math.floor(us * 1000 + 0.5)
end

local threads, order = {}, {}	-- key "pid/tid" -> {marks}, first-seen order
local pnames, tnames = {}, {}
local flows = {}		-- flow id -> list of {time, thread, name, seq}
local origin, last
local function thread(key)
	local th = threads[key]
	if not th then
		th = { marks = {} }
		threads[key] = th
		order[#order + 1] = key
	end
	return th
end
local function seen(t)
	if not origin or t < origin then origin = t end
	if not last or t > last then last = t end
end
local function idstr(v) return type(v) == "number" and tostring(math.tointeger(v) or v) or tostring(v) end

for i, ev in ipairs(events) do
	if type(ev) ~= "table" then bad(i, "an event must be an object"); goto next end
	do
		local ph = ev.ph
		local pid = ev.pid == nil and 0 or ev.pid
		local key = idstr(pid) .. "/" .. idstr(ev.tid == nil and pid or ev.tid)
		if ph == "M" then
			local nm = type(ev.args) == "table" and ev.args.name
			if ev.name == "process_name" and type(nm) == "string" then pnames[idstr(pid)] = nm end
			if ev.name == "thread_name" and type(nm) == "string" then tnames[key] = nm end
			goto next
		end
		if ph ~= "B" and ph ~= "E" and ph ~= "X" and ph ~= "s" and ph ~= "t" and ph ~= "f" then
			goto next
		end
		if type(ev.ts) ~= "number" then bad(i, "\"ts\" must be a number"); goto next end
		local t = ns(ev.ts)
		if ph == "B" or ph == "X" then
			if type(ev.name) ~= "string" then bad(i, "a slice needs a \"name\""); goto next end
		end
		if ph == "X" and (type(ev.dur) ~= "number" or ev.dur < 0) then
			bad(i, "an \"X\" event needs a \"dur\" of at least 0"); goto next
		end
		seen(t)
		local marks = thread(key).marks
		if ph == "B" then
			marks[#marks + 1] = { t, 1, math.huge, i, ev.name }
		elseif ph == "E" then
			marks[#marks + 1] = { t, 0, 0, i }
		elseif ph == "X" then
			local d = ns(ev.dur)
			marks[#marks + 1] = { t, 1, d, i, ev.name }
			marks[#marks + 1] = { t + d, 0, 0, i }
			seen(t + d)
		end
		-- Flows: classic s/t/f, or bind_id with flow_out/flow_in on slices.
		local fid, step
		if ph == "s" or ph == "t" or ph == "f" then
			fid, step = ev.id, ph
			if fid == nil and ev.bind_id ~= nil then fid = ev.bind_id end
		elseif ev.bind_id ~= nil and (ev.flow_out or ev.flow_in) then
			fid, step = ev.bind_id, ev.flow_out and "s" or "f"
		end
		if fid ~= nil then
			local k = idstr(ev.cat or "") .. "\0" .. idstr(fid)
			flows[k] = flows[k] or {}
			table.insert(flows[k], { t, key, ev.name or "flow", i, step })
		end
	end
	::next::
end
if not origin then
	smout.fail(name .. ": no slices (B/E or X events) in the trace")
end

-- Walk each thread's marks in time order: ends before begins at the same
-- time, longer slices (outer) before shorter ones, then file order.
local changes = {}	-- {time, thread key, state name, seq}
local total = {}	-- name -> ns spent as the state, to pick the states kept
local seq = 0
for _, key in ipairs(order) do
	local marks = threads[key].marks
	table.sort(marks, function(a, b)
		if a[1] ~= b[1] then return a[1] < b[1] end
		if a[2] ~= b[2] then return a[2] < b[2] end
		if a[3] ~= b[3] then return a[3] > b[3] end
		return a[4] < b[4]
	end)
	local stack, cur, since, prev = {}, nil, nil, nil
	local ops = {}	-- {time, slice name to push, or false to pop}
	threads[key].ops = ops
	local function set(t, state)
		if state == cur then return end
		if cur then total[cur] = (total[cur] or 0) + (t - since) end
		local c = changes[#changes]
		if c and c[2] == key and c[1] == t then
			-- several marks at one time: only the last state counts
			c[3] = state
			if state == prev then changes[#changes] = nil end
		else
			prev = cur
			seq = seq + 1
			changes[#changes + 1] = { t, key, state, seq }
		end
		cur, since = state, t
	end
	for _, m in ipairs(marks) do
		if m[2] == 1 then
			stack[#stack + 1] = m[5]
			if not opts.outermost or #stack == 1 then ops[#ops + 1] = { m[1], m[5] } end
		elseif #stack == 0 then
			bad(m[4], "\"E\" (or the end of an \"X\") with no open slice on thread " .. key)
		else
			stack[#stack] = nil
			if not opts.outermost or #stack == 0 then ops[#ops + 1] = { m[1], false } end
		end
		set(m[1], (opts.outermost and stack[1] or stack[#stack]) or "idle")
	end
	if cur then total[cur] = (total[cur] or 0) + (last - since) end
end
total.idle = nil

-- The states: idle first, then names by time spent, beyond the limit "other".
local names = {}
for n in pairs(total) do names[#names + 1] = n end
table.sort(names, function(a, b)
	if total[a] ~= total[b] then return total[a] > total[b] end
	return a < b
end)
local keep = {}
local states = { idle = { value = 0, color = "#ffffff" } }
for i, n in ipairs(names) do
	if i <= max_states then
		keep[n] = n
		states[n] = { value = i }
	else
		keep[n] = "other"
	end
end
if #names > max_states then states.other = { value = max_states + 1, color = "#aaaaaa" } end

local b = statemap.new { title = opts.title or name, entity_kind = "Thread",
	start = { origin // 1000000000, origin % 1000000000 }, states = states }
-- Entities are named NAME/TID: the thread's name, or its process's if it
-- has none; TID is PID:TID where two processes have a thread of that id.
local pids_of, entity = {}, {}
for _, key in ipairs(order) do
	local tid = key:match("/(.*)$")
	pids_of[tid] = (pids_of[tid] or 0) + 1
end
for _, key in ipairs(order) do
	local pid, tid = key:match("^(.-)/(.*)$")
	entity[key] = smout.thread_name(tnames[key] or pnames[pid], pids_of[tid] > 1 and (pid .. ":" .. tid) or tid)
	local desc = {}
	if pnames[pid] then desc[#desc + 1] = pnames[pid] end
	if tnames[key] then desc[#desc + 1] = tnames[key] end
	if #desc > 0 then b:describe(entity[key], table.concat(desc, ": ")) end
end
-- Each thread idle from its first slice on, its slices pushed and popped.
for _, key in ipairs(order) do
	local ops, e = threads[key].ops, entity[key]
	if ops[1] then b:set(ops[1][1] - origin, e, "idle") end
	for _, op in ipairs(ops) do
		if op[2] then
			b:push(op[1] - origin, e, keep[op[2]])
		else
			b:pop(op[1] - origin, e)
		end
	end
end

-- Flow steps in order become events from each step's thread to the next's.
local flow_events = {}
for _, steps in pairs(flows) do
	table.sort(steps, function(a, b2) return a[1] < b2[1] or (a[1] == b2[1] and a[4] < b2[4]) end)
	for j = 1, #steps - 1 do
		if steps[j][5] ~= "f" then
			flow_events[#flow_events + 1] = { steps[j][1], steps[j][4], entity[steps[j][2]], steps[j][3],
				entity[steps[j + 1][2]] }
		end
	end
end
table.sort(flow_events, function(a, b2) return a[1] < b2[1] or (a[1] == b2[1] and a[2] < b2[2]) end)
for _, ev in ipairs(flow_events) do b:event(ev[1] - origin, ev[3], ev[4], ev[5]) end
if bad_count > 0 then io.stderr:write(string.format("%s: %d bad events skipped\n", name, bad_count)) end
local ok2, err = pcall(function() b:finish(last - origin):write(opts.output or "-") end)
if not ok2 then smout.fail((tostring(err):gsub("^t:write: ", ""))) end
