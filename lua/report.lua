--- report: plain-text tables for reports on traces.
--
--   local report = require "statemap.report"
--   print(report.table({ {"cpu0", 1500000, 0.25}, {"cpu1", 20, 0.5} },
--       { {"entity"}, {"on-cpu", "duration"}, {"share", "percent"} }))
--
-- Columns are {title, format}; a format is "duration" (ns shown in human
-- units), "percent" (a fraction shown as 12.5%), "number" or nil (as is).
-- Numbers align right, text left.

local statemap = require "statemap"

local report = {}

--- A fraction as a percentage with one decimal: 0.125 -> "12.5%".
function report.percent(fraction)
	if fraction ~= fraction then return "-" end     -- NaN: 0 of 0
	return string.format("%.1f%%", fraction * 100)
end

local formats = {
	duration = function(v) return statemap.format_ns(v) end,
	percent = report.percent,
	number = function(v) return tostring(v) end,
}

--- Renders rows (arrays of cells) under column headings as aligned text.
function report.table(rows, columns)
	local cells, widths, right = {}, {}, {}
	for c, col in ipairs(columns) do
		widths[c] = utf8.len(col[1])
		local f = col[2]
		if f ~= nil and formats[f] == nil then
			error(("unknown column format %q (use duration, percent or number)"):format(f), 2)
		end
	end
	for r, row in ipairs(rows) do
		cells[r] = {}
		for c, col in ipairs(columns) do
			local v = row[c]
			local text
			if v == nil then
				text = ""
			elseif col[2] ~= nil then
				text = formats[col[2]](v)
			else
				text = tostring(v)
			end
			if type(v) == "number" then right[c] = true end
			cells[r][c] = text
			widths[c] = math.max(widths[c], utf8.len(text) or #text)
		end
	end
	local function line(texts)
		local out = {}
		for c, text in ipairs(texts) do
			local pad = string.rep(" ", widths[c] - (utf8.len(text) or #text))
			out[c] = right[c] and pad .. text or text .. pad
		end
		return (table.concat(out, "  "):gsub("%s+$", ""))
	end
	local heads, rules = {}, {}
	for c, col in ipairs(columns) do
		heads[c] = col[1]
		rules[c] = string.rep("-", widths[c])
	end
	local out = { line(heads), line(rules) }
	for r = 1, #cells do out[#out + 1] = line(cells[r]) end
	return table.concat(out, "\n")
end

return report
