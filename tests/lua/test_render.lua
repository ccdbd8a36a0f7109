-- Tests for statemap.render (src/lua/lua_render.c); the pixels themselves are
-- checked in tests/unit/test_render.c.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local t = sm.load(here .. "/../golden/json-basic/input.out")

local out = os.tmpname() .. ".png"
sm.render{ output = out, width = 400, trace = t, entities = t:sorted("user") }
local f = io.open(out, "rb")
local head = f and f:read(8)
if f then f:close() end
check_eq("render writes a PNG", head, "\137PNG\r\n\26\n")
sm.render{ output = out, panels = { { trace = t }, { trace = t:map(function() return "x" end) } },
    title = "two panels", from = 100, to = 300 }
check("render stacks panels over a chosen span", io.open(out, "rb") ~= nil)
os.remove(out)
check_error("render wants an output", function() sm.render{ trace = t } end, "output = a file name")
check_error("render: an unknown format", function() sm.render{ output = "x.gif", trace = t } end,
    "must end in .png, .svg or .pdf")
check_error("render: interactive is SVG", function()
	sm.render{ output = "x.png", trace = t, interactive = true } end, "interactive output is SVG")
check_error("render wants a trace", function() sm.render{ output = out, trace = 5 } end,
    "a panel needs trace")
check_error("render: a bad width", function() sm.render{ output = out, trace = t, width = 0 } end,
    "width must be an integer")
check_error("render: an empty span", function() sm.render{ output = out, trace = t, from = 300, to = 300 } end,
    "render: the range from 300ns to 300ns is empty")
check_error("render: entities of another kind", function()
	sm.render{ output = out, trace = t, entities = { "nosuch" } } end, "no entity \"nosuch\"")
check("render leaves no file behind on errors", io.open(out, "rb") == nil)

-- The layout returned tells where the strips are: read pixels back with
-- the PNG through a tiny PNG reader is C's job (test_render.c); here check
-- the numbers hang together.
do
	local png = os.tmpname() .. ".png"
	local lay = sm.render{ output = png, trace = t, width = 500, row_height = 12 }
	check_eq("render returns its size", { lay.width, lay.strip_x + lay.strip_width <= 500 }, { 500, true })
	check("render returns where each panel starts", #lay.panel_y == 1 and lay.panel_y[1] > 0
	    and lay.panel_y[1] + 2 * 12 < lay.height)
	os.remove(png)
end

-- Vector output: SVG that xmllint accepts, PDF that pdfinfo reads.
local function shell_ok(cmd) local ok = os.execute(cmd .. " >/dev/null 2>&1"); return ok == true end
do
	local svg, pdf, isvg = os.tmpname() .. ".svg", os.tmpname() .. ".pdf", os.tmpname() .. ".svg"
	sm.render{ output = svg, trace = t, title = "a <b>&amp; title" }
	check("render: SVG output is well-formed XML", shell_ok("xmllint --noout " .. svg))
	sm.render{ output = pdf, panels = { { trace = t, title = "first" },
	    { trace = t:count({ "user" }, "busy"), title = "busy CPUs", row_height = 20, events = false } } }
	check("render: PDF output is a valid PDF", shell_ok("pdfinfo " .. pdf))
	local f = io.open(pdf, "rb"); local head = f:read(5); f:close()
	check_eq("render: PDF output starts as a PDF", head, "%PDF-")
	-- The interactive statemap of the command line, from a script's order.
	sm.render{ output = isvg, trace = t, entities = { "cpu0", "cpu1" }, interactive = true }
	local text = io.open(isvg):read("a")
	check("render: interactive SVG is well-formed", shell_ok("xmllint --noout " .. isvg))
	check("render: interactive SVG keeps the script's order",
	    (text:find(">cpu0<", 1, true) or math.huge) < (text:find(">cpu1<", 1, true) or 0))
	check("render: interactive SVG has the viewer's data", text:find('id="statemap-data"', 1, true) ~= nil)
	os.remove(svg); os.remove(pdf); os.remove(isvg)
