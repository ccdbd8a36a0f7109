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

#include <string.h>

#include <lauxlib.h>

#include "base/color.h"
#include "output/detail.h"
#include "lua/lua_args.h"
#include "lua/lua_entity.h"
#include "lua/lua_trace.h"
#include "render/render.h"
#include "output/svg.h"

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

static lua_Integer
opt_integer(lua_State *L, int t, const char *key, lua_Integer dflt,
    lua_Integer min, lua_Integer max)
{
	lua_Integer v = 0;

	lua_getfield(L, t, key);
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		return (dflt);
	}
	if (!lua_isinteger(L, -1) || (v = lua_tointeger(L, -1)) < min ||
	    v > max)
		luaL_error(L, "render: %s must be an integer from %I to %I",
		    key, min, max);
	lua_pop(L, 1);
	return (v);
}

static const char *
opt_string(lua_State *L, int t, const char *key, const char *dflt)
{
	const char *s;

	lua_getfield(L, t, key);
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		return (dflt);
	}
	if (lua_type(L, -1) != LUA_TSTRING)
		luaL_error(L, "render: %s must be a string", key);
	keep_top(L);
	s = lua_tostring(L, -1);
	lua_pop(L, 1);
	return (s);
}

static int
opt_boolean(lua_State *L, int t, const char *key, int dflt)
{
	int v;

	lua_getfield(L, t, key);
	v = lua_isnil(L, -1) ? dflt : lua_toboolean(L, -1);
	lua_pop(L, 1);
	return (v);
}

/* group: true (whole paths), false or nil, or a number of levels. */
static int
opt_group(lua_State *L, int t)
{
	lua_Integer n;
	int isnum;

	lua_getfield(L, t, "group");
	if (lua_isnil(L, -1) || lua_isboolean(L, -1)) {
		n = lua_toboolean(L, -1) ? RENDER_GROUP_ALL : 0;
		lua_pop(L, 1);
		return ((int)n);
	}
	n = lua_tointegerx(L, -1, &isnum);
	if (!isnum || n < 1 || n > 1000)
		luaL_error(L, "render: group must be true, false or a number "
		    "of path levels from 1 to 1000, not %s",
		    luaL_tolstring(L, -1, NULL));
	lua_pop(L, 1);
	return ((int)n);
}

static color
opt_color(lua_State *L, int t, const char *key, color dflt)
{
	size_t len;
	const char *s;
	color c = dflt;	/* luaL_error does not return, but compilers cannot tell */

	lua_getfield(L, t, key);
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		return (dflt);
	}
	s = lua_tolstring(L, -1, &len);
	if (s == NULL || lua_type(L, -1) != LUA_TSTRING ||
	    !color_parse(s, len, &c))
		luaL_error(L, "render: %s must be a colour (#rrggbb, #rgb or "
		    "a CSS name)", key);
	lua_pop(L, 1);
	return (c);
}

