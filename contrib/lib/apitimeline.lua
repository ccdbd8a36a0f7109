-- apitimeline.lua: the Island API timeline, shared by
-- apitimeline2statemap.lua (which reads it) and api-report.lua (which
-- accounts for it). Three layers, each usable alone:
--
--   the APIs:   which resource each API's AMOUNT counts in, and in which
--               category its time goes (M.api, M.resources)
--   the lines:  one line of text to one event, or an error with a
--               column (M.parse_line); no state
--   the model:  events in order to what each thread does when: state
--               changes, instant calls, calls (M.model); knows nothing
--               of the statemap format, so the writer can change
--   the labels: a call as the text of a tag or an event name, and back
--               (M.label, M.parse_label): how a trace carries calls
local M = {}

-- ---- The APIs ---------------------------------------------------------

-- The Island's resources. A rate is used up and renewed at its limit per
-- second (bytes, or seconds for sleep): time spent in a call that uses
-- one counts in a category named after it, and the call has an expected
-- time. A count is held (files, sockets, timers): a call that takes one
-- is quick work, counted as cpu.
M.resources = {
	fileread = "rate", filewrite = "rate", tcpsend = "rate", tcprecv = "rate",
	udpsend = "rate", udprecv = "rate", random = "rate", sleep = "rate",
	filesopened = "count", insockets = "count", outsockets = "count", events = "count",
}

-- API -> the resource its AMOUNT counts in (nil: none) and what it
-- closes. The time category follows from the resource (see M.api).
local known = {
	open = { resource = "filesopened" },
	["file.read"] = { resource = "fileread" },
	["file.write"] = { resource = "filewrite" },
	["file.close"] = { closes = "file" },
	openconn = { resource = "outsockets" },
	waitforconn = { resource = "insockets" },
	recvmess = { resource = "insockets" },
	["socket.send"] = { resource = "tcpsend" },
	["socket.recv"] = { resource = "tcprecv" },
	["socket.close"] = { closes = "socket" },
	stopcomm = { closes = "socket" },
	sendmess = { resource = "udpsend" },
	settimer = { resource = "events" },
	canceltimer = {},
	randomfloat = { resource = "random" },
	sleep = { resource = "sleep" },
}

-- Names that are the trace's own states (or the report's 'live'): an
-- API of that name (being unknown, its own category) would be mistaken
-- for them.
M.reserved = { cpu = true, stopped = true, exited = true, live = true }

--- What an API does: {resource =, time =, closes =}. `time` is the
--- state its calls are in: the resource for a rate, else "cpu". An API
--- not in the table is its own resource and category (a rate). The
--- answer is shared (asked once per call and more): do not change it.
local described = {}
function M.api(name)
	local d = described[name]
	if d then return d end
	local k = known[name]
	if not k then
		d = { resource = name, time = name, unknown = true }
	else
		local r = k.resource
		d = { resource = r, closes = k.closes, time = (r and M.resources[r] == "rate") and r or "cpu" }
	end
	described[name] = d
	return d
end

