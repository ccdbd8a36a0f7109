-- The input format's escape in entity names (src/base/path_escape.c,
-- statemap-lua-format(5)): "\/" is a '/' inside a path component and
-- "\\" a backslash, so "kworker\/0:1/19" is the thread 19 under the one
-- component "kworker/0:1".  The tree, patterns, t:write, the cache,
-- -T json, the labels drawn and the converters' names keep it.
local sm = require "statemap"
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq = unit.check, unit.check_eq

-- Names as JSON strings: a backslash in the name is "\\" in the JSON.
local names = { [[kworker\/0:1/19]], [[kworker\/0:1/20]], [[cpuhp\/0]],
    [[Files/a\/b/bytes]], [[w\\/x]], [[plain/1]], [[lone\x]] }
local function jstr(s) return '"' .. s:gsub("\\", "\\\\") .. '"' end

local path = unit.tmpname(".out")
local f = assert(io.open(path, "w"))
f:write('{"start": [0, 0], "title": "escapes", "states": {"a": {"value": 0}, "b": {"value": 1}}}\n')
for i, n in ipairs(names) do
	f:write('{"time": "', i, '", "entity": ', jstr(n), ', "state": ', i % 2, '}\n')
end
f:write('{"time": "100", "entity": "plain/1", "state": 0}\n')
f:close()

local function entity_names(t)
	local out = {}
	for _, e in ipairs(t:entities()) do out[#out + 1] = e.name end
	return out
end

local t = sm.load(path, { cache = false })
check_eq("names are kept as written", entity_names(t), names)
check_eq("an escaped / is inside a component", t:children(),
    { "Files", "cpuhp\\/0", "kworker\\/0:1", "lone\\x", "plain", "w\\\\" })
check_eq("the children of an escaped component", t:children("kworker\\/0:1"),
    { "kworker\\/0:1/19", "kworker\\/0:1/20" })
check_eq("a / escaped in the middle of a path", t:children("Files"), { "Files/a\\/b" })
check_eq("a pattern's escape matches the name's",
    (function() local o = {} for _, e in ipairs(t:entities("kworker\\/0:1/*")) do o[#o + 1] = e.name end return o end)(),
    { "kworker\\/0:1/19", "kworker\\/0:1/20" })
check_eq("a wildcard never crosses a separator but takes an escaped /",
    (function() local o = {} for _, e in ipairs(t:entities("*")) do o[#o + 1] = e.name end return o end)(),
    { "cpuhp\\/0", "lone\\x" })

-- t:write writes them back as they came; loaded again they are the same.
local out = unit.tmpname(".out")
t:write(out)
local back = sm.load(out, { cache = false })
check_eq("t:write round trip", entity_names(back), names)
check_eq("t:write keeps the tree", back:children("kworker\\/0:1"), { "kworker\\/0:1/19", "kworker\\/0:1/20" })
os.remove(out)

-- Through the cache: the first load saves, the second maps it back.
local c1 = sm.load(path)
local c2 = sm.load(path)
check_eq("the cache keeps the names", { entity_names(c1), entity_names(c2) }, { names, names })
check_eq("and the tree", c2:children("Files"), { "Files/a\\/b" })

-- -T json: the names as written (JSON-escaped).
local SM = os.getenv("SM") or (here .. "/../../statemap-lua")
local p = io.popen("'" .. SM .. "' --no-cache -T json '" .. path .. "' 2>/dev/null")
local json = p:read("a")
p:close()
local doc = sm.json.decode(json)
local jnames = {}
for _, e in ipairs(doc.entities or (doc.statemaps and doc.statemaps[1].entities) or {}) do
	jnames[#jnames + 1] = e.name
end
table.sort(jnames)
local sorted = { table.unpack(names) }
table.sort(sorted)
check_eq("-T json keeps the names", jnames, sorted)

-- The interactive SVG's names column shows them with escapes resolved.
p = io.popen("'" .. SM .. "' --no-cache '" .. path .. "' 2>/dev/null")
local svg = p:read("a")
p:close()
check("the SVG's label shows kworker/0:1/19", svg:find(">kworker/0:1/19<", 1, true) ~= nil)
check("the SVG's label shows w\\/x", svg:find(">w\\/x<", 1, true) ~= nil)
check("a lone backslash is shown as it is", svg:find(">lone\\x<", 1, true) ~= nil)

os.remove(path)

-- The converters: a thread's command with a '/' stays one component.
local C = require "contrib"
package.path = C.top .. "/contrib/lib/?.lua;" .. package.path
local smout = require "smout"
check_eq("smout.thread_name escapes / and \\ in the command",
    { smout.thread_name("kworker/0:1", 19), smout.thread_name("a\\b", 3), smout.thread_name("sh", 4) },
    { "kworker\\/0:1/19", "a\\\\b/3", "sh/4" })
local input = unit.tmpname(".txt")
f = assert(io.open(input, "w"))
f:write("     kworker/0:1    19 [000]  5001.000100: sched:sched_switch: prev_comm=kworker/0:1 prev_pid=19 ",
    "prev_prio=120 prev_state=S ==> next_comm=cpuhp/0 next_pid=20 next_prio=120\n",
    "         cpuhp/0    20 [000]  5001.000300: sched:sched_switch: prev_comm=cpuhp/0 prev_pid=20 ",
    "prev_prio=120 prev_state=S ==> next_comm=kworker/0:1 next_pid=19 next_prio=120\n")
f:close()
local conv, status, err = C.run("perf-sched2statemap.lua", input)
check_eq("perf: converts kernel threads", { status, err }, { 0, "" })
local kt = sm.load(conv, { cache = false })
check_eq("perf: kernel threads are whole components", kt:children(),
    { "cpu0", "cpuhp\\/0", "kworker\\/0:1" })
check_eq("perf: under them, the thread", kt:children("kworker\\/0:1"), { "kworker\\/0:1/19" })
os.remove(conv)
os.remove(input)
