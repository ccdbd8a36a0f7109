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

return C
