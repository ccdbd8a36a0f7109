-- statemap.render of the generic state system (src/render/): value
-- strips with their range, nested entities one sub-row per depth
-- (nested = "rows"), groups by path prefix (group = true), in PNG, SVG
-- and PDF.  The pixels are checked in tests/unit/test_render.c; here the
-- layout render returns, the text of a PDF and the options' errors.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

local function shell_ok(cmd) local ok = os.execute(cmd .. " >/dev/null 2>&1"); return ok == true end

local b = sm.new { title = "state system", states = { "idle", "run", "io" } }
b:set(0, "proc/12/t1", "idle")
b:push(100, "proc/12/t1", "run")
b:push(200, "proc/12/t1", "io")
b:pop(300, "proc/12/t1")
b:pop(400, "proc/12/t1")
b:set(0, "cpu0", "run")
b:set(0, "proc/12/t2", "io")
b:value(0, "proc/12/rss", 10)
b:value(250, "proc/12/rss", 40)
b:value(600, "proc/12/rss", 20)
b:value(0, "mem/name", "alpha")
b:value(300, "mem/name", "beta")
b:value(700, "mem/name", nil)
b:value(995, "mem/name", "toolongtofit")
b:set(0, "proc/13/t1", "run")
local t = b:finish(1000)
local names = {}
for i, e in ipairs(t:entities()) do names[i] = e.name end
check_eq("the entities, in order", names,
    { "proc/12/t1", "cpu0", "proc/12/t2", "proc/12/rss", "mem/name", "proc/13/t1" })

-- Where each strip is, by the order given: {y, height}.
local function strips(lay)
	local out = {}
	for i, s in ipairs(lay.strips[1]) do out[i] = { s.y, s.height } end
	return out
end

for _, ext in ipairs { ".png", ".svg", ".pdf" } do
	local out = unit.tmpname(ext)
	-- Plain: a row each, in order; a value strip two rows.
	local lay = sm.render { output = out, trace = t, row_height = 12 }
	local y = lay.panel_y[1]
	check_eq("render" .. ext .. ": a row each, a value strip two", strips(lay), {
		{ y, 12 }, { y + 12, 12 }, { y + 24, 12 }, { y + 36, 24 }, { y + 60, 24 }, { y + 84, 12 } })
	-- Nested rows and groups as a tree: proc, and under it 12 (t1 three
	-- rows deep, t2, rss) and 13 (t1); cpu0; mem (name): a header row for
	-- each level, levels where their first entity is.
	lay = sm.render { output = out, trace = t, row_height = 12, nested = "rows", group = true }
	y = lay.panel_y[1]
	check_eq("render" .. ext .. ": groups under headers, a sub-row per depth", strips(lay), {
		{ y + 24, 36 }, { y + 120, 12 }, { y + 60, 12 }, { y + 72, 24 }, { y + 144, 24 }, { y + 108, 12 } })
	-- group = 1: the first level only: proc (12/t1, 12/t2, 12/rss,
	-- 13/t1), cpu0, mem (name).
	local lay1 = sm.render { output = out, trace = t, row_height = 12, nested = "rows", group = 1 }
	check_eq("render" .. ext .. ": group = 1, the first level only", strips(lay1), {
		{ y + 12, 36 }, { y + 96, 12 }, { y + 48, 12 }, { y + 60, 24 }, { y + 120, 24 }, { y + 84, 12 } })
	local lay2 = sm.render { output = out, trace = t, row_height = 12, nested = "rows", group = 2 }
	check_eq("render" .. ext .. ": group = 2, the whole tree here", strips(lay2), strips(lay))
	if ext == ".svg" and shell_ok("command -v xmllint") then
		check("render.svg: well-formed XML", shell_ok("xmllint --noout " .. out))
	end
	if ext == ".pdf" then
		if not shell_ok("command -v pdftotext") then
			unit.skip("render.pdf: the labels", "no pdftotext")
		else
			local p = io.popen(string.format("pdftotext -layout %q - 2>/dev/null", out))
			local text = p:read("a")
			p:close()
			check("render.pdf: a value strip's range under its name",
			    text:find("min 10, max 40", 1, true) ~= nil, text)
			check("render.pdf: a string entity says so", text:find("strings", 1, true) ~= nil, text)
			check("render.pdf: strings written on their runs where they fit",
			    text:find("alpha", 1, true) ~= nil and text:find("beta", 1, true) ~= nil and
			    text:find("toolongtofit", 1, true) == nil, text)
			check("render.pdf: the group headers, inner levels indented by the rest of their path",
			    text:find("\nproc\n", 1, true) ~= nil and text:find("\n%s+12\n") ~= nil and
			    text:find("\n%s+13\n") ~= nil and text:find("\nmem\n", 1, true) ~= nil and
			    text:find("proc/12", 1, true) == nil, text)
			check("render.pdf: members by the rest of their names",
			    text:find("%f[%w]rss") ~= nil and text:find("proc/12/rss", 1, true) == nil, text)
			check("render.pdf: value strips need no legend entry",
			    text:find("idle 700ns", 1, true) ~= nil and text:find("rss ", 1, true) == nil, text)
		end
	end
	os.remove(out)
