-- The documentation says what the program does: --help lists every long
-- option and points to the man page, every option of --help and every
-- environment variable the sources read is in the man page, the man pages
-- build and are what make installs, the README stays a short front door
-- whose quick start installs what the build needs and whose links lead
-- somewhere, and the bundled examples are described as they are.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local sm = require "statemap"
local check = unit.check

local top = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/../.."
local function read(path)
	local f = assert(io.open(top .. "/" .. path))
	local s = f:read("a")
	f:close()
	return s
end

local SM = os.getenv("SM") or (top .. "/statemap-lua")
local p = assert(io.popen("'" .. SM .. "' --help"))
local help = p:read("a")
p:close()
-- The man page's source (src/cli/md2man.lua makes the roff of it).
local man_text, readme = read("src/cli/statemap-lua.1.md"), read("README.md")

local options = {}
for opt in help:gmatch("%-%-[%a][%w%-]*") do options[opt] = true end
check("docs: --help lists long options", next(options) ~= nil)
for opt in pairs(options) do
	check("docs: the man page has " .. opt, man_text:find("`" .. opt, 1, true) ~= nil)
end
check("docs: --help points to the man page",
	help:find("man statemap-lua", 1, true) ~= nil)

-- --help is a summary, but of every long option the command line takes
-- (the getopt table's, and those parsed by hand), camel-case aliases
-- aside.
local cli = assert(io.popen("cat '" .. top .. "'/src/cli/*.c"))
local cli_text = cli:read("a")
cli:close()
local taken = {}
for name in cli_text:gmatch('{ "([%a][%w%-]*)", [%a_]+_argument') do taken["--" .. name] = true end
for name in cli_text:gmatch('strcmp%([%w%[%]]+, "(%-%-[%a][%w%-]*)"%)') do taken[name] = true end
check("docs: the command line's long options are found", taken["--timeout"] and taken["--begin"])
for opt in pairs(taken) do
	if not opt:find("%u") then
		check("docs: --help lists " .. opt, options[opt] ~= nil)
	end
end

-- Environment variables the sources read, by getenv or size_from_env.
local vars = {}
local sources = assert(io.popen("ls '" .. top .. "'/src/*/*.c"))
for f in sources:lines() do
	local ok, text = pcall(read, f:sub(#top + 2))
	if ok then
		for v in text:gmatch('getenv%("([A-Z_]+)"%)') do vars[v] = true end
		for v in text:gmatch('size_from_env%("([A-Z_]+)"') do vars[v] = true end
	end
end
sources:close()
check("docs: the sources read environment variables", vars.STATEMAP_THREADS ~= nil)
for v in pairs(vars) do
	check("docs: the man page has " .. v, man_text:find(v, 1, true) ~= nil)
end

-- The quick start installs every development package CI builds with.
local ci = read(".ci/run")
local quick = readme:match("## Quick start.-\n    ([^\n]*apt%-get install[^\n]*)\n")
check("docs: the README has a quick start command", quick ~= nil)
for pkg in ci:gmatch("([%w%.%-]+%-dev)") do
	if pkg ~= "libclang-rt-14-dev" then
		check("docs: the quick start installs " .. pkg, quick and quick:find(pkg, 1, true) ~= nil)
	end
end
check("docs: the quick start works as root (no bare sudo)",
	quick and not quick:match("^sudo ") and quick:find('id -u', 1, true) ~= nil)

-- The README is the front door: short, tables of short cells, links that
-- lead somewhere.
local nlines = select(2, readme:gsub("\n", ""))
check("docs: README.md has at most 300 lines", nlines <= 300, nlines .. " lines")
local longest = ""
for line in readme:gmatch("[^\n]+") do
	if line:find("^|") then
		for cell in line:gmatch("|([^|]*)") do
			if utf8.len(cell) > utf8.len(longest) then longest = cell end
		end
	end
end
check("docs: README.md's table cells are at most 200 characters", utf8.len(longest) <= 200,
	longest:sub(1, 60) .. "... has " .. utf8.len(longest))
for link in readme:gmatch("%]%(([^)#:]+)[^):]*%)") do
	check("docs: README.md's link " .. link .. " leads to a file",
		io.open(top .. "/" .. link) ~= nil)
end

-- Every man page source the Makefile names builds with md2man.lua, and is
-- one that make install installs (tests/golden/install lists them).
local makefile = read("Makefile")
local man_src = makefile:match("\nMAN_SRC%s*=%s*(.-[^\\])\n")
check("docs: the Makefile names the man pages' sources", man_src ~= nil)
local pages = {}
for src in (man_src or ""):gmatch("[%w%./%-]+%.md") do pages[#pages + 1] = src end
check("docs: three man pages", #pages == 3, #pages)
local groff = os.execute("command -v groff > /dev/null")
if not groff then unit.skip("docs: man pages render without warnings", "no groff") end
for _, src in ipairs(pages) do
	local name, section = src:match("([%w%-]+)%.(%d)%.md$")
	local out = unit.tmpname("." .. tostring(section))
	local ok = os.execute(("lua5.4 '%s/src/cli/md2man.lua' '%s/%s' '%s' 0 2>&1"):format(
		top, top, src, out))
	check("docs: " .. src .. " builds", ok)
	local f = io.open(out)
	local roff = f and f:read("a") or ""
	if f then f:close() end
	check("docs: " .. src .. " is page " .. tostring(name) .. "(" .. tostring(section) .. ")",
		roff:find("\n%.TH " .. (name or ""):upper():gsub("%-", "%%-") .. " " .. tostring(section) .. " ") ~= nil)
	check("docs: " .. src .. " has a NAME section", roff:find("\n%.SH\nNAME\n") ~= nil)
	if groff then
		local g = assert(io.popen("groff -man -Tutf8 -ww -z '" .. out .. "' 2>&1"))
		local warnings = g:read("a")
		g:close()
		check("docs: " .. src .. " renders without warnings", warnings == "", warnings)
	end
	os.remove(out)
end

-- The bundled examples, as their README describes them.
local data = read("examples/data/README.md")
local n = tonumber(data:match("`db%-threads%.out` | (%d+) threads"))
local t = sm.load(top .. "/examples/data/db-threads.out", { cache = false })
check("docs: examples/data/README.md counts db-threads' threads", n == #t:entities(),
	tostring(n) .. " said, " .. #t:entities() .. " there")

-- src/README.md names every module of src/ in its layer's section, and
-- only those.
local map = read("src/README.md")
local named = {}
for part in (map .. "\n### "):gmatch("(.-)\n### ") do
	local layer, section = part:match("^(%w+)/\n(.*)$")
	for cell in (section or ""):gmatch("\n| ([^|]+) |") do
		for m in cell:gmatch("`([%w_]+)`") do named[layer .. "/" .. m] = true end
	end
end
check("docs: src/README.md has the layers' sections", next(named) ~= nil)
local ls = assert(io.popen("cd '" .. top .. "/src' && ls */*.h"))
local modules = {}
for f in ls:lines() do
	local m = f:match("^(%w+/[%w_]+)%.h$")
	if m then modules[m] = true end
end
ls:close()
for m in pairs(modules) do
	check("docs: src/README.md names " .. m .. " in its layer", named[m] ~= nil)
end
for m in pairs(named) do
	check("docs: src/README.md's " .. m .. " is in src/", modules[m] ~= nil)
end
