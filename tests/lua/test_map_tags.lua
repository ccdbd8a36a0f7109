-- Tags through t:map and t:map_intervals.  A tag is a state and a name;
-- mapping moves transitions to other states, so their tags must follow
-- (found by tests/fuzz/fuzz_lua.c: a map_intervals trace kept its tags'
-- old state values, past its own states, and t:map of it read beyond its
-- states, t:recolor of it stopped the program with an internal error;
-- two tags of one name merged into one state were shuffled by a copy).
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local sm = require "statemap"
local check, check_eq = unit.check, unit.check_eq

local tmp = os.tmpname()
local f = assert(io.open(tmp, "w"))
f:write([[
{"start": [0, 0], "states": {"a": {"value": 0}, "b": {"value": 1}}}
{"time": "1", "entity": "e", "state": 0, "tag": "t"}
{"state": 0, "tag": "t", "pid": 1}
{"time": "2", "entity": "e", "state": 1, "tag": "t"}
{"state": 1, "tag": "t", "pid": 2}
{"time": "3", "entity": "f", "state": 1, "tag": "u"}
{"state": 0, "tag": "v", "pid": 3}
{"time": "6", "entity": "e", "state": 0}
{"time": "8", "entity": "f", "state": 0, "tag": "t"}
{"time": "10", "entity": "e", "state": 1}
]])
f:close()
local t = sm.load(tmp, { cache = false })

local function intervals(tr)
	local out = {}
	for iv in tr:intervals() do
		out[#out + 1] = ("%s %s %s %d-%d"):format(iv.entity, iv.state,
			tostring(iv.tag), iv.start, iv.finish)
	end
	return table.concat(out, ", ")
end

-- The tags of the interactive statemap's data block: {state name, tag}.
local function data_tags(tr)
	local out = tmp .. ".svg"
	local ok, err = pcall(sm.render, { output = out, trace = tr, interactive = true })
	if not ok then return err end
	local svg = assert(io.open(out)):read("a")
	os.remove(out)
	local mark = '<script type="application/json" id="statemap-data"><![CDATA['
	local from = select(2, svg:find(mark, 1, true)) + 1
	local doc = sm.json.decode(svg:sub(from, svg:find("]]>", from, true) - 1))
	local m = doc.statemaps[1]
	local tags = {}
	for _, tag in ipairs(m.tags) do
		local st = m.states[tag.state + 1]
		tags[#tags + 1] = (st and st.name or "state " .. tag.state .. "?") ..
			" " .. tag.tag .. (tag.members.pid and (" pid " .. tag.members.pid) or "")
	end
	return table.concat(tags, ", ")
end

check_eq("the trace's own intervals", intervals(t),
	"e a t 1-2, e b t 2-6, e a nil 6-10, f b u 3-8, f a t 8-10")

-- Two states merged: (a, t) and (b, t) become one tag.
local m = t:map(function() return "x" end)
check_eq("map merging states: a tag of one name in both is one tag",
	intervals(m), "e x t 1-6, e x nil 6-10, f x u 3-8, f x t 8-10")
check_eq("... and a copy of that trace keeps each tag", intervals(m:keep(".")),
	"e x t 1-6, e x nil 6-10, f x u 3-8, f x t 8-10")
check_eq("... and its tags are (x, t), (x, u), (x, v)", data_tags(m),
	"x t pid 1, x u, x v pid 3")

-- Every interval to one new state.
local y = t:map_intervals(function() return "y" end)
check_eq("map_intervals to one state keeps the tags", intervals(y),
	"e y t 1-6, e y nil 6-10, f y u 3-8, f y t 8-10")
check_eq("... and its tags are in its states", data_tags(y), "y t pid 1, y u")
check("... t:map of it works", pcall(y.map, y, function(s) return s end))
local ok, r = pcall(y.recolor, y, {})
check("... t:recolor of it works", ok, r)
check_eq("... and keeps its intervals", ok and intervals(r), intervals(y))

-- No state changed: the same intervals, the same tags and definitions.
local same = t:map_intervals(function() return nil end)
check_eq("map_intervals keeping every state keeps every interval",
	intervals(same), intervals(t))
check_eq("... and every tag, defined ones without data too", data_tags(same),
	data_tags(t))

-- One tag split over two new states.
local split = t:map_intervals(function(iv)
	return iv.finish - iv.start > 3 and "long" or "short" end)
check_eq("map_intervals splitting a tag over two states", intervals(split),
	"e short t 1-2, e long t 2-6, e long nil 6-10, f long u 3-8, f short t 8-10")
check_eq("... makes a tag for each state", data_tags(split),
	"short t pid 1, long t pid 2, long u")

os.remove(tmp)
