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
 * .svg writes the command line's interactive statemap instead.
 */
#include "lua_render.h"

#include <string.h>

#include <lauxlib.h>

#include "color.h"
#include "lua_trace.h"
#include "outfile.h"
#include "render.h"
#include "smap.h"
#include "svg.h"

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
	s = lua_tostring(L, -1);
	lua_pop(L, 1);	/* still referenced by the options table */
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

static color
opt_color(lua_State *L, int t, const char *key, color dflt)
{
	size_t len;
	const char *s;
	color c = dflt;	/* (luaL_error does not return: for clang) */

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
		v = lua_trace_check_time(L, lua_gettop(L));
	}
	lua_pop(L, 1);
	return (v);
}

/*
 * Reads the panel table at idx into p.  The entity array is a userdata
 * left on the stack, so it lives until render returns.
 */
static void
read_panel(lua_State *L, int idx, render_panel *p)
{
	uint32_t *ids;
	size_t i, n;

	lua_getfield(L, idx, "trace");
	p->d = lua_trace_test(L, -1);
	if (p->d == NULL)
		luaL_error(L, "render: a panel needs trace = a loaded trace");
	lua_pop(L, 1);
	p->title = opt_string(L, idx, "title", NULL);
	p->row_height = (unsigned)opt_integer(L, idx, "row_height", 0, 1,
	    1000);
	p->events = opt_boolean(L, idx, "events", 1);
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
		n = lua_rawlen(L, -1);
		ids = lua_newuserdatauv(L, (n + 1) * sizeof (uint32_t), 0);
		for (i = 0; i < n; i++) {
			lua_rawgeti(L, -2, (lua_Integer)i + 1);
			ids[i] = lua_trace_entity_id(L, p->d, lua_gettop(L));
			lua_pop(L, 1);
		}
	}
	lua_remove(L, -2);
	p->entities = ids;
	p->nentities = (uint32_t)n;
}

/* The command line's statemap, with the script's traces and order. */
static void
write_interactive(lua_State *L, const char *output, const render_options *o,
    const render_panel *panels, size_t n)
{
	svg_options so = { o->row_height, o->width };
	smap *maps = lua_newuserdatauv(L, n * sizeof (smap), 0);
	size_t *order = lua_newuserdatauv(L, n * sizeof (size_t), 0);
	outfile of;
	sm_error err;
	char msg[sizeof (err.message) + sizeof (err.file) + 64];
	size_t i;
	int rv = -1;

	for (i = 0; i < n; i++) {
		smap_from_trace(&maps[i], panels[i].d, panels[i].entities,
		    panels[i].nentities, o->budget, o->t0, o->t1);
		order[i] = i;
	}
	if (outfile_open(&of, output, &err) == 0) {
		svg_write(of.fp, maps, n, order, &so);
		rv = outfile_commit(&of, &err);
	}
	for (i = 0; i < n; i++)
		smap_free(&maps[i]);
	if (rv != 0) {
		error_format(&err, msg, sizeof (msg));
		luaL_error(L, "%s", msg);
	}
}

static void
push_layout(lua_State *L, const render_layout *lay, size_t n)
{
	size_t i;

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
		/* Stack: ..., panel table, ids: keep ids, drop the table. */
		lua_remove(L, -2);
	}

	render_defaults(&o, panels[0].d);
	o.width = (unsigned)opt_integer(L, 1, "width", o.width, 1, 32767);
	o.row_height = (unsigned)opt_integer(L, 1, "row_height",
	    o.row_height, 1, 1000);
	o.margin = (unsigned)opt_integer(L, 1, "margin", o.margin, 0, 1000);
	o.budget = (uint64_t)opt_integer(L, 1, "coalesce", (lua_Integer)
	    o.budget, 1, 100000000);
	o.title = opt_string(L, 1, "title", NULL);
	o.font = opt_string(L, 1, "font", o.font);
	o.font_size = (double)opt_integer(L, 1, "font_size", 11, 4, 200);
	o.background = opt_color(L, 1, "background", o.background);
	o.foreground = opt_color(L, 1, "foreground", o.foreground);
	o.empty = opt_color(L, 1, "empty", o.empty);
	o.legend = opt_boolean(L, 1, "legend", 1);
	o.t0 = opt_time_field(L, 1, "from", o.t0);
	o.t1 = opt_time_field(L, 1, "to", o.t1);
	if (o.t1 <= o.t0)
		return (luaL_error(L, "render: the time span is empty"));

	if (opt_boolean(L, 1, "interactive", 0)) {
		if (render_format_of(output) != RENDER_SVG)
			return (luaL_error(L, "render: interactive output is "
			    "SVG: name the file .svg"));
		o.width = (unsigned)opt_integer(L, 1, "width", 862, 1, 32767);
		write_interactive(L, output, &o, panels, npanels);
		return (0);
	}
	lay.panel_y = lua_newuserdatauv(L, npanels * sizeof (unsigned), 0);
	if (render_file(output, &o, panels, npanels, &lay, &err) != 0) {
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "%s", msg));
	}
	push_layout(L, &lay, npanels);
	return (1);
}

void
lua_render_open(lua_State *L)
{
	lua_pushcfunction(L, f_render);
	lua_setfield(L, -2, "render");
}