end

-- The same picture twice is the same bytes (PNG has no timestamp).
do
	local a, b = os.tmpname() .. ".png", os.tmpname() .. ".png"
	sm.render{ output = a, trace = t }; sm.render{ output = b, trace = t }
	check("render: PNG output is deterministic", io.open(a, "rb"):read("a") == io.open(b, "rb"):read("a"))
	os.remove(a); os.remove(b)
end
do
	local png = os.tmpname() .. ".png"
	check("render: colours and fonts are options", pcall(sm.render, { output = png, trace = t,
	    background = "black", foreground = "#fff", empty = "#333333", font = "monospace",
	    font_size = 9, margin = 0, legend = false, coalesce = 10 }))
	os.remove(png)
end
check_error("render: a bad colour", function()
	sm.render{ output = out, trace = t, background = "nocolour" } end, "background must be a colour")
check_error("render: a bad time", function()
	sm.render{ output = out, trace = t, from = "soon" } end, "bad time")
check_error("render: too tall", function()
	sm.render{ output = out, trace = t, row_height = 1000, panels = { { trace = t }, { trace = t },
	    { trace = t }, { trace = t }, { trace = t }, { trace = t }, { trace = t }, { trace = t },
	    { trace = t }, { trace = t }, { trace = t }, { trace = t }, { trace = t }, { trace = t },
	    { trace = t }, { trace = t }, { trace = t } } } end, "pixels tall")
check("render: no file after those errors", io.open(out, "rb") == nil)

-- From a script, the interactive SVG of entities in natural name order is
-- byte for byte the command line's (tests/run sets $SM to the program).
if os.getenv("SM") then
	for _, name in ipairs({ "db-threads.out", "cpu.out" }) do
		local path = here .. "/../../examples/data/" .. name
		local a, b = os.tmpname() .. ".svg", os.tmpname() .. ".svg"
		local tr = sm.load(path)
		sm.render{ output = a, trace = tr, entities = tr:sorted(), interactive = true }
		os.execute(string.format("%q -o %q %q 2>/dev/null", os.getenv("SM"), b, path))
		local fa, fb = io.open(a, "rb"), io.open(b, "rb")
		check("render: interactive SVG of " .. name .. " equals the command line's",
		    fa and fb and fa:read("a") == fb:read("a"))
		if fa then fa:close() end
		if fb then fb:close() end
		os.remove(a); os.remove(b)
	end
end
check_error("render: a negative time names its field", function()
	sm.render{ output = out, trace = t, from = -1 } end, "render: from must be a time")
check_error("render: a fractional ns names its field", function()
	sm.render{ output = out, trace = t, to = 1.5 } end, "render: to must be a time")
do
	local png = os.tmpname() .. ".png"
	check("render: a span past the data draws empty strips",
	    pcall(sm.render, { output = png, trace = t, from = 1e12, to = 1e12 + 100 }))
	check("render: no entities is an empty panel", pcall(sm.render, { output = png, trace = t, entities = {} }))
	check("render: invalid UTF-8 in a title is drawn, not fatal",
	    pcall(sm.render, { output = png, trace = t, title = "bad\255name\1" }))
	check("render: a control character in a name is drawn, not fatal",
	    pcall(sm.render, { output = png, trace = t:rename{ cpu0 = "bad\1name" } }))
	os.remove(png)
end
-- A PNG that cannot be written (a full disk) is an error naming the file.
do
	local full = os.tmpname() .. ".png"
	os.remove(full)
	if os.execute(string.format("ln -s /dev/full %q", full)) then
		check_error("render: a PNG to a full disk", function()
			sm.render{ output = full, trace = t, width = 1920, row_height = 40 } end,
		    full .. ": cannot write the picture: No space left on device")
		os.remove(full)
	end
end

-- The text of a PDF (pdftotext, from poppler-utils), or nil if it is not
-- installed.
local function pdf_text(path)
	if not shell_ok("command -v pdftotext") then return nil end
	local p = io.popen(string.format("pdftotext -layout %q - 2>/dev/null", path))
	local text = p:read("a")
	p:close()
	return text
