-- sort-records.lua: put the data and events of a statemap input file back
-- in time order, when its writer (bpftrace, several CPUs' buffers) let
-- them arrive a little out of order. Run with statemap-lua; see --help.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local smout = require "smout"
local json = statemap.json

local usage = [[
usage: statemap-lua contrib/sort-records.lua [--window TIME] [--names] [-o OUT] [--lenient] [FILE]

Copies a statemap input file (FILE or standard input: JSON objects one
after the other, usually one a line, but an object may span lines, as
pretty-printed metadata does, and a line may hold several) with its data
and events in time order, one record a line. bpftrace's "Lost N events"
lines (its buffers overflowed) are reported as warnings; the maps it
prints as it exits ("@name[key]: value" lines) are left out. Records without a time
(metadata, descriptions, tag definitions) pass straight through. Memory
is bounded by the window: a record is written once one WINDOW later has
been seen, so records may arrive at most WINDOW late (default 1s;
`500ms`, `2s` ...); a record later than that is an error.

  --names     name each entity that has a description DESCRIPTION/ENTITY
              (its last description), and a tag that is such an entity's
              name likewise: sched-statemap.bt's threads, described by
              their command names, become COMM/TID
  -o OUT      write OUT (replaced only once the whole input is sorted)
              rather than standard output
  --lenient   skip bad records and too-late records (reported) instead of stopping
]]

local opts, files = smout.options(arg, {
	["--window"] = { "window", true }, ["--names"] = { "names" },
	["--lenient"] = { "lenient" } }, usage)
local window = statemap.duration(opts.window or "1s")
local input, name = smout.open(files[1])
local report = smout.reporter(name, opts.lenient)
local heap = smout.heap()
local w <close> = smout.writer({}, nil, opts.output)
local written = -1	-- time of the latest record written
local newest = 0

-- A record goes out as the text it came in (when it was a line of its
-- own), or encoded again; with --names, as a table the writer renames.
local function put(rec, text)
	if opts.names then
		w:record(rec, type(rec.tag) == "string")
	else
		w:raw(text or json.encode(rec))
	end
end

local function record(rec, text, at)
	if type(rec) ~= "table" or rec[1] ~= nil then
		report:bad(at, "a record must be a JSON object")
		return
	end
	if opts.names and rec.description ~= nil and rec.entity ~= nil and rec.time == nil then
		w:label(rec.entity, smout.thread_name(tostring(rec.description), tostring(rec.entity)))
	end
	local t = rec.time and math.tointeger(tonumber(rec.time))
	if not t then
		put(rec, text)
		return
	end
	if t < written then
		report:bad(at, string.format("time %d arrived more than the window (%d ns) late", t, window))
		return
	end
	heap.push(t, { rec, text })
	if t > newest then newest = t end
	while heap.size() > 0 and heap.peek() <= newest - window do
		local tt, item = heap.pop()
		written = tt
		put(item[1], item[2])
	end
end

-- Decodes one complete JSON value that began on line `at`; an error is
-- reported at its own line.
local function value(text, at)
	local ok, rec = pcall(json.decode, text, name)
	if not ok then
		local l, msg = tostring(rec):match(":(%d+):%d+: (.*)$")
		report:bad(at + (tonumber(l) or 1) - 1, msg or tostring(rec))
		return
	end
	record(rec, nil, at)
end

-- The input is a stream of JSON values. A line that is one object by
-- itself (the usual case) is decoded at once; otherwise a scanner
-- follows strings and nesting to find where each value ends, across
-- lines (`parts` holds its lines so far, `start` the line it began on).
local parts, depth, in_string, start = {}, 0, false, nil
local open = {}	-- the bracket each level opened
local lineno = 0
for line in input:lines() do
	lineno = lineno + 1
	if depth == 0 then
		local first = line:find("%S")
		if not first then goto next end
		-- bpftrace's own lines: a buffer that overflowed (a warning: the
		-- statemap misses those events), its maps printed as it exits
		-- (entries that probes made after END cleared them), the banner
		-- that -q leaves out.
		if line:match("^@[%w_]*[%[:]") then goto next end
		local lost = line:match("^Lost (%d+) events$")
		if lost then
			io.stderr:write(string.format("%s:%d: bpftrace lost %s events (the statemap misses them)\n",
				name, lineno, lost))
			goto next
		end
		if line:match("^Attaching %d+ probes?%.%.%.$") then
			report:bad(lineno, "bpftrace's banner: run bpftrace with -q")
			goto next
		end
		if line:byte(first) == 123 and line:match("}%s*$") then
			local ok, rec = pcall(json.decode, line, name)
			if ok then
				record(rec, line, lineno)
				goto next
			end
		end
	end
	do
		local i, from = 1, 1	-- the scan's place; where the value's text on this line begins
		while i <= #line do
			if in_string then
				local j = line:find('["\\]', i)
				if not j then
					i = #line + 1
				elseif line:byte(j) == 92 then	-- a backslash escapes what follows
					i = j + 2
				else
					in_string = false
					i = j + 1
				end
			elseif depth == 0 then
				local j = line:find("%S", i)
				if not j then break end
				local ch = line:byte(j)
				if ch ~= 123 and ch ~= 91 then
					report:bad(lineno, "expected a JSON object")
					break	-- the rest of the line is skipped
				end
				start, parts, from, depth, i = lineno, {}, j, 1, j + 1
				open[1] = ch
			else
				local j = line:find('[{}%[%]"]', i)
				if not j then
					i = #line + 1
				else
					local ch = line:byte(j)
					if ch == 34 then
						in_string = true
					elseif ch == 123 or ch == 91 then
						depth = depth + 1
						open[depth] = ch
					elseif ch == open[depth] + 2 then	-- "}" closes "{", "]" closes "["
						depth = depth - 1
					else
						depth = 0	-- a mismatch: decoding says where
					end
					i = j + 1
					if depth == 0 then
						parts[#parts + 1] = line:sub(from, j)
						value(table.concat(parts, "\n"), start)
						parts = {}
					end
				end
			end
		end
		if in_string then
			-- JSON strings do not hold line breaks: give up on this value.
			report:bad(lineno, "a string that does not end on its line")
			parts, depth, in_string = {}, 0, false
		elseif depth > 0 then
			parts[#parts + 1] = line:sub(from)
		end
	end
	::next::
end
if depth > 0 then
	report:bad(start, "a JSON object that does not end before the end of the input")
end
while heap.size() > 0 do
	local _, item = heap.pop()
	put(item[1], item[2])
end
report:finish()
w:finish()
