-- Tests for statemap.serve (src/lua/lua_serve.c) that need no client: its
-- arguments, and the errors that come before serving (so nothing here
-- blocks).  Serving itself is tests/golden/serve's, through curl.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_error = unit.check, unit.check_error

local t = sm.load("examples/data/db-threads.out", { cache = false })

check("serve is a function of the module", type(sm.serve) == "function")
check("serve() with nothing served does nothing", pcall(sm.serve))
check_error("serve wants traces", function() sm.serve(5) end,
    "a trace or a list of traces")
check_error("not an empty list", function() sm.serve({}) end,
    "a trace or a list of traces")
check_error("nor a list with something else", function() sm.serve({ t, 5 }) end,
    "item 2 of the list is not a trace")
check_error("options are a table", function() sm.serve(t, 5) end,
    "table expected")
check_error("a port is an integer", function() sm.serve(t, { port = "x" }) end,
    "port must be an integer from 0 to 65535")
check_error("up to 65535", function() sm.serve(t, { port = 65536 }) end,
    "port must be an integer from 0 to 65535")
check_error("bind is a string", function() sm.serve(t, { bind = 5 }) end,
    "bind must be a string")
check_error("coalesce is at least 1", function() sm.serve(t, { coalesce = 0 }) end,
    "coalesce must be an integer")
check_error("a sort state the trace has", function() sm.serve(t, { sort = "nosuch" }) end,
    "cannot sort by state \"nosuch\"")
check_error("an IP address to bind", function() sm.serve(t, { bind = "localhost" }) end,
    "--bind takes an IP address")
check_error("never every address", function() sm.serve(t, { bind = "0.0.0.0" }) end,
    "cannot serve on every address")
check_error("nor every IPv6 address", function() sm.serve(t, { bind = "::" }) end,
    "cannot serve on every address")
check("after the errors, still nothing served", pcall(sm.serve))
