-- Tests for statemap.render (src/lua_render.c); the pixels themselves are
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
check_error("render: only PNG so far", function() sm.render{ output = "x.svg", trace = t } end,
    "only PNG output")
check_error("render wants a trace", function() sm.render{ output = out, trace = 5 } end,
    "a panel needs trace")
check_error("render: a bad width", function() sm.render{ output = out, trace = t, width = 0 } end,
    "width must be an integer")
check_error("render: an empty span", function() sm.render{ output = out, trace = t, from = 300, to = 300 } end,
    "time span is empty")
check_error("render: entities of another kind", function()
	sm.render{ output = out, trace = t, entities = { "nosuch" } } end, "no entity \"nosuch\"")
check("render leaves no file behind on errors", io.open(out, "rb") == nil)
