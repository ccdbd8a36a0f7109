-- smout.lua: what every converter in contrib/ shares: writing the statemap
-- input format, reporting bad input lines, and a small option parser.
--
-- A converter loads it with
--   package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
--   local smout = require "smout"
local json = statemap.json
local smout = {}

-- Output is all or nothing: records go to a spool file (made by mktemp,
-- so in $TMPDIR) as the converter produces them, and only when it has
-- read all its input does writer:finish() copy them to standard output,
-- or to `-o FILE` through FILE.tmp.PID renamed over FILE. A converter
-- that stops on an error (smout.fail, a bad line, a Lua error) removes
-- the spool: nothing reaches standard output and FILE is left as it was.
-- The copy is also where entities get their final names (writer:label):
-- a thread is only named once its command name is known for good.

local current	-- the writer whose output is not written yet

--- Stops the converter: writes `msg` (if any) as one line on stderr,
--- throws away the pending output and exits with `status` (default 1).
function smout.fail(msg, status)
	if msg then io.stderr:write(msg, "\n") end
	if current then current:abort() end
	os.exit(status or 1)
end

local function self_pid()
	local f = io.open("/proc/self/stat")
	local pid = f and f:read("n")
	if f then f:close() end
	return pid and math.tointeger(pid) or math.random(1 << 30)
end

local function mktemp()
	local p = io.popen("mktemp 2> /dev/null")
	local name = p and p:read("l")
	if p then p:close() end
	if not name or name == "" then name = os.tmpname() end
	return name
end

-- A record's entity references, JSON-encoded ("" when absent): the
-- spool keeps them apart from the rest of the record so that the copy
-- can put in the final names without decoding the record.
local function ref(v)
	if v == nil then return "" end
	return json.encode(v)
end

--- A writer for one trace. `states` is a list of {name, color}; the
--- values are their positions from 0; a missing colour is taken from
--- the palette above. `meta` holds title, host,
--- entityKind (any may be nil); writer:start(ns) writes the metadata and
--- must come before any other record. `output` is the -o FILE (nil or
--- "-": standard output). Declare it `local w <close> = smout.writer(...)`
--- so that a Lua error also throws the pending output away, and end
--- with w:finish().
-- Colours for states that come without one (slice names, API names), in
-- order: distinct hues first, then lighter and darker ones; no green, which
-- the converters keep for "on a CPU".
local palette = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
	"#ff9da7", "#9c755f", "#bab0ac", "#a0cbe8", "#ffbe7d", "#ff9d9a",
	"#86bcb6", "#f1ce63", "#d4a6c8", "#fabfd2", "#d7b5a6", "#79706e",
}

smout.palette = palette

local W = {}
W.__index = W
W.__close = function(self, err)
	if err ~= nil and not self.done then self:abort() end
end

