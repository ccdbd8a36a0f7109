-- Tests for statemap.new (src/lua/lua_builder.c, src/trace/builder.c) and t:write
-- (src/trace/writer.c): a trace built call by call answers like the file that
-- says the same, and writing any trace (built, loaded, derived) then
-- loading the file gives the same trace back.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error
local here = arg[0]:match("^(.*)/[^/]*$") or "."

-- Everything a script can ask of a trace, as one table.
local function everything(t)
	local out = {
		title = t.title, host = t.host, entity_kind = t.entity_kind, start = t.start,
		begin = t.begin, finish = t.finish, states = t.states, entities = {}, events = {},
		tags = {},
	}
	for _, tag in ipairs(t.tags) do
		if tag.defined then out.tags[#out.tags + 1] = tag end
	end
	for _, e in ipairs(t:entities()) do
		local ent = { name = e.name, kind = e.kind, description = e.description, intervals = {}, stacks = {} }
		for iv in t:intervals { entities = { e } } do
			ent.intervals[#ent.intervals + 1] = iv
			if e.kind ~= "values" then
				ent.stacks[#ent.stacks + 1] = { e:stack_at(iv.start) }
			end
		end
		if e.kind == "values" then ent.stats = e:stats() end
		out.entities[#out.entities + 1] = ent
	end
	for ev in t:events() do out.events[#out.events + 1] = ev end
	return out
end

-- The first place two values differ, or nil.
local function differ(a, b, where)
	if type(a) ~= "table" or type(b) ~= "table" then
		if a ~= b then return where .. ": " .. tostring(a) .. " vs " .. tostring(b) end
		return nil
	end
	for k, v in pairs(a) do
		local d = differ(v, b[k], where .. "." .. tostring(k))
		if d then return d end
	end
	for k in pairs(b) do
		if a[k] == nil then return where .. "." .. tostring(k) .. ": missing" end
	end
	return nil
end

-- Writes t, loads the file back (over t's window: a file's begins at 0).
local function round_trip(name, t)
	local path = unit.tmpname(".out")
	t:write(path)
	local back = sm.load(path, { cache = false })
	os.remove(path)
	if t.begin > 0 then back = back:slice(t.begin, t.finish) end
	local d = differ(everything(back), everything(t), "trace")
	check(name .. ": written and loaded back, the same trace", d == nil, d)
	return back
end

-- A build with every kind of call.
local b = sm.new { title = "built", host = "h1", entity_kind = "Thread", start = { 1700000000, 5 },
	states = { idle = { value = 0, color = "#e0e0e0" }, run = { value = 1 }, io = { value = 2, color = "red" } } }
check_eq("builder tostring", tostring(b), "<builder>")
b:describe("Threads/1/Status", "thread 1")
b:set(0, "Threads/1/Status", "idle")
b:push(10, "Threads/1/Status", "run", "t1")
b:tag("run", "t1", { pid = 42, execname = "postgres" })
b:push("20ns", "Threads/1/Status", 2)
b:pop(30, "Threads/1/Status", "io")
b:pop(40, "Threads/1/Status")
b:declare("mem/rss", "number")
b:value(0, "mem/rss", 100)
b:value(10, "mem/rss", 2.5)
b:value(20, "mem/rss", nil)
b:value(30, "mem/rss", 300)
b:value(0, "name", "boot")
b:value(25, "name", "up \"quoted\"\n")
b:event(12, "Threads/1/Status", "wakeup", "Threads/10/Status")
b:event(13, "elsewhere", "tick")
b:event(14, "Threads/1/Status", "send", "Threads/10/Status",
    { ["end"] = 16, id = "m1", type = "MSG", size = 512, ok = true, path = { "a", "b" }, note = "say \"hi\"" })
b:event(15, "Threads/10/Status", "recv", nil, { id = "m2" })
b:event(15, "elsewhere", "mark", nil, { weight = 1.5 })
b:event(16, "elsewhere", "empty", nil, {})
b:set(0, "Threads/10/Status", "run")
b:set(50, "Threads/10/Status", "idle")
b:tag("idle", "empty", {})

-- Errors name the call and change nothing.
check_error("time going backwards", function() b:set(5, "Threads/1/Status", "idle") end,
    'b:set: time 5 for entity "Threads/1/Status" is before its previous time 40')
check_error("pop of an empty stack", function() b:pop(45, "Threads/1/Status") end,
    'b:pop: entity "Threads/1/Status" has nothing pushed (pop of an empty stack)')
check_error("pop of a new entity", function() b:pop(45, "nobody") end, 'b:pop: entity "nobody" has nothing pushed')
check_error("unknown state", function() b:set(60, "x", "nope") end, 'b:set: unknown state "nope"')
check_error("unknown state value", function() b:push(60, "x", 3) end, "b:push: unknown state 3 (states are 0 to 2)")
check_error("pop of another state", function()
	b:push(41, "Threads/1/Status", "io")
	b:pop(42, "Threads/1/Status", "run")
end, 'b:pop: pop of state "run" on entity "Threads/1/Status", whose top state is "io"')
b:pop(43, "Threads/1/Status", "io")
check_error("a string on a number entity", function() b:value(60, "mem/rss", "s") end,
    'b:value: entity "mem/rss" has number values, so a value of it is a number or nil')
check_error("a number on a string entity", function() b:value(60, "name", 3) end,
    'b:value: entity "name" has string values')
check_error("a state on a value entity", function() b:set(60, "name", 0) end,
    'b:set: entity "name" has values, so it cannot take a state')
check_error("a value on a state entity", function() b:value(60, "Threads/10/Status", 1) end,
    'b:value: entity "Threads/10/Status" has states, so it cannot take a value')
check_error("NaN", function() b:value(60, "v", 0 / 0) end, "b:value: a value is a finite number")
check_error("infinity", function() b:value(60, "v", math.huge) end, "b:value: a value is a finite number")
check_error("a table as value", function() b:value(60, "v", {}) end, "b:value: a value is a number, a string or nil, not table")
check_error("event fields: a list", function() b:event(60, "v", "e", nil, { 1 }) end,
    "b:event: fields are a table of names to values, not a list")
check_error("event fields: not a table", function() b:event(60, "v", "e", nil, 3) end,
    "b:event: fields are a table of names to values, not number")
check_error("event fields: the event's own", function() b:event(60, "v", "e", nil, { target = "x" }) end,
    'b:event: "target" is the event\'s own, not one of its fields')
check_error("event fields: a number key", function() b:event(60, "v", "e", nil, { x = 1, [2.5] = 1 }) end,
    "b:event: fields are a table of names to values, not a number key")
check_error("event fields: end before time", function() b:event(60, "v", "e", "w", { ["end"] = 59 }) end,
    "b:event: end 59 is before time 60: a message is received (end) after it is sent (time)")
check_error("event fields: an empty id", function() b:event(60, "v", "e", nil, { id = "" }) end,
    'b:event: the event\'s "id" is empty')
check_error("event fields: a number id", function() b:event(60, "v", "e", nil, { id = 7 }) end,
    'b:event: the event\'s "id" is a string, not number')
check_error("event fields: a function", function() b:event(60, "v", "e", nil, { f = print }) end,
    'b:event: field "f" is a function: fields are JSON values')
check_error("a list as tag fields", function() b:tag("run", "t2", { 1, 2 }) end, "b:tag: fields are a table")
for _, name in ipairs({ "state", "tag", "time", "description" }) do
	check_error("tag fields: " .. name .. ", which a file's tag definition cannot hold",
	    function() b:tag("run", "t2", { [name] = 1 }) end, 'b:tag: "' .. name .. '" cannot be a field')
end

local t = b:finish()
check_error("a finished builder", function() b:set(60, "x", 0) end, "b:set: this builder has finished")
check_eq("built: refused calls left no entity", #t:entities(), 4)
check_eq("built: metadata", { t.title, t.host, t.entity_kind, t.start, t.begin, t.finish },
    { "built", "h1", "Thread", 1700000000 * 1000000000 + 5, 0, 50 })
check_eq("built: states", t.states, {
	{ name = "idle", value = 0, color = "#e0e0e0" },
	{ name = "run", value = 1, color = "#4e79a7" },
	{ name = "io", value = 2, color = "#ff0000" },
})
local th = t:entity("Threads/1/Status")
check_eq("built: nested", { th.kind, th:stack_at(25) }, { "nested", { "idle", "run", "io" }, { false, "t1", false } })
check_eq("built: e:at with the tag", { th:at(15) }, { "run", "t1", 10, 20 })
check_eq("built: values", { t:entity("mem/rss"):value_at(12) }, { 2.5, 10, 20 })
check_eq("built: stats", t:entity("mem/rss"):stats(), { min = 2.5, max = 300, mean = 7025 / 40, integral = 7025 })
check_eq("built: tags", t.tags, {
	{ state = "run", tag = "t1", defined = true, fields = { pid = 42, execname = "postgres" } },
	{ state = "idle", tag = "empty", defined = true, fields = {} },
})
check_eq("built: description", th.description, "thread 1")
local evs = {}
for ev in t:events() do evs[#evs + 1] = ev end
check_eq("built: events", evs, {
	{ time = 12, entity = "Threads/1/Status", event = "wakeup", target = "Threads/10/Status" },
	{ time = 13, entity = "elsewhere", event = "tick" },
	{ time = 14, entity = "Threads/1/Status", event = "send", target = "Threads/10/Status", finish = 16, id = "m1",
	  fields = { type = "MSG", size = 512, ok = true, path = { "a", "b" }, note = 'say "hi"' } },
	{ time = 15, entity = "Threads/10/Status", event = "recv", id = "m2" },
	{ time = 15, entity = "elsewhere", event = "mark", fields = { weight = 1.5 } },
	{ time = 16, entity = "elsewhere", event = "empty" },
})
check_eq("built: transforms work on it", t:keep("Threads"):entity("Threads/10/Status"):at(20), "run")

-- The same trace written as a file by hand answers the same.
local path = unit.tmpname(".out")
local f = assert(io.open(path, "w"))
f:write([[
{"start": [1700000000, 5], "title": "built", "host": "h1", "entityKind": "Thread", "states": {"idle": {"value": 0, "color": "#e0e0e0"}, "run": {"value": 1}, "io": {"value": 2, "color": "red"}}}
{"entity": "Threads/1/Status", "description": "thread 1"}
{"time": "0", "entity": "Threads/1/Status", "state": 0}
{"time": "10", "entity": "Threads/1/Status", "push": 1, "tag": "t1"}
{"state": 1, "tag": "t1", "pid": 42, "execname": "postgres"}
{"time": "20", "entity": "Threads/1/Status", "push": 2}
{"time": "30", "entity": "Threads/1/Status", "pop": 2}
{"time": "40", "entity": "Threads/1/Status", "pop": 1}
{"time": "41", "entity": "Threads/1/Status", "push": 2}
{"time": "43", "entity": "Threads/1/Status", "pop": 2}
{"entity": "mem/rss", "type": "number"}
{"time": "0", "entity": "mem/rss", "value": 100}
{"time": "10", "entity": "mem/rss", "value": 2.5}
{"time": "20", "entity": "mem/rss", "value": null}
{"time": "30", "entity": "mem/rss", "value": 300}
{"time": "0", "entity": "name", "value": "boot"}
{"time": "25", "entity": "name", "value": "up \"quoted\"\n"}
{"time": "12", "entity": "Threads/1/Status", "event": "wakeup", "target": "Threads/10/Status"}
{"time": "13", "entity": "elsewhere", "event": "tick"}
{"time": "14", "entity": "Threads/1/Status", "event": "send", "target": "Threads/10/Status", "end": "16", "id": "m1", "type": "MSG", "size": 512, "ok": true, "path": ["a", "b"], "note": "say \"hi\""}
{"time": "15", "entity": "Threads/10/Status", "event": "recv", "id": "m2"}
{"time": "15", "entity": "elsewhere", "event": "mark", "weight": 1.5}
{"time": "16", "entity": "elsewhere", "event": "empty"}
{"time": "0", "entity": "Threads/10/Status", "state": 1}
{"state": 0, "tag": "empty"}
{"time": "50", "entity": "Threads/10/Status", "state": 0}
]])
f:close()
local loaded = sm.load(path, { cache = false })
os.remove(path)
check("built and loaded answer the same", differ(everything(t), everything(loaded), "trace") == nil,
    differ(everything(t), everything(loaded), "trace"))

-- Round trips: built, loaded, a built trace with an end after its data,
-- derived and sliced traces, and the examples.
round_trip("built", t)
round_trip("loaded", loaded)
local b2 = sm.new { states = { "a", "b" } }
b2:set(0, "x", "a")
b2:value(5, "c", 1e-300)
b2:value(6, "c", -0.0)
b2:value(7, "c", 123456789.123456789)
b2:value(8, "c", 2 ^ 60)
b2:set(10, "y", "b")
local ended = b2:finish(100)
check_eq("b:finish(end) sets the end", ended.finish, 100)
local back = round_trip("built with an end after its data", ended)
check_eq("numbers read back to the same doubles", { back:entity("c"):value_at(7) }, { 123456789.123456789, 7, 8 })
round_trip("derived", loaded:keep("Threads"))
local cpu = sm.load(here .. "/../../examples/data/cpu.out")
round_trip("examples/data/cpu.out", cpu)
round_trip("a slice", cpu:slice("1s", "2s"))
local empty = sm.new { states = { "a" } }:finish()
round_trip("an empty trace", empty)

-- statemap.new's own errors.
check_error("no states", function() sm.new { states = {} } end, "statemap.new: a trace needs at least one state")
check_error("a value out of range", function() sm.new { states = { a = { value = 1 } } } end,
    'statemap.new: the value of state "a" must be an integer from 0 to 0')
check_error("two states of one name", function() sm.new { states = { "a", "a" } } end, "statemap.new: two states have one name")
check_error("a bad colour", function() sm.new { states = { a = { value = 0, color = "nocolor" } } } end,
    "statemap.new: a colour is not")
check_error("a bad start", function() sm.new { start = { -1 }, states = { "a" } } end, "statemap.new: start is")
check_error("t:write to a directory that does not exist", function() cpu:write("/nonexistent/x.out") end, "t:write: ")

-- Values keep their type: a Lua integer is an exact integer, a float a
-- float; an entity's numbers are of one kind unless declared numeric.
local ib = sm.new { states = { "a" } }
ib:value(0, "n", 9007199254740993)
ib:value(1, "n", -9223372036854775807)
ib:value(2, "n", math.mininteger)
ib:value(3, "n", math.maxinteger)
ib:value(4, "f", 2.0)
ib:declare("m", "number")
ib:value(4, "m", 7)
ib:value(5, "m", 7.5)
check_error("b:value: a float on an integer entity", function() ib:value(6, "n", 1.5) end,
    'b:value: entity "n" has integer values, so a value of it is an integer or nil, not a float; declare it numeric')
check_error("b:value: an integer on a float entity", function() ib:value(6, "f", 3) end,
    'b:value: entity "f" has float values, so a value of it is a float or nil, not an integer')
check_error("b:value: null's word", function() ib:value(6, "n", -1970324836974592) end,
    "b:value: -1970324836974592 is the one integer an integer entity cannot hold")
check_error("b:declare after integers", function() ib:declare("n", "number") end,
    'b:declare: entity "n" has integer values already')
check_error("b:declare: another type", function() ib:declare("z", "integer") end,
    'b:declare: the type is "number"')
ib:set(0, "st", "a")
ib:value(0, "str", "x")
check_error("b:declare of a state entity", function() ib:declare("st", "number") end,
    'b:declare: entity "st" has states, so it cannot be declared numeric')
check_error("b:declare of a string entity", function() ib:declare("str", "number") end,
    'b:declare: entity "str" has string values, so it cannot be declared numeric')
check_error("b:value: a string on a declared entity", function() ib:value(6, "m", "s") end,
    'b:value: entity "m" has number values, so a value of it is a number or nil')
ib:declare("d", "number")
check_error("b:set on a declared entity", function() ib:set(6, "d", "a") end,
    'b:set: entity "d" has values, so it cannot take a state')
ib:increment(7, "n", -1)
ib:increment(8, "c")
ib:increment(9, "c", 2)
check_error("b:increment beyond 64 bits", function()
	ib:value(10, "big", math.maxinteger)
	ib:increment(11, "big")
end, "b:increment: entity \"big\": 9223372036854775807 + 1 is beyond 64 bits")
local it = ib:finish(20)
local function values(t, name)
	local out = {}
	for iv in t:intervals { entities = { name } } do
		out[#out + 1] = math.type(iv.value) .. " " .. tostring(iv.value)
	end
	return table.concat(out, ", ")
end
local want_n = "integer 9007199254740993, integer -9223372036854775807, integer -9223372036854775808, " ..
    "integer 9223372036854775807, integer 9223372036854775806"
check_eq("b:value: integers exact", values(it, "n"), want_n)
check_eq("b:value: floats stay floats", values(it, "f"), "float 2.0")
check_eq("b:declare: a numeric entity's numbers are floats", values(it, "m"), "float 7.0, float 7.5")
check_eq("b:increment: integers", values(it, "c"), "integer 1, integer 3")
local ipath = unit.tmpname(".out")
it:write(ipath)
local iback = sm.load(ipath, { cache = false })
check_eq("t:write of integers: exact", values(iback, "n"), want_n)
check_eq("t:write of a float entity: floats", values(iback, "f"), "float 2.0")
check_eq("t:write of a numeric entity: floats", values(iback, "m"), "float 7.0, float 7.5")
local ipath2 = unit.tmpname(".out")
iback:write(ipath2)
local f1, f2 = io.open(ipath), io.open(ipath2)
check_eq("t:write, load, t:write: byte-identical", f2:read("a"), f1:read("a"))
f1:close()
f2:close()
os.remove(ipath)
os.remove(ipath2)

-- b:set keeps the ids of the names it has met by their strings (a cache
-- of 64 slots a kind): the trace and every error must be those of calls
-- that name everything afresh.  Names longer than 40 bytes are not
-- interned by Lua, so a fresh copy is a new string each call (never in
-- the cache), against the same strings given again (found there); 150
-- entities and 30 tags share the slots; some calls fail.
do
	local function run(fresh)
		local pad = string.rep("x", 48)
		local ents, tags = {}, {}
		for i = 1, 150 do ents[i] = pad .. "entity/" .. i end
		for i = 1, 30 do tags[i] = pad .. "tag" .. i end
		local function name(list, i)
			if fresh then return (list[i]:sub(1, -1 - #tostring(i)) .. tostring(i)) end
			return list[i]
		end
		local bb = sm.new { states = { "a", "b", "c", "d", "e" } }
		bb:value(0, "v", 1)
		local errors, seed = {}, 7
		local function rand(n)
			seed = (seed * 1103515245 + 12345) % 2147483648
			return seed % n + 1
		end
		local last = {}
		for k = 1, 6000 do
			local e = rand(150)
			local time = (last[e] or 0) + rand(5) - 1
			if rand(50) == 1 then time = time - 2 end	-- backwards: an error once past 0
			local tag = rand(3) == 1 and name(tags, rand(30)) or nil
			local ok, err = pcall(bb.set, bb, time, name(ents, e), ({ "a", "b", "c", "d", "e" })[rand(5)], tag)
			if ok then last[e] = time else errors[#errors + 1] = k .. ": " .. err end
			if k % 1000 == 0 then
				local ok2, err2 = pcall(bb.set, bb, k, "v", "a")
				errors[#errors + 1] = tostring(ok2) .. " " .. tostring(err2)
				collectgarbage()
			end
		end
		local p = unit.tmpname(".out")
		bb:finish():write(p)
		local f = assert(io.open(p))
		local text = f:read("a")
		f:close()
		os.remove(p)
		return text, table.concat(errors, "\n"), #errors
	end
	local text1, err1, n1 = run(false)
	local text2, err2 = run(true)
	check("b:set by names met before: the same trace as by fresh names", text1 == text2)
	check_eq("b:set by names met before: the same errors (" .. n1 .. ")", err1, err2)
	check("b:set by names met before: some calls failed", n1 > 6, n1)
end
