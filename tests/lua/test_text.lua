-- Text that outputs cannot take as it is: bytes that are not UTF-8, which
-- every string statemap.new's builder takes must refuse (as a file's
-- parser and t:rename do), and noncharacters (U+FFFE, U+FFFF, U+FDD0 to
-- U+FDEF, U+nFFFE and U+nFFFF), which are valid UTF-8 that Cairo will
-- not draw: every picture of a trace holding them must still be made.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local sm = require "statemap"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

local function shell_ok(cmd) return os.execute(cmd .. " > /dev/null 2>&1") == true end
local have_xmllint = shell_ok("command -v xmllint")
local function well_formed(name, path)
	if have_xmllint then
		check(name, shell_ok("xmllint --noout " .. path))
	else
		unit.skip(name, "no xmllint")
	end
end
local function read(path)
	local f = assert(io.open(path, "rb"))
	local s = f:read("a")
	f:close()
	return s
end

-- ---- the builder refuses what is not UTF-8 ----

local bad = {	-- a stray byte, a surrogate, an overlong form, past U+10FFFF
	"\xff", "x\xed\xa0\x80", "\xc0\x80", "\xf4\x90\x80\x80" }
local b = sm.new{ states = { "a", "b" } }
b:set(0, "e", "a")
b:value(0, "v", "s")
b:set(0, "n", "a")
b:push(1, "n", "b")
-- Each call, with each kind of bad text in each of its strings: the
-- message names the call and the argument, and nothing is taken.
local calls = {
	{ "b:set", "the entity name", function(s) b:set(5, s, "a") end },
	{ "b:set", "the tag", function(s) b:set(5, "e", "a", s) end },
	{ "b:push", "the entity name", function(s) b:push(5, s, "b") end },
	{ "b:push", "the tag", function(s) b:push(5, "n", "b", s) end },
	{ "b:pop", "the entity name", function(s) b:pop(5, s) end },
	{ "b:value", "the entity name", function(s) b:value(5, s, 1) end },
	{ "b:value", "the entity name", function(s) b:value(5, s, "x") end },
	{ "b:value", "the entity name", function(s) b:value(5, s) end },
	{ "b:value", "the value", function(s) b:value(5, "v", s) end },
	{ "b:describe", "the entity name", function(s) b:describe(s, "d") end },
	{ "b:describe", "the description", function(s) b:describe("e", s) end },
	{ "b:tag", "the tag", function(s) b:tag("a", s) end },
	{ "b:tag", "the tag", function(s) b:tag("a", s, { k = 1 }) end },
	{ "b:tag", "a name or a string in the fields", function(s) b:tag("a", "g", { k = s }) end },
	{ "b:tag", "a name or a string in the fields", function(s) b:tag("a", "g", { [s] = 1 }) end },
	{ "b:tag", "a name or a string in the fields",
	    function(s) b:tag("a", "g", { k = { 1, { deep = s } } }) end },
	{ "b:event", "the entity name", function(s) b:event(5, s, "go") end },
	{ "b:event", "the event name", function(s) b:event(5, "e", s) end },
	{ "b:event", "the target", function(s) b:event(5, "e", "go", s) end },
	{ "b:event", "a name or a string in the fields", function(s) b:event(5, "e", "go", nil, { id = s }) end },
	{ "b:event", "a name or a string in the fields", function(s) b:event(5, "e", "go", nil, { note = s }) end },
	{ "b:event", "a name or a string in the fields", function(s) b:event(5, "e", "go", nil, { [s] = 1 }) end },
	{ "statemap.new", "a state name", function(s) sm.new{ states = { "a", s } } end },
	{ "statemap.new", "a state name", function(s) sm.new{ states = { [s] = { value = 0 } } } end },
	{ "statemap.new", "the title", function(s) sm.new{ states = { "a" }, title = s } end },
	{ "statemap.new", "the host", function(s) sm.new{ states = { "a" }, host = s } end },
	{ "statemap.new", "the entity kind", function(s) sm.new{ states = { "a" }, entity_kind = s } end },
}
local wrong = {}
for _, c in ipairs(calls) do
	for i, s in ipairs(bad) do
		local ok, err = pcall(c[3], s)
		local want = c[1] .. ": " .. c[2] .. " is not valid UTF-8 text"
		if ok or not tostring(err):find(want, 1, true) then
			wrong[#wrong + 1] = c[1] .. " " .. c[2] .. " #" .. i .. ": " ..
			    (ok and "accepted" or tostring(err))
		end
	end
end
check_eq("builder: every string not UTF-8 refused, naming the call and the argument", wrong, {})

-- A refused call changed nothing: what was built is what was accepted.
b:event(6, "e", "go", "n", { id = "m1", note = "né" })
b:tag("a", "g", { k = "vé" })
b:describe("e", "dé")
local t = b:finish(10)
local names = {}
for _, e in ipairs(t:entities()) do names[#names + 1] = e.name end
check_eq("builder: refused calls left no entity", names, { "e", "v", "n" })
local nev = 0
for _ in t:events{} do nev = nev + 1 end
check_eq("builder: refused calls left no event", nev, 1)
check_eq("builder: refused calls left no tag", #t.tags, 1)
check_eq("builder: the accepted description", t:entity("e").description, "dé")

-- The builder's trace, drawn as the interactive SVG: well-formed XML.
do
	local svg = unit.tmpname(".svg")
	sm.render{ output = svg, trace = t, interactive = true }
	well_formed("builder: the interactive SVG of a built trace is well-formed", svg)
	check("builder: no byte that is not UTF-8 in the interactive SVG", utf8.len(read(svg)) ~= nil)
	os.remove(svg)
end

-- ---- noncharacters ----

-- Each kind in every kind of name: U+FDD0, U+FDEF, U+FFFE, U+FFFF,
-- U+1FFFE, U+1FFFF, U+10FFFE, U+10FFFF (JSON escapes, surrogate pairs
-- for those past U+FFFF).
local nc = { "\\ufdd0", "\\ufdef", "\\ufffe", "\\uffff", "\\ud83f\\udffe", "\\ud83f\\udfff",
    "\\udbff\\udffe", "\\udbff\\udfff" }
local path = unit.tmpname(".out")
do
	local states = {}
	for i, c in ipairs(nc) do
		states[#states + 1] = ('"s%s": {"value": %d}'):format(c, i - 1)
	end
	local lines = {
		('{"start": [0, 0], "title": "t%s%s", "host": "h%s", "entityKind": "K%s", "states": {%s}}')
		    :format(nc[1], nc[7], nc[3], nc[8], table.concat(states, ", ")),
		('{"state": 1, "tag": "g%s", "m%s": "v%s"}'):format(nc[3], nc[4], nc[5]),
	}
	for i, c in ipairs(nc) do
		local e = "e" .. c
		lines[#lines + 1] = ('{"entity": "%s", "description": "d%s"}'):format(e, nc[9 - i])
		lines[#lines + 1] = ('{"time": "%d", "entity": "%s", "state": %d}'):format(i, e, i - 1)
		lines[#lines + 1] = ('{"time": "%d", "entity": "%s", "state": 1, "tag": "g%s"}')
		    :format(i + 10, e, nc[3])
		lines[#lines + 1] = ('{"time": "%d", "entity": "%s", "event": "ev%s", "target": "x%s"}')
		    :format(i + 20, e, c, nc[9 - i])
	end
	local f = assert(io.open(path, "w"))
	f:write(table.concat(lines, "\n"), "\n")
	f:close()
end
local nt = sm.load(path, { cache = false })
check_eq("noncharacters: the trace holds them", { #nt:entities(), #nt.states, nt.title },
    { 8, 8, "t\u{fdd0}\u{10fffe}" })

-- A built trace holds them too (they are valid UTF-8), as a value and a
-- nested entity's states.
local nb = sm.new{ states = { "s\u{fdd0}", "s\u{10ffff}" }, title = "b\u{ffff}" }
nb:set(0, "n\u{fffe}", "s\u{fdd0}")
nb:push(5, "n\u{fffe}", "s\u{10ffff}")
nb:value(0, "v\u{1fffe}", "x\u{fdef}")
nb:value(5, "v\u{1fffe}", "y\u{ffff}")
nb:describe("n\u{fffe}", "d\u{fffe}")
local bt = nb:finish(10)

for _, case in ipairs{ { "a loaded trace", nt }, { "a built trace", bt } } do
	local what, tr = case[1], case[2]
	for _, ext in ipairs{ ".png", ".pdf", ".svg" } do
		local out = unit.tmpname(ext)
		local ok, err = pcall(sm.render, { output = out, trace = tr, title = "T\u{fffe}" })
		check("noncharacters: " .. what .. " renders as " .. ext, ok, err)
		if ok and ext == ".svg" then
			well_formed("noncharacters: " .. what .. ", Cairo's SVG is well-formed", out)
		end
		os.remove(out)
	end
	local svg = unit.tmpname(".svg")
	local ok, err = pcall(sm.render, { output = svg, trace = tr, interactive = true })
	check("noncharacters: " .. what .. " renders as the interactive SVG", ok, err)
	if ok then
		well_formed("noncharacters: " .. what .. ", the interactive SVG is well-formed", svg)
	end
	os.remove(svg)
end
os.remove(path)
