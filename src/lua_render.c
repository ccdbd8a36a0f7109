/*
 * lua_render.c: statemap.render{...}.
 *
 *   statemap.render{ output = "out.png", width = 1600, row_height = 10,
 *       title = "...", from = t0, to = t1,
 *       panels = { { trace = t, entities = t:sorted("on-cpu") }, ... } }
 *
 * `trace = t` (with `entities`) stands for a single panel.  A panel's
 * entities default to the order of first appearance (t:entities()).
 */
#include "lua_render.h"

#include <string.h>

#include <lauxlib.h>

#include "lua_trace.h"
#include "render.h"

static unsigned
opt_pixels(lua_State *L, int t, const char *key, unsigned dflt,
    unsigned max)
{
	lua_Integer v = 0;

	lua_getfield(L, t, key);
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		return (dflt);
	}
	if (!lua_isinteger(L, -1) || (v = lua_tointeger(L, -1)) < 1 ||
	    (lua_Integer)max < v)
		luaL_error(L, "render: %s must be an integer from 1 to %d", key,
		    (int)max);
	lua_pop(L, 1);
	return ((unsigned)v);
}

/* Reads one panel table at idx into p (entity arrays live in Lua). */
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
	lua_getfield(L, idx, "entities");
	if (lua_isnil(L, -1)) {
		n = trace_nentities(p->d->tr);
		ids = lua_newuserdatauv(L, (n + 1) * sizeof (uint32_t), 0);
		for (i = 0; i < n; i++)
			ids[i] = (uint32_t)i;
	} else {
		luaL_checktype(L, -1, LUA_TTABLE);
		n = lua_rawlen(L, -1);
		ids = lua_newuserdatauv(L, (n + 1) * sizeof (uint32_t), 0);
		for (i = 0; i < n; i++) {
			lua_rawgeti(L, -2, (lua_Integer)i + 1);
			ids[i] = lua_trace_entity_id(L, p->d, lua_gettop(L));
			lua_pop(L, 1);
		}
	}
	/* Keep the array alive in the registry-free way: leave it on the
	 * stack under the panel's entities value until render returns. */
	lua_insert(L, -2);
	lua_pop(L, 1);
	p->entities = ids;
	p->nentities = (uint32_t)n;
}

static uint64_t
opt_time_field(lua_State *L, int t, const char *key, uint64_t dflt)
{
	uint64_t v = dflt;

	lua_getfield(L, t, key);
	if (!lua_isnil(L, -1)) {
		if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0)
			luaL_error(L, "render: %s must be a time in ns", key);
		v = (uint64_t)lua_tointeger(L, -1);
	}
	lua_pop(L, 1);
	return (v);
}

static int
f_render(lua_State *L)
{
	render_options o;
	render_panel *panels;
	size_t npanels, i, len;
	int list;
	const char *output;
	sm_error err;
	char msg[sizeof (err.message) + sizeof (err.file) + 64];

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	lua_getfield(L, 1, "output");
	output = lua_tolstring(L, -1, &len);
	if (output == NULL)
		return (luaL_error(L, "render: output = a file name is "
		    "required"));
	if (len < 4 || strcmp(output + len - 4, ".png") != 0)
		return (luaL_error(L, "render: \"%s\": only PNG output (.png) "
		    "is implemented so far", output));
	memset(&o, 0, sizeof (o));
	o.width = opt_pixels(L, 1, "width", 1600, 20000);
	o.row_height = opt_pixels(L, 1, "row_height", 10, 1000);
	lua_getfield(L, 1, "title");
	o.title = lua_tostring(L, -1);

	lua_getfield(L, 1, "panels");
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		lua_createtable(L, 1, 0);
		lua_pushvalue(L, 1);
		lua_rawseti(L, -2, 1);
	}
	luaL_checktype(L, -1, LUA_TTABLE);
	list = lua_gettop(L);
	npanels = lua_rawlen(L, list);
	if (npanels == 0)
		return (luaL_error(L, "render: no panels"));
	panels = lua_newuserdatauv(L, npanels * sizeof (render_panel), 0);
	for (i = 0; i < npanels; i++) {
		lua_rawgeti(L, list, (lua_Integer)i + 1);
		luaL_checktype(L, -1, LUA_TTABLE);
		read_panel(L, lua_gettop(L), &panels[i]);
		/* Stack: ..., panel table, ids: keep ids, drop the table. */
		lua_remove(L, -2);
	}
	o.t0 = opt_time_field(L, 1, "from", panels[0].d->begin);
	o.t1 = opt_time_field(L, 1, "to", panels[0].d->end);
	if (o.t1 <= o.t0)
		return (luaL_error(L, "render: the time span is empty"));
	if (render_png(output, &o, panels, npanels, &err) != 0) {
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "%s", msg));
	}
	return (0);
}

void
lua_render_open(lua_State *L)
{
	lua_pushcfunction(L, f_render);
	lua_setfield(L, -2, "render");
}