end

-- A slice's picture: the range is over the span drawn.
do
	local pdf = unit.tmpname(".pdf")
	sm.render { output = pdf, trace = t, entities = { "proc/12/rss" }, from = 300, to = 700 }
	if shell_ok("command -v pdftotext") then
		local p = io.popen(string.format("pdftotext -layout %q - 2>/dev/null", pdf))
		local text = p:read("a")
		p:close()
		check("render: the range is over the span drawn", text:find("min 20, max 40", 1, true) ~= nil, text)
	end
	os.remove(pdf)
end

-- A path 50,000 levels deep with no branch is one header, laid out in
-- time linear in its length (no level costs a row, a recursion or a
-- search of the levels above).
do
	local bb = sm.new { states = { "s" } }
	local deep = string.rep("d/", 50000)
	bb:set(0, deep .. "x", "s")
	bb:set(0, "z", "s")
	bb:set(0, deep .. "y", "s")
	local tt = bb:finish(10)
	local lay = sm.render { output = unit.tmpname(".png"), trace = tt, row_height = 12, group = true }
	local y = lay.panel_y[1]
	check_eq("render: a deep chain of levels is one header", strips(lay),
	    { { y + 12, 12 }, { y + 36, 12 }, { y + 24, 12 } })
end

for _, bad in ipairs { 0, -1, 1.5, "x", 1001 } do
	check_error("render: group " .. tostring(bad) .. " refused", function()
		sm.render { output = unit.tmpname(".png"), trace = t, group = bad } end,
	    "render: group must be true, false or a number of path levels from 1 to 1000, not " ..
	    (type(bad) == "string" and '"' .. bad .. '"' or tostring(bad)))
end

check_error("render: nested is top or rows", function()
	sm.render { output = unit.tmpname(".png"), trace = t, nested = "deep" } end,
    'render: nested must be "top" or "rows", not "deep"')

-- Sub-rows are worked out a few depths at a time when states are many
-- (within 8 MB): a trace with 700 more states (unused, so neither the
-- strips nor the legend change) draws the same PNG, a depth at a time.
do
	local function build(extra)
		local states = { s0 = { value = 0, color = "#ff0000" }, s1 = { value = 1, color = "#00ff00" },
			s2 = { value = 2, color = "#0000ff" }, s3 = { value = 3, color = "#888800" } }
		for i = 1, extra do states["x" .. i] = { value = 3 + i, color = "#123456" } end
		local bb = sm.new { states = states }
		local depth = 1
		bb:set(0, "e", "s0")
		for i = 1, 2000 do
			local r = (i * 7919) % 7
			if r < 3 and depth < 6 then bb:push(i * 10, "e", "s" .. (i % 4)); depth = depth + 1
			elseif r < 6 and depth > 1 then bb:pop(i * 10, "e"); depth = depth - 1
			else bb:set(i * 10, "e", "s" .. (i % 4)); depth = 1 end
		end
		return bb:finish()
	end
	local p1, p2 = unit.tmpname(".png"), unit.tmpname(".png")
	local lay = sm.render { output = p1, trace = build(0), nested = "rows", width = 1600 }
	sm.render { output = p2, trace = build(700), nested = "rows", width = 1600 }
	check_eq("render: a sub-row per depth the stack reaches (three)", lay.strips[1][1].height, 30)
	check("render: sub-rows a depth at a time draw the same", io.open(p1, "rb"):read("a") == io.open(p2, "rb"):read("a"))
	os.remove(p1)
	os.remove(p2)
end
