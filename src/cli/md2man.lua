-- md2man.lua: the man pages' Markdown to roff (man macros), at build time.
--
--   lua5.4 src/cli/md2man.lua PAGE.N.md OUT.N VERSION
--
-- It reads the little Markdown the pages use, and nothing more:
--
--   # name(N)                 the first line: the page's name and section
--   ## HEADING, ### Heading   .SH, .SS
--   paragraphs                .PP; lines are kept as written
--   - item, 1. item           .IP, items nested by indentation (a
--                             continuation line is indented to the item's
--                             text); a list item may hold paragraphs,
--                             code blocks and lists
--   4-space indented code     .nf, indented, as written
--   | a | b |  tables         a tagged paragraph (.TP) a row: the first
--                             cell is the tag, the second the text; with
--                             more columns, each further cell on a line
--                             of its own after its column's heading
--   `code`, *em*, **strong**  bold, italic, bold; [text](url) is the text
--   <!-- comment -->          left out (may span lines)
--
-- Escapes: a backslash becomes \e, a dash in code \-, every character
-- beyond ASCII \[uXXXX], and a line that would start with . or ' gets \&
-- before it.  Anything else (HTML, images, headings below ###) is an
-- error naming the line, so that a page never loses text silently.
local input, output, version = arg[1], arg[2], arg[3] or ""
if not input or not output then
	io.stderr:write("usage: lua5.4 md2man.lua PAGE.md OUT VERSION\n")
	os.exit(2)
end

local MANUALS = { ["1"] = "User Commands", ["3"] = "Library Functions",
	["5"] = "File Formats" }

local f = assert(io.open(input))
local lines = {}
for line in f:lines() do lines[#lines + 1] = (line:gsub("\t", "    ")) end
f:close()

local function fail(n, why)
	io.stderr:write(("%s:%d: %s\n"):format(input, n, why))
	os.exit(1)
end

-- Escapes for text that roff must print as it is.
local function chars(s, code)
	s = s:gsub("\\", "\\e")
	if code then s = s:gsub("%-", "\\-") end
	local out = {}
	for _, c in utf8.codes(s) do
		out[#out + 1] = c < 128 and utf8.char(c) or ("\\[u%04X]"):format(c)
	end
	return table.concat(out)
end

-- Inline Markdown: code spans, emphasis, links, backslash escapes.
local function inline(s)
	local out, pos = {}, 1
	while pos <= #s do
		local a, b, ticks = s:find("(`+)", pos)
		local text = s:sub(pos, (a or #s + 1) - 1)
		text = text:gsub("%[([^%]]*)%]%([^%)]*%)", "%1")
		text = text:gsub("\\([%p])", "%1")
		text = chars(text)
		text = text:gsub("%*%*(.-)%*%*", "\\fB%1\\fR")
		text = text:gsub("%*([^%*%s][^%*]-)%*", "\\fI%1\\fR")
		-- Another page: name(N) in bold, as man pages write them.
		text = text:gsub("(%f[%w][%w][%w%.\\%-]*)(%(%d%))", "\\fB%1\\fR%2")
		out[#out + 1] = text
		if not a then break end
		local c, d = s:find(ticks, b + 1, true)
		if not c then
			out[#out + 1] = chars(ticks)
			pos = b + 1
		else
			local code = s:sub(b + 1, c - 1):gsub("\n", " ")
			if code:find("^ .* $") then code = code:sub(2, -2) end
			out[#out + 1] = "\\fB" .. chars(code, true) .. "\\fR"
			pos = d + 1
		end
	end
	return table.concat(out)
end

-- A line of output text: never a request by accident.
local function textline(s)
	s = s:gsub("^%s+", "")
	if s:find("^[%.']") then s = "\\&" .. s end
	return s
end

local function indent_of(line) return #line:match("^ *") end
local function blank(line) return line == nil or line:find("^%s*$") ~= nil end

local function list_marker(s)
	local m = s:match("^[-*] ") or s:match("^%d+%. ")
	return m
end

-- Blocks of lines[from..to] (a list item's lines, or the page) whose
-- text starts at column ind.
local parse
function parse(ls, ind)
	local blocks, i = {}, 1
	while i <= #ls do
		local L = ls[i]
		if blank(L.text) then
			i = i + 1
		else
			local n = indent_of(L.text)
			local rest = L.text:sub(n + 1)
			if n >= ind + 4 then
				local code = {}
				while i <= #ls and (blank(ls[i].text) or indent_of(ls[i].text) >= ind + 4) do
					code[#code + 1] = ls[i].text:sub(ind + 5)
					i = i + 1
				end
				while blank(code[#code]) do code[#code] = nil end
				blocks[#blocks + 1] = { kind = "code", lines = code }
			elseif rest:find("^<!%-%-") then
				while i <= #ls and not ls[i].text:find("%-%->") do i = i + 1 end
				i = i + 1
			elseif rest:find("^#") then
				local hashes, title = rest:match("^(#+) (.*)$")
				if not hashes or #hashes < 2 or #hashes > 3 then
					fail(L.n, "only ## and ### headings")
				end
				blocks[#blocks + 1] = { kind = #hashes == 2 and "SH" or "SS", text = title }
				i = i + 1
			elseif rest:find("^|") then
				local rows = {}
				while i <= #ls and ls[i].text:find("^%s*|") do
					local row, cells = ls[i].text:match("^%s*|(.*)|%s*$"), {}
					if not row then fail(ls[i].n, "a table row must end in |") end
					row = row:gsub("\\|", "\1")
					for cell in (row .. "|"):gmatch("([^|]*)|") do
						cells[#cells + 1] = cell:gsub("\1", "\\|"):match("^%s*(.-)%s*$")
					end
					rows[#rows + 1] = cells
					i = i + 1
				end
				if #rows < 2 or not rows[2][1]:find("^:?%-+:?$") then
					fail(L.n, "a table needs a heading row and a --- row")
				end
				blocks[#blocks + 1] = { kind = "table", head = rows[1],
					rows = { table.unpack(rows, 3) } }
			elseif list_marker(rest) then
				local ordered = rest:find("^%d") ~= nil
				local items = {}
				while i <= #ls and not blank(ls[i].text)
				    and indent_of(ls[i].text) == n
				    and list_marker(ls[i].text:sub(n + 1))
				    and (ls[i].text:sub(n + 1):find("^%d") ~= nil) == ordered do
					local first = ls[i].text
					local marker = list_marker(first:sub(n + 1))
					local inner = n + #marker
					local sub = { { n = ls[i].n, text = (" "):rep(inner) .. first:sub(inner + 1) } }
					i = i + 1
					while i <= #ls do
						local t = ls[i].text
						if blank(t) then
							local j = i
							while j <= #ls and blank(ls[j].text) do j = j + 1 end
							if j > #ls or indent_of(ls[j].text) < inner then break end
							sub[#sub + 1] = ls[i]
						elseif indent_of(t) >= inner then
							sub[#sub + 1] = ls[i]
						elseif not blank(ls[i - 1].text) and indent_of(t) > n
						    and not list_marker(t:sub(indent_of(t) + 1)) then
							-- A lazy continuation of the item's paragraph.
							sub[#sub + 1] = { n = ls[i].n, text = (" "):rep(inner) .. t:gsub("^%s+", "") }
						else
							break
						end
						i = i + 1
					end
					items[#items + 1] = { marker = marker:gsub("%s+$", ""), blocks = parse(sub, inner) }
				end
				blocks[#blocks + 1] = { kind = "list", ordered = ordered, items = items }
			else
				local text = {}
				while i <= #ls and not blank(ls[i].text) do
					local t = ls[i].text
					local m = indent_of(t)
					-- Only a bullet or a "1." starts a list inside a
					-- paragraph ("403. A request" goes on with it).
					local r = t:sub(m + 1)
					if #text > 0 and m < ind + 4 and (r:find("^[-*] ")
					    or r:find("^1%. ") or r:find("^[|#]")) then
						break
					end
					if t:find("^%s*<[%a/]") then fail(ls[i].n, "no HTML") end
					if t:find("!%[") then fail(ls[i].n, "no images") end
					text[#text + 1] = t
					i = i + 1
				end
				blocks[#blocks + 1] = { kind = "para", lines = text }
			end
		end
	end
	return blocks
end

local out = {}
local function emit(s) out[#out + 1] = s end

-- A paragraph's lines go through inline() together, so that a code span
-- may run over a line end (it becomes a space, as in Markdown); the lines
-- stay as they were written.
local function para_text(ls)
	local joined = {}
	for _, l in ipairs(ls) do
		-- A line ending in two spaces or a backslash is a hard break.
		local hard = l:find("  $") or l:find("\\$")
		joined[#joined + 1] = l:gsub("\\$", ""):gsub("%s+$", "") .. (hard and "\2" or "")
	end
	local text = inline(table.concat(joined, "\n"))
	for line in (text .. "\n"):gmatch("(.-)\n") do
		local hard = line:find("\2", 1, true)
		emit(textline((line:gsub("\2", ""))))
		if hard then emit(".br") end
	end
end

local render
-- width: the indentation of the list item the blocks are in (0: none).
function render(blocks, width)
	for k, b in ipairs(blocks) do
		local first_in_item = width > 0 and k == 1
		if b.kind == "SH" or b.kind == "SS" then
			emit("." .. b.kind)
			emit(textline(inline(b.text)))
		elseif b.kind == "para" then
			if not first_in_item then
				emit(width > 0 and ('.IP "" ' .. width) or ".PP")
			end
			para_text(b.lines)
		elseif b.kind == "code" then
			if not first_in_item then
				emit(width > 0 and ('.IP "" ' .. width) or ".PP")
			end
			-- As written, less the indentation all its lines share.
			local least = math.huge
			for _, l in ipairs(b.lines) do
				if not blank(l) then least = math.min(least, indent_of(l)) end
			end
			emit(".nf")
			for _, l in ipairs(b.lines) do
				emit(blank(l) and "" or ("\\&    " .. chars(l:sub(least + 1))))
			end
			emit(".fi")
		elseif b.kind == "table" then
			for _, row in ipairs(b.rows) do
				emit(".TP")
				emit(textline(inline(row[1])))
				local text = {}
				for c = 2, #row do
					if row[c] ~= "" then
						if #b.head > 2 then
							text[#text + 1] = inline(b.head[c]) .. ": " .. inline(row[c])
						else
							text[#text + 1] = inline(row[c])
						end
					end
				end
				for j, t in ipairs(text) do
					if j > 1 then emit(".br") end
					emit(textline(t))
				end
			end
		elseif b.kind == "list" then
			if width > 0 then emit(".RS " .. width) end
			for j, item in ipairs(b.items) do
				local w = b.ordered and 4 or 2
				local mark = b.ordered and (j .. ".") or "\\(bu"
				emit(".IP " .. mark .. " " .. w)
				if item.blocks[1] and item.blocks[1].kind ~= "para"
				    and item.blocks[1].kind ~= "code" then
					emit("\\&")
				end
				render(item.blocks, w)
			end
			if width > 0 then emit(".RE") end
		end
	end
end

local name, section = (lines[1] or ""):match("^# ([%w%.%-_]+)%((%d)%)%s*$")
if not name then fail(1, "the first line must be # name(N)") end
local ls = {}
for n = 2, #lines do ls[#ls + 1] = { n = n, text = lines[n] } end

emit(('.\\" Made from %s by src/cli/md2man.lua: edit that file, not this one.')
	:format(input:match("src/.*$") or input))
emit(('.TH %s %s "" "statemap-lua %s" "%s"'):format(name:upper(), section,
	version, MANUALS[section] or ""))
-- No hyphenation (options and names would break at their dashes), and
-- ragged right, as code spans make long words.
emit(".nh")
emit(".ad l")
render(parse(ls, 0), 0)

local tmp = output .. ".tmp"
local o = assert(io.open(tmp, "w"))
o:write(table.concat(out, "\n"), "\n")
assert(o:close())
assert(os.rename(tmp, output))
