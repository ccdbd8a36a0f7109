-- repl.lua: the Lua half of the REPL (statemap-lua -i): loading the
-- traces, evaluating what is typed, showing results, help() and the
-- candidates for Tab completion. src/cli/repl.c reads the lines (with
-- GNU readline on a terminal) and calls feed, finish and complete.
local sm = require "statemap"
local help = require "statemap.help"

local repl = {}

local registry = debug.getregistry()
local TRACE, ENTITY = "statemap.trace", "statemap.entity"

-- Results whose values are durations in ns, shown in human units. Weak,
-- so that marking a table does not keep it alive.
local durations = setmetatable({}, { __mode = "k" })

-- An expression whose value is a table of durations in ns: a call of
-- time_in, t:time_in() or e:time_in("1s", "2s"), as the last thing typed.
-- (Recognised in the text rather than by wrapping the methods, so that
-- scripts and the REPL see exactly the same functions and errors.)
local function returns_durations(src)
	return src:find("[:.]time_in%s*%b()%s*$") ~= nil
end

---------------------------------------------------------------- showing values

local MAX_ITEMS = 40	-- entries of one table shown; then "... (N more)"
local MAX_DEPTH = 4	-- tables nested deeper show as {...}
local WIDTH = 78	-- a table that fits stays on one line

-- Fields of the API's records come first, in this order; others follow
-- sorted.
local FIELD_ORDER = {}
for i, k in ipairs { "name", "entity", "state", "tag", "start", "finish",
    "value", "color", "min", "max", "mean" } do
	FIELD_ORDER[k] = i
end

-- The objects' metatables are protected: getmetatable gives their names.
local function class_of(v)
	if type(v) ~= "userdata" then return nil end
	local mt = getmetatable(v)
	if mt == TRACE or mt == ENTITY then return mt end
end

local function quote(s)
	return '"' .. s:gsub('[%c"\\]', function(c)
		local named = { ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r",
		    ['"'] = '\\"', ["\\"] = "\\\\" }
		return named[c] or ("\\%03d"):format(c:byte())
	end) .. '"'
end

--- A count in at most about four characters: 950, 12345, 45.6K, 1.2M.
function repl.count(n)
	if n < 100000 then return tostring(n) end
	for _, u in ipairs { { 1e9, "G" }, { 1e6, "M" }, { 1e3, "K" } } do
		if n >= u[1] then return ("%.1f%s"):format(n / u[1], u[2]) end
	end
end

--- A trace in one line: <trace "title": 64 entities, 9 states, 1.2M
--- transitions, 12.500s>.
function repl.trace_summary(t)
	return ('<trace %s: %d entities, %d states, %s transitions, %s>'):format(
	    quote(t.title or t.name), #t:entities(), #t.states,
	    repl.count(t.transitions), sm.format_ns(t.finish - t.begin))
end

-- The function value of every help entry's name, filled by index_help.
local function_names = {}

local function show_function(f)
	if function_names[f] then
		return "<function " .. function_names[f] .. ">"
	end
	local info = debug.getinfo(f, "S")
	if info.what == "C" then return "<function (C)>" end
	return ("<function %s:%d>"):format(info.short_src, info.linedefined)
end

