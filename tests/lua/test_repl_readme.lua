-- Keeps the REPL sessions in the docs true: the short one in README.md
-- ("The REPL") and the longer one in the Lua API's man page
-- (src/lua/statemap-lua-api.3.md, "THE REPL"). The lines after each
-- session's prompts go to `statemap-lua --interactive` through a pipe, and
-- what it prints (standard output and error together) must be the other
-- lines of the transcript; the banner must be what the REPL prints for the
-- same files. Run from the top of the tree, as tests/run does.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq = unit.check, unit.check_eq
local repl = require "statemap.repl"

-- Each document, and how many statements its session has at least.
local DOCS = { { "README.md", 2 }, { "src/lua/statemap-lua-api.3.md", 5 } }

local function session(doc, least)
	local f = assert(io.open(doc))
	local text = f:read("a")
	f:close()

	-- The indented block after the comment that names this test.
	local block = text:match("tests/lua/test_repl_readme%.lua.-%-%->\n\n(.-)\n\n")
	check(doc .. " has the transcript", block ~= nil)
	if not block then return end

	local lines = {}
	for line in (block .. "\n"):gmatch("(.-)\n") do
		lines[#lines + 1] = line:gsub("^    ", "", 1)
	end
	local files = lines[1]:match("^%$ statemap%-lua %-i (.*)$")
	check(doc .. ": the transcript starts with the command", files ~= nil, lines[1])
	if not files then return end

	local banner, input, want = {}, {}, {}
	local i = 2
	while lines[i] and not lines[i]:find("^> ") do
		banner[#banner + 1] = lines[i]
		i = i + 1
	end
	for j = i, #lines do
		local typed = lines[j]:match("^>> (.*)$") or lines[j]:match("^> (.*)$")
		if typed then input[#input + 1] = typed else want[#want + 1] = lines[j] end
	end
	check(doc .. ": the transcript has statements", #input >= least, #input)

	local traces = {}
	for path in files:gmatch("%S+") do traces[#traces + 1] = statemap.load(path) end
	check_eq(doc .. ": the banner is the REPL's", table.concat(banner, "\n"), repl.banner(traces))

	local tmp = os.tmpname()
	f = assert(io.open(tmp, "w"))
	f:write(table.concat(input, "\n"), "\n")
	f:close()
	local sm = os.getenv("SM") or "./statemap-lua"
	local p = assert(io.popen(("%s --interactive %s < %s 2>&1"):format(sm, files, tmp)))
	local got = p:read("a")
	p:close()
	os.remove(tmp)

	-- Line by line, so that a failure names the first line that differs.
	local got_lines = {}
	for line in got:gmatch("(.-)\n") do got_lines[#got_lines + 1] = line end
	local first
	for j = 1, math.max(#got_lines, #want) do
		if got_lines[j] ~= want[j] then first = j break end
	end
	check(doc .. ": the REPL prints the transcript's results", first == nil,
	    first and ("line %d of the results: the document says %q, the REPL printed %q"):format(
	    first, tostring(want[first]), tostring(got_lines[first])))
end

for _, d in ipairs(DOCS) do session(d[1], d[2]) end
