-- Colours too close to tell apart (issue 36; src/render/render.c,
-- color_distance in src/base/color.c): a picture says once on standard
-- error which two states cannot be told apart, and which state cannot
-- be told from the background; distinct colours say nothing.
local sm = require "statemap"
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq = unit.check, unit.check_eq
local SM = os.getenv("SM") or (here .. "/../../statemap-lua")

check("#f9f9f9 and #f0f0f0 are too close", sm and true and
    (function()
	local path = unit.tmpname(".out")
	local f = assert(io.open(path, "w"))
	f:write('{"start": [0, 0], "title": "close", "states": {"idle": {"value": 0, "color": "#f9f9f9"}, ',
	    '"dead": {"value": 1, "color": "#f0f0f0"}, "run": {"value": 2, "color": "#2ca02c"}}}\n',
	    '{"time": "0", "entity": "a", "state": 0}\n{"time": "5", "entity": "a", "state": 1}\n',
	    '{"time": "3", "entity": "b", "state": 2}\n{"time": "10", "entity": "b", "state": 0}\n')
	f:close()
	local png = unit.tmpname(".png")
	local p = io.popen("'" .. SM .. "' --no-cache -E 'statemap.render{trace = t, output = \"" .. png ..
	    "\"} statemap.render{trace = t, output = \"" .. png .. "\"}' '" .. path .. "' 2>&1")
	local out = p:read("a")
	p:close()
	os.remove(path)
	os.remove(png)
	local want = 'statemap-lua: warning: state "idle" (#f9f9f9) is too close in colour to the background ' ..
	    '(#ffffff) to be seen\n' ..
	    'statemap-lua: warning: states "idle" (#f9f9f9) and "dead" (#f0f0f0) are too close in colour ' ..
	    'to tell apart\n'
	check_eq("said once, however many pictures of the trace a process draws", out, want)
	return true
end)())

-- Distinct colours: nothing said (the bundled db-threads.out has the
-- two near-whites above, and says so).
local png = unit.tmpname(".png")
local p = io.popen("'" .. SM .. "' --no-cache -E 'statemap.render{trace = t, output = \"" .. png .. "\"}' '" ..
    here .. "/../browser/plain.out' 2>&1")
local out = p:read("a")
p:close()
os.remove(png)
check_eq("distinct colours: no warning", out, "")

-- render{palette=}: the trace's states drawn in a palette's colours
-- (statemap.palette.apply), which here separate: nothing said.
do
	local path = unit.tmpname(".out")
	local f = assert(io.open(path, "w"))
	f:write('{"start": [0, 0], "states": {"idle": {"value": 0, "color": "#f9f9f9"}, ',
	    '"dead": {"value": 1, "color": "#f0f0f0"}}}\n',
	    '{"time": "0", "entity": "a", "state": 0}\n{"time": "5", "entity": "a", "state": 1}\n',
	    '{"time": "10", "entity": "a", "state": 0}\n')
	f:close()
	local t = sm.load(path, { cache = false })
	local out2 = unit.tmpname(".png")
	local lay = sm.render{ trace = t, output = out2, palette = "okabe_ito" }
	check("render{palette=} draws", lay.width == 1600)
	os.remove(out2)
	local q = io.popen("'" .. SM .. "' --no-cache -E 'statemap.render{trace = t, output = \"" .. out2 ..
	    "\", palette = \"okabe_ito\"}' '" .. path .. "' 2>&1")
	local said = q:read("a")
	q:close()
	os.remove(out2)
	check_eq("render{palette=}: the palette's colours separate, nothing said", said, "")
	unit.check_error("render{palette=} of a number", function()
		sm.render{ trace = t, output = out2, palette = 3 }
	end, "render: palette must be")
	unit.check_error("render{palette=} of no palette", function()
		sm.render{ trace = t, output = out2, palette = "nope" }
	end, 'render: palette: no palette "nope"')
	os.remove(path)
end
