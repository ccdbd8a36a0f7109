/*
 * lua_render.c: statemap.render{...}, pictures of traces.
 *
 *   statemap.render{ output = "out.png", width = 1600, row_height = 10,
 *       title = "...", from = t0, to = t1,
 *       panels = { { trace = t, entities = t:sorted("on-cpu") }, ... } }
 *
 * `trace = t` (with `entities`, `events`) stands for a single panel.  A
 * panel's entities default to the order of first appearance.  Output is
 * PNG, SVG or PDF by the file's extension; `interactive = true` with an
 * .svg writes the command line's interactive statemap instead, with its
 * finer coalescings for zooming within `detail` bytes (detail.h).
 */
#include "lua/lua_render.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lua_args.h"
#include "lua/lua_entity.h"
#include "lua/lua_options.h"
#include "lua/lua_trace.h"
#include "lua/lua_transform.h"
#include "output/detail.h"
#include "output/svg.h"
#include "output/svg_traces.h"
#include "render/render.h"

/*
 * A table in f_render's stack slot 2 keeps what must live until render
 * returns: the panels' traces and entity arrays, and strings read from
 * the options.  A field read runs the table's __index, if it has one,
 * which may return a value that nothing else holds: popped, it would be
 * the collector's to free while render still points to it.
 */
#define KEEP	2

static void
keep_top(lua_State *L)
{
	lua_pushvalue(L, -1);
	lua_rawseti(L, KEEP, (lua_Integer)lua_rawlen(L, KEEP) + 1);
}

/* A panel's keys, which the options also take for a single panel. */
#define PANEL_KEYS \
	{ .key = "trace", .kind = LUA_OPTION_OTHER, \
	    .what = "a loaded trace" }, \
	{ .key = "title", .kind = LUA_OPTION_STRING }, \
	{ .key = "row_height", .kind = LUA_OPTION_INTEGER, .min = 1, \
	    .max = 1000 }, \
	{ .key = "events", .kind = LUA_OPTION_OTHER, \
	    .what = "true, false or \"all\"" }, \
	{ .key = "group", .kind = LUA_OPTION_OTHER, \
	    .what = "true, false or a number of path levels from 1 to " \
	    "1000" }, \
	{ .key = "nested", .kind = LUA_OPTION_CHOICE, \
	    .names = nested_names }, \
	{ .key = "entities", .kind = LUA_OPTION_TABLE, \
	    .what = "a list of entities or names" }, \
	{ .key = "sort", .kind = LUA_OPTION_OTHER, \
	    .what = "\"name\", a state name or a function of an entity " \
	    "(as t:sorted takes)" }, \
	{ .key = "filter", .kind = LUA_OPTION_STRING }, \
	{ .key = "palette", .kind = LUA_OPTION_OTHER, \
	    .what = "a palette name or a list of colours" }

static const char *const nested_names[] = { "top", "rows", NULL };
static const char *const label_names[] = { "both", "name", "description",
    NULL };

static const lua_option panel_keys[] = {
	PANEL_KEYS,
	{ .key = "legend", .kind = LUA_OPTION_BOOLEAN },
	{ .key = NULL }
};

/* A panel's legend_skip until f_render settles it (legend_defaults). */
#define LEGEND_UNSAID		(-1)	/* a panel of entities */
#define LEGEND_UNSAID_SUMMARY	(-2)	/* a t:group trace's */

