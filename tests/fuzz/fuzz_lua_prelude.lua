-- fuzz_lua_prelude.lua: the beginning of every program fuzz_lua.c makes.
-- The program is this, then one line per operation the fuzz input picks:
--
--   C(function() return T(3):sorted(S(17), TM(4), TM(200)) end)
--
-- C calls it under pcall and keeps what it returns in the pools below,
-- so later operations get it as an argument: traces in T, entities in E,
-- iterators in I, anything at all (error messages too) in R.  V is a
-- fixed pool of awkward values.  Every accessor takes any integer (a
-- byte of the input) and picks by it modulo the pool's size.
--
-- arg[1] is a directory of our own: the traces (written by fuzz_lua.c
-- before the program runs) and the pictures render writes.

local sm = require "statemap"
local json = sm.json
local palette = require "statemap.palette"
local layout = require "statemap.layout"
local report = require "statemap.report"
local DIR = assert(arg[1], "usage: statemap-lua PROGRAM.lua DIR")

local T, E, I, R = {}, {}, {}, {}
local POOL_MAX = 48
local added = 0

local function add(pool, v)
	added = added + 1
	if #pool < POOL_MAX then
		pool[#pool + 1] = v
	else
		-- Replace one, always the same way for the same program (but
		-- not the first: T[1] is the base trace).
		pool[added % (POOL_MAX - 1) + 2] = v
	end
end

local function pick(pool, k)
	if #pool == 0 then return nil end
	return pool[k % #pool + 1]
end

-- Sorts a value into the pools; a table's first members too.
local function keep(v, depth)
	if v == nil then return end
	local mt = getmetatable(v)
	if mt == "statemap.trace" then
		add(T, v)
	elseif mt == "statemap.entity" then
		add(E, v)
	elseif type(v) == "function" then
		add(I, v)
	elseif type(v) == "table" and (depth or 0) < 2 then
		local n = 0
		for _, x in pairs(v) do
			keep(x, (depth or 0) + 1)
			n = n + 1
			if n >= 4 then break end
		end
	end
	add(R, v)
end

function C(f)
	local r = table.pack(pcall(f))
	for i = 2, r.n do keep(r[i]) end
end

function T_(k) return pick(T, k) end
function E_(k) return pick(E, k) end
function I_(k) return pick(I, k) end
function R_(k) return pick(R, k) end
local function base() return T[1] end

-- Names of the states and entities of some trace (nil if it has none,
-- or was finalized).
function S(k)
	local ok, states = pcall(function() return pick(T, k // 8).states end)
	if not ok or #states == 0 then return nil end
	return states[k % #states + 1].name
end

function N(k)
	local ok, es = pcall(function() return pick(T, k // 8):entities() end)
	if not ok or #es == 0 then return nil end
	return es[k % #es + 1].name
end

-- ---- the fixed pools ----

local huge = string.rep("x", 1 << 16)
local bad_utf8 = "\xff\xfe\xc0\x80\xed\xa0\x80\xf4\x90\x80\x80"
local controls = "a\0b\1\27[31m\n\r\t\127"

-- Functions that error, or return what nobody expects.
GC_CALLS = 0
REP_CALLS, REP = 0, nil
local F = {
	function(x) return x end,
	function(x) return x and (tostring(x) .. "'") end,
	function() error("a function that errors") end,
	function() error(setmetatable({}, { __tostring = function() error("again") end })) end,
	function() error() end,
	function() return nil end,
	function() return 0 / 0 end,
	function() return 1 / 0 end,
	function() return math.maxinteger end,
	function() return {} end,
	function() return bad_utf8 end,
	function() return controls end,
	function() return "" end,
	function() return huge end,
	function() return coroutine.create(print) end,
	function() return true end,
	function() return false end,
	function(...) return ... end,
	function(a) return a, a, a end,
	function(e) return type(e) == "userdata" and e.name or "x" end,
	function(e) return type(e) == "userdata" and e.description end,
	function(e) return type(e) == "userdata" and #e.name or 0 end,
	function(s) return type(s) == "string" and #s % 3 == 0 and "merged" or nil end,
	function(iv) return type(iv) == "table" and iv.tag or nil end,
	function(iv) return type(iv) == "table" and (iv.finish - iv.start > 10 and "long" or "short") or nil end,
	-- A full collection in the middle of a call back (finalizers may
	-- run), on the first call and every 1024th: each is a walk of the
	-- whole heap, so one per entity of a 40,000-entity trace would be
	-- the script's own quadratic work (14 s), not ours.
	function() GC_CALLS = GC_CALLS + 1 if GC_CALLS % 1024 == 1 then collectgarbage() end return "gc" end,
	function() return T_(1) end,
	function() return base():entities()[1] end,
	-- Calls back into the trace being worked on.
	function(x) C(function() return base():map(function(s) return s end) end) return x end,
	function(x) C(function() return base():sorted(function(e) return e.name end) end) return x end,
	function() return coroutine.yield(1) end,
	-- A long string of its own, made afresh on the first call and every
	-- 1024th (not interned: a key equal to the last but another object).
	-- string.rep copies it a byte at a time, out of sight of the
	-- instruction budget: made on every call back, a group key for each
	-- of a 14,000-entity trace was 0.9 GB of copying (7 s, 23 s under
	-- ASan), the script's own work, not ours.
	function()
		REP_CALLS = REP_CALLS + 1
		if REP_CALLS % 1024 == 1 then REP = string.rep("y", 1 << 16) end
		return REP
	end,
	function(e) return type(e) == "userdata" and tostring(e) end,
	function(e) return type(e) == "userdata" and e:time_in() end,
	function() return setmetatable({}, { __tostring = function() error("tostring") end }) end,
	function() return 2 ^ 63 end,
	function() return -0.0 end,
	-- Finalizes the first trace by hand, maybe the one being worked on.
	function(x) local t = T[1]; pcall(debug.getmetatable(t).__gc, t) return x end,
}

local cyclic = {}
cyclic.self = cyclic
cyclic[1] = cyclic

V = {
	0, 1, -1, 2, 3, 10, 100, 1000, 1e9, 2 ^ 53, 2 ^ 63, -(2 ^ 63),
	math.maxinteger, math.mininteger, math.maxinteger - 1, 1 << 32,
	0.5, -0.5, 1e308, 0 / 0, 1 / 0, -1 / 0, -0.0,
	"", "0", "1", "1s", "1.5ms", "250us", "100ns", "2m", "-1s", "1e3",
	"0x10", " 1s", "1s ", "9223372036854775807", "99999999999999999999",
	"name", "on-cpu", "off-cpu", "a", "b", "c\xc3\xa9", "count", ".", ".*",
	"^a", "(", "[[:alpha:]]+", "\\", "a|b|", "^$", "%",
	"#fff", "#ffffff", "red", "#12345", "#gggggg", "transparent",
	huge, bad_utf8, controls, "\xef\xbf\xbe", "]]" .. "></script>&<", "\0",
	nil, true, false, {}, { 1, 2, 3 }, { "a", "b" }, { x = 1 }, cyclic,
	{ from = 0, to = 100 }, { nil, nil, 3 }, { [1.5] = 1 }, { [true] = 1 },
	setmetatable({}, { __index = function() error("index") end }),
	setmetatable({}, { __len = function() return math.maxinteger end }),
	setmetatable({}, { __newindex = function() error("newindex") end }),
	json.null, tostring, coroutine.create(tostring), io.stdout,
}
for _, f in ipairs(F) do V[#V + 1] = f end
local NV = 0
for k in pairs(V) do if k > NV then NV = k end end

function V_(k) return V[k % NV + 1] end
function F_(k) return F[k % #F + 1] end

-- Times: mostly near the traces' data, a few extreme.
local TIMES = { 0, 1, 5, 10, 25, 30, 100, 999, 1000, 1500000000, 2000000000,
	"0", "20ns", "1s", "1.5s", "2s", "500ms", -1, 0.5, 2 ^ 53, math.maxinteger,
	"abc", "" }
function TM(k)
	if k % 5 == 4 then
		local ok, t = pcall(function() local x = pick(T, k // 5); return k % 2 == 0 and x.begin or x.finish end)
		if ok then return t end
	end
	return TIMES[k % #TIMES + 1]
end

local PATHS = { "base.out", "other.out", "base.out", "bad.out", "empty.out", "missing.out",
	".", "meta.out", "base.out.gz" }
function P(k)
	if k % 16 == 15 then return V_(k // 16) end
	return DIR .. "/" .. PATHS[k % #PATHS + 1]
end

local OUTS = { "o.png", "o.svg", "o.pdf", "o.txt", "o", "no/such/dir/o.png", "o.SVG" }
function O(k)
	if k % 16 == 15 then return V_(k // 16) end
	return DIR .. "/" .. OUTS[k % #OUTS + 1]
end

local REGEXES = { ".", "^a", "b$", "(", "[[:digit:]]", "a|b", "^$", "\xff", "e\\", "x*y*z*" }
function RE(k)
	if k % 16 == 15 then return V_(k // 16) end
	return REGEXES[k % #REGEXES + 1]
end

local COLOURS = { "#000", "#abcdef", "tomato", "#fff0", "", "rgb(1,2,3)", "#FFFFFF" }
function CO(k) return COLOURS[k % #COLOURS + 1] end

-- Small sizes for pictures.
local WIDTHS = { 1, 2, 50, 200, 640, 0, -1 }
function W(k) return WIDTHS[k % #WIDTHS + 1] end
local HEIGHTS = { 1, 2, 7, 10, 20, 0 }
function H(k) return HEIGHTS[k % #HEIGHTS + 1] end

local FIELDS = { "title", "host", "entity_kind", "name", "start", "begin", "finish",
	"states", "records", "transitions", "description", "nothing", "entities", 1 }
function K(k) return FIELDS[k % #FIELDS + 1] end

-- ---- operations that are more than one call ----

-- Calls an iterator up to n times.
function ITER(it, n)
	local out = {}
	for i = 1, n do
		local v = it()
		if v == nil then break end
		out[#out + 1] = v
	end
	return out
end

-- A copy of a table with one field set.
function WITH(t, key, value)
	local c = {}
	if type(t) == "table" then for k, v in pairs(t) do c[k] = v end end
	c[key] = value
	return c
end

local GCMODES = { "collect", "step", "incremental", "generational", "count", "stop", "restart" }
function GC(k)
	return collectgarbage(GCMODES[k % #GCMODES + 1])
end

-- Objects that outlive their finalizers: a new trace, an entity of it
-- and an iterator over it, reachable only from an object whose own
-- finalizer runs first and keeps them (in the pools) after theirs ran.
local function doomed(t)
	local d = t:keep(".")
	setmetatable({ d, d:entities()[1], d:intervals(), d:events() }, {
		__gc = function(o) C(function() return o[1], o[2], o[3], o[4] end) end })
end

function ZOMBIE(t)
	doomed(t)
	collectgarbage()
	collectgarbage()
end

-- A metamethod called by hand (the debug library can reach them).
local METAMETHODS = { "__gc", "__tostring", "__index", "__eq", "__close", "__len" }
function METACALL(obj, k, a, b)
	local mt = debug.getmetatable(obj)
	if type(mt) ~= "table" then return nil end
	local f = mt[METAMETHODS[k % #METAMETHODS + 1]]
	if type(f) ~= "function" then return nil end
	return f(a == nil and obj or a, b)
end

-- A table whose fields are read through an __index function: each read
-- runs the collector, and a trace is handed out as a new trace that
-- nothing else holds (a copy of the one in t), so a binding that keeps
-- only a pointer to it, not the object, finds it collected.
function PROXY(t)
	return setmetatable({}, { __index = function(_, k)
		collectgarbage()
		local v = t[k]
		if getmetatable(v) == "statemap.trace" then
			local ok, copy = pcall(v.keep, v, ".")
			if ok then return copy end
		end
		return v
	end })
end

-- Drops one member of a pool, so its object can be collected.
function DROP(k)
	local pools = { T, E, I, R }
	local pool = pools[k % 4 + 1]
	if #pool > 1 then table.remove(pool, (k // 4) % #pool + 1) end
end

-- ---- shapes that make work or memory grow faster than the input ----
-- Traces built in a few calls whose size the input's bytes choose: a
-- deep stack, many states times many entities, long path names, many
-- entities; and glob patterns of many ** to match against them.  Each
-- is bounded by the instruction budget, and the harness holds every
-- program to a budget of C steps and bytes (base/work.h) proportional to
-- the largest trace the budget lets it build.

-- A stack n deep (n from two bytes), popped back some way and pushed
-- again, then replaced; a second, plain entity.
function DEEP(hi, lo)
	local n = ((hi or 0) * 256 + (lo or 0)) % 20000 + 1
	local b = sm.new{states = {"a", "b", "c"}}
	local t = 0
	b:set(t, "deep", "a")
	for d = 1, n do t = t + 1; b:push(t, "deep", d % 3) end
	for _ = 1, n // 2 do t = t + 1; b:pop(t, "deep") end
	for d = 1, n // 2 do t = t + 1; b:push(t, "deep", d % 2) end
	b:set(t + 1, "deep", "b")
	b:set(t + 2, "plain", "c")
	return b:finish()
end

-- side states and side entities (side up to 4096), each entity entering
-- two of them.
function WIDE(k)
	local side = 4 << ((k or 0) % 11)
	local states = {}
	for s = 1, side do states[s] = "s" .. s end
	local b = sm.new{states = states}
	for e = 1, side do
		b:set(e, "e" .. e, (e * 7) % side)
		b:set(e + side, "e" .. e, (e * 13 + 1) % side)
	end
	return b:finish()
end

-- A few entities named by n components (n up to 400), apart at the end.
function LONGPATH(k, m)
	local n = ((k or 0) % 200) * 2 + 1
	local parts = {}
	for c = 1, n do parts[c] = "p" .. (c % 5) end
	local b = sm.new{states = {"x", "y"}}
	for e = 0, (m or 0) % 8 do
		parts[n] = "q" .. e
		b:set(e, table.concat(parts, "/"), e % 2)
	end
	return b:finish()
end

-- n entities (n from two bytes, up to 40,000), one or two data each.
function MANY(hi, lo)
	local n = ((hi or 0) * 256 + (lo or 0)) % 40000 + 1
	local b = sm.new{states = {"x", "y", "z"}}
	for e = 1, n do b:set(e, "cpu/" .. e, e % 3) end
	return b:finish()
end

-- A glob of k ** components (up to 12), each followed by a component
-- the long paths hold often (so that a careless matcher tries every
-- split), and a last one from the input.
local GLOB_TAILS = { "p4", "q1", "*", "q?", "p[0-4]", "x", "**" }
function GLOB(k, m)
	local parts = {}
	for i = 1, (k or 0) % 13 do
		parts[#parts + 1] = "**"
		parts[#parts + 1] = "p" .. (i % 5)
	end
	parts[#parts + 1] = GLOB_TAILS[(m or 0) % #GLOB_TAILS + 1]
	return table.concat(parts, "/")
end

-- The traces every program starts with.
C(function() return sm.load(DIR .. "/base.out") end)
C(function() return sm.load(DIR .. "/other.out", { cache = false }) end)
C(function() return sm.load(DIR .. "/base.out", { begin = 10, ["end"] = "1.5s", cache = false }) end)
assert(#T == 3, "fuzz_lua: the prelude's traces did not load")
C(function() return T[1]:entities() end)
C(function() return T[2]:entities() end)
C(function() return T[1]:intervals() end)
C(function() return T[2]:events() end)
