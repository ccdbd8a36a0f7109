-- load.lua TRACE OPTIONS: statemap.load(TRACE, OPTIONS) with OPTIONS a
-- Lua expression; prints how many entities the trace has.
local sm = require "statemap"
local t = sm.load(arg[1], load("return " .. arg[2])())
print(#t:entities() .. " entities")