end

-- Panels that share a legend (the same states) share it whole: a state
-- only a later panel shows is in it, and times and shares are summed over
-- all of them.  Over [0, 150): cpu1 is idle 150ns; cpu0 idle 100, user 50.
do
	local pdf = os.tmpname() .. ".pdf"
	sm.render{ output = pdf, from = 0, to = 150, panels = {
	    { trace = t, entities = { "cpu1" } }, { trace = t, entities = { "cpu0" } } } }
	local text = pdf_text(pdf)
	if text == nil then
		unit.skip("render: the legend covers every panel sharing it", "no pdftotext")
	else
		check("render: the legend covers every panel sharing it",
		    text:find("user 50ns (16.7%)", 1, true) ~= nil, text)
		check("render: the legend sums times over the panels sharing it",
		    text:find("idle 250ns (83.3%)", 1, true) ~= nil, text)
	end
	os.remove(pdf)
end

-- The time axis is labelled with times since the trace's start, whatever
-- the window, and says where the window starts.
do
	local pdf = os.tmpname() .. ".pdf"
	local cpu = sm.load(here .. "/../../examples/data/cpu.out")
	sm.render{ output = pdf, trace = cpu, from = "1s", to = "1.5s" }
	local text = pdf_text(pdf)
	if text == nil then
		unit.skip("render: the axis shows the window's own times", "no pdftotext")
	else
		local axis = text:match("[^\n]*1%.05s[^\n]*") or ""
		check("render: the axis shows the window's own times",
		    axis:find("1s", 1, true) and axis:find("1.1s", 1, true) and
		    axis:find("1.5s", 1, true) and not axis:find("ms", 1, true), text)
		check("render: the picture says where the window starts",
		    text:find("from 1.000s, span 500.000ms", 1, true) ~= nil, text)
		sm.render{ output = pdf, trace = cpu, from = "1000s", to = "1000.00000001s" }
		text = pdf_text(pdf)
		check("render: axis labels far from the start keep every digit",
		    text:find("1000.00000001s", 1, true) ~= nil and
		    text:find("from 1000.000000000s, span 10ns", 1, true) ~= nil, text)
	end
	os.remove(pdf)
end

-- Entity labels: the name and the description ("both", the default), or
-- either, as render{labels =} says, in PDF, SVG and PNG alike (the
-- layout is shared: the label column is as wide as the labels need).
do
	local pdf, svg, png = os.tmpname() .. ".pdf", os.tmpname() .. ".svg", os.tmpname() .. ".png"
	local strip_x, glyphs = {}, {}
	for _, mode in ipairs({ "both", "name", "description" }) do
		strip_x[mode] = sm.render{ output = png, trace = t, labels = mode }.strip_x
		sm.render{ output = svg, trace = t, labels = mode }
		local f = io.open(svg); local _, n = f:read("a"):gsub("<use ", ""); f:close()
		glyphs[mode] = n	-- Cairo's SVG draws text as glyphs, one <use> each
		sm.render{ output = pdf, trace = t, labels = mode }
		local text = pdf_text(pdf)
		if text == nil then
			unit.skip("render: labels = " .. mode, "no pdftotext")
		elseif mode == "both" then
			check("render: labels show the name and the description",
			    text:find("cpu1 second CPU", 1, true) ~= nil, text)
		elseif mode == "name" then
			check("render: labels = \"name\" shows names alone",
			    text:find("cpu1", 1, true) and not text:find("second", 1, true), text)
		else
			check("render: labels = \"description\" shows descriptions, or names",
			    text:find("second CPU", 1, true) and not text:find("cpu1", 1, true) and
			    text:find("cpu0", 1, true), text)
		end
	end
	check("render: a PNG's label column fits descriptions", strip_x.both > strip_x.description and
	    strip_x.description > strip_x.name, unit.show(strip_x))
	check("render: an SVG picture labels with descriptions", glyphs.both > glyphs.name, unit.show(glyphs))
	os.remove(pdf); os.remove(svg); os.remove(png)