static const lua_option render_keys[] = {
	{ .key = "output", .kind = LUA_OPTION_PATH },
	{ .key = "panels", .kind = LUA_OPTION_TABLE,
	    .what = "a list of {trace =, entities =}" },
	{ .key = "interactive", .kind = LUA_OPTION_BOOLEAN },
	{ .key = "detail", .kind = LUA_OPTION_OTHER,
	    .what = "a size in bytes (an integer, or a string such as "
	    "\"4M\") up to 1G, or 0 or false for none" },
	{ .key = "width", .kind = LUA_OPTION_INTEGER, .min = 1, .max = 32767 },
	{ .key = "margin", .kind = LUA_OPTION_INTEGER, .min = 0, .max = 1000 },
	{ .key = "coalesce", .kind = LUA_OPTION_INTEGER, .min = 1,
	    .max = 100000000 },
	{ .key = "font", .kind = LUA_OPTION_STRING },
	{ .key = "font_size", .kind = LUA_OPTION_INTEGER, .min = 4,
	    .max = 200 },
	{ .key = "background", .kind = LUA_OPTION_COLOR },
	{ .key = "foreground", .kind = LUA_OPTION_COLOR },
	{ .key = "empty", .kind = LUA_OPTION_COLOR },
	{ .key = "legend", .kind = LUA_OPTION_BOOLEAN },
	{ .key = "labels", .kind = LUA_OPTION_CHOICE, .names = label_names },
	{ .key = "from", .kind = LUA_OPTION_TIME },
	{ .key = "to", .kind = LUA_OPTION_TIME },
	PANEL_KEYS,
	{ .key = NULL }
};

/* group: true (whole paths), false or nil, or a number of levels. */
static int
opt_group(const lua_options *opts)
{
	lua_State *L = opts->L;
	lua_Integer n;
	int isnum;

	if (lua_options_get(opts, "group") == LUA_TNIL ||
	    lua_isboolean(L, -1)) {
		n = lua_toboolean(L, -1) ? RENDER_GROUP_ALL : 0;
		lua_pop(L, 1);
		return ((int)n);
	}
	n = lua_tointegerx(L, -1, &isnum);
	if (!isnum || n < 1 || n > 1000)
		lua_options_refuse(opts, "group", -1);
	lua_pop(L, 1);
	return ((int)n);
}

/*
 * A picture sized to its content: a panel of few entities, without a
 * row height of its own or render's (nor nested = "rows"), gets taller rows (FEW_ROWS_HEIGHT
 * pixels over its entities, RENDER_ROW_HEIGHT to FEW_ROWS_MAX each), not
 * a thin strip across a wide page.
 */
#define FEW_ROWS_HEIGHT	80
#define FEW_ROWS_MAX	30

static void
few_rows(render_panel *panels, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t k = panels[i].nentities;
		unsigned h;

		/* Stacks drawn as sub-rows are rows enough. */
		if (panels[i].row_height != 0 || k == 0 ||
		    panels[i].nested_rows)
			continue;
		h = FEW_ROWS_HEIGHT / k;
		if (h > RENDER_ROW_HEIGHT)
			panels[i].row_height = h > FEW_ROWS_MAX ?
			    FEW_ROWS_MAX : h;
	}
}

/* events: true or nil (thinned), false (none), or "all". */
static int
opt_events(const lua_options *opts)
{
	lua_State *L = opts->L;
	int t = lua_options_get(opts, "events"), events;

	if (t == LUA_TNIL || t == LUA_TBOOLEAN)
		events = t == LUA_TNIL || lua_toboolean(L, -1) ?
		    RENDER_EVENTS_THINNED : RENDER_EVENTS_NONE;
	else if (t == LUA_TSTRING && strcmp(lua_tostring(L, -1), "all") == 0)
		events = RENDER_EVENTS_ALL;
	else
		return (lua_options_refuse(opts, "events", -1));
	lua_pop(L, 1);
	return (events);
}

/* detail: bytes (an integer or "4M"), false or 0 for none. */
static uint64_t
opt_detail(const lua_options *opts, uint64_t dflt)
{
	lua_State *L = opts->L;
	uint64_t v = dflt;
	int ok = 1;

	if (lua_options_get(opts, "detail") == LUA_TNIL) {
		lua_pop(L, 1);
		return (dflt);
	}
	if (lua_isboolean(L, -1) && !lua_toboolean(L, -1)) {
		v = 0;
	} else if (lua_isinteger(L, -1)) {
		lua_Integer i = lua_tointeger(L, -1);

		ok = i >= 0 && i <= DETAIL_MAX;
		v = (uint64_t)i;
	} else if (lua_type(L, -1) == LUA_TSTRING) {
		ok = detail_parse_size(lua_tostring(L, -1), &v) == 0;
	} else {
		ok = 0;
	}
	if (!ok)
		lua_options_refuse(opts, "detail", -1);
	lua_pop(L, 1);
	return (v);
}

