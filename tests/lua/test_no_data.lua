-- Tests for the end of an entity's data (issue 37's null state, issues 36
-- and 38's "no data" after a thread exits): "state": null in a file, a
-- pop of the last state a push started, b:remove and b:set(t, e, nil).
-- Between such an end and the entity's next datum it has no state: no
-- query gives that time, every copy of the trace keeps it, and no
-- rectangle of the classic statemap covers it.  Every answer is worked
-- out by hand in the comments.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local sm_bin = os.getenv("SM") or (here .. "/../../statemap-lua")

local function write(lines)
	local path = unit.tmpname(".out")
	local f = assert(io.open(path, "w"))
	f:write(table.concat(lines, "\n"), "\n")
	f:close()
	return path
end

local function slurp(path)
	local f = assert(io.open(path, "rb"))
	local s = f:read("a")
	f:close()
	return s
end

-- The trace, ending at 60 (c's datum):
--   a (plain):  run [10,20), nothing [20,40), wait [40,60)
--   b (nested): run [10,15), run+wait [15,20), run [20,30) (a pop back),
--               nothing [30,50) (the pop of the last), wait [50,60)
--   c:          nothing from 0 ("state": null first), run at 60
--   d:          wait [0,60)
local header = '{"start": [0, 0], "states": {"run": {"value": 0, "color": "#00ff00"}, ' ..
    '"wait": {"value": 1, "color": "#ff0000"}}}'
local lines = {
	header,
	'{"time": "0", "entity": "c", "state": null}',
	'{"time": "0", "entity": "d", "state": 1}',
	'{"time": "10", "entity": "a", "state": 0}',
	'{"time": "20", "entity": "a", "state": null}',
	'{"time": "40", "entity": "a", "state": 1}',
	'{"time": "10", "entity": "b", "push": "run"}',
	'{"time": "15", "entity": "b", "push": "wait"}',
	'{"time": "20", "entity": "b", "pop": "wait"}',
	'{"time": "30", "entity": "b", "pop": "run"}',
	'{"time": "50", "entity": "b", "push": "wait"}',
	'{"time": "60", "entity": "c", "state": 0}',
}
local path = write(lines)

-- What the queries say of a trace with those data.
local function answers(t)
	local out = {}
	for _, name in ipairs { "a", "b", "c", "d" } do
		local e = t:entity(name)
		local at = {}
		for _, x in ipairs { 0, 10, 17, 20, 25, 30, 45, 50, 59 } do
			at[#at + 1] = (e:at(x)) or "-"
		end
		local ivs = {}
		for iv in t:intervals { entities = { name } } do
			ivs[#ivs + 1] = string.format("%s[%d,%d)", iv.state, iv.start, iv.finish)
		end
		out[name] = { at = table.concat(at, " "), intervals = table.concat(ivs, " "),
			time_in = e:time_in(), stack25 = #e:stack_at(25), stack35 = #e:stack_at(35) }
	end
	local s = t:sample { 25, 35, 45 }
	out.sample = { s[1].a, s[1].b, s[2].a, s[2].b, s[3].a, s[3].b, s[3].c }
	out.time_in = t:time_in()
	out.count_at = { t:count_at(35), t:count_at(45) }
	local steps = {}
	for _, time, count in t:count_series { "run", "wait" }:each() do steps[#steps + 1] = time .. ":" .. count end
	out.count_series = table.concat(steps, " ")
	out.reduce = t:reduce { by = "entity" }
	local dur = t:columns { "duration" }
	out.columns = { #dur, dur:sum() }
	return out
end
local want = {
	a = { at = "- run run - - - wait wait wait", intervals = "run[10,20) wait[40,60)",
		time_in = { run = 10, wait = 20 }, stack25 = 0, stack35 = 0 },
	b = { at = "- run wait run run - - wait wait", intervals = "run[10,15) wait[15,20) run[20,30) wait[50,60)",
		time_in = { run = 15, wait = 15 }, stack25 = 1, stack35 = 0 },
	c = { at = "- - - - - - - - -", intervals = "", time_in = { run = 0, wait = 0 }, stack25 = 0, stack35 = 0 },
	d = { at = "wait wait wait wait wait wait wait wait wait", intervals = "wait[0,60)",
		time_in = { run = 0, wait = 60 }, stack25 = 1, stack35 = 1 },
	sample = { nil, "run", nil, nil, "wait", nil, nil },
	-- run: a 10, b 15; wait: a 20, b 15, d 60.
	time_in = { run = 25, wait = 95 },
	count_at = { { run = 0, wait = 1 }, { run = 0, wait = 2 } },
	-- d from 0; a and b from 10; a ends at 20, b at 30; a back at 40, b at 50.
	count_series = "0:1 10:3 20:2 30:1 40:2 50:3",
	reduce = { a = { time = 30, count = 2 }, b = { time = 30, count = 4 }, d = { time = 60, count = 1 } },
	columns = { 7, 120 },
}
local t = sm.load(path, { cache = false })
check_eq("loaded: queries leave out the time with no data", answers(t), want)
check_eq("loaded: kinds", { t:entity("a").kind, t:entity("b").kind, t:entity("c").kind }, { "states", "nested", "states" })

-- The builder makes the same trace: b:set nil, b:pop of the last, b:remove.
local b = sm.new { states = { run = { value = 0, color = "#00ff00" }, wait = { value = 1, color = "#ff0000" } } }
b:set(0, "c", nil)
b:set(0, "d", "wait")
b:set(10, "a", "run")
b:remove(20, "a")
b:set(40, "a", "wait")
b:push(10, "b", "run")
b:push(15, "b", "wait")
b:pop(20, "b", "wait")
b:pop(30, "b", "run")
b:push(50, "b", "wait")
b:set(60, "c", "run")
local built = b:finish()
check_eq("built: the same answers", answers(built), want)

-- t:write keeps it ("state": null), byte for byte on a second write.
local w1, w2 = unit.tmpname(".out"), unit.tmpname(".out")
t:write(w1)
local back = sm.load(w1, { cache = false })
back:write(w2)
check("written: \"state\": null", slurp(w1):find('{"time": "20", "entity": "a", "state": null}', 1, true))
check_eq("written: read back, the same answers", answers(back), want)
check_eq("written: the second write is the first", slurp(w2), slurp(w1))
built:write(w2)
check_eq("written: the built trace writes the same file", slurp(w2), slurp(w1))

-- The cache keeps it (0xFFFF, depth 0): a second load comes from it.
local cached1 = sm.load(path)
local cached2 = sm.load(path)
check_eq("cache: written", answers(cached1), want)
check_eq("cache: read back", answers(cached2), want)

-- Derived traces keep it.
local mapped = t:map(function(state) return state == "run" and "busy" or nil end)
check_eq("t:map: no data stays no data", { (mapped:entity("a"):at(25)), (mapped:entity("a"):at(15)),
	(mapped:entity("b"):at(35)), (mapped:entity("b"):at(12)) }, { nil, "busy", nil, "busy" })
local calls = 0
local mi = t:map_intervals(function(iv) calls = calls + 1 return "wait" end)
check_eq("t:map_intervals: not called for it, and it stays", { calls, (mi:entity("a"):at(25)), (mi:entity("a"):at(15)) },
    { 2 + 4 + 1 + 1, nil, "wait" })
local sl = t:slice(25, 55)
check_eq("t:slice starting in it", { (sl:entity("a"):at(25)), (sl:entity("a"):at(45)), (sl:entity("b"):at(25)),
	(sl:entity("b"):at(35)) }, { nil, "wait", "run", nil })
local kept = t:keep("^[ab]$")
check_eq("t:keep", { (kept:entity("a"):at(25)), (kept:entity("b"):at(35)) }, { nil, nil })
-- A group has no data when no member has any: a and b share no data in
-- [30,40); c and d never both lack it.
local g = t:group { a = "ab", b = "ab", c = "cd", d = "cd" }
local gi = {}
for iv in g:intervals { entities = { "ab" } } do gi[#gi + 1] = string.format("%s[%d,%d)", iv.state, iv.start, iv.finish) end
check_eq("t:group: no data where no member has any", table.concat(gi, " "),
    "run[10,30) wait[40,60)")
local merged = sm.merge { t, t, prefixes = { "x", "y" } }
check_eq("statemap.merge", { (merged:entity("x/a"):at(25)), (merged:entity("y/b"):at(35)), (merged:entity("y/b"):at(25)) },
    { nil, nil, "run" })

-- The classic command: no rectangle covers the time with no data, in -T
-- json and in the SVG (a's strip, W px over [0, 60): a rectangle from
-- W/6 px, W/6 px wide (and 0.4 px more, to meet a neighbour), and one
-- from 2W/3 px: bare between W/3 and 2W/3).
local function run(args)
	local h = io.popen("'" .. sm_bin .. "' " .. args .. " 2>&1")
	local s = h:read("a")
	h:close()
	return s
end
local json = run("-T json '" .. path .. "'")
local rects = {}
for name, body in json:gmatch('{"name": "(%a)", "description": null,[^%[]*"rects": %[(.-)%]') do
	local list = {}
	for start, dur in body:gmatch('"start": (%d+), "duration": (%d+)') do list[#list + 1] = start .. "+" .. dur end
	rects[name] = table.concat(list, " ")
end
check_eq("-T json: no rectangle over no data", rects,
    { a = "10+10 40+20", b = "10+5 15+5 20+10 50+10", c = "", d = "0+60" })
local svgfile = unit.tmpname(".svg")
run("-o '" .. svgfile .. "' '" .. path .. "'")
local svg = slurp(svgfile)
local xs = {}
for x, w in (svg:match("<title>Entity a</title>(.-)</g>") or ""):gmatch('<rect x="([%d.]+)" y="%d+" width="([%d.]+)"') do
	xs[#xs + 1] = { tonumber(x), tonumber(w) }
end
local W = #xs > 0 and xs[1][1] * 6 or 0
check("svg: a's rectangles leave its no data bare", #xs == 2 and W > 0 and
    math.abs(xs[1][2] - 0.4 - W / 6) < 0.01 and math.abs(xs[2][1] - W * 2 / 3) < 0.01, unit.show(xs))
os.remove(svgfile)

-- Mistakes: one line at FILE:LINE:COLUMN each.
for _, bad in ipairs {
	{ { header, '{"time": "1", "entity": "v", "value": 2}', '{"time": "2", "entity": "v", "state": null}' },
		':3:39: entity "v" has values, so its data end with "value": null, not "state": null' },
	{ { header, '{"time": "1", "entity": "a", "state": null, "tag": "x"}' },
		':2:45: a datum whose state is null (no data from then on) has no tag' },
	{ { header, '{"time": "1", "entity": "a", "state": 0}', '{"time": "2", "entity": "a", "state": null}',
		'{"time": "3", "entity": "a", "pop": 0}' }, ':4:30: pop on entity "a", whose data have ended' },
} do
	local ok, err = pcall(sm.load, write(bad[1]), { cache = false })
	check("error: " .. bad[2], not ok and err:find(bad[2], 1, true) and not err:find("\n"), err)
end
local vb = sm.new { states = { "s" } }
vb:value(1, "v", 3)
check_error("b:set nil on a value entity", function() vb:set(2, "v", nil) end, 'b:set: entity "v" has values')

-- The live server's answers (src/output/viewport_job.c): exact ones, and
-- merged ones whose buckets stop at the end of data, leave it bare too.
if not os.execute("command -v curl > /dev/null 2>&1") then
	unit.skip("--serve: no rectangle over no data", "no curl")
else
	local dir = unit.tmpname(".d")
	os.execute("mkdir -p '" .. dir .. "'")
	local sh = string.format([[
cd '%s' || exit 1
'%s' --serve '%s' > out 2> err &
pid=$!
n=$(( ${TEST_WAIT:-120} * 20 ))
while ! grep -q serving err 2> /dev/null; do
	n=$((n - 1)); [ $n -le 0 ] && { kill $pid; exit 1; }
	sleep 0.05
done
url=$(sed -n '1s/^statemap-lua: serving //p' err)
base=${url%%%%/\?*}
token=${url##*token=}
curl -s -m 60 "$base/api/statemap?token=$token&begin=0&end=60&width=1000" > exact
curl -s -m 60 "$base/api/statemap?token=$token&begin=0&end=60&width=3&coalesce=2" > merged
kill $pid
]], dir, sm_bin, path)
	os.execute(sh)
	local function rects_of(file)
		local s = slurp(dir .. "/" .. file)
		local out = {}
		for name, body in s:gmatch('{"name": "(%a)", "description": null,[^%[]*"rects": %[(.-)%]') do
			local list = {}
			for start, dur in body:gmatch('"start": (%d+), "duration": (%d+)') do list[#list + 1] = start .. "+" .. dur end
			out[name] = table.concat(list, " ")
		end
		return out
	end
	check_eq("--serve: exact, no rectangle over no data", rects_of("exact"),
	    { a = "10+10 40+20", b = "10+5 15+5 20+10 50+10", c = "", d = "0+60" })
	-- Three columns of 20 ns: b's first three intervals merge, up to
	-- its end of data at 30; a's and d's are each one interval.
	check_eq("--serve: merged, no rectangle over no data", rects_of("merged"),
	    { a = "10+10 40+20", b = "10+20 50+10", c = "", d = "0+60" })
	os.execute("rm -rf '" .. dir .. "'")
end
