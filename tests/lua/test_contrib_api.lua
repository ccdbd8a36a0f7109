-- Tests for contrib/apitimeline2statemap.lua and contrib/api-report.lua:
--   * the hand-written tests/contrib/api-timeline.txt (its figures are
--     worked out by hand in its comments): the trace, then the report;
--   * the two worked examples of the Island seed document, read from the
--     seed at test time (it lies outside the repository: a counted skip
--     without it, a failure with REQUIRE_CONFORMANCE=1): their timelines
--     read as text give the seed's report line for line, but for the
--     lines listed in seed_differs (last digits the printed timeline
--     does not carry); through the converter, every figure within ns;
--   * bad timelines and bad report arguments: one line each, and nothing
--     written.
-- The whole report text is the golden test contrib-api-report.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
package.path = C.top .. "/contrib/lib/?.lua;" .. package.path
local timeline = require "apitimeline"
local check, check_eq = unit.check, unit.check_eq
local ms = 1000000
local sample = C.samples .. "/api-timeline.txt"

-- The line number of the sample's line `text` (labels name lines).
local function line_of(path, text)
	local n = 0
	for l in io.lines(path) do
		n = n + 1
		if l == text then return n end
	end
	error("no line " .. text)
end

local function write_file(text)
	local name = os.tmpname()
	local f = io.open(name, "w")
	f:write(text)
	f:close()
	return name
end

-- ---- The shared module ---------------------------------------------------

check_eq("api: the API table", { timeline.api("file.write"), timeline.api("sleep"), timeline.api("open"),
	timeline.api("settimer"), timeline.api("file.close"), timeline.api("frobnicate") },
	{ { resource = "filewrite", time = "filewrite" }, { resource = "sleep", time = "sleep" },
	  { resource = "filesopened", time = "cpu" }, { resource = "events", time = "cpu" },
	  { closes = "file", time = "cpu" }, { resource = "frobnicate", time = "frobnicate", unknown = true } })
check_eq("api: seconds to ns, decimal and otherwise",
	{ timeline.seconds_ns("8.59868597984"), timeline.seconds_ns("1e-05"), timeline.seconds_ns("2"),
	  timeline.seconds_ns("-1"), timeline.seconds_ns("soon"), timeline.seconds_ns("1e300") },
	{ 8598685979, 10000, 2000000000, nil, nil, nil })
for _, c in ipairs({
	{ api = "file.write", amount = 200000, amount_text = "200000", start_line = 13, end_line = 14 },
	{ api = "open", amount = 1, amount_text = "1", end_line = 12 },
	{ api = "sleep", start_line = 9 },
	{ api = "_EVENT:odd,name", amount = 0.2, amount_text = "0.2", start_line = 1, end_line = 2 },
}) do
	local label = timeline.label(c)
	check_eq("api: a label reads back: " .. label, timeline.parse_label(label), c)
end
check_eq("api: the labels", { timeline.label({ api = "file.write", amount_text = "200000", start_line = 13,
	end_line = 14 }), timeline.label({ api = "open", amount_text = "1", end_line = 12 }),
	timeline.label({ api = "sleep", start_line = 9 }) },
	{ "file.write 200000, lines 13-14", "open 1, line 12", "sleep, from line 9" })
check_eq("api: not labels", { timeline.parse_label("read"), timeline.parse_label("x y, lines 1-2") }, {})
check_eq("api: numbers as the Island prints them", { timeline.number_text(1.0), timeline.number_text(0.2),
	timeline.number_text(200000), timeline.number_text(0.374999046326), timeline.number_text(1 / 3) },
	{ "1.0", "0.2", "200000", "0.374999046326", "0.333333333333" })

-- ---- The converter on the sample -------------------------------------------