/*
 * filter = REGEX (as -f, a POSIX extended regular expression): keeps the
 * n entities of ids whose names match, in order; returns how many.
 */
static size_t
filter_panel(lua_State *L, const lua_options *opts, const trace *d,
    uint32_t *ids, size_t n)
{
	const char *pattern;
	const regex_t *re;
	size_t i, kept = 0;

	if (!lua_options_string(opts, "filter", &pattern, NULL))
		return (n);
	re = lua_args_regex(L, pattern, "filter of render");
	for (i = 0; i < n; i++) {
		size_t len;
		const char *name = catalog_entity_name(d->cat, ids[i], &len);

		if (regexec(re, name, 0, NULL, 0) == 0)
			ids[kept++] = ids[i];
	}
	lua_pop(L, 1);	/* the regex */
	return (kept);
}

/*
 * sort = HOW: the n entities of ids in the order t:sorted(HOW) gives
 * them (most time in a state first, natural name order, or a function's
 * order), called on the panel's trace (its table at idx); returns how
 * many (each once).
 */
static size_t
sort_panel(lua_State *L, const lua_options *opts, int idx, uint32_t *ids,
    size_t n)
{
	uint32_t *rank, e, *sorted;
	size_t i, k, len;

	if (lua_options_get(opts, "sort") == LUA_TNIL) {
		lua_pop(L, 1);
		return (n);
	}
	if (lua_type(L, -1) != LUA_TSTRING && !lua_isfunction(L, -1))
		lua_options_refuse(opts, "sort", -1);
	lua_getfield(L, idx, "trace");
	lua_getfield(L, -1, "sorted");
	lua_insert(L, -3);		/* sorted, sort, trace */
	lua_insert(L, -2);		/* sorted, trace, sort */
	if (lua_pcall(L, 2, 1, 0) != LUA_OK)
		luaL_error(L, "render: sort: %s", lua_tostring(L, -1));
	len = lua_rawlen(L, -1);
	rank = lua_newuserdatauv(L, (len + 1) * sizeof (uint32_t), 0);
	for (k = 1; k <= len; k++) {
		lua_rawgeti(L, -2, (lua_Integer)k);
		lua_entity_check(L, -1, &e);
		if (e < len)
			rank[e] = (uint32_t)k;
		lua_pop(L, 1);
	}
	/* A counting sort of ids by rank: each entity is once in t:sorted. */
	sorted = lua_newuserdatauv(L, (len + 1) * sizeof (uint32_t), 0);
	for (k = 0; k <= len; k++)
		sorted[k] = UINT32_MAX;
	for (i = 0; i < n; i++) {
		if (ids[i] < len)
			sorted[rank[ids[i]]] = ids[i];
	}
	for (i = 0, k = 0; k <= len; k++) {
		if (sorted[k] != UINT32_MAX)
			ids[i++] = sorted[k];
	}
	lua_pop(L, 3);	/* the list, rank, sorted */
	return (i);	/* an entity listed twice is there once */
}

/*
 * Reads the panel table at idx into p.  Its trace and entity array (a
 * userdata) are kept in KEEP, so they live until render returns, however
 * many panels there are: the stack does not grow with them.
 */
