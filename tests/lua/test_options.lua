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

-- Every function that takes an option table, every key: a value of the
-- wrong type, a time that is no duration, a list with an item of the
-- wrong type.  Each error names the function and the key, and none is
-- an argument number (reading a field once said "bad argument #3 to
-- 'load'", an item of a list "#-2", or "#-1 to '?'").
do
	local mt = sm.load(here .. "/../golden/event-messages/input.out")
	local svg = unit.tmpname(".svg")
	local calls = {
		["statemap.load"] = function(o) return sm.load(path, o) end,
		["statemap.new"] = function(o)
			if o.states == nil then o.states = { "a" } end
			return sm.new(o)
		end,
		["statemap.merge"] = function(o) o[1], o[2] = t, mt return sm.merge(o) end,
		render = function(o)
			if o.output == nil then o.output = png end
			if o.trace == nil and o.panels == nil then o.trace = t end
			return sm.render(o)
		end,
		["render (a panel)"] = function(o)
			o.trace = o.trace or t
			return sm.render{ output = png, panels = { o } }
		end,
		["render (interactive)"] = function(o)
			o.output, o.trace, o.interactive = svg, t, true
			return sm.render(o)
		end,
		columns = function(o) o[1] = "start" return t:columns(o) end,
		reduce = function(o) if o.by == nil then o.by = "state" end return t:reduce(o) end,
		events = function(o) return t:events(o) end,
		intervals = function(o) return t:intervals(o) end,
		serve = function(o) return sm.serve(t, o) end,
		flows = function(o) return mt:flows(o)() end,
		align = function(o) return mt:align(o) end,
		["b:event"] = function(o)
			local b = sm.new{ states = { "a" } }
			return b:event(0, "e", "go", nil, o)
		end,
		["layout.default"] = function(o) return sm.layout.default(t, o) end,
		["layout.render"] = function(o) return sm.layout.render(t, png, o) end,
		["layout.panels_by"] = function(o) return sm.layout.panels_by(t, function(e) return e.name end, o) end,
	}
	-- function, key, a value it refuses, and the start of the error.
	local cases = {
		{ "statemap.load", "begin", {}, "statemap.load: begin must be" },
		{ "statemap.load", "end", "soon", 'statemap.load: end: bad time "soon"' },
		{ "statemap.load", "duration", -1, "statemap.load: duration must be" },
		{ "statemap.load", "filter", 5, "statemap.load: filter must be a string" },
		{ "statemap.new", "title", {}, "statemap.new: title must be a string" },
		{ "statemap.new", "host", 5, "statemap.new: host must be a string" },
		{ "statemap.new", "entity_kind", {}, "statemap.new: entity_kind must be a string" },
		{ "statemap.new", "start", 5, "statemap.new: start must be" },
		{ "statemap.new", "start", { "x" }, "statemap.new: start is {seconds, nanoseconds}" },
		{ "statemap.new", "states", 5, "statemap.new: states must be" },
		{ "statemap.new", "states", { {} }, "statemap.new: state 1 is not a name" },
		{ "statemap.merge", "offsets", 5, "statemap.merge: offsets must be" },
		{ "statemap.merge", "offsets", { {} }, "statemap.merge: an offset must be" },
		{ "statemap.merge", "offsets", { "soon" }, 'statemap.merge: an offset: bad time "soon"' },
		{ "statemap.merge", "prefixes", "a", "statemap.merge: prefixes must be" },
		{ "statemap.merge", "prefixes", { 5, {} }, "statemap.merge: prefixes must be a list of 2 strings" },
		{ "render", "output", 5, "render: output must be a file name" },
		{ "render", "panels", 5, "render: panels must be" },
		{ "render", "panels", { 5 }, "render: panel 1 is not a table" },
		{ "render", "width", "x", "render: width must be an integer" },
		{ "render", "margin", {}, "render: margin must be an integer" },
		{ "render", "coalesce", "x", "render: coalesce must be an integer" },
		{ "render", "font", 5, "render: font must be a string" },
		{ "render", "font_size", "x", "render: font_size must be an integer" },
		{ "render", "background", 5, "render: background must be a colour" },
		{ "render", "foreground", {}, "render: foreground must be a colour" },
		{ "render", "empty", "nocolour", "render: empty must be a colour" },
		{ "render", "labels", 5, "render: labels must be" },
		{ "render", "from", {}, "render: from must be a time" },
		{ "render", "to", "soon", 'render: to: bad time "soon"' },
		{ "render", "trace", 5, "render: a panel needs trace = a loaded trace" },
		{ "render", "entities", 5, "render: entities must be" },
		{ "render", "entities", { {} }, "render: entities: item 1 is a table, not an entity or a name" },
		{ "render", "entities", { "nope" }, 'render: entities: no entity "nope"' },
		{ "render", "title", {}, "render: title must be a string" },
		{ "render", "row_height", "x", "render: row_height must be an integer" },
		{ "render", "nested", 5, "render: nested must be" },
		{ "render", "group", "x", "render: group must be" },
		{ "render (a panel)", "entities", { {} }, "render: entities: item 1 is a table" },
		{ "render (a panel)", "row_height", {}, "render: row_height must be an integer" },
		{ "render (a panel)", "nested", {}, "render: nested must be" },
		{ "render (interactive)", "detail", {}, "render: detail must be" },
		{ "columns", "from", {}, "columns: from must be a time" },
		{ "columns", "to", "soon", 'columns: to: bad time "soon"' },
		{ "columns", "entities", 5, "columns: entities must be" },
		{ "columns", "entities", { "cpu0", {} }, "columns: entities: item 2 is a table, not an entity or a name" },
		{ "columns", "states", { {} }, "columns: states: item 1 is a table, not a state name" },
		{ "columns", "states", { "nope" }, 'columns: states: no state "nope"' },
		{ "reduce", "by", 5, "reduce: by must be a string" },
		{ "reduce", "field", {}, "reduce: field must be a string" },
		{ "reduce", "from", "soon", 'reduce: from: bad time "soon"' },
		{ "reduce", "entities", { {} }, "reduce: entities: item 1 is a table" },
		{ "reduce", "states", { true }, "reduce: states: item 1 is a boolean, not a state name" },
		{ "events", "from", "soon", 'events: from: bad time "soon"' },
		{ "events", "to", {}, "events: to must be a time" },
		{ "events", "entities", { {} }, "events: entities must be a list of names" },
		{ "events", "events", 5, "events: events must be" },
		{ "intervals", "from", {}, "intervals: from must be a time" },
		{ "intervals", "to", "soon", 'intervals: to: bad time "soon"' },
		{ "intervals", "entities", { {} }, "intervals: entities: item 1 is a table, not an entity or a name" },
		{ "intervals", "states", { {} }, "intervals: states: item 1 is a table, not a state name" },
		{ "serve", "port", "x", "serve: port must be an integer" },
		{ "serve", "bind", {}, "serve: bind must be a string" },
		{ "serve", "title", 5, "serve: title must be a string" },
		{ "serve", "sort", {}, "serve: sort must be a string" },
		{ "serve", "coalesce", "x", "serve: coalesce must be an integer" },
		{ "flows", "from", "soon", 'flows: from: bad time "soon"' },
		{ "flows", "to", {}, "flows: to must be a time" },
		{ "flows", "status", { {} }, "flows: unknown status table" },
		{ "flows", "node", 5, "flows: node must be a function" },
		{ "flows", "node", function() return {} end, "flows: the node function returned a table" },
		{ "align", "reference", 5, "align: reference must be a string" },
		{ "align", "node", function() return 5 end, "align: the node function returned a number" },
		{ "b:event", "end", {}, "b:event: end must be a time" },
		{ "b:event", "end", "soon", 'b:event: end: bad time "soon"' },
		{ "layout.default", "sort", 5, "layout.default: sort must be" },
		{ "layout.default", "max_height", "x", "layout.default: max_height must be" },
		{ "layout.render", "sort", "nope", 'layout.render: sort must be "name", a state name or a function of an entity, not "nope"' },
		{ "layout.render", "from", "soon", 'render: from: bad time "soon"' },
		{ "layout.panels_by", "max_height", {}, "layout.panels_by: max_height must be" },
	}
	local wrong = {}
	for _, c in ipairs(cases) do
		local ok, err = pcall(calls[c[1]], { [c[2]] = c[3] })
		err = tostring(err)
		if ok or not err:find(c[4], 1, true) or err:find("bad argument #", 1, true) then
			wrong[#wrong + 1] = c[1] .. " " .. c[2] .. ": " .. (ok and "no error" or err)
		end
	end
	check_eq("each bad option's error names the function and the key (" .. #cases .. " cases)", wrong, {})
	check_eq("every function with options was tried", (function()
		local seen, missing = {}, {}
		for _, c in ipairs(cases) do seen[c[1]] = true end
		for name in pairs(calls) do if not seen[name] then missing[#missing + 1] = name end end
		return missing
	end)(), {})
	-- Lists given as arguments, and a time argument, name the function.
	check_error("count_series: an item of its list", function() return t:count_series{ {} } end,
		"count_series: item 1 is a table, not a state name")
	check_error("group: an item of its priority list", function()
		return t:group(function() return "g" end, { {} }) end, "group: priority: item 1 is a table, not a state name")
	check_error("recolor: a colour of the wrong type", function() return t:recolor{ idle = {} } end,
		'recolor: the colour of state "idle" must be a string, not a table')
	check_error("a time argument that is no duration", function() return t:count_series({ "idle" }, "soon") end,
		"bad argument #2 to 'count_series' (bad time \"soon\": not a number)")
	os.remove(svg)
end

os.remove(png)
