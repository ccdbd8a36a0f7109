-- sort-records.lua: put the data and events of a statemap input file back
-- in time order, when its writer (bpftrace, several CPUs' buffers) let
-- them arrive a little out of order. Run with statemap-lua; see --help.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local smout = require "smout"
local json = statemap.json

local usage = [[
usage: statemap-lua contrib/sort-records.lua [--window TIME] [-o OUT] [--lenient] [FILE]

Copies a statemap input file (FILE or standard input, one record per
line) to standard output with its data and events in time order. Records
without a time (metadata, descriptions, tag definitions) pass straight
through. Memory is bounded by the window: a record is written once one
WINDOW later has been seen, so records may arrive at most WINDOW late
(default 1s; `500ms`, `2s` ...); a record later than that is an error.

  -o OUT      write OUT (replaced only once the whole input is sorted)
              rather than standard output
  --lenient   skip bad lines and too-late records (reported) instead of stopping
]]

local opts, files = smout.options(arg, {
	["--window"] = { "window", true }, ["--lenient"] = { "lenient" } }, usage)
local window = statemap.duration(opts.window or "1s")
local input, name = smout.open(files[1])
local report = smout.reporter(name, opts.lenient)
local heap = smout.heap()
local w <close> = smout.writer({}, nil, opts.output)
local written = -1	-- time of the latest record written
local newest = 0

local lineno = 0
for line in input:lines() do
	lineno = lineno + 1
	if line:match("^%s*$") then goto next end
	do
		local ok, rec = pcall(json.decode, line, name)
		if not ok or type(rec) ~= "table" then
			report:bad(lineno, "not a JSON object on one line")
			goto next
		end
		local t = rec.time and math.tointeger(tonumber(rec.time))
		if not t then
			w:raw(line)
			goto next
		end
		if t < written then
			report:bad(lineno, string.format("time %d arrived more than the window (%d ns) late", t, window))
			goto next
		end
		heap.push(t, line)
		if t > newest then newest = t end
		while heap.size() > 0 and heap.peek() <= newest - window do
			local tt, l = heap.pop()
			written = tt
			w:raw(l)
		end
	end
	::next::
end
while heap.size() > 0 do
	local _, l = heap.pop()
	w:raw(l)
end
report:finish()
w:finish()
