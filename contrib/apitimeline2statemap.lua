-- apitimeline2statemap.lua: an Island API timeline (per-thread events,
-- "TOC THREAD API [AMOUNT]") to a statemap. Run with statemap-lua; see
-- --help and contrib/README.md. The lines are parsed and modelled by
-- lib/apitimeline.lua; this file reads them, builds the trace in memory
-- (statemap.new) and writes it (t:write).
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local smout = require "smout"
local timeline = require "apitimeline"

local usage = [[
usage: statemap-lua contrib/apitimeline2statemap.lua [OPTIONS] [FILE]

Reads an Island API timeline (FILE or standard input), one event a line,
as the Island prints it (an optional header 'TOC, Thread, API, Amount';
blank lines and lines starting with # are ignored):

  TOC THREAD island_create_thread    THREAD joins the Island
  TOC THREAD island_destroy_thread   THREAD leaves it
  TOC THREAD start call API          THREAD enters a call to API
  TOC THREAD API [AMOUNT]            the call returns, having used AMOUNT
                                     of API's resource (without a 'start
                                     call', a call that took no time)
  TOC ALL Stopped SECONDS            the program is stopped for SECONDS
  Total 'cpu': SECONDS               the CPU time the runtime measured (as
                                     its Global Sum prints it; at most once)

TOC is seconds since the profile began, lines in time order; THREAD a
name without spaces (ALL is reserved). Writes a statemap with one entity
per thread, in state "cpu" between calls, in the category of its call
during one (the API's resource: file.write is "filewrite", sleep
"sleep"; settimer, open and other calls that take a count are "cpu"),
"stopped" while the program is stopped, and no data after it leaves
("state": null).
Each call is the tag of its intervals ("file.write 200000, lines
13-14"); a call without 'start call', and each thread's creation and
exit, are events, and so is the runtime's CPU figure ("runtime cpu").

  --start SECS   the wall-clock time of TOC 0, in seconds since the epoch
                 (default 0)
  -o FILE        write FILE (replaced only once the whole timeline is
                 converted) rather than standard output
  --lenient      skip bad lines (reported on stderr) instead of stopping
  --title T      the statemap's title (default "API timeline")

Then `statemap-lua contrib/api-report.lua --filewrite 100000 OUT` prints
the Island's report: its summary, the amount of each resource, the
timeline and the time each thread spent live, on the CPU, stopped and
using each resource, a stop during a call compensated by the time the
call was expected to take.
]]

local opts, files = smout.options(arg, {
	["--start"] = { "start", true }, ["--lenient"] = { "lenient" },
	["--title"] = { "title", true } }, usage)
local start = smout.seconds_ns(opts.start or "0")
if not start then
	io.stderr:write("apitimeline2statemap: --start wants seconds, such as 1700000000.5\n")
	os.exit(2)
end
local input, name = smout.open(files[1])
local report = smout.reporter(name, opts.lenient)

-- ---- Reading: lines to the model ----------------------------------------

local model = timeline.model()
local lineno = 0
for text in input:lines() do
	lineno = lineno + 1
	local ev, msg, col = timeline.parse_line(text)
	if ev == false then
		report:bad(lineno, msg, col)
	elseif ev then
		local ok
		ok, msg, col = model:feed(ev, lineno)
		if not ok then report:bad(lineno, msg, col) end
	end
end
if input ~= io.stdin then input:close() end
model:finish()
report:finish()
if #model.threads == 0 then smout.fail(name .. ": no thread in the timeline") end

-- ---- Writing: the model to statemap records ----------------------------

local states = { cpu = { value = 0, color = "#2ca02c" }, stopped = { value = 1, color = "#222222" } }
local uncoloured = 0	-- as smout.writer colours states, from its palette
for i, cat in ipairs(model.categories) do
	local color = "#b9cfe4"
	if cat ~= "sleep" then
		color = smout.palette[uncoloured % #smout.palette + 1]
		uncoloured = uncoloured + 1
	end
	states[cat] = { value = 1 + i, color = color }
end
local start_s, start_ns = start // 1000000000, start % 1000000000
local b = statemap.new { title = opts.title or "API timeline", entity_kind = "Thread",
	start = { start_s, start_ns }, states = states }

-- A call's tag definition: what the viewer shows of it (the amount as
-- written unless it is an integer: 0.2, not 0.20000000000000001).
local defined = {}
local function define(state, tag, call)
	if defined[state .. "\0" .. tag] then return end
	defined[state .. "\0" .. tag] = true
	local api = timeline.api(call.api)
	local amount = call.amount and (math.tointeger(call.amount) or call.amount_text)
	b:tag(state, tag, { api = call.api, amount = amount, resource = api.resource,
		["start line"] = call.start_line, ["return line"] = call.end_line })
end

for _, o in ipairs(model.out) do
	if o.life then
		b:event(o.time, o.thread, o.life)
		if model.cpu_total and o.thread == model.threads[1] and o.life == "island_create_thread" then
			-- The runtime's own CPU figure (a "Total 'cpu': SECONDS" line),
			-- for the report, on the first thread as it is created.
			b:event(o.time, o.thread, "runtime cpu", nil, { seconds = model.cpu_total.text })
		end
	elseif o.instant then
		b:event(o.time, o.thread, timeline.label(o.instant))
	else
		local tag = o.call and timeline.label(o.call)
		if o.state == "exited" then
			b:set(o.time, o.thread, nil)	-- no data once it leaves
		else
			b:set(o.time, o.thread, o.state, tag)
			if tag then define(o.state, tag, o.call) end
		end
	end
end
-- The trace ends at the last line.
local ok, err = pcall(function() b:finish(model.last):write(opts.output or "-") end)
if not ok then smout.fail((tostring(err):gsub("^t:write: ", ""))) end
