-- Tests for option tables (src/lua/lua_options.c): every binding reads
-- them with one reader per kind of value, and an error names the
-- function, the key, what the key takes and what it was given.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local sm = require "statemap"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local path = here .. "/../golden/json-basic/input.out"
local t = sm.load(path)
local png = unit.tmpname(".png")

local time = 'a time: ns as a non-negative integer, or a string like "1.5s"'

-- One kind each.
check_error("integer: out of range", function() sm.render{ output = png, trace = t, width = 0 } end,
    "render: width must be an integer from 1 to 32767, not 0")
check_error("integer: a string", function() sm.render{ output = png, trace = t, width = "wide" } end,
    'render: width must be an integer from 1 to 32767, not "wide"')
check_error("integer: a fraction", function() sm.serve(t, { port = 80.5 }) end,
    "serve: port must be an integer from 0 to 65535, not 80.5")
check("integer: a float with an integral value", pcall(sm.render, { output = png, trace = t, width = 300.0 }))
check_error("string", function() sm.serve(t, { bind = 5 }) end, "serve: bind must be a string, not 5")
check_error("string: not a number", function() sm.new{ states = { "a" }, title = 5 } end,
    "statemap.new: title must be a string, not 5")
check_error("time: of another type", function() t:intervals{ from = true } end,
    "intervals: from must be " .. time .. ", not true")
check_error("time: negative", function() t:events{ to = -1 } end, "events: to must be " .. time .. ", not -1")
check_error("time: no duration", function() t:intervals{ from = "soon" } end, 'intervals: from: bad time "soon"')
check_error("time: load", function() sm.load(path, { begin = {} }) end,
    "statemap.load: begin must be " .. time .. ", not a table")
check_error("choice", function() sm.render{ output = png, trace = t, labels = "x" } end,
    'render: labels must be "both", "name" or "description", not "x"')
check_error("colour", function() sm.render{ output = png, trace = t, background = 5 } end,
    "render: background must be a colour (#rrggbb, #rgb or a CSS name), not 5")
check_error("table", function() t:intervals{ entities = "cpu0" } end,
    'intervals: entities must be a list of entities or names, not "cpu0"')
check_error("table: events", function() t:events{ entities = 5 } end,
    "events: entities must be a list of names, not 5")
check_error("table: merge", function() sm.merge{ t, prefixes = "a" } end,
    'statemap.merge: prefixes must be a list of strings, not "a"')
check_error("table: new", function() sm.new{ states = { "a" }, start = 5 } end,
    "statemap.new: start must be {seconds, nanoseconds}, not 5")
check_error("function", function() t:flows{ node = 5 } end,
    "flows: node must be a function of an entity's name, not 5")
check_error("another kind, read by its function", function() t:flows{ status = true } end,
    "flows: status must be a name or a list of names, not true")

-- The options themselves.
check_error("options are a table", function() t:intervals(5) end, "table expected, got number")
check_eq("no options and nil are the same", #t:columns{ "start" }, #t:columns{ "start", from = nil })
check_error("an unknown option, where refused", function() t:columns{ "start", form = 1 } end,
    'columns: unknown option "form" (options are from, to, entities, states)')
check_error("... naming every key", function() t:reduce{ by = "state", x = 1 } end,
    'reduce: unknown option "x" (options are from, to, entities, states, by, field)')
check("an unknown option elsewhere is ignored, as it was", pcall(t.intervals, t, { form = 1 }))
check_eq("a boolean", t:at(150, { intervals = true }).cpu0.state, "user")
local fields = setmetatable({}, { __index = function(_, k) if k == "from" then return 300 end end })
local n = 0
for _ in t:intervals(fields) do n = n + 1 end
check_eq("fields are read through __index", n, 2)

os.remove(png)
