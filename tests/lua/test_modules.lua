-- Tests for the shipped modules statemap.palette and statemap.layout.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local palette = require "statemap.palette"
local layout = require "statemap.layout"
local t = sm.load(here .. "/../golden/json-basic/input.out")   -- idle, user, sys

local function colours(tr)
	local out = {}
	for _, s in ipairs(tr.states) do out[s.name] = s.color end
	return out
end

check_eq("palette.apply: states in value order", colours(palette.apply(t, "okabe_ito")),
    { idle = "#e69f00", user = "#56b4e9", sys = "#009e73" })
check_eq("palette.apply: chosen states only", colours(palette.apply(t, "greys", { "sys" })),
    { idle = "#e0e0e0", user = "#008000", sys = "#f0f0f0" })
check_eq("palette.apply: own colours, then automatic ones",
    colours(palette.apply(t, { "black" })),
    { idle = "#000000", user = palette.auto(2)[1], sys = palette.auto(2)[2] })
check("palette.apply leaves the trace untouched", colours(t).idle == "#e0e0e0")
check_error("palette.apply: an unknown palette", function() palette.apply(t, "rainbow") end,
    'no palette "rainbow"')
check_error("palette.apply: an unknown state", function() palette.apply(t, "greys", { "nap" }) end,
    "nap")

local auto = palette.auto(12)
local seen, distinct = {}, true
for _, c in ipairs(auto) do
	if seen[c] or not c:match("^#%x%x%x%x%x%x$") then distinct = false end
	seen[c] = true
end
check("palette.auto: n distinct #rrggbb colours", #auto == 12 and distinct)
check_eq("palette.auto: a prefix stays the same as n grows", palette.auto(3), { auto[1], auto[2], auto[3] })
check_eq("palette: the colour-blind-safe set has 8", #palette.okabe_ito, 8)

-- layout
local args = layout.default(t, { sort = "user", max_height = 100, title = "x" })
check_eq("layout.default: sorted by time in a state", { args.entities[1].name, args.entities[2].name },
    { "cpu0", "cpu1" })
check_eq("layout.default: rows fit the height (capped at 20)", args.row_height, 20)
check_eq("layout.default: small height, small rows",
    layout.default(t, { max_height = 7 }).row_height, 3)
check_eq("layout.default: other fields pass through", args.title, "x")
local png = unit.tmpname(".png")
local lay = layout.render(t, png, { width = 300 })
check("layout.render writes the picture", io.open(png, "rb") ~= nil and lay.width == 300)
os.remove(png)
local by = layout.panels_by(t, function(e) return e.name == "cpu0" and "b" or "a" end, { output = "x.pdf" })
check_eq("layout.panels_by: one panel per group, in name order",
    { #by.panels, by.panels[1].title, by.panels[1].entities[1].name, by.panels[2].entities[1].name },
    { 2, "a", "cpu1", "cpu0" })
check_eq("layout.panels_by: passes output through", by.output, "x.pdf")

-- A value entity's strip is two rows (render): layout counts them so.
do
	local b = sm.new { states = { "idle" } }
	b:set(0, "a", "idle")
	b:value(0, "v1", 1)
	b:value(0, "v2", 2)
	local vt = b:finish(10)
	check_eq("layout.default: a value entity counts two rows",
	    layout.default(vt, { max_height = 50 }).row_height, 10)
	check_eq("layout.panels_by: likewise",
	    layout.panels_by(vt, function() return "all" end, { max_height = 50 }).panels[1].row_height, 10)
end
