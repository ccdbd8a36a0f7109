-- Keeps lua/help.lua (what help() says in the REPL) and the API tables of
-- the Lua API's man page (src/lua/statemap-lua-api.3.md) the same: every
-- table row there that documents an API name (its first cell starts with
-- `statemap.`, `t.`, `t:`, `e.`, `e:`, `b:` or `json.`) must be an entry
-- of help.lua with the same two cells, and every entry must be such a row
-- (or, marked prose, appear in the page's text). A failure prints the Lua
-- line to paste into help.lua.
local help = require "statemap.help"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check = unit.check

local PAGE = "src/lua/statemap-lua-api.3.md"
local f = assert(io.open(PAGE))
local page = f:read("a")
f:close()

local API = { "statemap%.", "t[.:]", "e[.:]", "b:", "json%." }

local function documents_api(cell)
	for _, p in ipairs(API) do
		if cell:find("^`" .. p) then return true end
	end
	return false
end

-- The page's API rows, in order: {signature, description}.
local rows, row_of = {}, {}
for line in page:gmatch("[^\n]+") do
	local sig, rest = line:match("^| (`.-`[^|]*) |(.*)$")
	if sig and documents_api(sig) then
		local desc = rest:gsub("|%s*$", ""):match("^%s*(.-)%s*$")
		rows[#rows + 1] = { sig, desc }
		row_of[sig] = desc
	end
end
check("the API page has API rows", #rows > 20, #rows)

local function lua_string(s)
	return '"' .. s:gsub('[\\"]', "\\%0") .. '"'
end

local entry_of = {}
for _, entry in ipairs(help.entries) do entry_of[entry[1]] = entry end

for _, row in ipairs(rows) do
	local entry = entry_of[row[1]]
	check("help has the API page's " .. row[1],
	    entry ~= nil and entry[2] == row[2] and not entry.prose,
	    "put this entry in lua/help.lua: { " .. lua_string(row[1]) ..
	    ",\n\t  " .. lua_string(row[2]) .. " },")
end

for _, entry in ipairs(help.entries) do
	if entry.prose then
		check("the API page's text has " .. entry[1],
		    page:find(entry[1], 1, true) ~= nil and row_of[entry[1]] == nil,
		    "not in " .. PAGE .. ", or in a table (then drop prose = true)")
	else
		check("the API page has help's " .. entry[1], row_of[entry[1]] ~= nil,
		    "add the row to " .. PAGE .. "'s API tables, or drop the entry")
	end
end

-- Every name an entry documents exists, so that help(t.at) finds it.
local registry = debug.getregistry()
local objects = {
	t = registry["statemap.trace"].methods,
	e = registry["statemap.entity"].methods,
	b = registry["statemap.builder"].methods,
	statemap = statemap,
	json = statemap.json,
}
local t = statemap.load("examples/data/db-threads.out")
local e = t:entities()[1]
for _, entry in ipairs(help.entries) do
	for _, n in ipairs(help.names(entry)) do
		local obj, sep, name = n[1], n[2], n[3]
		local full = obj .. sep .. name
		local exists
		if sep == ":" then
			exists = type(rawget(objects[obj], name)) == "function"
		elseif obj == "t" or obj == "e" then
			-- A field: reading it must not raise (nil is fine: absent metadata).
			exists = pcall(function() return (obj == "t" and t or e)[name] end)
		elseif obj == "statemap" and package.preload["statemap." .. name] then
			exists = true
		else
			exists = objects[obj][name] ~= nil
		end
		check("the API has " .. full, exists)
	end
end
