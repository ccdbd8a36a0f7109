-- smout.lua: what every converter in contrib/ shares: writing the statemap
-- input format, reporting bad input lines, and a small option parser.
--
-- A converter loads it with
--   package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
--   local smout = require "smout"
local json = statemap.json
local smout = {}

local out = io.stdout

--- Writes one record as a line of compact JSON.
local function emit(rec)
	out:write(json.encode(rec), "\n")
end
smout.emit = emit

--- A writer for one trace. `states` is a list of {name, color}; the
--- values are their positions from 0; a missing colour is taken from
--- the palette above. `meta` holds title, host,
--- entityKind (any may be nil); writer:start(ns) writes the metadata and
--- must come before any other record.
-- Colours for states that come without one (slice names, API names), in
-- order: distinct hues first, then lighter and darker ones; no green, which
-- the converters keep for "on a CPU".
local palette = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
	"#ff9da7", "#9c755f", "#bab0ac", "#a0cbe8", "#ffbe7d", "#ff9d9a",
	"#86bcb6", "#f1ce63", "#d4a6c8", "#fabfd2", "#d7b5a6", "#79706e",
}

function smout.writer(meta, states)
	local w = { value = {}, described = {}, tagdefs = {}, started = false }
	local st = {}
	local uncoloured = 0
	for i, s in ipairs(states) do
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

	--- Writes the metadata with `start` (integer ns since the epoch, or
	--- an origin the converter documents).
	function w:start(ns)
		if self.started then return end
		self.started = true
		self.meta.start = { ns // 1000000000, ns % 1000000000 }
		emit(self.meta)
	end

	--- Entity `e` enters `state` at `time` ns after the start.
	function w:datum(time, e, state, tag)
		local v = self.value[state]
		assert(v, "no state " .. tostring(state))
		local rec = { time = tostring(time), entity = e, state = v }
		if tag ~= nil then rec.tag = tag end
		emit(rec)
	end

	--- A description; written again only if it changes.
	function w:describe(e, text)
		if self.described[e] == text then return end
		self.described[e] = text
		emit({ entity = e, description = text })
	end

	--- A tag definition, once per (state, tag).
	function w:tag(state, tag, fields)
		local key = state .. "\0" .. tag
		if self.tagdefs[key] then return end
		self.tagdefs[key] = true
		local rec = { state = self.value[state], tag = tag }
		for k, v in pairs(fields or {}) do rec[k] = v end
		emit(rec)
	end

	--- An event from entity `e` at `time`, optionally aimed at `target`.
	function w:event(time, e, name, target)
		emit({ time = tostring(time), entity = e, event = name, target = target })
	end
	return w
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

--- Error reporting: `name:LINE: message` on stderr. In lenient mode the
--- line is skipped and counted; otherwise the converter stops, status 1.
function smout.reporter(name, lenient)
	local r = { name = name, lenient = lenient, skipped = 0 }
	function r:bad(line, msg)
		io.stderr:write(string.format("%s:%d: %s\n", self.name, line, msg))
		if not self.lenient then os.exit(1) end
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
--- to {key, takes_value}. --help prints `usage` and exits 0; an unknown
--- option prints a one-line error and exits 2.
function smout.options(argv, spec, usage)
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
	if not f then
		io.stderr:write(err, "\n")
		os.exit(1)
	end
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
