-- One vocabulary: sort, labels, filter and entities, from and to, width,
-- title, coalesce and row_height mean one thing in statemap.render,
-- statemap.serve and statemap.layout (and as the command line's options).
-- Checks the ones added for it: render's sort and filter, serve's from,
-- to, labels, filter and row_height, and that layout takes what render
-- takes.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local sm = require "statemap"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local path = here .. "/../../examples/data/db-threads.out"
local t = sm.load(path)
local png = unit.tmpname(".png")

local function names(list)
	local out = {}
	for i, e in ipairs(list) do out[i] = e.name end
	return out
end

-- render's sort: as entities = t:sorted(how), in a panel too.
local function ys(lay)
	local out = {}
	for i, s in ipairs(lay.strips[1]) do out[i] = s.y end
	return out
end
local a = sm.render{ output = png, trace = t, sort = "on-cpu" }
local b = sm.render{ output = png, trace = t, entities = t:sorted("on-cpu") }
check_eq("render: sort = a state is entities = t:sorted(state)", ys(a), ys(b))
local given = sm.render{ output = png, panels = { { trace = t, entities = t:sorted("name"), sort = "on-cpu" } } }
check_eq("render: sort orders the entities given", ys(given), ys(b))
local f = sm.render{ output = png, trace = t, sort = function(e) return -e.transitions end }
check_eq("render: sort by a function", #f.strips[1], #t:entities())
check_error("render: sort, a state that is none", function() sm.render{ output = png, trace = t, sort = "oncpu" } end,
    'render: sort: no state "oncpu"')
check_error("render: sort of another type", function() sm.render{ output = png, trace = t, sort = 5 } end,
    'render: sort must be "name", a state name or a function of an entity')

-- render's filter: as -f, over the panel's entities.
local kept = sm.render{ output = png, trace = t, filter = "^40[0-2]" }
check_eq("render: filter keeps the names that match", #kept.strips[1], #t:entities("40[0-2]*"))
check_eq("... (two here)", #kept.strips[1], 2)
local both = sm.render{ output = png, trace = t, entities = { "4007", "4137", "4027" }, filter = "^40[0-2]", sort = "name" }
check_eq("render: filter and sort over entities given", #both.strips[1], 2)
check_error("render: a bad filter", function() sm.render{ output = png, trace = t, filter = "(" } end,
    'bad filter of render "("')

-- layout takes render's vocabulary (and passes it on).
local args = sm.layout.default(t, { sort = "on-cpu", filter = "^40", labels = "name", coalesce = 1000 })
check_eq("layout: render's keys pass through", { args.filter, args.labels, args.coalesce }, { "^40", "name", 1000 })
check_eq("layout: its sort is t:sorted's", names(args.entities), names(t:sorted("on-cpu")))

-- serve's from, to, labels, filter and row_height, through the page the
-- REPL serves in the background (each line a chunk of its own: globals).
local sm_bin = os.getenv("SM") or "./statemap-lua"
if not io.popen("command -v curl"):read("l") then
	unit.skip("serve: the vocabulary's options", "curl is not installed")
else
	local script = unit.tmpname(".txt")
	local fh = assert(io.open(script, "w"))
	fh:write([[
u = statemap.serve(t, { filter = "^40[0-2]", labels = "name", from = "0.5s", to = "1s", row_height = 12 })
do local p = io.popen("curl -s '" .. u .. "'") page = p:read("a") p:close() end
do local n = 0 for _ in page:gmatch('"name": "40[0-9]+"') do n = n + 1 end print("entities", n) end
print("begin", page:match('"begin": (%d+)')) print("end", page:match('"end": (%d+)'))
statemap.serve()
]])
	fh:close()
	local p = assert(io.popen(("%s --interactive %s < %s 2> /dev/null"):format(sm_bin, path, script)))
	local out = p:read("a")
	p:close()
	os.remove(script)
	check_eq("serve: filter, from and to shape the page", out, "entities\t2\nbegin\t500000000\nend\t1000000000\n")
end
-- (sort = "nosuch" makes the call fail before it serves, wherever the
-- other options are not read.)
check_error("serve: a reversed range", function() sm.serve(t, { from = "1s", to = "0.5s", sort = "nosuch" }) end,
    "serve: the range from 1.000s to 500.000ms is reversed")
check_error("serve: labels is a choice", function() sm.serve(t, { labels = "x", sort = "nosuch" }) end,
    'serve: labels must be "both", "name" or "description", not "x"')

os.remove(png)
