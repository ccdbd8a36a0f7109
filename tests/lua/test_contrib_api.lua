-- Tests for contrib/apitimeline2statemap.lua on tests/contrib/api-timeline.txt;
-- the times are worked out by hand from its lines. (The report script's
-- output is the golden test contrib-api-report.)
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq
local ms = 1000000

local out, status, err = C.run("apitimeline2statemap.lua", C.samples .. "/api-timeline.txt")
check_eq("api: converts the sample", { status, err }, { 0, "" })
check("api: metadata first, then time order", C.in_order(out))
local t = sm.load(out)
check_eq("api: threads", C.names(t:entities()), { "main", "worker" })
check_eq("api: states are cpu, sleep, stopped and the APIs", C.names(t.states),
	{ "close", "cpu", "open", "read", "sleep", "stopped", "write" })
check_eq("api: in a call from start call to its end", { t:entity("worker"):at(20 * ms) },
	{ "read", nil, 10 * ms, 50 * ms })
check_eq("api: cpu between calls", { t:entity("worker"):at(100 * ms) }, { "cpu", nil, 50 * ms, 200 * ms })
check_eq("api: ALL Stopped stops every thread", { t:entity("main"):at(220 * ms) },
	{ "stopped", nil, 200 * ms, 250 * ms })
check_eq("api: after the stop, back in the call it interrupted", { t:entity("main"):at(260 * ms) },
	{ "sleep", nil, 250 * ms, 300 * ms })
check_eq("api: main's time", t:entity("main"):time_in(), { cpu = 340 * ms, sleep = 150 * ms,
	stopped = 50 * ms, open = 10 * ms, read = 50 * ms, write = 0, close = 0 })
check_eq("api: worker's time (live from its first line)", t:entity("worker"):time_in(), { cpu = 350 * ms,
	sleep = 100 * ms, stopped = 50 * ms, open = 0, read = 40 * ms, write = 50 * ms, close = 0 })
os.remove(out)

local p = io.popen(C.quote(C.sm) .. " " .. C.quote(C.top .. "/contrib/apitimeline2statemap.lua") .. " < "
	.. C.quote(C.samples .. "/api-timeline.txt"))
local piped = p:read("a")
p:close()
local f = io.open(C.samples .. "/api-timeline.txt")
f:close()
out = C.run("apitimeline2statemap.lua", C.samples .. "/api-timeline.txt")
check_eq("api: standard input gives the same", piped, io.open(out):read("a"))
os.remove(out)

C.check_output_option("api", "apitimeline2statemap.lua", { C.samples .. "/api-timeline.txt" })
do
	local d = C.tmpdir()
	local o2, st2, e2 = C.run("apitimeline2statemap.lua", "-o", d .. "/no/such/dir/run.out", C.samples .. "/api-timeline.txt")
	check_eq("api: -o into a directory that does not exist fails at once, one line naming it",
		{ st2, select(2, e2:gsub("\n", "")), e2:find(d .. "/no/such/dir/run.out", 1, true) ~= nil, C.ls(d) },
		{ 1, 1, true, {} })
	os.remove(o2)
	C.rmdir(d)
end

local bad = os.tmpname()
f = io.open(bad, "w")
f:write("0.1 a start call read\n", "0.2 a write\n", "0.3 a read\n", "x y z\n", "0.05 a start call x\n",
	"0.4 ALL Stopped soon\n")
f:close()
out, status, err = C.run("apitimeline2statemap.lua", bad)
check_eq("api: a call that does not match stops with the line number", { status, err },
	{ 1, bad .. ":2: write ends a call to write that a is not in\n" })
os.remove(out)
C.check_all_or_nothing("api: a bad line", "apitimeline2statemap.lua", { bad }, 1, "^.+:2: .+$")
out, status, err = C.run("apitimeline2statemap.lua", "--lenient", bad)
local lines = {}
for l in err:gmatch("[^\n]+") do lines[#lines + 1] = l:match(":(%d+): ") or l end
check_eq("api: --lenient reports every bad line", { status, lines },
	{ 0, { "2", "4", "5", "6", bad .. ": 4 bad lines skipped" } })
os.remove(out)
os.remove(bad)
out, status = C.run("apitimeline2statemap.lua", "--help")
check("api: --help", status == 0 and io.open(out):read("a"):find("usage:", 1, true))
os.remove(out)
