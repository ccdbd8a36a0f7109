-- Tests for contrib/chrome2statemap.lua on small Chrome Trace Event Format
-- samples: tests/contrib/chrome-array.json (the array form, B/E, names,
-- a flow) and chrome-object.json ({"traceEvents"}, nested X, bind_id).
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq

local out, status, err = C.run("chrome2statemap.lua", C.samples .. "/chrome-array.json")
check_eq("chrome: converts the array form", { status, err }, { 0, "" })
check("chrome: metadata first", C.records(out)[1].states ~= nil)
local t = sm.load(out)
check_eq("chrome: start is the first timestamp", t.start, 1000000)
check_eq("chrome: threads are entities named NAME/TID", C.names(t:entities()), { "main/1", "worker/2" })
check_eq("chrome: described by process and thread names",
	{ t:entity("main/1").description, t:entity("worker/2").description }, { "server: main", "server: worker" })
check_eq("chrome: states are slice names and idle", C.names(t.states),
	{ "compute", "idle", "parse", "request", "wait" })
local main = t:entity("main/1")
check_eq("chrome: the innermost slice names the state", { main:at(200000) }, { "parse", nil, 100000, 300000 })
check_eq("chrome: back to the outer slice when it ends", { main:at(350000) }, { "request", nil, 300000, 400000 })
check_eq("chrome: nested slices are kept as a stack", main:stack_at(200000), { "idle", "request", "parse" })
check_eq("chrome: a nested entity", main.kind, "nested")
check_eq("chrome: the stack after the inner slice", main:stack_at(500000), { "idle", "request", "wait" })
check_eq("chrome: idle at the bottom", t:entity("worker/2"):stack_at(1600000), { "idle" })
check_eq("chrome: idle after the last slice", { t:entity("worker/2"):at(1600000) }, { "idle", nil, 1500000, 2000000 })
check_eq("chrome: a flow is an event from one thread to the next",
	C.events(out), { { time = "350000", entity = "main/1", event = "job", target = "worker/2" } })
os.remove(out)

out, status = C.run("chrome2statemap.lua", "--outermost", C.samples .. "/chrome-array.json")
t = sm.load(out)
check_eq("chrome: --outermost", { t:entity("main/1"):at(200000) }, { "request", nil, 0, 2000000 })
check_eq("chrome: --outermost keeps one slice deep", t:entity("main/1"):stack_at(200000), { "idle", "request" })
os.remove(out)

out, status, err = C.run("chrome2statemap.lua", C.samples .. "/chrome-object.json")
check_eq("chrome: converts the traceEvents form", { status, err }, { 0, "" })
t = sm.load(out)
check_eq("chrome: a thread without a name is its id", C.names(t:entities()), { "90", "Compositor/91" })
local f = t:entity("90")
-- frame [10.5, 110.5)us holds layout [10.5, 50.5) and paint [60, 90.25)
check_eq("chrome: nested X, fractional microseconds", { f:at(0) }, { "layout", nil, 0, 40000 })
check_eq("chrome: between children, the parent", { f:at(45000) }, { "frame", nil, 40000, 49500 })
check_eq("chrome: paint", { f:at(50000) }, { "paint", nil, 49500, 79750 })
check_eq("chrome: bind_id flows", C.events(out),
	{ { time = "49500", entity = "90", event = "paint", target = "Compositor/91" } })
os.remove(out)

out, status = C.run("chrome2statemap.lua", "--max-states", "1", C.samples .. "/chrome-array.json")
t = sm.load(out)
check_eq("chrome: --max-states keeps the busiest names", C.names(t.states), { "idle", "other", "wait" })
os.remove(out)

C.check_output_option("chrome", "chrome2statemap.lua", { C.samples .. "/chrome-array.json" })

-- Names: the process's name for a thread without one; a tid used by two
-- processes is PID:TID.
local two = os.tmpname()
local fh2 = io.open(two, "w")
fh2:write('[{"ph":"M","pid":1,"name":"process_name","args":{"name":"db"}},',
	'{"ph":"M","pid":2,"tid":7,"name":"thread_name","args":{"name":"db"}},',
	'{"ph":"X","pid":1,"tid":7,"ts":1,"dur":1,"name":"a"},{"ph":"X","pid":2,"tid":7,"ts":1,"dur":1,"name":"a"},',
	'{"ph":"X","pid":1,"tid":8,"ts":1,"dur":1,"name":"a"}]')
fh2:close()
out, status = C.run("chrome2statemap.lua", two)
check_eq("chrome: names are unique", status == 0 and C.names(sm.load(out):entities()),
	{ "db/1:7", "db/2:7", "db/8" })
os.remove(out)
os.remove(two)

local bad = os.tmpname()
local fh = io.open(bad, "w")
fh:write('[{"ph":"B","pid":1,"tid":1,"ts":1,"name":"a"},{"ph":"E","pid":1,"tid":1,"ts":2},',
	'{"ph":"E","pid":1,"tid":1,"ts":3},{"ph":"X","pid":1,"tid":1,"ts":4,"name":"b"}]')
fh:close()
out, status, err = C.run("chrome2statemap.lua", bad)
check_eq("chrome: a bad event is named by its position", { status, err:match(": (event %d+): ") }, { 1, "event 4" })
os.remove(out)
C.check_all_or_nothing("chrome: a bad event", "chrome2statemap.lua", { bad }, 1, "^.+: event 4: .+$")
out, status, err = C.run("chrome2statemap.lua", "--lenient", bad)
check_eq("chrome: --lenient reports both and goes on", { status, select(2, err:gsub("\n", "")) }, { 0, 3 })
os.remove(out)
fh = io.open(bad, "w")
fh:write('{"traceEvents": [1,')
fh:close()
out, status, err = C.run("chrome2statemap.lua", bad)
check("chrome: bad JSON is an error with line and column", status == 1 and err:match(":1:%d+: ") ~= nil, err)
os.remove(out)
os.remove(bad)
out, status = C.run("chrome2statemap.lua", "--help")
check("chrome: --help", status == 0 and io.open(out):read("a"):find("usage:", 1, true))
os.remove(out)
