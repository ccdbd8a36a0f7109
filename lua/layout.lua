--- layout: the default way to lay a trace out as a picture.
--
--   local layout = require "statemap.layout"
--   layout.render(t, "cpu.png", { sort = "on-cpu" })
--   sm.render(layout.panels_by(t, function(e) return e.description end,
--       { output = "teams.pdf", sort = "on-cpu" }))
--
-- Options (all optional): sort (a state name, "name", or a function of an
-- entity, as t:sorted takes), width (statemap.defaults.width), max_height (the strips'
-- total height the row height is chosen to fit, default 1000), row_height
-- (fixed instead), title, from, to, and any other statemap.render field.

local statemap = require "statemap"

local layout = {}

-- A row height that fits n rows in max pixels: 1 to 20.
local function fit(n, max)
	return math.max(1, math.min(20, math.floor(max / math.max(n, 1))))
end

-- Rows the entities take: a value entity's strip is two (render).
local function rows(entities)
	local n = 0
	for _, e in ipairs(entities) do n = n + (e.kind == "values" and 2 or 1) end
	return n
end

-- The options of a layout function named fname, checked where the error
-- can name it and the key (statemap.render checks what it is passed on);
-- level is the caller's, for the error's position.
-- Every key is one of the layout's own or one statemap.render takes
-- (statemap.check_options refuses any other, suggesting a close one).
local keys = { "sort", "max_height" }
for _, k in ipairs(statemap.option_keys.render) do
	if k ~= "sort" then keys[#keys + 1] = k end	-- render's means the same
end

local function check_options(fname, t, opts, level)
	if opts == nil then return {} end
	if type(opts) ~= "table" then
		error(("%s: options must be a table, not a %s"):format(fname, type(opts)), level + 1)
	end
	statemap.check_options(fname, opts, keys)
	local sort = opts.sort
	if sort ~= nil and type(sort) ~= "function" then
		local known = sort == "name"
		for _, s in ipairs(type(sort) == "string" and t.states or {}) do
			known = known or s.name == sort
		end
		if not known then
			error(("%s: sort must be \"name\", a state name or a function of an entity, not %s"):format(
				fname, type(sort) == "string" and ("%q"):format(sort) or "a " .. type(sort)), level + 1)
		end
	end
	local max = opts.max_height
	if max ~= nil and (type(max) ~= "number" or max < 1) then
		error(("%s: max_height must be a number of pixels from 1, not %s"):format(
			fname, type(max) == "number" and tostring(max) or "a " .. type(max)), level + 1)
	end
	return opts
end

local function copy_extra(opts, into)
	local own = { sort = true, max_height = true }
	for k, v in pairs(opts) do
		if not own[k] and into[k] == nil then into[k] = v end
	end
	return into
end

local function default(fname, t, opts, level)
	opts = check_options(fname, t, opts, level + 1)
	local entities = t:sorted(opts.sort)
	return copy_extra(opts, {
		trace = t,
		entities = entities,
		row_height = opts.row_height or fit(rows(entities), opts.max_height or 1000),
		width = opts.width or statemap.defaults.width,
	})
end

--- The render arguments for one trace: its entities sorted, rows sized to
--- fit. Pass the result to statemap.render (set `output` first).
function layout.default(t, opts)
	return default("layout.default", t, opts, 2)
end

--- Renders one trace to a file with the default layout.
function layout.render(t, output, opts)
	local args = default("layout.render", t, opts, 2)
	args.output = output
	return statemap.render(args)
end

--- The render arguments for one panel per group of entities: key is a
--- function of an entity returning its group's name (nil leaves it out).
--- Panels come in order of their groups' names (byte order), each
--- titled with its name and sorted as opts.sort says.
function layout.panels_by(t, key, opts)
	opts = check_options("layout.panels_by", t, opts, 2)
	if type(key) ~= "function" then
		error(("layout.panels_by: key must be a function of an entity, not a %s"):format(type(key)), 2)
	end
	local members, names = {}, {}
	for _, e in ipairs(t:entities()) do
		local g = key(e)
		if g ~= nil then
			g = tostring(g)
			if not members[g] then members[g] = {}; names[#names + 1] = g end
			members[g][e.name] = e.kind == "values" and 2 or 1
		end
	end
	table.sort(names)
	local total = 0
	for _, g in ipairs(names) do
		for _, n in pairs(members[g]) do total = total + n end
	end
	local rh = opts.row_height or fit(total, opts.max_height or 1000)
	-- One sort, dealt out to the groups in its order (a sort per group
	-- would be groups times entities).
	local sorted, group_of = {}, {}
	for _, g in ipairs(names) do
		sorted[g] = {}
		for name in pairs(members[g]) do group_of[name] = g end
	end
	for _, e in ipairs(t:sorted(opts.sort)) do
		local g = group_of[e.name]
		if g then table.insert(sorted[g], e) end
	end
	local panels = {}
	for _, g in ipairs(names) do
		panels[#panels + 1] = { trace = t, entities = sorted[g], title = g, row_height = rh }
	end
	return copy_extra(opts, { panels = panels, width = opts.width or statemap.defaults.width })
end

return layout
