-- Objects given another type's metatable with the debug library
-- (debug.setmetatable(series, debug.getmetatable(trace)) made s:at(0) a
-- SEGV): for every pair of the module's object types, one made to look
-- like the other is refused by every method, field and metamethod of
-- the type it looks like, with an error naming the call and the type it
-- expected, and the collector still frees it as what it is.  make
-- check-asan runs this file under valgrind too, which sees reads of the
-- wrong memory and leaks.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local sm = require "statemap"
local check, check_eq = unit.check, unit.check_eq

local tmp = unit.tmpname(".out")
local f = assert(io.open(tmp, "w"))
f:write('{"start": [0, 0], "states": {"a": {"value": 0}, "b": {"value": 1}}}\n')
for i = 1, 20 do
	f:write(('{"time": "%d", "entity": "e%d", "state": %d}\n'):format(i * 10, i % 3, i % 2))
end
f:write('{"time": "50", "entity": "e1", "event": "send", "target": "e2", "end": "70", "id": "m1"}\n')
f:close()

local registry = debug.getregistry()

-- A regular expression lives only on the stack of the function that
-- compiled it: a call hook reaches it there (debug.getlocal sees a C
-- function's stack), while the load it filters makes the trace object.
local function a_regex()
	local found
	debug.sethook(function()
		for level = 2, 6 do
			for i = 1, 20 do
				local ok, name, v = pcall(debug.getlocal, level, i)
				if not ok or name == nil then break end
				if type(v) == "userdata" and getmetatable(v) == "statemap.regex" then
					found = v
				end
			end
		end
	end, "c")
	sm.load(tmp, { filter = "e", cache = false })
	debug.sethook()
	return found
end

-- One object of each type, made anew.
local makers = {
	{ "trace", function() return sm.load(tmp, { cache = false }) end },
	{ "entity", function() return sm.load(tmp, { cache = false }):entity("e1") end },
	{ "intervals", function()
		return select(2, debug.getupvalue(sm.load(tmp, { cache = false }):intervals{ states = { "a" } }, 1))
	end },
	{ "series", function() return sm.load(tmp, { cache = false }):count_series{ "a" } end },
	{ "array", function() return sm.load(tmp, { cache = false }):columns{ "start" } end },
	{ "flows", function() return select(2, debug.getupvalue(sm.load(tmp, { cache = false }):flows(), 1)) end },
	{ "builder", function() return sm.new{ states = { "a" } } end },
	{ "regex", a_regex },
	{ "server", function()
		sm.serve()	-- makes the state's server object, serving nothing
		return registry["statemap.serving"]
	end },
}

-- The keys to read of an object that looks like type `name`: its
-- methods, its fields (the getters __index keeps) and a sequence's.
local function keys_of(mt)
	local keys = { 1, "begin", "finish", "names", "column" }
	for k in pairs(mt.methods) do keys[#keys + 1] = k end
	local _, fields = debug.getupvalue(mt.__index, 2)
	if type(fields) == "table" then
		for k in pairs(fields) do keys[#keys + 1] = k end
	end
	return keys
end

-- Metamethods as scripts use them, and the call their errors name.
local metamethods = {
	__tostring = { "return tostring(o)", "bad argument #1 to 'tostring' (" },
	__len = { "return #o", "bad argument #1 to 'len' (" },
	__eq = { "return o == other", "bad argument #1 to 'eq' (" },
}

local failures, calls = {}, 0
local function expect_refusal(what, want, ok, err)
	calls = calls + 1
	err = tostring(err)
	if ok or not err:find(want, 1, true) then
		failures[#failures + 1] = what .. ": " .. (ok and "no error" or err)
	end
end

local kept = {}
for _, a in ipairs(makers) do
	for _, b in ipairs(makers) do
		if a[1] ~= b[1] then
			local o, model = a[2](), b[2]()
			local mt = debug.getmetatable(model)
			local name = mt.__name
			local want = name .. " expected, got statemap." .. a[1] .. " with the metatable of " .. name
			local what = a[1] .. " as " .. b[1]
			if o == nil or model == nil then
				failures[#failures + 1] = "could not make a " .. a[1] .. " and a " .. b[1]
			end
			debug.setmetatable(o, mt)
			for _, k in ipairs(keys_of(mt)) do
				-- Read as a script would; a sequence's __index refuses
				-- the object at once, an object's finds the method.
				local ok, v = pcall(load("local o = ... return o[" .. ("%q"):format(k) .. "]"), o)
				if not ok then
					expect_refusal(what .. ": o[" .. ("%q"):format(k) .. "]", want, ok, v)
				elseif type(k) == "string" and mt.methods[k] ~= nil then
					expect_refusal(what .. ": o:" .. k .. "()", "'" .. k .. "' on bad self (" .. want,
						pcall(load("local o = ... return o:" .. k .. "(1, 2)"), o))
				end
			end
			for k, mm in pairs(mt) do
				local use = metamethods[k]
				if use then
					expect_refusal(what .. ": " .. use[1], use[2] .. want,
						pcall(load("local o, other = ... " .. use[1]), o, model))
				elseif type(mm) == "function" and k ~= "__index" and k ~= "__gc" then
					failures[#failures + 1] = what .. ": metamethod " .. k .. " not tried"
				end
			end
			-- Left looking like b for the collector, which frees it by
			-- its own type's finalizer; a metatable without one would
			-- leave it unfreed, so it gets its own back.
			if mt.__gc == nil then
				debug.setmetatable(o, debug.getmetatable(a[2]()))
			end
			kept[#kept + 1] = o
		end
	end
end
check("every method, field and metamethod of every type was tried", calls > 9 * 8 * 3, calls)
print("# calls tried: " .. calls)
check_eq("each refused an object of another type, naming the call and the type", failures, {})

-- The messages in full, for one pair: a method, a field, a metamethod.
do
	local t = sm.load(tmp, { cache = false })
	local s = t:count_series{ "a" }
	debug.setmetatable(s, debug.getmetatable(t))
	local ok, err = pcall(function() return s:at(0) end)
	check_eq("s:at(0) of a series given a trace's metatable", err and err:match("calling.*"),
		"calling 'at' on bad self (statemap.trace expected, got statemap.series with the " ..
		"metatable of statemap.trace)")
	ok, err = pcall(function() return s.title end)
	check_eq("... s.title", err and err:match("bad object.*"),
		"bad object for field 'title' (statemap.trace expected, got statemap.series with the " ..
		"metatable of statemap.trace)")
	check("... an ordinary argument of the wrong type, as before",
		select(2, pcall(t.at, s, 0)):find("statemap.trace expected, got statemap.series", 1, true))
	local e = t:entity("e1")
	debug.setmetatable(e, debug.getmetatable(t:columns{ "start" }))
	ok, err = pcall(function() return #e end)
	check("#e of an entity given an array's metatable", not ok and
		err:find("statemap.array expected, got statemap.entity", 1, true), err)
	-- An object another keeps (an entity its trace, as its user value).
	local e1 = t:entity("e1")
	debug.setuservalue(e1, t:count_series{ "a" }, 1)
	ok, err = pcall(function() return e1:at(0) end)
	check_eq("an entity whose trace was swapped for a series", err and err:match("bad object.*"),
		"bad object kept by 'at' (statemap.trace expected, got statemap.series)")
	-- What t:at keeps in the trace's user value (its lists of names, its
	-- buffer of states) replaced by anything else: made again.
	local want = t:at(15)
	local kept = debug.getuservalue(t, 1)
	kept[1], kept[3] = 5, t:count_series{ "a" }
	check_eq("t:at after its lists and buffer were replaced", t:at(15), want)
	debug.setuservalue(t, 7, 1)
	check_eq("t:at after its user value was replaced", t:at(15), want)
	-- A userdata the module did not make, given a trace's metatable.
	local file = io.tmpfile()
	local file_mt = debug.getmetatable(file)
	debug.setmetatable(file, debug.getmetatable(t))
	ok, err = pcall(function() return file:at(0) end)
	check("a file handle given a trace's metatable is refused", not ok and
		err:find("statemap.trace expected, got userdata with the metatable of statemap.trace", 1, true), err)
	debug.setmetatable(file, file_mt)
	file:close()
end

-- Functions that C calls with a pointer as a light userdata are on the
-- stack while Lua runs, where debug.getinfo reaches them: called by a
-- script with another light userdata (json.null), each refuses.
do
	local null = sm.json.null
	local runner = debug.getinfo(2, "fS")
	check("the script is run by a C function", runner ~= nil and runner.what == "C")
	local ok, err = pcall(runner.func, 3, null)
	check("... which a script cannot call", not ok and
		tostring(err):find("the function that runs the script is not a script's to call", 1, true), err)

	local got
	debug.sethook(function()
		local info = debug.getinfo(2, "fS")
		if got == nil and info.what == "C" and info.func ~= sm.json.encode then
			debug.sethook()
			got = { pcall(info.func, { 1 }, null) }
		end
	end, "c")
	local out = sm.json.encode({ 1, 2 })
	debug.sethook()
	check_eq("json.encode's protected function, called by a script, refuses",
		{ got and got[1], got and got[2] }, { false, "json.encode's own function is not a script's to call" })
	check_eq("... and json.encode still works", out, "[1,2]")

	local here = arg[0]:match("^(.*)/[^/]*$") or "."
	local SM = os.getenv("SM") or (here .. "/../../statemap-lua")
	local code = 'local level, last = 1 ' ..
		'while debug.getinfo(level, "f") do ' ..
		'local i = debug.getinfo(level, "fS") if i.what == "C" then last = i.func end level = level + 1 end ' ..
		'print(pcall(last, require("statemap").json.null))'
	local p = io.popen("'" .. SM .. "' -E '" .. code .. "' 2>&1")
	local said = p:read("a")
	p:close()
	check("the function that starts the REPL (and runs -E), called by a script, refuses",
		said:find("the function that starts the REPL is not a script's to call", 1, true), said)
end

-- The collector frees every object left looking like another type as
-- what it is, once; the traces the others kept go too.
kept = nil
collectgarbage()
collectgarbage()
check("the collector freed the disguised objects", true)

os.remove(tmp)
