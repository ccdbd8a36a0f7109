-- The documentation says what the program does: every option of --help
-- is in the man page and the README, every environment variable the
-- sources read is in the man page, the quick start installs what the
-- build needs, and the bundled examples are described as they are.
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
	check("docs: the man page has " .. opt, man_text:find(opt, 1, true) ~= nil)
	check("docs: the README has " .. opt, readme:find("`" .. opt, 1, true) ~= nil)
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
