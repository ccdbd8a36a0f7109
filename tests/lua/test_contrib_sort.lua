-- Tests for contrib/sort-records.lua, and a parse check of
-- contrib/sched-statemap.bt where bpftrace is installed.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq

local input = os.tmpname()
local function write(lines)
	local f = io.open(input, "w")
	f:write(table.concat(lines, "\n"), "\n")
	f:close()
end
write({
	'{"start":[0,0],"states":{"a":{"value":0},"b":{"value":1}}}',
	'{"time":"5","entity":"x","state":0}',
	'{"time":"3","entity":"x","state":1}',
	'{"entity":"x","description":"d"}',
	'{"time":"3","entity":"y","state":0}',
	'{"time":"4","entity":"y","event":"wakeup","target":"x"}',
	'{"time":"9","entity":"x","state":0}',
	'{"time":"20","entity":"x","state":1}',
	'{"time":"12","entity":"y","state":1}',
})
local out, status, err = C.run("sort-records.lua", "--window", "10", input)
check_eq("sort: exits 0", { status, err }, { 0, "" })
local times = {}
for _, r in ipairs(C.records(out)) do times[#times + 1] = r.time or "-" end
check_eq("sort: records in time order, the others passed through", times,
	{ "-", "-", "3", "3", "4", "5", "9", "12", "20" })
local t = sm.load(out)
check_eq("sort: the result loads", { t:entity("x"):at(4) }, { "b", nil, 3, 5 })
os.remove(out)
C.check_output_option("sort", "sort-records.lua", { "--window", "10", input })
write({
	'{"start":[0,0],"states":{"a":{"value":0}}}',
	'{"time":"50","entity":"x","state":0}',
	'{"time":"70","entity":"x","state":0}',
	'{"time":"30","entity":"x","state":0}',
})
out, status, err = C.run("sort-records.lua", "--window", "10", input)
check_eq("sort: a record later than the window is an error with its line", { status, err:match(":(%d+): ") }, { 1, "4" })
os.remove(out)
C.check_all_or_nothing("sort: a late record", "sort-records.lua", { "--window", "10", input }, 1, "^.+:4: .+$")

-- The input is a stream of JSON values, not one a line: metadata
-- pretty-printed over several lines, two records on a line, a record
-- broken over lines.
write({
	'{',
	'  "start": [0, 0],',
	'  "states": {',
	'    "a": {"value": 0},',
	'    "b": {"value": 1, "color": "#ff0000"}',
	'  },',
	'  "title": "braces { and a \\" in a string"',
	'}',
	'{"time":"5","entity":"x","state":0}{"time":"3","entity":"x","state":1}',
	'  {"time": "4",',
	'   "entity": "y", "state": 0}',
})
out, status, err = C.run("sort-records.lua", "--window", "10", input)
check_eq("sort: metadata over several lines, several records a line", { status, err }, { 0, "" })
local recs = C.records(out)
check_eq("sort: one record a line out, in time order", { #recs, recs[1].title, recs[2].time, recs[3].time, recs[4].time },
	{ 4, 'braces { and a " in a string', "3", "4", "5" })
t = sm.load(out)
check_eq("sort: the result loads", { t:entity("y"):at(4), t.states[2].color }, { "a", "#ff0000" })
os.remove(out)
write({
	'{"start": [0, 0],',
	' "states": {"a": {"value": 0}},',
	' "title": "x",,',
	'}',
	'{"time":"1","entity":"x","state":0}',
	'[1, 2]',
	'{"time":"2","entity":"x",',
	' "state": 0',
})
out, status, err = C.run("sort-records.lua", input)
check_eq("sort: an error inside a record spanning lines names its own line", { status, err:match("^(.*):(%d+): [^\n]+\n$") },
	{ 1, input, "3" })
os.remove(out)
out, status, err = C.run("sort-records.lua", "--lenient", input)
check_eq("sort: --lenient reports each bad record, goes on", { status, (err:gsub("^[^\n]*:3: [^\n]*\n", "", 1)) },
	{ 0, input .. ":6: a record must be a JSON object\n" ..
	  input .. ":7: a JSON object that does not end before the end of the input\n" ..
	  input .. ": 3 bad lines skipped\n" })
os.remove(out)
-- --names: an entity with a description is DESCRIPTION/ENTITY (the last
-- one), a tag that names such an entity too.
write({
	'{"start":[0,0],"states":{"on":{"value":0},"off":{"value":1}}}',
	'{"entity":"7","description":"sh"}',
	'{"state":0,"tag":"7","pid":7,"comm":"sh"}',
	'{"time":"1","entity":"7","state":0}',
	'{"time":"1","entity":"cpu0","state":0,"tag":"7"}',
	'{"entity":"7","description":"sleep"}',
	'{"time":"2","entity":"cpu0","event":"wakeup","target":"7"}',
	'{"time":"3","entity":"7","state":1}',
})
out, status, err = C.run("sort-records.lua", "--names", input)
t = status == 0 and sm.load(out)
check_eq("sort: --names", t and { C.names(t:entities()), select(2, t:entity("cpu0"):at(1)),
	C.events(out)[1].target }, { { "cpu0", "sleep/7" }, "sleep/7", "sleep/7" })
os.remove(out)
os.remove(input)

if os.execute("command -v bpftrace > /dev/null 2>&1") then
	-- Without kernel tracing, bpftrace can still parse, check and compile
	-- the script if it sees the tracepoints' layouts: as root,
	-- bpftrace-compile.sh supplies them in a private mount namespace.
	-- Otherwise only the parser runs (-d dumps its tree, then stops).
	local bt = C.quote(C.top .. "/contrib/sched-statemap.bt")
	local obj = os.tmpname()
	os.remove(obj)
	local compiled = os.execute("unshare -m sh " .. C.quote(C.samples .. "/bpftrace-compile.sh") .. " "
		.. bt .. " " .. obj .. " > /dev/null 2>&1")
	os.remove(obj)
	if compiled then
		check("bpftrace: sched-statemap.bt compiles to BPF", true)
	else
		local p = io.popen("bpftrace -d " .. bt .. " 2>&1")
		local text = p:read("a")
		p:close()
		check("bpftrace: sched-statemap.bt parses", text:find("AST after: parser", 1, true) ~= nil
			and not text:find("syntax error", 1, true), text:sub(1, 300))
	end
end