local out, status, err = C.run("apitimeline2statemap.lua", sample)
check_eq("api: converts the sample", { status, err }, { 0, "" })
check("api: metadata first", C.records(out)[1].states ~= nil)
local t = sm.load(out)
check_eq("api: threads, in order of creation", C.names(t:entities()), { "main", "spinner", "worker" })
check_eq("api: the states: cpu, stopped, then the calls' categories in order of use",
	(function() local n = {} for _, s in ipairs(t.states) do n[#n + 1] = s.name end return n end)(),
	{ "cpu", "stopped", "sleep", "filewrite", "frobnicate" })
local sleep_tag = string.format("sleep 0.3, lines %d-%d", line_of(sample, "0.200 main start call sleep"),
	line_of(sample, "0.750 main sleep 0.3"))
local write2_tag = string.format("file.write 800, lines %d-%d", line_of(sample, "1.100 worker start call file.write"),
	line_of(sample, "1.700 worker file.write 800"))
check_eq("api: a settimer call is cpu, tagged with the call", { t:entity("main"):at(110 * ms) },
	{ "cpu", string.format("settimer 1, lines %d-%d", line_of(sample, "0.100 main start call settimer"),
		line_of(sample, "0.120 main settimer 1")), 100 * ms, 120 * ms })
check_eq("api: a sleep is sleep", { t:entity("main"):at(250 * ms) }, { "sleep", sleep_tag, 200 * ms, 300 * ms })
check_eq("api: ALL Stopped stops a sleeping thread, still in its call", { t:entity("main"):at(500 * ms) },
	{ "stopped", sleep_tag, 300 * ms, 700 * ms })
check_eq("api: after the stop, back in the call", { t:entity("main"):at(720 * ms) },
	{ "sleep", sleep_tag, 700 * ms, 750 * ms })
check_eq("api: a thread has no data after island_destroy_thread", { t:entity("main"):at(900 * ms) }, {})
check_eq("api: a stop in a file.write", { t:entity("worker"):at(1300 * ms) },
	{ "stopped", write2_tag, 1200 * ms, 1500 * ms })
check_eq("api: a stop outside calls", { t:entity("spinner"):at(1250 * ms) }, { "stopped", nil, 1200 * ms, 1300 * ms })
check_eq("api: a thread with a line during a stop runs from that line", { t:entity("spinner"):at(1350 * ms) },
	{ "cpu", nil, 1300 * ms, 1950 * ms })
check_eq("api: a call that never returns lasts to the end", { t:entity("spinner"):at(1970 * ms) },
	{ "sleep", string.format("sleep, from line %d", line_of(sample, "1.950 spinner start call sleep")),
	  1950 * ms, 2000 * ms })
check_eq("api: an unknown API is its own state", { (t:entity("worker"):at(1820 * ms)) }, { "frobnicate" })
check_eq("api: the trace ends at the last line", t.finish, 2000 * ms)
check_eq("api: main's time as it happened (the report compensates)", t:entity("main"):time_in(),
	{ cpu = 250 * ms, sleep = 150 * ms, stopped = 400 * ms, filewrite = 0, frobnicate = 0 })
local events = {}
for ev in t:events{ to = t.finish + 1 } do events[#events + 1] = ev.time // ms .. " " .. ev.entity .. " " .. ev.event end
check_eq("api: creations, exits and instant calls are events", events, {
	"0 main island_create_thread", "150 worker island_create_thread", "160 spinner island_create_thread",
	"250 worker open 1, line " .. line_of(sample, "0.250 worker open 1"),
	"800 main island_destroy_thread",
	"1300 spinner randomfloat 8, line " .. line_of(sample, "1.300 spinner randomfloat 8"),
	"1860 worker file.close 0, line " .. line_of(sample, "1.860 worker file.close"),
	"2000 worker island_destroy_thread" })
local defs = {}
for _, r in ipairs(C.records(out)) do
	if r.tag and not r.time and r.tag == write2_tag then defs[#defs + 1] = r end
end
check_eq("api: a call's tag definition, for the call's state and for stopped", defs, {
	{ state = 3, tag = write2_tag, api = "file.write", amount = 800, resource = "filewrite",
	  ["start line"] = line_of(sample, "1.100 worker start call file.write"),
	  ["return line"] = line_of(sample, "1.700 worker file.write 800") },
	{ state = 1, tag = write2_tag, api = "file.write", amount = 800, resource = "filewrite",
	  ["start line"] = line_of(sample, "1.100 worker start call file.write"),
	  ["return line"] = line_of(sample, "1.700 worker file.write 800") } })
local sample_trace = out

-- The same from standard input, and with -o.
local p = io.popen(C.quote(C.sm) .. " " .. C.quote(C.top .. "/contrib/apitimeline2statemap.lua") .. " < "
	.. C.quote(sample))
local piped = p:read("a")
p:close()
check_eq("api: standard input gives the same", piped, C.slurp(sample_trace))
C.check_output_option("api", "apitimeline2statemap.lua", { sample })
do
	local d = C.tmpdir()
	local o2, st2, e2 = C.run("apitimeline2statemap.lua", "-o", d .. "/no/such/dir/run.out", sample)
	check_eq("api: -o into a directory that does not exist fails at once, one line naming it",
		{ st2, select(2, e2:gsub("\n", "")), e2:find(d .. "/no/such/dir/run.out", 1, true) ~= nil, C.ls(d) },
		{ 1, 1, true, {} })
	os.remove(o2)
	C.rmdir(d)
end

-- ---- The report --------------------------------------------------------------

-- The report's text to tables: summary {name = n}, sums {resource = n},
-- consumption {thread = {category = {seconds, percent}}} (all threads
-- as "All Threads (Global)"), and the threads in order. The seed's
-- examples are read by the same function.
local function read_report(text)
	local r = { summary = {}, sums = {}, consumption = {}, threads = {}, timeline = {} }
	local section, current
	for line in text:gmatch("([^\n]*)\n?") do
		local head = line:match("^%-%-%- (.-) %-%-%-$")
		if head then
			section = head
		elseif section == "Island Summary" then
			local k, v = line:match("^(%u[%a ]+): (%d+)$")
			if k then r.summary[k] = tonumber(v) end
		elseif section == "Global Sum" then
			local k, v = line:match("^Total '(.-)': (%S+)$")
			if k then r.sums[k] = tonumber(v) end
		elseif section == "Island Timeline" then
			if line:match("^%S") and not line:match("^TOC,") then r.timeline[#r.timeline + 1] = line end
		elseif section == "Thread Time Consumption" then
			local name = line:match("^  Name: (.+)$") or line:match("^(All Threads %(Global%))$")
			if name then
				current = {}
				r.consumption[name] = current
				r.threads[#r.threads + 1] = name
			end
			local k, v, pct = line:match("^  Total '(.-)': (%S+) %((%S+)%%%)$")
			if k and current then current[k] = { tonumber(v), tonumber(pct) } end
		end
	end
	return r
end

local function report(...)
	local o, st, e = C.run("api-report.lua", ...)
	local text = C.slurp(o)
	os.remove(o)
	return text, st, e
end

local text
text, status, err = report("--cpu", "0.5", "--filewrite", "1000", sample_trace)
check_eq("api report: runs on the sample", { status, err }, { 0, "" })
local got = read_report(text)
check_eq("api report: the sample's summary", got.summary, { ["Total threads"] = 3, ["Live threads"] = 1,
	["Total files"] = 1, ["Open files"] = 0, ["Total sockets"] = 0, ["Open sockets"] = 0 })
check_eq("api report: the sample's global sum (sleep is not a resource; cpu the threads')", got.sums,
	{ events = 2, fileread = 0, filesopened = 1, filewrite = 2300, frobnicate = 3, insockets = 0, outsockets = 0,
	  random = 8, tcprecv = 0, tcpsend = 0, udprecv = 0, udpsend = 0, cpu = 1.99 })
do
	local sums = text:match("%-%-%- Global Sum %-%-%-\n\n(.-)\n\n")
	local names = {}
	for n in sums:gmatch("Total '(.-)'") do names[#names + 1] = n end
	check_eq("api report: the Global Sum in the Island's order, other APIs after, cpu last", names,
		{ "fileread", "filesopened", "tcpsend", "random", "insockets", "filewrite", "events", "udpsend",
		  "udprecv", "tcprecv", "outsockets", "frobnicate", "cpu" })
	local worker = text:match("Name: worker\n(.-)\n\n")
	local cats = {}
	for n in worker:gmatch("Total '(.-)'") do cats[#cats + 1] = n end
	check_eq("api report: a thread's lines in the Island's order", cats,
		{ "filewrite", "live", "frobnicate", "stopped", "cpu" })
	check_eq("api report: each thread's amounts, and the CPU check against --cpu",
		{ text:match("%-%-%- Thread Resource Use %-%-%-\n\n(.-)\n\n%-%-%-"),
		  text:match("%-%-%- CPU Check %-%-%-\n\n(.*)$") },
		{ "Thread:\n  Name: main\n  Total 'events': 2\n\nThread:\n  Name: worker\n  Total 'filesopened': 1\n"
		  .. "  Total 'filewrite': 2300\n  Total 'frobnicate': 3\n\nThread:\n  Name: spinner\n  Total 'random': 8",
		  "cpu / (cpu + stopped), against the CPU limit 0.5:\n"
		  .. "  main: 0.5 = 1.00 x the limit (matches it)\n"
		  .. "  worker: 0.5294 = 1.06 x the limit (matches it)\n"
		  .. "  spinner: 0.7207 = 1.44 x the limit (above it)\n"
		  .. "  All Threads (Global): 0.6338 = 1.27 x the limit (above it)\n" })
	-- The timeline text directly: the same report but for the timeline's
	-- TOCs, as written there (0.100, not 0.1), and an amount left out.
	local direct, dst, derr = report("--cpu", "0.5", "--filewrite", "1000", sample)
	check_eq("api report: reads the timeline text directly", { dst, derr }, { 0, "" })
	local function outside_timeline(x)
		return (x:gsub("%-%-%- Island Timeline %-%-%-\n\n.-\n\n", ""))
	end
	check_eq("api report: from the text as from the trace, but the timeline's own numbers",
		{ outside_timeline(direct) == outside_timeline(text), direct:match("\n0%.100 main start call settimer\n") ~= nil,
		  direct:match("\n1%.860 worker file%.close \n") ~= nil, text:match("\n0%.1 main start call settimer\n") ~= nil },
		{ true, true, true, true })
end
check_eq("api report: the timeline again, one line each but the header and comments",
	#got.timeline, 23)
-- The figures worked out by hand in the sample's comments.
local by_hand = {
	main = { live = { 0.8, 100 }, cpu = { 0.25, 31.25 }, sleep = { 0.3, 37.5 }, stopped = { 0.25, 31.25 } },
	worker = { live = { 1.85, 100 }, cpu = { 0.45, 24.32 }, filewrite = { 0.95, 51.35 },
		frobnicate = { 0.05, 2.7 }, stopped = { 0.4, 21.62 } },
	spinner = { live = { 1.84, 100 }, cpu = { 1.29, 70.11 }, sleep = { 0.05, 2.72 }, stopped = { 0.5, 27.17 } },
	["All Threads (Global)"] = { live = { 4.49, 100 }, cpu = { 1.99, 44.32 }, sleep = { 0.35, 7.8 },
		filewrite = { 0.95, 21.16 }, frobnicate = { 0.05, 1.11 }, stopped = { 1.15, 25.61 } },
}
check_eq("api report: the sample's threads in order of creation", got.threads,
	{ "main", "worker", "spinner", "All Threads (Global)" })
for name, want in pairs(by_hand) do
	local mine = got.consumption[name] or {}
	local close = true
	for k, v in pairs(want) do
		if not mine[k] or math.abs(mine[k][1] - v[1]) > 1e-9 or mine[k][2] ~= v[2] then close = false end
	end
	for k in pairs(mine) do close = close and want[k] ~= nil end
	check("api report: the sample's " .. name .. " as worked out by hand", close,
		"got " .. unit.show(mine) .. ", want " .. unit.show(want))
end

-- Without the pending bytes of the first write, the second would be
-- expected to take no time and its whole stop would count.
check("api report: a write just after another is expected to wait for it too",
	got.consumption.worker.stopped[1] < 0.5 - 1e-6)

-- ---- The seed's worked examples ----------------------------------------------

-- Each example of the seed: its timeline (the lines after its header, to
-- a blank line), the runtime's 'cpu' figure of its Global Sum, and its
-- report's lines from "--- Island Summary ---" to the end of the block,
-- runs of blank lines made one (the second example has two blank lines
-- where the first has one).
local function seed_examples(seedtext)
	local examples = {}
	for block in seedtext:gmatch("(%-%-%- Island Summary %-%-%-.-)```") do
		local lines = {}
		local tl = block:match("\n(TOC, Thread, API, Amount\n.-)\n%s*\n")
		for l in (tl or ""):gmatch("[^\n]+") do lines[#lines + 1] = l end
		local report_lines, blank = {}, false
		for l in (block .. "\n"):gmatch("([^\n]*)\n") do
			if l:match("^%s*$") then
				if not blank and #report_lines > 0 then report_lines[#report_lines + 1] = "" end
				blank = true
			else
				report_lines[#report_lines + 1] = l
				blank = false
			end
		end
		while report_lines[#report_lines] == "" do report_lines[#report_lines] = nil end
		examples[#examples + 1] = { timeline = table.concat(lines, "\n") .. "\n",
			cpu = block:match("\nTotal 'cpu': (%S+)\n"), lines = report_lines, expected = read_report(block) }
	end
	return examples
end

-- The limits each example ran with, as the seed's prose gives them (a 10%
-- CPU restriction, 100K bytes written a second; then 1% CPU).
local seed_limits = { { "--cpu", "0.10", "--filewrite", "100000" }, { "--cpu", "0.01", "--filewrite", "100000" } }

-- The lines of the seed's reports that ours cannot reproduce: figures
-- that its runtime computed from times the timeline prints rounded to 12
-- significant digits (a thread's life is the difference of two TOCs
-- as the runtime held them, ours of the two as printed; its cpu is what
-- is left of that life), so the last digits differ. Each: the seed's line,
-- ours. Every other line is the seed's, character for character (given
-- the runtime's own 'cpu' figure as a line of the timeline; without it
-- the Global Sum's 'cpu' is the threads' sum, also listed below).
local seed_differs = {
	{
		["  Total 'live': 2.79374980927 (100.0%)"] = "  Total 'live': 2.79374980926 (100.0%)",
		["  Total 'cpu': 0.182189460521 (6.52%)"] = "  Total 'cpu': 0.182189460517 (6.52%)",
	},
	{
		["  Total 'live': 0.374999046326 (100.0%)"] = "  Total 'live': 0.37499904633 (100.0%)",
		["  Total 'stopped': 0.172591018677 (46.02%)"] = "  Total 'stopped': 0.17259101867 (46.02%)",
		["  Total 'cpu': 0.00240802764893 (0.64%)"] = "  Total 'cpu': 0.00240802766 (0.64%)",
		["  Total 'cpu': 0.100644926038 (0.99%)"] = "  Total 'cpu': 0.10064492603 (0.99%)",
		["  Total 'stopped': 9.19431114197 (90.17%)"] = "  Total 'stopped': 9.19431114193 (90.17%)",
		["  Total 'cpu': 0.00264692306519 (0.03%)"] = "  Total 'cpu': 0.00264692311 (0.03%)",
		["  Total 'cpu': 0.105699876752 (0.51%)"] = "  Total 'cpu': 0.1056998768 (0.51%)",
	},
}
-- Without the runtime's figure, the Global Sum's 'cpu' is the threads'.
local seed_cpu_sum = { "Total 'cpu': 0.182189460517", "Total 'cpu': 0.1056998768" }

local seed_name = "004_a0ad0d53c334da32.txt"
local seed, why = C.seed(seed_name)
local required = (os.getenv("REQUIRE_CONFORMANCE") or "") ~= ""
if not seed then
	if required then
		check("api seed: the Island seed is there (REQUIRE_CONFORMANCE is set)", false, why)
	else
		unit.skip("api seed: the Island seed's worked examples", why)
	end
else
	local examples = seed_examples(C.slurp(seed))
	check_eq("api seed: two worked examples, each with a timeline, the runtime's cpu and a report",
		{ #examples, examples[1] and examples[1].cpu, examples[2] and examples[2].cpu },
		{ 2, "0.182549", "0.103658" })
	for i, ex in ipairs(examples) do
		local tag = "api seed example " .. i
		-- The timeline as printed, read directly, with the runtime's cpu
		-- figure as its last line.
		local input = write_file(ex.timeline .. "Total 'cpu': " .. ex.cpu .. "\n")
		local args = { table.unpack(seed_limits[i]) }
		args[#args + 1] = input
		local rtext, rst, rerr = report(table.unpack(args))
		check_eq(tag .. ": the report runs on the timeline text", { rst, rerr }, { 0, "" })
		local mine = {}
		for l in (rtext or ""):gmatch("([^\n]*)\n") do mine[#mine + 1] = l end
		local same, differ, wrong = 0, 0, {}
		for k, want in ipairs(ex.lines) do
			local got = mine[k]
			if got == want then
				same = same + 1
			elseif seed_differs[i][want] and got == seed_differs[i][want] then
				differ = differ + 1
				local a, b = want:match("': (%S+)"), got:match("': (%S+)")
				if math.abs(tonumber(a) - tonumber(b)) > 1e-9 then wrong[#wrong + 1] = k .. ": " .. got end
			else
				wrong[#wrong + 1] = string.format("line %d: ours '%s', the seed's '%s'", k, tostring(got), want)
			end
		end
		local listed = 0
		for _ in pairs(seed_differs[i]) do listed = listed + 1 end
		check_eq(tag .. ": the seed's report line for line, but the listed last digits (within 1e-9 s)",
			{ wrong, differ, same + differ }, { {}, #ex.lines - same, #ex.lines })
		check(tag .. ": each listed line differs in the report (the list is not stale)", differ >= listed,
			string.format("%d lines differ, %d listed", differ, listed))
		check_eq(tag .. ": then the limits, each thread's amounts and the CPU check",
			{ mine[#ex.lines + 1], mine[#ex.lines + 2] }, { "", "--- Resource Limits ---" })
		os.remove(input)

		-- Without the runtime's line, 'cpu' in the Global Sum is the threads'.
		input = write_file(ex.timeline)
		args[#args] = input
		rtext = report(table.unpack(args))
		local sums = rtext:match("%-%-%- Global Sum %-%-%-\n\n(.-)\n\n") or ""
		check_eq(tag .. ": without the runtime's figure, the Global Sum's cpu is the threads'",
			sums:match("[^\n]*$"), seed_cpu_sum[i])

		-- Through the converter and the trace: the same figures, to the ns.
		local trace, st, e = C.run("apitimeline2statemap.lua", input)
		check_eq(tag .. ": the timeline as printed converts (strict)", { st, e }, { 0, "" })
		args[#args] = trace
		local from_trace = read_report(report(table.unpack(args)))
		local want = ex.expected
		check_eq(tag .. ": from the trace, the threads in the seed's order and its summary",
			{ from_trace.threads, from_trace.summary }, { want.threads, want.summary })
		local far = {}
		for _, name in ipairs(want.threads) do
			for k, v in pairs(want.consumption[name]) do
				local m = (from_trace.consumption[name] or {})[k]
				if not m or math.abs(m[1] - v[1]) > 2e-9 * 3 or math.abs(m[2] - v[2]) > 0.011 then
					far[#far + 1] = name .. " " .. k
				end
			end
		end
		check_eq(tag .. ": from the trace, every figure within a few ns of the seed's", far, {})
		os.remove(trace)
		os.remove(input)
	end
end

-- ---- Bad timelines ---------------------------------------------------------------

-- Each: the timeline, and the one line it fails with after FILE:.
local bad_timelines = {
	{ "x y z\n", "1:1: expected a TOC (seconds), not 'x'" },
	{ "0.1\n", "1:4: expected a THREAD after the TOC" },
	{ "0.1 a\n", "1:6: expected an API after the THREAD" },
	{ "0.1 ALL Paused 2\n", "1:9: expected 'ALL Stopped SECONDS', not 'ALL Paused'" },
	{ "0.1 ALL Stopped soon\n", "1:17: expected the SECONDS the program was stopped" },
	{ "0.1 ALL Stopped 1 2\n", "1:19: unexpected text after 'ALL Stopped SECONDS'" },
	{ "0.1 a island_create_thread now\n", "1:28: unexpected text after island_create_thread" },
	{ "0.1 a start call read\n", "1:5: a has no island_create_thread before this line" },
	{ "0.1 a island_create_thread\n0.2 a file.write lots\n",
	  "2:18: expected an AMOUNT (a number not below 0), not 'lots'" },
	{ "0.1 a island_create_thread\n0.2 a file.write -5\n",
	  "2:18: expected an AMOUNT (a number not below 0), not '-5'" },
	{ "0.1 a island_create_thread\n0.2 a open 1 2\n", "2:14: unexpected text after 'API AMOUNT'" },
	{ "0.1 a island_create_thread\n0.2 a start call\n", "2:17: expected the API after 'start call'" },
	{ "0.1 a island_create_thread\n0.2 a start call read\n0.3 a file.write 5\n",
	  "3:7: a returns from file.write during its call to read from line 2" },
	{ "0.1 a island_create_thread\n0.2 a start call read\n0.3 a start call write\n",
	  "3:18: a starts a call to write during its call to read from line 2" },
	{ "0.1 a island_create_thread\n0.2 a start call sleep\n0.3 a island_destroy_thread\n",
	  "3:7: a is destroyed during its call to sleep from line 2" },
	{ "0.1 a island_create_thread\n0.2 a island_destroy_thread\n0.3 a open 1\n",
	  "3:5: a was destroyed at line 2" },
	{ "0.1 a island_create_thread\n0.2 a island_create_thread\n", "2:7: a was already created at line 1" },
	{ "0.1 a island_create_thread\n0.05 a open 1\n", "2:1: time 0.05 is before the previous line's, 0.1" },
	{ "0.1 a island_create_thread\n0.2 a start call cpu\n",
	  "2:18: 'cpu' is a state of the trace, not usable as an API" },
	{ "0.1 a island_create_thread\nTOC, Thread, API, Amount\n",
	  "2:1: the header 'TOC, Thread, API, Amount' must come first" },
	{ "Total 'cpu': lots\n", "1:14: expected the CPU seconds after Total 'cpu':" },
	{ "Total 'cpu': 0.5 s\n", "1:18: unexpected text after Total 'cpu': SECONDS" },
	{ "Total 'cpu': 1\n0.1 a island_create_thread\nTotal 'cpu': 2\n",
	  "3:1: a second Total 'cpu': line (the first is line 1)" },
}
for _, case in ipairs(bad_timelines) do
	local name = write_file(case[1])
	local o, st, e = C.run("apitimeline2statemap.lua", name)
	check_eq("api: bad timeline: " .. case[2], { st, e, C.slurp(o) }, { 1, name .. ":" .. case[2] .. "\n", "" })
	os.remove(o)
	os.remove(name)
end
do
	local name = write_file("# nothing but a comment\n\nTOC, Thread, API, Amount\n")
	local o, st, e = C.run("apitimeline2statemap.lua", name)
	check_eq("api: a timeline without threads", { st, e, C.slurp(o) }, { 1, name .. ": no thread in the timeline\n", "" })
	os.remove(o)
	os.remove(name)
end

-- The runtime's CPU figure: accepted anywhere (the header may still come
-- first), carried through the trace, printed as the Global Sum's cpu.
do
	local name = write_file("TOC, Thread, API, Amount\nTotal 'cpu': 0.25\n0.1 a island_create_thread\n"
		.. "0.5 a island_destroy_thread\n")
	local o, st, e = C.run("apitimeline2statemap.lua", name)
	local direct = report(name)
	local via = st == 0 and report(o) or ""
	check_eq("api: Total 'cpu': SECONDS is the Global Sum's cpu, from the text and through the trace",
		{ st, e, direct:match("\nTotal 'cpu': (%S+)\n"), via:match("\nTotal 'cpu': (%S+)\n"),
		  direct:match("  Total 'cpu': (%S+)") },
		{ 0, "", "0.25", "0.25", "0.4" })
	os.remove(o)
	os.remove(name)
end

local bad = write_file("0.1 a island_create_thread\n0.2 a start call read\n0.3 a file.write 5\nx y z\n"
	.. "0.05 a open 1\n0.4 ALL Stopped soon\n0.5 a read 10\n")
C.check_all_or_nothing("api: a bad line", "apitimeline2statemap.lua", { bad }, 1, "^.+:3:7: .+$")
out, status, err = C.run("apitimeline2statemap.lua", "--lenient", bad)
local lines = {}
for l in err:gmatch("[^\n]+") do lines[#lines + 1] = l:match(":(%d+:%d+): ") or l end
check_eq("api: --lenient reports every bad line and skips it", { status, lines },
	{ 0, { "3:7", "4:1", "5:1", "6:17", bad .. ": 4 bad lines skipped" } })
check_eq("api: --lenient keeps the good lines, and the skipped ones change nothing",
	{ sm.load(out):entity("a"):at(450 * ms) }, { "read", "read 10, lines 2-7", 200 * ms, 500 * ms })
os.remove(out)
os.remove(bad)
out, status = C.run("apitimeline2statemap.lua", "--help")
check("api: --help", status == 0 and C.slurp(out):find("usage:", 1, true))
os.remove(out)

-- ---- Bad report arguments ------------------------------------------------------

local function report_fails(name, args, want_status, want_err)
	local o, st, e = C.run("api-report.lua", table.unpack(args))
	check_eq("api report: " .. name, { st, e, C.slurp(o) }, { want_status, want_err, "" })
	os.remove(o)
end
report_fails("a stopped call needs its resource's limit", { "--cpu", "0.5", sample_trace }, 1,
	"api-report.lua: " .. sample_trace .. ": worker's call to file.write at 0.25 s was stopped: "
	.. "its expected time needs --filewrite LIMIT\n")
report_fails("an unknown resource", { "--filewrit", "1000", sample_trace }, 2,
	"api-report.lua: --filewrit: no resource 'filewrit' (the resources: cpu, events, fileread, "
	.. "filesopened, filewrite, frobnicate, insockets, outsockets, random, sleep, tcprecv, tcpsend, "
	.. "udprecv, udpsend)\n")
report_fails("a limit that is not a number", { "--filewrite=fast", sample_trace }, 2,
	"api-report.lua: --filewrite: the limit must be a number above 0, not 'fast'\n")
report_fails("a limit of 0", { "--filewrite", "0", sample_trace }, 2,
	"api-report.lua: --filewrite: the limit must be a number above 0, not '0'\n")
report_fails("a limit without a value", { sample_trace, "--filewrite" }, 2,
	"api-report.lua: --filewrite needs a limit\n")
do
	local name = write_file("0.1 a island_create_thread\n0.2 a island_create_thread\n")
	report_fails("a bad timeline read directly: one line with its place", { name }, 1,
		"api-report.lua: " .. name .. ":2:7: a was already created at line 1\n")
	os.remove(name)
end
report_fails("two files", { sample_trace, sample_trace }, 2, "api-report.lua: one FILE only (see --help)\n")
do
	local missing = os.tmpname()
	os.remove(missing)
	local o, st, e = C.run("api-report.lua", missing)
	check_eq("api report: a trace that is not there: one line naming it",
		{ st, select(2, e:gsub("\n", "")), e:find(missing, 1, true) ~= nil, C.slurp(o) }, { 1, 1, true, "" })
	os.remove(o)
	-- A statemap that is not an API timeline's: a tag that is no call.
	local other = write_file('{"start":[0,0],"states":{"cpu":{"value":0}}}\n'
		.. '{"time":"0","entity":"a","state":0,"tag":"x"}\n{"time":"5","entity":"a","state":0}\n')
	report_fails("a trace from something else", { other }, 1,
		"api-report.lua: " .. other .. ": thread a has no island_create_thread: "
		.. "not a trace from apitimeline2statemap.lua\n")
	os.remove(other)
end
out, status = C.run("api-report.lua", "--help")
check("api report: --help", status == 0 and C.slurp(out):find("usage:", 1, true))
os.remove(out)
os.remove(sample_trace)
