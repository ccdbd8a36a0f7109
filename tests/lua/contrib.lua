-- contrib.lua: helpers for the tests of contrib/ converters: run one into
-- a temporary file and load the result.
local sm = require "statemap"
local C = {}
local here = arg[0]:match("^(.*)/[^/]*$") or "."
C.top = here .. "/../.."
C.samples = here .. "/../contrib"
C.sm = os.getenv("SM") or (C.top .. "/statemap-lua")

function C.quote(s)
	return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

--- Runs `statemap-lua contrib/SCRIPT args...` with stdout to a temporary
--- file; returns the file name, the exit status and the stderr text.
function C.run(script, ...)
	local out, err = os.tmpname(), os.tmpname()
	local cmd = { C.quote(C.sm), C.quote(C.top .. "/contrib/" .. script) }
	for _, a in ipairs({ ... }) do cmd[#cmd + 1] = C.quote(a) end
	local ok, how, code = os.execute(table.concat(cmd, " ") .. " > " .. out .. " 2> " .. err)
	local f = io.open(err)
	local errtext = f:read("a")
	f:close()
	os.remove(err)
	return out, (how == "exit" and code or 128 + code), errtext
end

--- The records of a converter's output, decoded.
function C.records(path)
	local recs = {}
	for line in io.lines(path) do recs[#recs + 1] = sm.json.decode(line) end
	return recs
end

--- Names of a trace's entities, and of its states, as sorted lists.
function C.names(list)
	local n = {}
	for _, x in ipairs(list) do n[#n + 1] = x.name end
	table.sort(n)
	return n
end

--- The event records of a converter's output.
function C.events(path)
	local ev = {}
	for _, r in ipairs(C.records(path)) do
		if r.event then ev[#ev + 1] = r end
	end
	return ev
end

--- Whether the data and events of a converter's output are in time
--- order, and the metadata comes first.
function C.in_order(path)
	local last = -1
	for i, r in ipairs(C.records(path)) do
		if i == 1 and not r.states then return false end
		local t = r.time and tonumber(r.time)
		if t then
			if t < last then return false end
			last = t
		end
	end
	return true
end

-- The main checkout of a linked git worktree (its .git is a file naming
-- MAIN/.git/worktrees/NAME), or nil.
local function main_checkout()
	local f = io.open(C.top .. "/.git")
	local line = f and f:read("l")
	if f then f:close() end
	return line and line:match("^gitdir: (.+)/%.git/worktrees/[^/]+$")
end

--- The path of a seed document, which lies outside the repository: in
--- $SM_SEEDS, else ../shared/seeds beside the repository's root (for
--- a linked worktree, beside its main checkout's). Returns nil and the
--- places looked in if it is not there.
function C.seed(name)
	local dirs = {}
	if os.getenv("SM_SEEDS") then dirs[1] = os.getenv("SM_SEEDS") end
	dirs[#dirs + 1] = C.top .. "/../shared/seeds"
	local main = main_checkout()
	if main then dirs[#dirs + 1] = main .. "/../shared/seeds" end
	local tried = {}
	for _, d in ipairs(dirs) do
		local f = io.open(d .. "/" .. name)
		if f then
			f:close()
			return d .. "/" .. name
		end
		tried[#tried + 1] = d
	end
	return nil, "no " .. name .. " in " .. table.concat(tried, " or ")
end

--- A fresh private directory (removed by C.rmdir).
function C.tmpdir()
	local p = io.popen("mktemp -d")
	local d = p:read("l")
	p:close()
	return d
end

function C.rmdir(d)
	if d and d:match("^/.+") then os.execute("rm -rf " .. C.quote(d)) end
end

--- The names in a directory (including hidden ones), sorted.
function C.ls(d)
	local p = io.popen("ls -A " .. C.quote(d))
	local names = {}
	for l in p:lines() do names[#names + 1] = l end
	p:close()
	table.sort(names)
	return names
end

local function slurp(path)
	local f = io.open(path)
	if not f then return nil end
	local s = f:read("a")
	f:close()
	return s
end
C.slurp = slurp

--- A converter that fails (on `args`, which make it fail) must leave no
--- partial output: run in a private directory with TMPDIR inside it,
--- once to standard output and once with `-o FILE`, FILE holding an
--- earlier result. Checks that it exits with `status`, prints `nlines`
--- lines on standard error (default 1), the last matching the Lua
--- pattern `errpat`, and nothing on standard output, leaves FILE as it
--- was, and leaves no other file behind.
function C.check_all_or_nothing(name, script, args, status, errpat, nlines)
	local unit = require "unit"
	local d = C.tmpdir()
	os.execute("mkdir " .. C.quote(d .. "/tmp"))
	local function run(extra)
		local cmd = { "TMPDIR=" .. C.quote(d .. "/tmp"), C.quote(C.sm),
			C.quote(C.top .. "/contrib/" .. script) }
		for _, a in ipairs(extra) do cmd[#cmd + 1] = C.quote(a) end
		for _, a in ipairs(args) do cmd[#cmd + 1] = C.quote(a) end
		local _, how, code = os.execute(table.concat(cmd, " ") .. " > " .. C.quote(d .. "/stdout")
			.. " 2> " .. C.quote(d .. "/stderr") .. " < /dev/null")
		return how == "exit" and code or 128 + code
	end
	local st = run({})
	local err = slurp(d .. "/stderr") or ""
	local lines = select(2, err:gsub("\n", ""))
	local last = err:match("([^\n]*)\n$") or err
	unit.check_eq(name .. ": fails to standard output with one error line, writing nothing",
		{ st, lines, last:match(errpat) ~= nil, slurp(d .. "/stdout") },
		{ status, nlines or 1, true, "" })
	local f = io.open(d .. "/out.json", "w")
	f:write("earlier\n")
	f:close()
	st = run({ "-o", d .. "/out.json" })
	err = slurp(d .. "/stderr") or ""
	last = err:match("([^\n]*)\n$") or err
	unit.check_eq(name .. ": fails with -o FILE, FILE left as it was, nothing else left behind",
		{ st, last:match(errpat) ~= nil, slurp(d .. "/out.json"), C.ls(d), C.ls(d .. "/tmp") },
		{ status, true, "earlier\n", { "out.json", "stderr", "stdout", "tmp" }, {} })
	C.rmdir(d)
end

--- `-o FILE` writes what standard output would get (replacing an
--- earlier FILE), and nothing is left behind in the directory or TMPDIR.
function C.check_output_option(name, script, args)
	local unit = require "unit"
	local d = C.tmpdir()
	os.execute("mkdir " .. C.quote(d .. "/tmp"))
	local f = io.open(d .. "/out.json", "w")
	f:write("earlier\n")
	f:close()
	local function command(extra)
		local cmd = { "TMPDIR=" .. C.quote(d .. "/tmp"), C.quote(C.sm), C.quote(C.top .. "/contrib/" .. script) }
		for _, a in ipairs(extra) do cmd[#cmd + 1] = C.quote(a) end
		for _, a in ipairs(args) do cmd[#cmd + 1] = C.quote(a) end
		return table.concat(cmd, " ")
	end
	local ok1 = os.execute(command({}) .. " > " .. C.quote(d .. "/stdout") .. " 2> " .. C.quote(d .. "/stderr"))
	local ok2 = os.execute(command({ "-o", d .. "/out.json" }) .. " > " .. C.quote(d .. "/stdout2")
		.. " 2>> " .. C.quote(d .. "/stderr"))
	local out = slurp(d .. "/stdout")
	unit.check_eq(name .. ": -o FILE writes what standard output gets, and only that",
		{ ok1, ok2, #out > 0, slurp(d .. "/out.json") == out, slurp(d .. "/stdout2"), slurp(d .. "/stderr"),
		  C.ls(d), C.ls(d .. "/tmp") },
		{ true, true, true, true, "", "", { "out.json", "stderr", "stdout", "stdout2", "tmp" }, {} })
	C.rmdir(d)
end

return C