--- The APIs the table knows, sorted (for documentation and tests).
function M.known_apis()
	local list = {}
	for name in pairs(known) do list[#list + 1] = name end
	table.sort(list)
	return list
end

-- ---- The lines --------------------------------------------------------

--- Seconds as text ("8.59868597984", "1e-05") to integer nanoseconds;
--- nil if it is not a number of seconds from 0 to about 292 years.
--- Plain decimals are converted digit by digit (no rounding through a
--- double), other forms through tonumber, rounded to the nanosecond.
local scale = { [0] = 1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1 }
function M.seconds_ns(text)
	local s, f = text:match("^(%d+)%.?(%d*)$")
	if s and #s <= 9 then
		if #f > 9 then f = f:sub(1, 9) end
		return tonumber(s) * 1000000000 + (tonumber(f) or 0) * scale[#f]
	end
	local x = tonumber(text)
	if not x or x ~= x or x < 0 or x >= 9e9 then return nil end
	return math.floor(x * 1e9 + 0.5)
end

local header = "^%s*TOC,%s*Thread,%s*API,%s*Amount%s*$"

-- An AMOUNT: a number that is not negative, kept as written.
local function amount_of(word)
	local n = tonumber(word)
	if not n or n ~= n or n < 0 or n == math.huge then
		return nil, string.format("expected an AMOUNT (a number not below 0), not '%s'", word)
	end
	return n
end

-- The first six words of a line and the column each starts at, in one
-- match (this runs once per line); a word past the last is "". A
-- seventh word is never valid, and the sixth already says so.
local six_words = "^%s*()(%S*)%s*()(%S*)%s*()(%S*)%s*()(%S*)%s*()(%S*)%s*()(%S*)"

-- The column just after a line's last word (where a missing one goes).
local function past(text) return #text:match("^(.-)%s*$") + 1 end

--- One line of a timeline to an event, or nil for a blank or comment
--- line, or false, message, column for a line that is not one. Events:
---   {kind = "header"}                         TOC, Thread, API, Amount
---   {kind = "stop", time =, seconds =}        TOC ALL Stopped SECONDS
---   {kind = "create" | "destroy", time =, thread =}
---   {kind = "start", time =, thread =, api =}  TOC THREAD start call API
---   {kind = "return", time =, thread =, api =, amount =, amount_text =}
---   {kind = "cpu total", seconds =, text =}    Total 'cpu': SECONDS
--- Times are ns (`time`, `seconds`), and seconds as doubles (`s`,
--- `seconds_s`); `toc`, `seconds_text` and `amount_written` are the
--- texts as written ("" for no AMOUNT); `col` holds the column of each
--- field (time, thread, api) for the errors the model finds.
function M.parse_line(text)
	local c1, w1, c2, w2, c3, w3, c4, w4, c5, w5, c6, w6 = text:match(six_words)
	if w1 == "" or w1:byte(1) == 35 then return nil end	-- blank, or "#"
	if w1 == "TOC," and text:match(header) then return { kind = "header", col = { time = 1 } } end
	if w1 == "Total" and w2 == "'cpu':" then
		-- The runtime's own measure of the CPU time used, as its Global
		-- Sum prints it: not an event, a figure for the report.
		local n = w3 ~= "" and tonumber(w3)
		if not n or n ~= n or n < 0 or n == math.huge then
			return false, "expected the CPU seconds after Total 'cpu':", w3 ~= "" and c3 or past(text)
		end
		if w4 ~= "" then return false, "unexpected text after Total 'cpu': SECONDS", c4 end
		return { kind = "cpu total", seconds = n, text = w3, col = { time = c1 } }
	end
	local t = M.seconds_ns(w1)
	if not t then return false, string.format("expected a TOC (seconds), not '%s'", w1), c1 end
	if w2 == "" then return false, "expected a THREAD after the TOC", past(text) end
	if w3 == "" then return false, "expected an API after the THREAD", past(text) end
	-- `s` is the TOC as a double, for the report's arithmetic in seconds
	-- (the Island's own); `time` the nanoseconds of the trace.
	local ev = { time = t, s = tonumber(w1), toc = w1, thread = w2, col = { time = c1, thread = c2, api = c3 } }
	if w2 == "ALL" then
		if w3 ~= "Stopped" then
			return false, string.format("expected 'ALL Stopped SECONDS', not 'ALL %s'", w3), c3
		end
		local d = w4 ~= "" and M.seconds_ns(w4)
		if not d then return false, "expected the SECONDS the program was stopped", w4 ~= "" and c4 or past(text) end
		if w5 ~= "" then return false, "unexpected text after 'ALL Stopped SECONDS'", c5 end
		ev.kind, ev.seconds, ev.seconds_s, ev.seconds_text, ev.thread = "stop", d, tonumber(w4), w4, nil
		return ev
	end
	if w3 == "island_create_thread" or w3 == "island_destroy_thread" then
		if w4 ~= "" then return false, "unexpected text after " .. w3, c4 end
		ev.kind = w3 == "island_create_thread" and "create" or "destroy"
		return ev
	end
	if w3 == "start" and w4 == "call" then
		if w5 == "" then return false, "expected the API after 'start call'", past(text) end
		if w6 ~= "" then return false, "unexpected text after 'start call API'", c6 end
		ev.kind, ev.api, ev.col.api = "start", w5, c5
		return ev
	end
	ev.kind, ev.api, ev.amount, ev.amount_text, ev.amount_written = "return", w3, 0, "0", ""
	if w4 ~= "" then
		local n, err = amount_of(w4)
		if not n then return false, err, c4 end
		ev.amount, ev.amount_text, ev.amount_written = n, w4, w4
	end
	if w5 ~= "" then return false, "unexpected text after 'API AMOUNT'", c5 end
	return ev
end

-- ---- The model --------------------------------------------------------

-- Each thread is, at any time, in one state: "cpu" (working, between
-- calls), the category of the call it is in (M.api(api).time), "stopped"
-- (every thread live when an 'ALL Stopped' line comes is stopped for
-- that long; a thread with a line of its own during the stop evidently
-- runs, and is no longer stopped from that line on), or "exited" (after
-- island_destroy_thread). During a call its state carries the call,
-- stopped or not, so that the report can tell a stop inside a call from
-- one outside any.

local Model = {}
Model.__index = Model

--- A model to feed events to, in the order of the lines. Its results:
---   model.threads   names in order of creation
---   model.out       in time order: {time =, s =, thread =, state =, call =}
---                   (a thread enters `state`, in `call` or not),
---                   {time =, thread =, instant = call} (a call that
---                   returned without a 'start call': no time) and
---                   {time =, thread =, life = "island_create_thread"
---                   or "island_destroy_thread"}
---   model.calls     every call: {api =, amount =, amount_text =,
---                   start_line =, end_line =, start =, finish =,
---                   start_s =, finish_s =}
---                   (start_line nil for an instant call, end_line nil
---                   for one that never returned)
---   model.categories  the categories of calls, in order of first use
---   model.cpu_total {seconds =, text =, line =}: the runtime's own CPU
---                   figure, if a "Total 'cpu': SECONDS" line gave it
---   model.last, model.last_s  the time of the last line (ns, seconds)
function M.model()
	return setmetatable({ threads = {}, out = {}, calls = {}, categories = {},
		by_name = {}, resumes = {}, last = nil, lines = 0, seen_category = {} }, Model)
end

local function shown(th)
	if th.exited then return "exited", nil end
	if th.stopped_until then return "stopped", th.call end
	if th.call then return M.api(th.call.api).time, th.call end
	return "cpu", nil
end

-- Records the thread's state at `time` if it changed.
function Model:show(th, time, s)
	local state, call = shown(th)
	if state == th.state and call == th.shown_call then return end
	th.state, th.shown_call = state, call
	self.out[#self.out + 1] = { time = time, s = s, thread = th.name, state = state, call = call }
end

-- Ends the stops that are over by `now`, at their own times, in order.
-- `resumes` holds one entry per stop still running, {at =, threads =},
-- soonest first; a thread stopped again until later, or that has had a
-- line since, is no longer waiting for that one.
function Model:resume_until(now)
	local r = self.resumes
	while r[1] and r[1].at <= now do
		local stop = table.remove(r, 1)
		for _, th in ipairs(stop.threads) do
			if th.stopped_until == stop.at then
				th.stopped_until = nil
				self:show(th, stop.at, stop.at_s)
			end
		end
	end
end

function Model:stop(ev)
	local stop = { at = ev.time + ev.seconds, at_s = ev.s + ev.seconds_s, threads = {} }
	for _, name in ipairs(self.threads) do
		local th = self.by_name[name]
		if not th.exited and (th.stopped_until or -1) < stop.at then
			th.stopped_until = stop.at
			stop.threads[#stop.threads + 1] = th
			self:show(th, ev.time, ev.s)
		end
	end
	local r, i = self.resumes, #self.resumes
	while i >= 1 and r[i].at > stop.at do i = i - 1 end
	table.insert(r, i + 1, stop)
end

local function fail(msg, col) return nil, msg, col end

-- Why thread `th` (nil if it does not exist) cannot have event `ev`:
-- message and column, or nil if it can.
local function refusal(th, ev)
	local c = ev.col
	if not th then
		if ev.kind == "create" then return nil end
		return string.format("%s has no island_create_thread before this line", ev.thread), c.thread
	end
	if th.exited then return string.format("%s was destroyed at line %d", th.name, th.exited), c.thread end
	local call = th.call
	if ev.kind == "create" then
		return string.format("%s was already created at line %d", th.name, th.line), c.api
	elseif ev.kind == "destroy" and call then
		return string.format("%s is destroyed during its call to %s from line %d",
			th.name, call.api, call.start_line), c.api
	elseif ev.kind == "start" and call then
		return string.format("%s starts a call to %s during its call to %s from line %d",
			th.name, ev.api, call.api, call.start_line), c.api
	elseif ev.kind == "return" and call and call.api ~= ev.api then
		return string.format("%s returns from %s during its call to %s from line %d",
			th.name, ev.api, call.api, call.start_line), c.api
	elseif (ev.kind == "start" or ev.kind == "return") and M.reserved[ev.api] then
		return string.format("'%s' is a state of the trace, not usable as an API", ev.api), c.api
	end
	return nil
end

function Model:category(api)
	local cat = M.api(api).time
	if cat ~= "cpu" and not self.seen_category[cat] then
		self.seen_category[cat] = true
		self.categories[#self.categories + 1] = cat
	end
end

-- Applies an event that refusal() accepts.
function Model:apply(th, ev, line)
	local out = self.out
	if ev.kind == "create" then
		th = { name = ev.thread, line = line }
		self.by_name[th.name] = th
		self.threads[#self.threads + 1] = th.name
		out[#out + 1] = { time = ev.time, s = ev.s, thread = th.name, life = "island_create_thread" }
	elseif ev.kind == "destroy" then
		th.exited = line
		out[#out + 1] = { time = ev.time, s = ev.s, thread = th.name, life = "island_destroy_thread" }
	elseif ev.kind == "start" then
		th.call = { api = ev.api, start_line = line, start = ev.time, start_s = ev.s, thread = th.name }
		self.calls[#self.calls + 1] = th.call
		self:category(ev.api)
	else	-- a return, from a call or from an instant one
		local call = th.call
		if not call then
			call = { api = ev.api, start = ev.time, start_s = ev.s, thread = th.name }
			self.calls[#self.calls + 1] = call
			out[#out + 1] = { time = ev.time, s = ev.s, thread = th.name, instant = call }
		end
		call.end_line, call.finish, call.finish_s = line, ev.time, ev.s
		call.amount, call.amount_text = ev.amount, ev.amount_text
		th.call = nil
	end
	th.stopped_until = nil	-- it has a line: it runs
	self:show(th, ev.time, ev.s)
end

--- Feeds the event of line `line`; returns true, or nil, message,
--- column when the line does not fit what came before (and then
--- changes nothing).
function Model:feed(ev, line)
	if ev.kind == "cpu total" then
		if self.cpu_total then
			return fail(string.format("a second Total 'cpu': line (the first is line %d)", self.cpu_total.line), 1)
		end
		self.cpu_total = { seconds = ev.seconds, text = ev.text, line = line }
		return true
	end
	self.lines = self.lines + 1
	if ev.kind == "header" then
		if self.lines > 1 then return fail("the header 'TOC, Thread, API, Amount' must come first", 1) end
		return true
	end
	if self.last and ev.time < self.last then
		return fail(string.format("time %s is before the previous line's, %s",
			M.seconds_text(ev.time), M.seconds_text(self.last)), ev.col.time)
	end
	local th = ev.kind ~= "stop" and self.by_name[ev.thread]
	if ev.kind ~= "stop" then
		local msg, col = refusal(th, ev)
		if msg then return fail(msg, col) end
	end
	self.last, self.last_s = ev.time, ev.s
	self:resume_until(ev.time)
	if ev.kind == "stop" then
		self:stop(ev)
	else
		self:apply(th, ev, line)
	end
	return true
end

--- Ends the timeline: stops still running end with it. Threads still
--- live stay so to the end of the trace (the time of the last line).
function Model:finish()
	if self.last then self:resume_until(self.last) end
end

-- ---- The labels -------------------------------------------------------

-- A call travels in the trace as the tag of its intervals (or, for an
-- instant call, the name of an event), written so that the report can
-- read it back: "file.write 200000, lines 13-14" (a call and the lines
-- it started and returned on), "open 1, line 12" (an instant call),
-- "sleep, from line 9" (a call that never returned). The line numbers
-- make each call's tag its own, and lead back to the timeline.

function M.label(call)
	if not call.start_line then
		return string.format("%s %s, line %d", call.api, call.amount_text, call.end_line)
	elseif not call.end_line then
		return string.format("%s, from line %d", call.api, call.start_line)
	end
	return string.format("%s %s, lines %d-%d", call.api, call.amount_text, call.start_line, call.end_line)
end

--- A label back to {api =, amount =, amount_text =, start_line =,
--- end_line =}; nil if the text is not a label.
function M.parse_label(text)
	local api, amount, a, b = text:match("^(%S+) (%S+), lines (%d+)%-(%d+)$")
	if not api then
		api, amount, b = text:match("^(%S+) (%S+), line (%d+)$")
	end
	if not api then
		api, a = text:match("^(%S+), from line (%d+)$")
	end
	if not api then return nil end
	local n = amount and tonumber(amount)
	if amount and not n then return nil end
	return { api = api, amount = n, amount_text = amount,
		start_line = tonumber(a), end_line = tonumber(b) }
end

-- ---- Numbers as the report prints them ----------------------------------

--- A number as the Island's report prints it: up to 12 significant
--- digits, and ".0" on a whole number that is not an integer (1.0).
function M.number_text(x)
	if math.type(x) == "integer" then return tostring(x) end
	local s = string.format("%.12g", x)
	if not s:find("[.eEn]") then s = s .. ".0" end
	return s
end

--- Nanoseconds as seconds, the same way.
function M.seconds_text(ns)
	return M.number_text(ns / 1e9)
end

return M