static void
read_panel(lua_State *L, int idx, render_panel *p, int top)
{
	uint32_t *ids;
	size_t i, n;
	lua_options opts;
	lua_Integer row_height = 0;

	/* The options themselves as the one panel: render_keys checked
	 * them all. */
	if (top)
		lua_options_init_members(&opts, L, idx, "render", panel_keys);
	else
		lua_options_init(&opts, L, idx, "render", panel_keys);
	opts.keep = KEEP;
	lua_options_get(&opts, "trace");
	p->d = lua_trace_test(L, -1);
	if (p->d == NULL)
		luaL_error(L, "render: a panel needs trace = a loaded trace");
	p->legend_skip = lua_transform_is_summary(L, -1) ?
	    LEGEND_UNSAID_SUMMARY : LEGEND_UNSAID;
	/*
	 * palette: the trace drawn with its states recoloured from a
	 * palette (statemap.palette.apply: a name or a list of colours).
	 */
	lua_options_get(&opts, "palette");
	if (!lua_isnil(L, -1)) {
		if (lua_type(L, -1) != LUA_TSTRING && !lua_istable(L, -1))
			luaL_error(L, "render: palette must be a palette name "
			    "or a list of colours");
		lua_getglobal(L, "require");
		lua_pushliteral(L, "statemap.palette");
		lua_call(L, 1, 1);
		lua_getfield(L, -1, "apply");
		lua_pushvalue(L, -4);	/* the trace */
		lua_pushvalue(L, -4);	/* the palette */
		if (lua_pcall(L, 2, 1, 0) != LUA_OK)
			luaL_error(L, "render: palette: %s",
			    lua_tostring(L, -1) != NULL ? lua_tostring(L, -1) :
			    "not a palette");
		p->d = lua_trace_test(L, -1);
		if (p->d == NULL)
			luaL_error(L, "render: palette gave no trace");
		lua_replace(L, -4);	/* the recoloured trace for the trace */
		lua_pop(L, 1);		/* the module */
	}
	lua_pop(L, 1);			/* the palette */
	keep_top(L);
	lua_pop(L, 1);
	if (!top) {
		int counted;

		if (lua_options_boolean(&opts, "legend", &counted))
			p->legend_skip = !counted;
	}
	p->title = NULL;
	lua_options_string(&opts, "title", &p->title, NULL);
	lua_options_integer(&opts, "row_height", &row_height);
	p->row_height = (unsigned)row_height;
	p->events = opt_events(&opts);
	p->group = opt_group(&opts);
	p->nested_rows = 0;	/* "top" */
	lua_options_choice(&opts, "nested", &p->nested_rows);
	if (!lua_options_table(&opts, "entities")) {
		n = catalog_nentities(p->d->cat);
		ids = lua_newuserdatauv(L, (n + 1) * sizeof (uint32_t), 0);
		for (i = 0; i < n; i++)
			ids[i] = (uint32_t)i;
		keep_top(L);
		lua_pop(L, 1);
	} else {
		ids = lua_entity_list(L, p->d, -1, &n, "render", "entities");
		keep_top(L);
		lua_pop(L, 2);	/* the array, the list */
	}
	n = filter_panel(L, &opts, p->d, ids, n);
	n = sort_panel(L, &opts, idx, ids, n);
	p->entities = ids;
	p->nentities = (uint32_t)n;
}


/*
 * A panel that did not say (legend = true or false) counts in the legend
 * unless it is a summary (t:group's) sharing its legend with a panel of
 * entities that counts: their time would be counted twice.
 */
static void
legend_defaults(render_panel *panels, size_t n)
{
	size_t i, j;

	/* First the panels of entities: counted unless they said not. */
	for (i = 0; i < n; i++) {
		if (panels[i].legend_skip == LEGEND_UNSAID)
			panels[i].legend_skip = 0;
	}
	/* Then the summaries, against the panels that said or were
	 * settled (0: counted), not against one another. */
	for (i = 0; i < n; i++) {
		int skip = 0;

		if (panels[i].legend_skip != LEGEND_UNSAID_SUMMARY)
			continue;
		for (j = 0; j < n && !skip; j++)
			skip = panels[j].legend_skip == 0 && catalog_same_states(
			    panels[i].d->cat, panels[j].d->cat);
		panels[i].legend_skip = skip ? 1 : LEGEND_UNSAID - 2;
	}
	for (i = 0; i < n; i++) {
		if (panels[i].legend_skip == LEGEND_UNSAID - 2)
			panels[i].legend_skip = 0;
	}
}