/* detail: bytes (an integer or "4M"), false or 0 for none. */
static uint64_t
opt_detail(lua_State *L, int t, uint64_t dflt)
{
	uint64_t v = dflt;
	int ok = 1;

	lua_getfield(L, t, "detail");
	if (lua_isnil(L, -1)) {
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
		luaL_error(L, "render: detail must be a size in bytes (an "
		    "integer, or a string such as \"4M\") up to 1G, or 0 or "
		    "false for none");
	lua_pop(L, 1);
	return (v);
}

static uint64_t
opt_time_field(lua_State *L, int t, const char *key, uint64_t dflt)
{
	uint64_t v = dflt;

	lua_getfield(L, t, key);
	if (!lua_isnil(L, -1)) {
		int exact = 0;

		if (lua_type(L, -1) == LUA_TNUMBER &&
		    (lua_tointegerx(L, -1, &exact) < 0 || !exact))
			luaL_error(L, "render: %s must be a time: ns as a "
			    "non-negative integer, or a string like \"1.5s\"",
			    key);
		v = lua_args_check_time(L, lua_gettop(L));
	}
	lua_pop(L, 1);
	return (v);
}

/*
 * Reads the panel table at idx into p.  Its trace and entity array (a
 * userdata) are kept in KEEP, so they live until render returns, however
 * many panels there are: the stack does not grow with them.
 */
static void
read_panel(lua_State *L, int idx, render_panel *p)
{
	uint32_t *ids;
	size_t i, n;
	const char *nested;

	lua_getfield(L, idx, "trace");
	p->d = lua_trace_test(L, -1);
	if (p->d == NULL)
		luaL_error(L, "render: a panel needs trace = a loaded trace");
	keep_top(L);
	lua_pop(L, 1);
	p->title = opt_string(L, idx, "title", NULL);
	p->row_height = (unsigned)opt_integer(L, idx, "row_height", 0, 1,
	    1000);
	p->events = opt_boolean(L, idx, "events", 1);
	p->group = opt_group(L, idx);
	nested = opt_string(L, idx, "nested", "top");
	if (strcmp(nested, "rows") == 0)
		p->nested_rows = 1;
	else if (strcmp(nested, "top") == 0)
		p->nested_rows = 0;
	else
		luaL_error(L, "render: nested must be \"top\" or \"rows\", "
		    "not \"%s\"", nested);
	lua_getfield(L, idx, "entities");
	if (lua_isnil(L, -1)) {
		n = catalog_nentities(p->d->cat);
		ids = lua_newuserdatauv(L, (n + 1) * sizeof (uint32_t), 0);
		for (i = 0; i < n; i++)
			ids[i] = (uint32_t)i;
	} else {
		if (!lua_istable(L, -1))
			luaL_error(L, "render: entities must be a list of "
			    "entities or names");
		ids = lua_entity_list(L, p->d, -1, &n);
	}
	keep_top(L);
	lua_pop(L, 2);		/* the array, the entities field */
	p->entities = ids;
	p->nentities = (uint32_t)n;
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
}

static int
f_render(lua_State *L)
{
	render_options o;
	render_panel *panels;
	render_layout lay;
	size_t npanels, i;
	int list;
	const char *output;
	sm_error err;
	char msg[sizeof (err.message) + sizeof (err.file) + 64];

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	lua_newtable(L);	/* KEEP */
	output = opt_string(L, 1, "output", NULL);
	if (output == NULL)
		return (luaL_error(L, "render: output = a file name is "
		    "required"));
	if (render_format_of(output) < 0)
		return (luaL_error(L, "render: \"%s\": the name must end in "
		    ".png, .svg or .pdf", output));

	lua_getfield(L, 1, "panels");
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		lua_createtable(L, 1, 0);
		lua_pushvalue(L, 1);
		lua_rawseti(L, -2, 1);
	}
	if (!lua_istable(L, -1))
		return (luaL_error(L, "render: panels must be a list of "
		    "{trace =, entities =}"));
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
		read_panel(L, lua_gettop(L), &panels[i]);
		lua_pop(L, 1);
	}

	render_defaults(&o, panels[0].d);
	o.interactive = opt_boolean(L, 1, "interactive", 0);
	o.detail = opt_detail(L, 1, o.detail);
	if (o.interactive)
		o.width = SVG_STRIP_WIDTH;
	o.width = (unsigned)opt_integer(L, 1, "width", o.width, 1, 32767);
	o.row_height = (unsigned)opt_integer(L, 1, "row_height",
	    o.row_height, 1, 1000);
	o.margin = (unsigned)opt_integer(L, 1, "margin", o.margin, 0, 1000);
	o.budget = (uint64_t)opt_integer(L, 1, "coalesce", (lua_Integer)
	    o.budget, 1, 100000000);
	o.title = opt_string(L, 1, "title", NULL);
	o.font = opt_string(L, 1, "font", o.font);
	o.font_size = (double)opt_integer(L, 1, "font_size",
	    (lua_Integer)o.font_size, 4, 200);
	o.background = opt_color(L, 1, "background", o.background);
	o.foreground = opt_color(L, 1, "foreground", o.foreground);
	o.empty = opt_color(L, 1, "empty", o.empty);
	o.legend = opt_boolean(L, 1, "legend", 1);
	if (label_mode_parse(opt_string(L, 1, "labels", "both"),
	    &o.labels) != 0)
		return (luaL_error(L, "render: labels must be \"both\", "
		    "\"name\" or \"description\""));
	o.t0 = opt_time_field(L, 1, "from", o.t0);
	o.t1 = opt_time_field(L, 1, "to", o.t1);
	if (o.t1 <= o.t0)
		return (luaL_error(L, "render: the time span is empty"));

	lay.panel_y = lua_newuserdatauv(L, npanels * sizeof (unsigned), 0);
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
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "%s", msg));
	}
	if (o.interactive)
		return (0);
	push_layout(L, &lay, panels, npanels);
	return (1);
}

const luaL_Reg lua_render_functions[] = {
	{ "render", f_render },
	{ NULL, NULL }
};
