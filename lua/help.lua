-- help.lua: the one source of the Lua API's reference text.
--
-- Each entry is one row of an API table of the Lua API's man page
-- (src/lua/statemap-lua-api.3.md, statemap-lua-api(3)), written exactly as
-- it appears there (markdown: `code` spans), so that help() in the REPL
-- and the man page say the same thing; tests/lua/test_help.lua fails,
-- naming the row, when the two differ. Entries with prose = true are
-- documented in the page's text rather than a table; the test checks
-- that their signature appears there.
--
-- Adding an API function: add its row to the page's table and the same
-- row here (the test prints the line to paste).
local help = {}

help.entries = {
	{ "`statemap.load(path [, options])`",
	  "reads a whole trace (`\"-\"` for stdin) into memory for queries; options: `begin`, `end`, `duration`, `ignore_tags`, `filter`",
	  prose = true },
	{ "`statemap.new{title=, host=, entity_kind=, start={s, ns}, states=}`",
	  "a builder; `states` is a list of names (values 0, 1, ... in order) or `{name = {value =, color =}}` (values 0 to n-1, colours as in a file, generated where left out); `title`, `host`, `entity_kind` and `start` optional" },
	{ "`b:set(time, entity, state [, tag])`",
	  "the entity enters `state` (a name or a value), replacing its whole stack" },
	{ "`b:push(time, entity, state [, tag])`",
	  "enters `state` on top of what the entity is doing (it must have a state)" },
	{ "`b:pop(time, entity [, state])`",
	  "leaves the top state (which must be `state` if given), back to the one under it" },
	{ "`b:value(time, entity, v)`",
	  "a value entity takes `v`: a finite number, a string, or nil (no value from then on)" },
	{ "`b:describe(entity, text)`",
	  "the entity's description (and its place in the order, if new)" },
	{ "`b:tag(state, tag, fields)`",
	  "defines a tag with the members of `fields` (a table of names to JSON values, none named `state`, `tag`, `time` or `description`, which a tag definition in a file cannot hold)" },
	{ "`b:event(time, entity, name [, target [, fields]])`",
	  "an event; `fields` (a table of names to JSON values) makes it a message event as in a file (see \"Messages between entities\"): `end` (a time, not before `time`) and `id` (a non-empty string) as there, any other names its members, which `t:events()` gives back as `fields`" },
	{ "`b:finish([end_time])`",
	  "the trace: its window is `[0, end_time)`, by default up to the latest time given; the builder is then done" },
	{ "`statemap.render{...}`",
	  "draws traces with Cairo into a PNG, SVG or PDF file (by its extension), or the interactive statemap: `output`, `trace`, `entities`, `panels`, `width`, `row_height`, `title`, `from`, `to`, `labels`, `interactive`, `detail`; per panel `nested = \"rows\"` (a sub-row per depth of a stack) and `group = true` (entities in a tree of headers by path; `group = N`: the first N levels); value entities are step graphs with their range",
	  prose = true },
	{ "`statemap.serve(traces [, options])`",
	  "serves a trace or a list of traces over HTTP for the live viewer (as `--serve`); options: `port`, `bind`, `title`, `sort`, `coalesce`; blocks until Ctrl-C in a script, returns the URL and serves in the background at the REPL; called again, replaces what is served; `statemap.serve()` stops",
	  prose = true },
	{ "`statemap.duration(text or ns)`",
	  "`statemap.duration(\"1.5ms\") --> 1500000`; errors on text that is not a duration" },
	{ "`statemap.format_ns(ns)`",
	  "`statemap.format_ns(1500000) --> \"1.500ms\"`" },
	{ "`statemap.version`",
	  "`\"0.1.0\"`" },
	{ "`statemap.defaults`",
	  "the defaults of `render` and of the classic statemap: `width` (1600), `row_height` (10), `margin` (10), `font`, `font_size` (11), `coalesce` (25000), `interactive_width` (862), `interactive_row_height` (10)" },
	{ "`statemap.palette`",
	  "colour sets `okabe_ito` (colour-blind safe), `tableau10`, `greys`; `palette.auto(n)`: n distinct generated colours (a prefix stays the same as n grows); `palette.apply(t, palette [, states])`: a new trace with `states` (default all, in value order) coloured from a palette name or a list of colours, automatic colours once it runs out" },
	{ "`statemap.layout`",
	  "`layout.default(t, opts)`: `statemap.render` arguments for one trace, entities sorted by `opts.sort` (as `t:sorted`), rows sized to fit `max_height` (default 1000 pixels; 1 to 20 a row; a value entity's strip counts two); `layout.render(t, output, opts)` renders with them; `layout.panels_by(t, key, opts)`: one titled panel per group (`key` a function of an entity), each sorted by `opts.sort`; other `opts` fields pass through to `render`" },
	{ "`statemap.report`",
	  "`report.table(rows, columns)`: aligned text tables; a column is `{title, format}` with format `\"duration\"` (ns in human units), `\"percent\"` (a fraction as `12.5%`), `\"number\"` or none; `report.percent(f)`" },
	{ "`t.title`, `t.host`, `t.entity_kind`, `t.name`",
	  "metadata (nil if absent); the path" },
	{ "`t.start`",
	  "the metadata start, ns since the epoch" },
	{ "`t.begin`, `t.finish`",
	  "the window: queries see `[begin, finish)`" },
	{ "`t.states`",
	  "`{ {name=, value=, color=\"#rrggbb\"}, ... }` in value order" },
	{ "`t.records`, `t.transitions`",
	  "records after the metadata; data kept" },
	{ "`t:entities()`",
	  "every entity, in order of first appearance" },
	{ "`t:entity(name)`",
	  "one entity (an error if there is none)" },
	{ "`t:at(time [, into])`",
	  "`{entity name = state name}` for entities with a state then; one search per entity, started where the last call on this trace left it, and no allocation but the table, so stepping through a trace costs about as much as building that table; after enough jumps across the trace, searches start from an index of every entity's position at evenly spaced times (made once, half a byte per transition, if `--memory-limit` leaves room); given a table `into`, fills it instead (entities without a state set to nil, other keys kept) and returns it, which is cheaper still" },
	{ "`t:time_in([from, to])`",
	  "`{state = ns}` summed over all entities" },
	{ "`t:count_at(time)`",
	  "`{state = number of entities in it}`" },
	{ "`t:sorted([how [, from, to]])`",
	  "entities in order: `nil` or `\"name\"` natural name order; a state name, most time in it first (over the window or `[from, to)`); or a function of an entity returning a number or a string (ascending, called once per entity); ties by name" },
	{ "`t:map(function(state, tag) ... end)`",
	  "a new trace whose states are what the function returns (a state name, or nil to keep the state); it runs once per state (tag nil) and once per (state, tag) pair, and the mapping is applied to every transition in C; a new state named like an old one keeps its colour, others get generated colours" },
	{ "`t:map_intervals(function(iv) ... end)`",
	  "a new trace where each interval `{entity=, state=, tag=, start=, finish=}` gets the state the function returns (nil keeps it); it runs once per transition, for what `map` cannot express. For both maps, the new states come in the order they are first returned" },
	{ "`t:recolor{state = colour, ...}`",
	  "a new trace with those states recoloured (`#rrggbb`, `#rgb` or a CSS name)" },
	{ "`t:keep(what)`, `t:drop(what)`",
	  "a new trace with only (or without) the entities `what` selects: a POSIX extended regex matched against names (as `-f`), or a function of an entity returning true" },
	{ "`t:rename(how)`",
	  "a new trace with entities renamed by a function of an entity or a table `{old = new}` (nil keeps a name; two entities may not share one)" },
	{ "`t:count(states [, name])`",
	  "a new trace with one entity (default `count`) whose state is how many entities are in any of `states` (a list of names): states `\"0\"` to the number of entities, shaded light to dark" },
	{ "`t:group(key [, priority])`",
	  "a new trace with one entity per group: `key` is a function of an entity returning its group's name (nil leaves it out) or a table `{entity name = group}`; a group is in the first state of `priority` (a list of state names; unlisted states follow in value order) that any member is in, so threads grouped by process show the process busy when any thread is; groups come in order of their first member" },
	{ "`t:count_series(states [, from, to])`",
	  "a series kept in C (`#s`, `s[i]` as `{time=, count=}`, `s:each()`, `s:table()`): how many entities are in any of `states`, at `from` and at each change, computed by the same sweep as `t:count`" },
	{ "`t:events{from=, to=, entities=, events=}`",
	  "an iterator of event records `{time=, entity=, event=, target=}` in file order (`target` nil if none), filtered by range, entity names and event names; a message event's record also has `id=`, `finish=` (its `\"end\"`) and `fields=` (its other members, decoded), where given" },
	{ "`t:slice(from, to)`",
	  "a new trace whose window is `[from, to)` (within this one's): a view of this trace's columns, not a copy, made in O(log n) per entity, with `transitions` counting its own; it keeps this trace's memory alive while it lives" },
	{ "`t:intervals{from=, to=, entities=, states=}`",
	  "an iterator of `{entity=, state=, tag=, start=, finish=}` clipped to the range, entity by entity in time order (all fields optional; `entities` takes names or entities, `states` names); a nested entity's intervals also have `depth` (1 for the bottom state), a value entity's have `value` (nil for null) instead of `state` and `tag` (and are left out when `states` is given); a tagged interval whose tag has a definition has its members in `tag_fields`" },
	{ "`t:at(time, {intervals = true})`",
	  "`{entity name = interval}`: each entity's interval at `time`, `{state=, tag=, tag_fields=, depth=, start=, finish=}` (`tag_fields`: the members of the tag's definition, if it has one) or, for a value entity, `{value=, start=, finish=}`; without the option, value entities give their value (none if null)" },
	{ "`t:entities(pattern)`",
	  "the entities whose names match a glob pattern, in order of first appearance: `*` any run of characters within a path component, `?` one character, `[a-z]`, `[!a-z]` a set, `\\` quotes; a component `**` is zero or more components, or one or more as the last (`\"Threads/*/Status\"`, `\"CPUs/**\"`, `\"**/Status\"`); matching takes time in proportion to the pattern's length times the name's, however many `**` it has" },
	{ "`t:children([path])`",
	  "the paths of the tree's nodes directly under `path` (default: the top), in natural order (`cpu2` before `cpu10`); a node may be only a prefix of entity names (`\"Threads\"`). An error if no name has that path" },
	{ "`t:stats([pattern [, from, to]])`",
	  "`{entity name = e:stats(from, to)}` for the value entities matching the pattern (default all) that have a number in the range" },
	{ "`t.tags`",
	  "every tag, in id order: `{state=, tag=, fields = {the definition's members}, defined = true if a definition was given}`, so scripts can group by `pid`, `device`, `execname`" },
	{ "`t:write(path)`",
	  "writes the trace as a statemap file (`\"-\"`: standard output) that `statemap.load` and the classic command read back to the same trace (see \"Building traces\" below)" },
	{ "`t:columns{\"start\", \"duration\", ..., from=, to=, entities=, states=}`",
	  "the same intervals as `t:intervals` with the same options, as one array kept in C per column named, in that order: `start`, `finish`, `duration` (ns), `entity`, `state`, `tag` (codes indexing the array's `names`); `#a`, `a[i]`, `a:sum()`, `a:min()`, `a:max()`, `a:table()`" },
	{ "`t:reduce{by=, from=, to=, entities=, states=}`",
	  "the same intervals summed in C: `{key = {time = ns, count = intervals}}` with keys from `by`: `\"state\"`, `\"entity\"` or `\"tag\"` (names), or the name of a tag field (the values of that member in the tags' definitions: intervals whose tag lacks it are left out); `field = \"name\"` names a field called `state`, `entity` or `tag`. Keys with no interval are absent" },
	{ "`statemap.merge{t1, t2, ... [, offsets=] [, prefixes=]}`",
	  "one trace made of several on one time axis, and the list of the prefixes it gave them: input `i`'s entities are renamed `PREFIX/name`, its times land at its own metadata start plus `offsets[i]` (ns or a duration like `\"-1.5us\"`; a list by place, or a table by prefix as `t:align` gives); states are the union by name, the window the union of the inputs'; values and nested stacks are carried (see \"Values, nested states and the attribute tree\")" },
	{ "`t:shift(ns)`",
	  "a new trace moved by `ns` (may be negative) in absolute time: its metadata start moves, so its own queries answer as before while `statemap.merge` places it elsewhere. Like `statemap.merge`, an error if a time would land before the epoch or, with the start, at 2^63 ns or later" },
	{ "`t:flows{from=, to=, status=, node=}`",
	  "an iterator of messages in order of sending `{id=, status=, event=, from=, to=, target=, sent=, received=, fields=, receive_fields=, from_node=, to_node=}`: `status` is `matched`, `lost` (a send no receive went with), `duplicate` (a receive beyond the sends, with the send it repeats) or `unsent` (a receive with no send); `status` filters (a name or a list), `node` is a function of an entity name giving its node" },
	{ "`t:align{reference=, node=}`",
	  "`{reference=, offsets = {node = ns}, pairs = { {a=, b=, messages_ab=, messages_ba=, mean_ab=, mean_ba=, latency=, offset=} }}`: each pair of nodes' latency and clock offset from the matched messages between them, and for each node the ns to add to its times to bring them to the reference's clock" },
	{ "`e.name`, `e.description`, `e.transitions`",
	  "" },
	{ "`e:at(time)`",
	  "state, tag (or nil), start, finish of the interval holding `time`; nothing if none. A nested entity's state is the top of its stack; a value entity gives value, nil, start, finish. The tag's definition: `t:at(time, {intervals = true})[e.name].tag_fields`, or `t.tags`" },
	{ "`e:time_in([from, to])`",
	  "`{state = ns}`" },
	{ "`e:stats([from, to])`",
	  "`{min=, max=, mean=, integral=}` of a value entity's numbers over the window or `[from, to)`: the mean and the integral (value x ns) are weighted by time, strings and nulls left out; O(log n) from a multi-level summary, made for each entity by the first query over more than 256 of its values (any thread; a load that asks for no statistics never pays for it; shorter ranges are summed directly). For a state entity whose states are numbers (such as a `count` entity): `{min=, max=, mean=}`. Nothing if there is no number in the range" },
	{ "`e.kind`",
	  "`\"states\"`, `\"nested\"` (pushed at least once) or `\"values\"`" },
	{ "`e:stack_at(time)`",
	  "the states on the stack at `time`, bottom first, and their tags (`false` where untagged): two lists, empty if no state; a plain state entity's stack is its one state. O(log n + depth)" },
	{ "`e:value_at(time)`",
	  "value (an integer, a number or a string; nil for null), start, finish of a value entity; nothing before its first value" },
	{ "`json.decode(text [, name])`",
	  "objects become tables, arrays sequences, integers that fit stay integers, `null` becomes `json.null`; an error says `name:LINE:COLUMN: message` (`name` defaults to `json`)" },
	{ "`json.encode(value)`",
	  "compact JSON; a table whose keys are exactly 1..n is an array, any other an object with its keys sorted (so output is stable); an empty table is `{}`; `nil` and `json.null` are `null`; non-string keys, cycles, NaN and functions are errors" },
}

--- The entry's names: {object, separator, name} for each `code` span of
--- its signature that names a field or function ("t:at(time)" gives
--- {"t", ":", "at"}).
function help.names(entry)
	local names = {}
	for code in entry[1]:gmatch("`([^`]*)`") do
		local obj, sep, name = code:match("^([%a_][%w_]*)([.:])([%a_][%w_]*)")
		if obj then names[#names + 1] = { obj, sep, name } end
	end
	return names
end

--- Markdown to plain text: code spans lose their backticks.
function help.plain(text)
	return (text:gsub("`([^`]*)`", "%1"))
end

return help