local function sorted_keys(t)
	local keys, n = {}, rawlen(t)
	for k in pairs(t) do
		if not (math.type(k) == "integer" and k >= 1 and k <= n) then
			keys[#keys + 1] = k
		end
	end
	table.sort(keys, function(a, b)
		local oa, ob = FIELD_ORDER[a], FIELD_ORDER[b]
		if oa or ob then
			if oa and ob then return oa < ob end
			return oa ~= nil
		end
		local ta, tb = type(a), type(b)
		if ta ~= tb then return ta < tb end
		if ta == "number" or ta == "string" then return a < b end
		return tostring(a) < tostring(b)
	end)
	return keys, n
end

local show

local function show_key(k)
	if type(k) == "string" and k:match("^[%a_][%w_]*$") then return k end
	return "[" .. show(k, 0, {}) .. "]"
end

local function show_table(t, depth, seen, indent)
	if seen[t] then return "<cycle>" end
	local keys, n = sorted_keys(t)
	if n + #keys == 0 then return "{}" end
	if depth >= MAX_DEPTH then return "{...}" end
	seen[t] = true
	local as_ns = durations[t]
	local items, total, multiline = {}, n + #keys, false
	local function add(text)
		if text:find("\n") then multiline = true end
		items[#items + 1] = text
	end
	local inner = indent .. "  "
	local function value(v)
		if as_ns and math.type(v) == "integer" and v >= 0 then
			return sm.format_ns(v)
		end
		return show(v, depth + 1, seen, inner)
	end
	-- flat: only array items, none of them a table.
	local flat = #keys == 0
	for i = 1, math.min(n, MAX_ITEMS) do
		flat = flat and type(t[i]) ~= "table"
		add(value(t[i]))
	end
	for i = 1, math.min(#keys, MAX_ITEMS - #items) do
		add(show_key(keys[i]) .. " = " .. value(t[keys[i]]))
	end
	if #items < total then
		add(("... (%d more)"):format(total - #items))
	end
	seen[t] = nil
	local text = "{" .. table.concat(items, ", ") .. "}"
	if multiline or #indent + #text > WIDTH then
		local sep = ",\n" .. inner
		if flat then
			-- A long list of scalars: filled into lines, not one a line.
			local lines, line = {}, items[1]
			for i = 2, #items do
				if #inner + #line + 2 + #items[i] > WIDTH then
					lines[#lines + 1] = line
					line = items[i]
				else
					line = line .. ", " .. items[i]
				end
			end
			lines[#lines + 1] = line
			items = lines
		end
		text = "{\n" .. inner .. table.concat(items, sep) .. "\n" .. indent .. "}"
	end
	-- An interval: say how long it is.
	if math.type(t.start) == "integer" and math.type(t.finish) == "integer" and
	    t.finish >= t.start then
		text = text .. " (" .. sm.format_ns(t.finish - t.start) .. ")"
	end
	return text
end

--- One value as text: strings quoted, tables with nesting (at most
--- MAX_ITEMS entries each, MAX_DEPTH deep), traces and entities in one line.
function show(v, depth, seen, indent)
	local ty = type(v)
	if ty == "string" then return quote(v) end
	if ty == "table" then return show_table(v, depth or 0, seen or {}, indent or "") end
	if ty == "function" then return show_function(v) end
	if ty == "userdata" then
		local class = class_of(v)
		if class == TRACE then return repl.trace_summary(v) end
		if class == ENTITY then return tostring(v) end
	end
	return tostring(v)
end
repl.show = show

--- Values as the REPL prints them: each shown, separated by tabs.
function repl.show_all(...)
	local parts = {}
	for i = 1, select("#", ...) do parts[i] = show((select(i, ...))) end
	return table.concat(parts, "\t")
end

---------------------------------------------------------------- help

-- The value an entry's object prefix stands for: its methods or fields.
local function object_table(obj)
	if obj == "t" then return registry[TRACE].methods end
	if obj == "e" then return registry[ENTITY].methods end
	if obj == "statemap" then return sm end
	if obj == "json" then return sm.json end
	if obj == "report" then return require "statemap.report" end
end

local function index_help()
	for _, entry in ipairs(help.entries) do
		for _, n in ipairs(help.names(entry)) do
			local t = object_table(n[1])
			local f = t and rawget(t, n[3])
			if type(f) == "function" and not function_names[f] then
				function_names[f] = n[1] .. n[2] .. n[3]
			end
		end
	end
	function_names[repl.help] = "help"
end

-- text cut into lines of at most width columns (at spaces; a longer
-- word has a line of its own), each after indent.
local function wrap(text, width, indent)
	local lines, line = {}, nil
	for word in text:gmatch("%S+") do
		if line and (utf8.len(line) or #line) + 1 + (utf8.len(word) or #word) > width - #indent then
			lines[#lines + 1] = indent .. line
			line = word
		else
			line = line and (line .. " " .. word) or word
		end
	end
	if line then lines[#lines + 1] = indent .. line end
	return table.concat(lines, "\n")
end

-- One entry as help() shows it, its description wrapped to the
-- terminal's width (on a terminal: repl.terminal_width, set by
-- src/cli/repl.c) or else on one line.
local function entry_line(entry)
	local desc = help.plain(entry[2])
	if desc == "" then return help.plain(entry[1]) end
	local width = repl.terminal_width and repl.terminal_width()
	if width and width >= 20 then
		return help.plain(entry[1]) .. "\n" .. wrap(desc, width, "    ")
	end
	return help.plain(entry[1]) .. "\n    " .. desc
end

-- The entries that document `what`: a function value, a name ("at"), or a
-- qualified name ("t:at", "e.name", "statemap.load").
local function find_entries(what)
	local found = {}
	local qualified = type(what) == "function" and function_names[what] or what
	for _, entry in ipairs(help.entries) do
		for _, n in ipairs(help.names(entry)) do
			local full = n[1] .. n[2] .. n[3]
			if full == qualified or n[3] == qualified or
			    n[1] .. "." .. n[3] == qualified then
				found[#found + 1] = entry
				break
			end
		end
	end
	return found
end

--- help(): the API, one line per function; help(f) or help("name"): its
--- signature and description.
function repl.help(what)
	local out = {}
	if what == nil then
		out[1] = "The statemap API (t: a trace, e: an entity; times are ns or strings like \"1.5s\"):"
		for _, entry in ipairs(help.entries) do
			out[#out + 1] = "  " .. help.plain(entry[1])
		end
		out[#out + 1] = 'help("name") or help(t.name) describes one; man statemap-lua-api has the rest.'
	else
		for _, entry in ipairs(find_entries(what)) do
			out[#out + 1] = entry_line(entry)
		end
		if #out == 0 then
			out[1] = ("no help for %s: help() lists the API"):format(show(what))
		end
	end
	print(table.concat(out, "\n"))
end

---------------------------------------------------------------- completion

local KEYWORDS = { "and", "break", "do", "else", "elseif", "end", "false",
    "for", "function", "goto", "if", "in", "local", "nil", "not", "or",
    "repeat", "return", "then", "true", "until", "while" }

-- The value of a dotted path of names ("statemap.json"), looked up without
-- calling anything (no metamethods but our objects' documented fields).
local function resolve(path)
	local v = _G
	for name in path:gmatch("[^.]+") do
		if type(v) == "table" then
			v = rawget(v, name)
		elseif class_of(v) then
			local ok, r = pcall(function() return v[name] end)
			v = ok and r or nil
		else
			return nil
		end
		if v == nil then return nil end
	end
	return v
end

-- Field names documented for an object class: t.title, e.name, ...
local function documented_fields(prefix)
	local fields = {}
	for _, entry in ipairs(help.entries) do
		for _, n in ipairs(help.names(entry)) do
			if n[1] == prefix and n[2] == "." then fields[#fields + 1] = n[3] end
		end
	end
	return fields
end

-- The names after `v.` (fields) or `v:` (methods).
local function members(v, sep)
	local names = {}
	local class = class_of(v)
	if class then
		for name in pairs(registry[class].methods) do names[#names + 1] = name end
		if sep == "." then
			for _, f in ipairs(documented_fields(class == TRACE and "t" or "e")) do
				names[#names + 1] = f
			end
		end
	elseif type(v) == "table" then
		for k, x in pairs(v) do
			if type(k) == "string" and k:match("^[%a_][%w_]*$") and
			    (sep == "." or type(x) == "function") then
				names[#names + 1] = k
			end
		end
	elseif type(v) == "string" and sep == ":" then
		for k in pairs(string) do names[#names + 1] = k end
	end
	return names
end

-- Natural order, as names are sorted everywhere else (t:sorted,
-- t:children): runs of digits compare as numbers, so cpu2 < cpu10.
local function natural_less(a, b)
	local i, j = 1, 1
	while i <= #a and j <= #b do
		local da, db = a:match("^%d+", i), b:match("^%d+", j)
		if da and db then
			local na, nb = da:gsub("^0+", ""), db:gsub("^0+", "")
			if #na ~= #nb then return #na < #nb end
			if na ~= nb then return na < nb end
			i, j = i + #da, j + #db
		else
			local ca, cb = a:sub(i, i), b:sub(j, j)
			if ca ~= cb then return ca < cb end
			i, j = i + 1, j + 1
		end
	end
	if #a - i ~= #b - j then return #a - i < #b - j end
	return a < b
end
repl.natural_less = natural_less

local function starting_with(names, prefix, add)
	local out, seen = {}, {}
	for _, name in ipairs(names) do
		if name:sub(1, #prefix) == prefix and not seen[name] then
			seen[name] = true
			out[#out + 1] = (add or "") .. name
		end
	end
	table.sort(out, natural_less)
	return out
end

--- The completions of `word`, the text just before the cursor (`line` is
--- the whole line up to the cursor), and the character to append to a
--- single completion ("" for none).
function repl.complete(line, word)
	-- Inside the string argument of t:entity(" or e:at-like calls on a
	-- trace: entity names. The name may contain word-breaking characters,
	-- so the string is taken from the line and only its end is replaced.
	local path, q, partial = line:match("([%a_][%w_%.]*)%s*:%s*entity%s*%(%s*([\"'])([^\"']*)$")
	if path then
		local t = resolve(path)
		if class_of(t) ~= TRACE then return {}, "" end
		local names = {}
		for _, e in ipairs(t:entities()) do names[#names + 1] = e.name end
		local keep = #partial - #word
		local out = {}
		for _, name in ipairs(starting_with(names, partial)) do
			out[#out + 1] = name:sub(keep + 1)
		end
		return out, q
	end
	local prefix, sep, rest = word:match("^([%a_][%w_%.]*)([.:])([%w_]*)$")
	if prefix then
		local v = resolve(prefix)
		if v == nil then return {}, "" end
		return starting_with(members(v, sep), rest, prefix .. sep), ""
	end
	local names = {}
	for k in pairs(_G) do
		if type(k) == "string" then names[#names + 1] = k end
	end
	for _, k in ipairs(KEYWORDS) do names[#names + 1] = k end
	return starting_with(names, word), ""
end

---------------------------------------------------------------- evaluating

local pending = nil	-- the lines of an incomplete statement so far
repl.failures = 0

-- Messages quote names from traces: no control character in them may
-- reach the terminal (an escape sequence could drive it).
local function report_error(msg)
	io.stdout:flush()
	io.stderr:write("statemap-lua: ", tostring(msg):gsub("[%z\1-\8\11-\31\127]",
	    function(c) return ("\\%03d"):format(c:byte()) end), "\n")
	repl.failures = repl.failures + 1
end

local function message(err)
	if type(err) == "string" then return err end
	local mt = getmetatable(err)
	if mt and mt.__tostring then return tostring(err) end
	return ("(error object is a %s value)"):format(type(err))
end

local function print_results(src, ok, ...)
	if not ok then return report_error(...) end
	if returns_durations(src) and type(...) == "table" then
		durations[...] = true
	end
	if select("#", ...) > 0 then
		_G._ = (...)
		io.stdout:write(repl.show_all(...), "\n")
		io.stdout:flush()
	end
end

-- Compiles src as an expression whose values are printed, or else as
-- statements. Returns the function and whether it is an expression, or
-- nil and the error message.
local function compile(src)
	local f = load("return " .. src .. "\n", "=stdin", "t")
	if f then return f, true end
	return load(src, "=stdin", "t")
end

--- Takes one line. Returns true when it completes a statement (which is
--- then run and its results printed), with the whole statement for the
--- history; false when more lines are needed. A line that is only
--- `exit`, `quit`, `exit()` or `quit()` (not inside a statement) returns
--- true, the line and true: the REPL then ends, as on Ctrl-D.
function repl.feed(line)
	if not pending and (line:match("^%s*exit%s*$") or line:match("^%s*quit%s*$") or
	    line:match("^%s*exit%s*%(%s*%)%s*;?%s*$") or line:match("^%s*quit%s*%(%s*%)%s*;?%s*$")) then
		return true, line, true
	end
	local src = pending and (pending .. "\n" .. line) or line
	local f, err = compile(src)
	if not f and err:find("<eof>$") then
		pending = src
		return false
	end
	pending = nil
	if not f then
		report_error(err)
	elseif src:find("%S") then
		print_results(err == true and src or "", xpcall(f, message))
	end
	return true, src
end

--- End of input: an incomplete statement is an error.
function repl.finish()
	if pending then
		local _, err = compile(pending)
		pending = nil
		report_error(err)
	end
end

--- Drops an incomplete statement (Ctrl-C at the prompt).
function repl.reset()
	pending = nil
end

---------------------------------------------------------------- starting

-- Loading a big file shows the same progress line on stderr as the
-- classic command (src/base/progress.c: on a terminal, after about a second).
local function load_trace(path, options)
	-- Through pcall, so that the message is the file's, without a
	-- position in this module.
	local ok, t = pcall(sm.load, path, options)
	if not ok then error(t, 0) end
	return t
end

--- The banner: what was loaded and how to get help.
function repl.banner(traces)
	local lines = { ("statemap-lua %s (%s): help() lists the API, Ctrl-D exits."):format(
	    sm.version, _VERSION) }
	for i, t in ipairs(traces) do
		lines[#lines + 1] = ("%s: %s: %s, %d entities, %d states, %s records, %s (%s to %s)"):format(
		    i == 1 and "t = traces[1]" or ("traces[%d]"):format(i),
		    t.name, quote(t.title or t.name), #t:entities(), #t.states,
		    repl.count(t.records), sm.format_ns(t.finish - t.begin),
		    sm.format_ns(t.begin), sm.format_ns(t.finish))
	end
	return table.concat(lines, "\n")
end

-- A traceback of the user's code only: the frames of this module below
-- it say nothing useful.
local function traceback(err)
	local text = debug.traceback(message(err), 2)
	return (text:gsub("\n\t%[C%]: in function 'xpcall'.*$", ""))
end

local function run_chunk(f, err, ...)
	if not f then error(err, 0) end
	local ok, msg = xpcall(f, traceback, ...)
	if not ok then error(msg, 0) end
end

--- Loads the files (t, traces), runs the -E chunks and the script, and
--- returns the banner. o: {files=, chunks=, script=, ignore_tags=,
--- begin=, ["end"]=, duration=, analysis=} (the window of -b, -e and
--- -d; a kernel trace's analyses).
function repl.start(o)
	index_help()
	_G.help = repl.help
	local traces = {}
	for i, path in ipairs(o.files) do
		traces[i] = load_trace(path, { ignore_tags = o.ignore_tags or nil,
			begin = o.begin, ["end"] = o["end"], duration = o.duration,
			analysis = o.analysis })
	end
	_G.traces, _G.t = traces, traces[1]
	local arg = { [0] = o.script or o.program }
	for i, path in ipairs(o.files) do arg[i] = path end
	_G.arg = arg
	for _, code in ipairs(o.chunks) do
		run_chunk(load(code, "=(command line)", "t"))
	end
	if o.script then
		local f, err = loadfile(o.script, "t")
		run_chunk(f, err, table.unpack(o.files))
	end
	return repl.banner(traces)
end

return repl
