-- Tests for statemap.json (src/lua/lua_json.c).
local json = require("statemap").json
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

local v = json.decode('{"a": [1, 2.5, true, false, null, "x\\u00e9\\ud834\\udd1e"], "n": -9223372036854775808}')
check_eq("decode integer", math.type(v.a[1]), "integer")
check_eq("decode float", v.a[2], 2.5)
check_eq("decode booleans", tostring(v.a[3]) .. tostring(v.a[4]), "truefalse")
check_eq("decode null is json.null", v.a[5], json.null)
check_eq("decode escapes to UTF-8", v.a[6], "xé\u{1D11E}")
check_eq("decode the smallest integer", v.n, math.mininteger)
check_eq("decode an integer beyond 64 bits as a float", json.decode("18446744073709551616"), 2.0^64)
check_eq("decode a scalar document", json.decode(' "s" '), "s")
check_error("decode errors name the line and column",
    function() json.decode('{"a": 1,\n "b" 2}', "config.json") end,
    "config.json:2:6: expected ':' after the member name but found '2'")
check_error("decode rejects trailing garbage", function() json.decode("[1] x") end,
    "json:1:5: unexpected 'x' after the JSON value")
check_error("decode wants a string", function() json.decode({}) end, "string expected")

check_eq("encode an array", json.encode({ 1, 2.5, "a" }), '[1,2.5,"a"]')
check_eq("encode an object with sorted keys", json.encode({ b = 1, a = { c = true } }),
    '{"a":{"c":true},"b":1}')
check_eq("encode an empty table as an object", json.encode({}), "{}")
check_eq("encode null and nil", json.encode({ json.null }) .. json.encode(nil), "[null]null")
check_eq("encode escapes for HTML and JS", json.encode("</script>\n"), '"\\u003c/script\\u003e\\n"')
check_error("encode a sparse table: its keys are not strings",
    function() json.encode({ [1] = "a", [3] = "c" }) end, "number key")
check_error("encode a cycle", function() local t = {} t.t = t json.encode(t) end,
    "json.encode: a table contains itself")
check_error("encode a cycle through an array",
    function() local t = {} t[1] = { { t } } json.encode(t) end, "contains itself")
do
	-- A table shared is written at each place (JSON has no sharing) ...
	local leaf = { 1 }
	check_eq("encode a shared table twice", json.encode({ a = leaf, b = leaf }),
	    '{"a":[1],"b":[1]}')
	local wide = {}
	for i = 1, 2000 do wide[i] = leaf end
	check_eq("encode one table shared 2000 times",
	    #json.encode({ wide, wide, wide }), 3 * (2000 * 4 + 1) + 2 + 2)
	-- ... but sharing level on level (each table holding the one
	-- below twice) makes text 2^depth long: refused, not written for ever.
	local t = { 0 }
	for _ = 1, 60 do t = { t, t } end
	check_error("encode a DAG whose text is exponential", function() json.encode(t) end,
	    "out of proportion")
end
check_error("encode NaN", function() json.encode(0 / 0) end, "cannot encode")
check_error("encode a function", function() json.encode(print) end, "cannot encode a function")
local text = '{"entities":[{"name":"cpu0","rects":[{"duration":5,"start":0}]}],"title":"x"}'
check_eq("decode then encode round-trips", json.encode(json.decode(text)), text)
