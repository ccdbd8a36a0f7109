-- unit.lua: checks for the Lua tests, printing "PASS name" or
-- "FAIL name: why" lines that tests/run counts.
local unit = {}

--- Deep equality of plain values and tables.
function unit.same(a, b)
	if type(a) ~= "table" or type(b) ~= "table" then return a == b end
	for k, v in pairs(a) do if not unit.same(v, b[k]) then return false end end
	for k in pairs(b) do if a[k] == nil then return false end end
	return true
end

--- A value as text, tables with sorted keys, for failure messages.
function unit.show(v)
	if type(v) ~= "table" then return tostring(v) end
	local keys, out = {}, {}
	for k in pairs(v) do keys[#keys + 1] = k end
	table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
	for _, k in ipairs(keys) do out[#out + 1] = tostring(k) .. "=" .. unit.show(v[k]) end
	return "{" .. table.concat(out, ", ") .. "}"
end

function unit.check(name, cond, detail)
	print((cond and "PASS " or "FAIL ") .. name ..
	    ((not cond and detail) and (": " .. tostring(detail)) or ""))
end

function unit.check_eq(name, got, want)
	unit.check(name, unit.same(got, want),
	    "got " .. unit.show(got) .. ", want " .. unit.show(want))
end

--- A fresh temporary file name ending in suffix (".png"): os.tmpname
--- makes a file of its own name, which is removed, so no test leaves it.
function unit.tmpname(suffix)
	local name = os.tmpname()
	os.remove(name)
	return name .. (suffix or "")
end

--- A check that cannot run on this machine (a tool or data is missing):
--- counted as skipped by tests/run, never as passed.
function unit.skip(name, why)
	print("SKIP " .. name .. ": " .. tostring(why))
end

--- f must raise an error whose message contains the plain text pattern.
function unit.check_error(name, f, pattern)
	local ok, err = pcall(f)
	unit.check(name, not ok and tostring(err):find(pattern, 1, true) ~= nil,
	    ok and "no error" or tostring(err))
end

return unit