function smout.writer(meta, states, output)
	local w = setmetatable({ value = {}, described = {}, tagdefs = {}, labels = {},
		started = false }, W)
	if output == "-" then output = nil end
	w.output = output
	w.spool_name = mktemp()
	current = w
	w.spool = io.open(w.spool_name, "w")
	if not w.spool then smout.fail("cannot write a temporary file " .. w.spool_name .. " (TMPDIR)") end
	if output then
		-- Made now, so that a FILE that cannot be written stops us before
		-- the input is read; filled and renamed by finish.
		w.tmp = output .. ".tmp." .. self_pid()
		local err
		w.out, err = io.open(w.tmp, "w")
		if not w.out then
			w.tmp = nil
			smout.fail(tostring(err))
		end
	end
	local st = {}
	local uncoloured = 0
	for i, s in ipairs(states or {}) do
		w.value[s[1]] = i - 1
		local color = s[2]
		if not color then
			color = palette[uncoloured % #palette + 1]
			uncoloured = uncoloured + 1
		end
		st[s[1]] = { value = i - 1, color = color }
	end
	w.meta = { title = meta.title, host = meta.host, entityKind = meta.entityKind,
		states = st }
	return w
end

--- A record written as it is (JSON text of one object, no newline).
function W:raw(text)
	self.spool:write("R", text, "\n")
end

--- A record given as a table; its `entity` and `target` (and `tag`,
--- when `tag_names_entity`) are entity names that writer:label may
--- change.
function W:record(rec, tag_names_entity)
	local e, t, g = rec.entity, rec.target, nil
	rec.entity, rec.target = nil, nil
	if tag_names_entity then g = rec.tag; rec.tag = nil end
	self.spool:write("E", ref(e), "\t", ref(t), "\t", ref(g), "\t", json.encode(rec), "\n")
end

--- Writes the metadata with `start` (integer ns since the epoch, or
--- an origin the converter documents).
function W:start(ns)
	if self.started then return end
	self.started = true
	self.meta.start = { ns // 1000000000, ns % 1000000000 }
	self:raw(json.encode(self.meta))
end

--- Entity `e` enters `state` at `time` ns after the start; `tag` is
--- optional; with `tag_names_entity`, the tag is an entity's name
--- (renamed with it).
function W:datum(time, e, state, tag, tag_names_entity)
	local v = self.value[state]
	assert(v, "no state " .. tostring(state))
	self:record({ time = tostring(time), entity = e, state = v, tag = tag }, tag_names_entity)
end

--- Entity `e`'s data end at `time`: it has no state from then on (a
--- thread that exited), until its next datum; "state": null in the
--- file (statemap-lua-format(5), "NO DATA").
function W:stop(time, e)
	self:record({ time = tostring(time), entity = e, state = json.null })
end

--- A description; written again only if it changes.
function W:describe(e, text)
	if self.described[e] == text then return end
	self.described[e] = text
	self:record({ entity = e, description = text })
end

--- A tag definition, once per (state, tag) unless `again` (a
--- redefinition replaces the earlier one).
function W:tag(state, tag, fields, tag_names_entity, again)
	local key = state .. "\0" .. tag
	if self.tagdefs[key] and not again then return end
	self.tagdefs[key] = true
	local rec = { state = self.value[state], tag = tag }
	for k, v in pairs(fields or {}) do rec[k] = v end
	self:record(rec, tag_names_entity)
end

--- An event from entity `e` at `time`, optionally aimed at `target`.
function W:event(time, e, name, target)
	self:record({ time = tostring(time), entity = e, event = name, target = target })
end

--- The name entity `e` has in the output (the latest call counts).
function W:label(e, name)
	self.labels[e] = name
end

--- Makes what was written so far reach the spool file (for a sampler
--- that may be stopped with Ctrl-C).
function W:flush()
	self.spool:flush()
end

--- Throws the output away.
function W:abort()
	self.done = true
	if current == self then current = nil end
	if self.spool then
		self.spool:close()
		self.spool = nil
	end
	if self.out then
		self.out:close()
		self.out = nil
	end
	os.remove(self.spool_name)
	if self.tmp then os.remove(self.tmp) end
end

--- Writes the output: to standard output, or to FILE (through a
--- temporary file beside it, renamed over it). A failure to write is
--- an error (FILE left as it was).
function W:finish()
	local okw, werr = self.spool:close()
	self.spool = nil
	if not okw then smout.fail("cannot write a temporary file: " .. tostring(werr)) end
	local out = self.out or io.stdout
	local names = {}
	for e, name in pairs(self.labels) do names[json.encode(e)] = json.encode(name) end
	local ok, err = true, nil
	for line in io.lines(self.spool_name) do
		if line:byte(1) == 82 then	-- "R"
			ok, err = out:write(line:sub(2), "\n")
		else
			local e, t, g, rest = line:match("^E([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
			local parts = { "{" }
			if e ~= "" then parts[#parts + 1] = '"entity":' .. (names[e] or e) .. "," end
			if t ~= "" then parts[#parts + 1] = '"target":' .. (names[t] or t) .. "," end
			if g ~= "" then parts[#parts + 1] = '"tag":' .. (names[g] or g) .. "," end
			local head = table.concat(parts)
			if head == "{" then
				ok, err = out:write(rest, "\n")
			elseif rest == "{}" then
				ok, err = out:write(head:sub(1, -2), "}\n")
			else
				ok, err = out:write(head, rest:sub(2), "\n")
			end
		end
		if not ok then break end
	end
	if ok then
		if self.output then
			ok, err = out:close()
			self.out = nil
		else
			ok, err = out:flush()
		end
	end
	if not ok then
		smout.fail((self.output or "standard output") .. ": " .. tostring(err))
	end
	if self.output then
		local renamed, rerr = os.rename(self.tmp, self.output)
		if not renamed then smout.fail(rerr) end
		self.tmp = nil
	end
	os.remove(self.spool_name)
	self.done = true
	current = nil
end

--- The name of a thread's entity, the same in every converter:
--- "COMM/ID", the command (or thread) name and the thread's id (just ID
--- while no name is known). A thread keeps one entity whatever it is
--- called: converters give it the last name it had in the trace (after
--- an exec or a rename), through writer:label. A '/' in COMM (kernel
--- threads: "kworker/0:1", "cpuhp/0") is written "\/" and a backslash
--- "\\", the input format's escape, so that the name stays one
--- component: the thread is grouped under its whole name, not cut.
function smout.component(s)
	return (s:gsub("\\", "\\\\"):gsub("/", "\\/"))
end

function smout.thread_name(comm, id)
	if comm and comm ~= "" then
		return smout.component(comm) .. "/" .. tostring(id)
	end
	return tostring(id)
end

--- Seconds written as decimal text ("1700000000.123456", "12.5") to
--- integer nanoseconds, without going through floating point; nil if the
--- text is not such a number.
function smout.seconds_ns(text)
	local s, f = text:match("^(%d+)%.?(%d*)$")
	if not s then return nil end
	f = (f .. "000000000"):sub(1, 9)
	return tonumber(s) * 1000000000 + tonumber(f)
end

--- Error reporting: `name:LINE: message` on stderr (`name:LINE:COLUMN:`
--- when r:bad is given the column). In lenient mode the line is skipped
--- and counted; otherwise the converter stops, status 1.
function smout.reporter(name, lenient)
	local r = { name = name, lenient = lenient, skipped = 0 }
	function r:bad(line, msg, col)
		local where = col and string.format("%s:%d:%d", self.name, line, col)
			or string.format("%s:%d", self.name, line)
		io.stderr:write(where, ": ", msg, "\n")
		if not self.lenient then smout.fail() end
		self.skipped = self.skipped + 1
	end
	function r:finish()
		if self.skipped > 0 then
			io.stderr:write(string.format("%s: %d bad lines skipped\n", self.name, self.skipped))
		end
	end
	return r
end

--- Parses arg into options and operands. `spec` maps "-x" and "--long"
--- to {key, takes_value}; every converter also takes `-o FILE` (or
--- `--output FILE`), opts.output. --help prints `usage` and exits 0; an
--- unknown option prints a one-line error and exits 2.
function smout.options(argv, spec, usage)
	spec["-o"] = spec["-o"] or { "output", true }
	spec["--output"] = spec["--output"] or { "output", true }
	local opts, rest = {}, {}
	local i = 1
	while i <= #argv do
		local a = argv[i]
		if a == "--help" or a == "-h" and not spec["-h"] then
			io.stdout:write(usage)
			os.exit(0)
		elseif a == "--" then
			for j = i + 1, #argv do rest[#rest + 1] = argv[j] end
			break
		elseif a:sub(1, 1) == "-" and a ~= "-" then
			local name, val = a:match("^(%-%-[^=]+)=(.*)$")
			name = name or a
			local s = spec[name]
			if not s then
				io.stderr:write(string.format("%s: unknown option %s (see --help)\n", argv[0], a))
				os.exit(2)
			end
			if s[2] then
				if not val then
					i = i + 1
					val = argv[i]
				end
				if val == nil then
					io.stderr:write(string.format("%s: %s needs a value\n", argv[0], name))
					os.exit(2)
				end
				opts[s[1]] = val
			else
				opts[s[1]] = true
			end
		else
			rest[#rest + 1] = a
		end
		i = i + 1
	end
	return opts, rest
end

--- The lines of a file ("-" or nil: standard input); errors exit 1.
function smout.open(path)
	if path == nil or path == "-" then return io.stdin, "<stdin>" end
	local f, err = io.open(path, "r")
	if not f then smout.fail(err) end
	return f, path
end

--- A binary min-heap of {time, seq, ...} entries, for converters that
--- learn of a transition before its time comes (a syscall's end).
function smout.heap()
	local h, n, seq = {}, 0, 0
	local function less(a, b)
		return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2])
	end
	local H = {}
	function H.push(time, item)
		seq = seq + 1
		n = n + 1
		local e = { time, seq, item }
		h[n] = e
		local i = n
		while i > 1 do
			local p = i // 2
			if less(h[i], h[p]) then h[i], h[p] = h[p], h[i]; i = p else break end
		end
	end
	function H.peek() return h[1] and h[1][1], h[1] and h[1][3] end
	function H.pop()
		local top = h[1]
		h[1] = h[n]
		h[n] = nil
		n = n - 1
		local i = 1
		while true do
			local l, r, m = 2 * i, 2 * i + 1, i
			if l <= n and less(h[l], h[m]) then m = l end
			if r <= n and less(h[r], h[m]) then m = r end
			if m == i then break end
			h[i], h[m] = h[m], h[i]
			i = m
		end
		return top[1], top[3]
	end
	function H.size() return n end
	return H
end

return smout