static void
push_layout(lua_State *L, const render_layout *lay,
    const render_panel *panels, size_t n)
{
	size_t i;
	uint32_t k;

	lua_createtable(L, 0, 5);
	lua_pushinteger(L, lay->width);
	lua_setfield(L, -2, "width");
	lua_pushinteger(L, lay->height);
	lua_setfield(L, -2, "height");
	lua_pushinteger(L, lay->strip_x);
	lua_setfield(L, -2, "strip_x");
	lua_pushinteger(L, lay->strip_width);
	lua_setfield(L, -2, "strip_width");
	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		lua_pushinteger(L, lay->panel_y[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "panel_y");
	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		lua_createtable(L, (int)panels[i].nentities, 0);
		for (k = 0; k < panels[i].nentities; k++) {
			lua_createtable(L, 0, 2);
			lua_pushinteger(L, lay->entity_y[i][k]);
			lua_setfield(L, -2, "y");
			lua_pushinteger(L, lay->entity_h[i][k]);
			lua_setfield(L, -2, "height");
			lua_rawseti(L, -2, (lua_Integer)k + 1);
		}
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "strips");
	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		const render_thinning *t = &lay->thinning[i];

		lua_createtable(L, 0, 4);
		lua_pushinteger(L, (lua_Integer)t->events);
		lua_setfield(L, -2, "count");
		lua_pushinteger(L, (lua_Integer)t->event_step);
		lua_setfield(L, -2, "step");
		lua_pushinteger(L, (lua_Integer)t->messages);
		lua_setfield(L, -2, "messages");
		lua_pushinteger(L, (lua_Integer)t->message_step);
		lua_setfield(L, -2, "message_step");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "events");
	/* (Tables only: nothing here can fail but for memory.) */
	lua_createtable(L, (int)lay->nlabels, 0);
	for (i = 0; i < lay->nlabels; i++) {
		const render_label_box *b = &lay->labels[i];

		lua_createtable(L, 0, 7);
		lua_pushnumber(L, b->x);
		lua_setfield(L, -2, "x");
		lua_pushnumber(L, b->y);
		lua_setfield(L, -2, "y");
		lua_pushnumber(L, b->width);
		lua_setfield(L, -2, "width");
		lua_pushnumber(L, b->height);
		lua_setfield(L, -2, "height");
		lua_pushnumber(L, b->row_y);
		lua_setfield(L, -2, "row_y");
		lua_pushnumber(L, b->row_height);
		lua_setfield(L, -2, "row_height");
		lua_pushboolean(L, b->header);
		lua_setfield(L, -2, "header");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "labels");
}

/*
 * interactive = true: the command line's statemap (svg_traces.h) of the
 * panels' traces and orders, instead of a picture; it returns nothing.
 */
static int
write_interactive(lua_State *L, const char *output, const render_options *o,
    const render_panel *panels, size_t npanels, uint64_t detail)
{
	svg_traces_input in;
	svg_traces_map *maps;
	size_t i;
	sm_error err;
	char msg[sizeof (err.message) + sizeof (err.file) + 64];

	if (render_format_of(output) != RENDER_SVG)
		return (luaL_error(L, "render: interactive output is SVG: "
		    "name the file .svg"));
	maps = lua_newuserdatauv(L, (npanels + 1) * sizeof (*maps), 0);
	for (i = 0; i < npanels; i++) {
		maps[i].d = panels[i].d;
		maps[i].entities = panels[i].entities;
		maps[i].nentities = panels[i].nentities;
	}
	memset(&in, 0, sizeof (in));
	in.maps = maps;
	in.nmaps = npanels;
	in.t0 = o->t0;
	in.t1 = o->t1;
	in.budget = o->budget;
	in.strip_width = o->width;
	in.strip_height = o->row_height;
	in.labels = o->labels;
	in.detail = detail;
	if (svg_traces_write(output, &in, &err) != 0) {
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "%s", msg));
	}
	return (0);
}