end

-- Long labels are cut at a character boundary with an ellipsis, and the
-- label column is capped (24 characters' width, or a quarter of the
-- picture).
do
	local path, pdf = os.tmpname(), os.tmpname() .. ".pdf"
	local f = io.open(path, "w")
	f:write('{"start": [0, 0], "states": {"a": {"value": 0}}}\n',
	    '{"entity": "7", "description": "', string.rep("\u{e9}", 200), '"}\n',
	    '{"time": "0", "entity": "7", "state": 0}\n',
	    '{"time": "0", "entity": "', string.rep("x", 300), '", "state": 0}\n',
	    '{"time": "10", "entity": "7", "state": 0}\n')
	f:close()
	local long = sm.load(path, { cache = false })
	local lay = sm.render{ output = pdf, trace = long }
	check("render: the label column is capped", lay.strip_x <= 10 + 11 * 24 + 6, lay.strip_x)
	local text = pdf_text(pdf)
	if text == nil then
		unit.skip("render: long labels are cut", "no pdftotext")
	else
		check("render: a long description is cut at a character, with an ellipsis",
		    text:find("7 \u{e9}\u{e9}\u{e9}[\u{e9}]*\u{2026}") ~= nil and
		    not text:find("?", 1, true) and utf8.len(text) ~= nil, text)
		check("render: a long name is cut with an ellipsis",
		    text:find("xxxx\u{2026}") ~= nil, text)
	end
	os.remove(path); os.remove(pdf)
end

-- The pixels of a PDF's page at 72 dpi (a pixel a point), through
-- pdftoppm: a function (x, y) -> r, g, b, or nil if pdftoppm is missing.
local function pdf_pixels(pdf)
	if not shell_ok("command -v pdftoppm") then return nil end
	local base = os.tmpname()
	os.execute(string.format("pdftoppm -r 72 -singlefile %q %q", pdf, base))
	local f = io.open(base .. ".ppm", "rb")
	os.remove(base); os.remove(base .. ".ppm")
	if not f then return nil end
	local data = f:read("a")
	f:close()
	local w, h, at = data:match("^P6%s+(%d+)%s+(%d+)%s+255%s()")
	w = tonumber(w)
	return function(x, y)
		local i = at + 3 * (y * w + x)
		return data:byte(i, i + 2)
	end
end

