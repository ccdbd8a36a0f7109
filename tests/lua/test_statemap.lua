-- Tests for the statemap Lua module (src/lua/lua_statemap.c).
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

check_eq("statemap is preloaded as a global", statemap, sm)
check_eq("duration ms", sm.duration("1.5ms"), 1500000)
check_eq("duration s", sm.duration("2s"), 2000000000)
check_eq("duration plain ns", sm.duration("1500"), 1500)
check_eq("duration integer passes through", sm.duration(42), 42)
check_error("duration rejects junk", function() sm.duration("fast") end,
    "invalid duration \"fast\"")
check_error("duration rejects a negative number",
    function() sm.duration(-1) end, "non-negative")
check_eq("format_ns ms", sm.format_ns(1500000), "1.500ms")
check_eq("format_ns ns", sm.format_ns(999), "999ns")
check_eq("format_ns s", sm.format_ns(2000000000), "2.000s")
check_error("format_ns rejects a string", function() sm.format_ns("x") end,
    "number expected")
check("version is a string", type(sm.version) == "string")
check_eq("arg[0] is the script", arg[0]:match("test_statemap%.lua$") ~= nil,
    true)