static int
f_render(lua_State *L)
{
	render_options o;
	render_panel *panels;
	render_layout lay;
	size_t npanels, i;
	int list, top, labels = 0, interactive = 0;
	uint64_t detail = DETAIL_AUTO;
	const char *output = NULL;
	lua_options opts;
	lua_Integer n;
	sm_error err;
	char msg[sizeof (err.message) + sizeof (err.file) + 64];

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	lua_options_init(&opts, L, 1, "render", render_keys);
	lua_options_keep(&opts);	/* KEEP */
	if (!lua_options_path(&opts, "output", &output))
		return (luaL_error(L, "render: output = a file name is "
		    "required"));
	if (render_format_of(output) < 0)
		return (luaL_error(L, "render: \"%s\": the name must end in "
		    ".png, .svg or .pdf", output));

	if (!(list = lua_options_table(&opts, "panels"))) {
		lua_createtable(L, 1, 0);
		lua_pushvalue(L, 1);
		lua_rawseti(L, -2, 1);
	}
	top = !list;
	list = lua_gettop(L);
	npanels = lua_rawlen(L, list);
	if (npanels == 0)
		return (luaL_error(L, "render: no panels"));
	panels = lua_newuserdatauv(L, npanels * sizeof (render_panel), 0);
	for (i = 0; i < npanels; i++) {
		lua_rawgeti(L, list, (lua_Integer)i + 1);
		if (!lua_istable(L, -1))
			return (luaL_error(L, "render: panel %d is not a "
			    "table", (int)i + 1));
		read_panel(L, lua_gettop(L), &panels[i], top);
		lua_pop(L, 1);
	}
	legend_defaults(panels, npanels);

	render_defaults(&o, panels[0].d);
	lua_options_boolean(&opts, "interactive", &interactive);
	detail = opt_detail(&opts, detail);
	if (interactive)
		o.width = SVG_STRIP_WIDTH;
	if (lua_options_integer(&opts, "width", &n))
		o.width = (unsigned)n;
	if (lua_options_integer(&opts, "row_height", &n))
		o.row_height = (unsigned)n;
	else if (!interactive)
		few_rows(panels, npanels);
	if (lua_options_integer(&opts, "margin", &n))
		o.margin = (unsigned)n;
	if (lua_options_integer(&opts, "coalesce", &n))
		o.budget = (uint64_t)n;
	o.title = NULL;
	lua_options_string(&opts, "title", &o.title, NULL);
	lua_options_string(&opts, "font", &o.font, NULL);
	if (lua_options_integer(&opts, "font_size", &n))
		o.font_size = (double)n;
	lua_options_color(&opts, "background", &o.background);
	lua_options_color(&opts, "foreground", &o.foreground);
	lua_options_color(&opts, "empty", &o.empty);
	o.legend = 1;
	lua_options_boolean(&opts, "legend", &o.legend);
	lua_options_choice(&opts, "labels", &labels);
	label_mode_parse(label_names[labels], &o.labels);
	lua_options_range(&opts, &o.t0, &o.t1);
	if (o.t1 <= o.t0)
		return (luaL_error(L, "render: the time span is empty"));
	if (interactive)
		return (write_interactive(L, output, &o, panels, npanels,
		    detail));

	memset(&lay, 0, sizeof (lay));
	lay.want_labels = 1;
	lay.panel_y = lua_newuserdatauv(L, npanels * sizeof (unsigned), 0);
	lay.thinning = lua_newuserdatauv(L, npanels *
	    sizeof (render_thinning), 0);
	keep_top(L);
	lua_pop(L, 1);
	/* Each strip's place: arrays held in KEEP until render returns. */
	lay.entity_y = lua_newuserdatauv(L, npanels * sizeof (unsigned *), 0);
	keep_top(L);
	lay.entity_h = lua_newuserdatauv(L, npanels * sizeof (unsigned *), 0);
	keep_top(L);
	lua_pop(L, 2);
	for (i = 0; i < npanels; i++) {
		lay.entity_y[i] = lua_newuserdatauv(L,
		    (panels[i].nentities + 1) * sizeof (unsigned), 0);
		keep_top(L);
		lay.entity_h[i] = lua_newuserdatauv(L,
		    (panels[i].nentities + 1) * sizeof (unsigned), 0);
		keep_top(L);
		lua_pop(L, 2);
	}
	if (render_file(output, &o, panels, npanels, &lay, &err) != 0) {
		free(lay.labels);
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "%s", msg));
	}
	push_layout(L, &lay, panels, npanels);
	free(lay.labels);
	return (1);
}

const luaL_Reg lua_render_functions[] = {
	{ "render", f_render },
	{ NULL, NULL }
};

void
lua_render_push_keys(lua_State *L)
{
	const lua_option *k;

	lua_newtable(L);
	for (k = render_keys; k->key != NULL; k++) {
		lua_pushstring(L, k->key);
		lua_rawseti(L, -2, (lua_Integer)(k - render_keys) + 1);
	}
}