-- No data (here past the trace's end, at 400ns) is a grey hatch on the
-- empty colour, keyed in the legend, in vector output too.
do
	local pdf = os.tmpname() .. ".pdf"
	sm.render{ output = pdf, trace = t }
	local text = pdf_text(pdf)
	if text then
		check("render: no \"no data\" key when every strip has data",
		    not text:find("no data", 1, true), text)
	end
	local lay = sm.render{ output = pdf, trace = t, to = 600 }
	text = pdf_text(pdf)
	if text then
		check("render: a \"no data\" key when a strip shows none",
		    text:find("no data", 1, true) ~= nil, text)
	end
	local px = pdf_pixels(pdf)
	if px == nil then
		unit.skip("render: no data is hatched in a PDF", "no pdftoppm")
	else
		local darkest, lightest = 255, 0
		for y = lay.panel_y[1] + 1, lay.panel_y[1] + 18 do
			for x = lay.strip_x + lay.strip_width - 40, lay.strip_x + lay.strip_width - 2 do
				local r = px(x, y)
				darkest, lightest = math.min(darkest, r), math.max(lightest, r)
			end
		end
		check("render: no data is hatched in a PDF", darkest <= 0xd0 and lightest >= 0xf8,
		    darkest .. " to " .. lightest)
	end
	os.remove(pdf)
end

-- Events thinned where they are denser than the pixels show: 3000 on
-- one entity's row, a marker every 4 pixels, so every ceil(3000 /
-- (strip_width // 4))th is drawn and a note line under the panel says
-- so; "all" draws every one, false none (neither has the note), and
-- anything else is an error naming render and events.
do
	local name = unit.tmpname(".out")
	local fh = assert(io.open(name, "w"))
	fh:write('{"start": [0, 0], "states": {"a": {"value": 0}}}\n',
	    '{"time": "0", "entity": "e", "state": 0}\n',
	    '{"time": "0", "entity": "f", "state": 0}\n')
	for i = 1, 3000 do
		fh:write(('{"time": "%d", "entity": "e", "event": "tick"}\n'):format(i * 10))
	end
	fh:write('{"time": "40000", "entity": "e", "state": 0}\n')
	fh:close()
	local dense = sm.load(name, { cache = false })
	local png = unit.tmpname(".png")
	local thinned = sm.render{ output = png, trace = dense, width = 400 }
	local per_row = thinned.strip_width // 4
	check_eq("events: thinned by default, counted",
	    { thinned.events[1].count, thinned.events[1].step },
	    { 3000, (3000 + per_row - 1) // per_row })
	local all = sm.render{ output = png, trace = dense, width = 400, events = "all" }
	check_eq("events: all of them", { all.events[1].count, all.events[1].step }, { 3000, 1 })
	local none = sm.render{ output = png, trace = dense, width = 400, events = false }
	check_eq("events: none", none.events[1].count, 0)
	check_eq("events: the note takes a line under the thinned panel",
	    { thinned.height - all.height, all.height - none.height }, { 17, 0 })
	local sparse = sm.render{ output = png, trace = dense, width = 400, from = 0, to = 500 }
	check_eq("events: few in the span are all drawn, with no note",
	    { sparse.events[1].count, sparse.events[1].step, sparse.height }, { 49, 1, all.height })
	check_error("events: a bad value", function()
		sm.render{ output = png, trace = dense, events = "some" } end,
	    'render: events must be true, false or "all"')
	os.remove(png)
	os.remove(name)
end

-- A picture sized to its content: few entities get taller rows (80
-- pixels over them, 10 to 30 each) unless a row height is given; many
-- keep the default 10; the interactive SVG keeps the command's.
do
	local name = unit.tmpname(".out")
	local fh = assert(io.open(name, "w"))
	fh:write('{"start": [0, 0], "states": {"a": {"value": 0}, "b": {"value": 1}}}\n')
	for i = 1, 12 do
		fh:write(('{"time": "0", "entity": "e%02d", "state": %d}\n'):format(i, i % 2))
	end
	fh:write('{"time": "10", "entity": "e01", "state": 0}\n')
	fh:close()
	local many = sm.load(name, { cache = false })
	local png = unit.tmpname(".png")
	local three = { "e01", "e02", "e03" }
	local function rows(opts)
		local lay = sm.render(opts)
		return lay.strips[#lay.strips][1].height
	end
	check_eq("few rows: three entities get 26-pixel rows",
	    rows{ output = png, trace = many, entities = three }, 26)
	check_eq("few rows: one entity at most 30",
	    rows{ output = png, trace = many, entities = { "e01" } }, 30)
	check_eq("few rows: a row height given is kept",
	    rows{ output = png, trace = many, entities = three, row_height = 10 }, 10)
	check_eq("few rows: a panel's own row height is kept",
	    rows{ output = png, panels = { { trace = many, entities = three, row_height = 12 } } }, 12)
	check_eq("few rows: twelve entities keep 10",
	    rows{ output = png, trace = many }, 10)
	os.remove(png)
	os.remove(name)
end

-- Labels by Cairo's text extents (render returns each label's ink box
-- and its row): on a Chrome-like trace of path-named threads grouped
-- under headers, and on 60 kernel-like threads, in PNG and PDF at row
-- heights from 7 to 20, no two labels' boxes overlap, each stays inside
-- its own row and left of the strips.
do
	local name = unit.tmpname(".out")
	local fh = assert(io.open(name, "w"))
	fh:write('{"start": [0, 0], "states": {"run": {"value": 0}, "idle": {"value": 1}}}\n',
	    '{"entity": "CrRendererMain/101 Renderer: Main", "description": "main <&>"}\n',
	    '{"time": "0", "entity": "CrRendererMain/101 Renderer: Main", "state": 0}\n',
	    '{"time": "0", "entity": "Compositor/102 Renderer: Compositor", "state": 1}\n',
	    '{"time": "0", "entity": "CrBrowserMain/1 Browser: Main", "state": 0}\n')
	for i = 1, 60 do
		fh:write(('{"time": "%d", "entity": "kworker\\\\/%d:1/%d", "state": %d}\n'):format(i, i % 4, i, i % 2))
	end
	fh:write('{"time": "100", "entity": "CrBrowserMain/1 Browser: Main", "state": 1}\n')
	fh:close()
	local tr = sm.load(name, { cache = false })
	local chrome = {}
	for _, e in ipairs(tr:entities()) do
		if not e.name:find("^kworker") then chrome[#chrome + 1] = e.name end
	end
	local function overlap(a, b)
		return a.x < b.x + b.width and b.x < a.x + a.width and
		    a.y < b.y + b.height and b.y < a.y + a.height
	end
	for _, ext in ipairs({ ".png", ".pdf" }) do
		local out2 = unit.tmpname(ext)
		for _, case in ipairs({
			{ what = "chrome", entities = chrome, group = true },
			{ what = "chrome ungrouped", entities = chrome },
			{ what = "kernel threads", group = true },
		}) do
			for _, rh in ipairs({ 7, 10, 20 }) do
				local lay = sm.render{ output = out2, trace = tr, entities = case.entities,
				    group = case.group, row_height = rh, width = 900 }
				local bad = {}
				for i, a in ipairs(lay.labels) do
					if a.y < a.row_y - 0.5 or a.y + a.height > a.row_y + a.row_height + 0.5 then
						bad[#bad + 1] = ("label %d leaves its row"):format(i)
					end
					if a.x + a.width > lay.strip_x then
						bad[#bad + 1] = ("label %d runs into the strips"):format(i)
					end
					for j = i + 1, #lay.labels do
						if overlap(a, lay.labels[j]) then
							bad[#bad + 1] = ("labels %d and %d overlap"):format(i, j)
						end
					end
				end
				check_eq(("labels %s: %s at rows of %d, boxes apart and inside their rows"):format(
				    ext, case.what, rh), { #lay.labels > 0, bad }, { true, {} })
			end
		end
		os.remove(out2)
	end
	os.remove(name)
end

-- A legend of many states lists those with the most time and sums up the
-- others in one entry: 200 states make a few lines, not a page of 200
-- (a 1000-state trace's PNG was 21,068 pixels tall for 1148 of strips).
do
	local states = {}
	for i = 1, 200 do states["s" .. i] = { value = i - 1 } end
	local b = sm.new { states = states }
	-- s200 has the most time, s1 the least.
	for i = 1, 200 do b:set(1000 - 4 * i, "e" .. i, "s" .. i) end
	local built = b:finish(1000)
	local png = os.tmpname() .. ".png"
	local lay = sm.render{ output = png, trace = built, width = 400, row_height = 2, font_size = 10 }
	check("render: the legend of 200 states takes a few lines", lay.height < 1200, lay.height)
	os.remove(png)
	local pdf = os.tmpname() .. ".pdf"
	sm.render{ output = pdf, trace = built, width = 1600 }
	local text = pdf_text(pdf)
	if text == nil then
		unit.skip("render: a legend of 200 states sums up the others", "no pdftotext")
	else
		check("render: a legend of 200 states sums up the others",
		    text:find("177 other states", 1, true) ~= nil, text)
		check("render: the legend lists the states of most time",
		    text:find("s200 ", 1, true) ~= nil and text:find("s178 ", 1, true) ~= nil
		    and text:find("s177 ", 1, true) == nil, text)
	end
	os.remove(pdf)
end
