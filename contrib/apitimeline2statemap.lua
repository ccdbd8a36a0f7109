-- apitimeline2statemap.lua: per-thread API timelines (the resource
-- profiler's "TOC THREAD API [AMOUNT]" lines) to a statemap. Run with
-- statemap-lua; see --help and contrib/README.md.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local smout = require "smout"

local usage = [[
usage: statemap-lua contrib/apitimeline2statemap.lua [OPTIONS] [FILE]

Reads a per-thread API timeline (FILE or standard input), one event a
line, blank lines and lines starting with # ignored:

  TOC THREAD start call API     THREAD enters a call to API at TOC
  TOC THREAD API [AMOUNT]       the call to API returns (AMOUNT, a number
                                such as bytes moved, is checked and dropped)
  TOC ALL Stopped SECONDS       every thread is stopped for SECONDS from TOC

TOC is seconds since the profile began, in time order; THREAD a name
without spaces (ALL is reserved). A thread lives from its first line to
the end of the timeline and is in state "cpu" outside calls, in state API
during a call (calls may nest: the innermost counts), "sleep" during a
call to a sleeping API (see --sleep), and "stopped" during a stop, after
which it returns to what it was doing.

  --sleep NAMES  comma-separated APIs that mean sleeping
                 (default sleep,Sleep,SleepEx,usleep,nanosleep)
  --start SECS   the wall-clock time of TOC 0, in seconds since the epoch
                 (default 0)
  -o FILE        write FILE (replaced only once the whole timeline is
                 converted) rather than standard output
  --lenient      skip malformed lines (reported on stderr) instead of stopping
  --title T      the statemap's title (default "API timeline")

Then `statemap-lua contrib/api-report.lua OUT` prints the time each thread
spent live, on the CPU, sleeping, stopped and in each API.
]]

local opts, files = smout.options(arg, {
	["--sleep"] = { "sleep", true }, ["--start"] = { "start", true },
	["--lenient"] = { "lenient" }, ["--title"] = { "title", true } }, usage)
local sleepy = {}
for n in (opts.sleep or "sleep,Sleep,SleepEx,usleep,nanosleep"):gmatch("[^,]+") do sleepy[n] = true end
local start = smout.seconds_ns(opts.start or "0")
if not start then
	io.stderr:write("apitimeline2statemap: --start wants seconds, such as 1700000000.5\n")
	os.exit(2)
end
local input, name = smout.open(files[1])
local report = smout.reporter(name, opts.lenient)

-- The states are the APIs, so a first pass finds them and the second
-- writes the statemap as it reads: constant memory for a file; standard
-- input is kept in memory for the second pass.
local lines
if input == io.stdin then
	lines = {}
	for l in input:lines() do lines[#lines + 1] = l end
end
local function each_line()
	if lines then
		local i = 0
		return function() i = i + 1; return lines[i] end
	end
	return io.lines(files[1])
end
local states = { { "cpu", "#2ca02c" }, { "sleep", "#e8e8e8" }, { "stopped", "#222222" } }
local known = { cpu = true, sleep = true, stopped = true }
for l in each_line() do
	local api = l:match("^%s*%S+%s+%S+%s+start call%s+(%S+)%s*$")
	if api and not sleepy[api] and not known[api] then
		known[api] = true
		states[#states + 1] = { api }
	end
end
local w <close> = smout.writer({ title = opts.title or "API timeline", entityKind = "Thread" }, states, opts.output)
w:start(start)

local threads, order = {}, {}
local stop_until, stopped = nil, {}
local last = 0

local function natural(th)
	local api = th.stack[#th.stack]
	if not api then return "cpu" end
	return sleepy[api] and "sleep" or api
end

local function emit(t, who, state)
	local th = threads[who]
	if th.shown == state then return end
	th.shown = state
	w:datum(t, who, state)
end

local function resume(t)
	for _, who in ipairs(order) do
		if stopped[who] then
			stopped[who] = nil
			emit(t, who, natural(threads[who]))
		end
	end
	stop_until = nil
end

local lineno = 0
for line in each_line() do
	lineno = lineno + 1
	if line:match("^%s*$") or line:match("^%s*#") then goto next end
	do
		local toc, who, rest = line:match("^%s*(%S+)%s+(%S+)%s+(.-)%s*$")
		local t = toc and smout.seconds_ns(toc)
		if not t then
			report:bad(lineno, "expected TOC THREAD API [AMOUNT], TOC in seconds")
			goto next
		end
		if t < last then
			report:bad(lineno, string.format("time %s is before the previous line's", toc))
			goto next
		end
		last = t
		if stop_until and t >= stop_until then resume(stop_until) end
		if who == "ALL" then
			local secs = rest:match("^Stopped%s+(%S+)$")
			local d = secs and smout.seconds_ns(secs)
			if not d then
				report:bad(lineno, "expected TOC ALL Stopped SECONDS")
				goto next
			end
			for _, w in ipairs(order) do
				stopped[w] = true
				emit(t, w, "stopped")
			end
			if not stop_until or t + d > stop_until then stop_until = t + d end
			goto next
		end
		local th = threads[who]
		if not th then
			th = { stack = {} }
			threads[who] = th
			order[#order + 1] = who
		end
		local api = rest:match("^start call%s+(%S+)$")
		if api then
			if api == "cpu" or api == "stopped" then
				report:bad(lineno, "\"" .. api .. "\" is a state name, not usable as an API")
				goto next
			end
			th.stack[#th.stack + 1] = api
		else
			local ended, amount = rest:match("^(%S+)%s*(%S*)$")
			if not ended or (amount ~= "" and not tonumber(amount)) then
				report:bad(lineno, "expected \"start call API\" or \"API [AMOUNT]\"")
				goto next
			end
			if th.stack[#th.stack] ~= ended then
				report:bad(lineno, string.format("%s ends a call to %s that %s is not in", ended, ended, who))
				goto next
			end
			th.stack[#th.stack] = nil
		end
		stopped[who] = nil	-- a thread that acts is no longer stopped
		emit(t, who, natural(th))
	end
	::next::
end
if stop_until then resume(math.min(stop_until, last)) end
report:finish()
if #order == 0 then smout.fail(name .. ": no thread in the timeline") end
-- Every thread lives to the end: its state is repeated at the last time.
for _, who in ipairs(order) do w:datum(last, who, threads[who].shown) end
w:finish()
