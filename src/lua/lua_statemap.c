#include "lua/lua_statemap.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "base/duration.h"
#include "base/version.h"
#include "base/work.h"
#include "coalesce/coalesce.h"
#include "lua/lua_builder.h"
#include "lua/lua_catalog.h"
#include "lua/lua_count_series.h"
#include "lua/lua_entity.h"
#include "lua/lua_events.h"
#include "lua/lua_flows.h"
#include "lua/lua_json.h"
#include "lua/lua_merge_traces.h"
#include "lua/lua_modules.h"
#include "lua/lua_object.h"
#include "lua/lua_options.h"
#include "lua/lua_reduce.h"
#include "lua/lua_render.h"
#include "lua/lua_serve.h"
#include "lua/lua_snapshot.h"
#include "lua/lua_store.h"
#include "lua/lua_trace.h"
#include "lua/lua_transform.h"
#include "lua/lua_tree.h"
#include "lua/lua_value_summary.h"
#include "lua/lua_writer.h"
#include "output/svg.h"
#include "render/render.h"

/* statemap.duration(text or ns) -> ns; raises on bad input. */
static int
f_duration(lua_State *L)
{
	const char *why = NULL;
	int64_t ns;

	if (lua_type(L, 1) == LUA_TNUMBER) {
		lua_Integer n;

		if (!lua_isinteger(L, 1) || (n = lua_tointeger(L, 1)) < 0)
			return (luaL_argerror(L, 1, "a duration in ns must be "
			    "a non-negative integer"));
		lua_pushinteger(L, n);
		return (1);
	}
	if (!duration_parse(luaL_checkstring(L, 1), &ns, &why))
		return (luaL_error(L, "invalid duration \"%s\": %s",
		    lua_tostring(L, 1), why));
	lua_pushinteger(L, ns);
	return (1);
}

/* statemap.format_ns(ns) -> "1.500ms" */
static int
f_format_ns(lua_State *L)
{
	lua_Integer n = luaL_checkinteger(L, 1);
	char buf[64];

	luaL_argcheck(L, n >= 0, 1, "must be a non-negative integer");
	lua_pushstring(L, duration_format((uint64_t)n, buf, sizeof (buf)));
	return (1);
}

static const luaL_Reg statemap_functions[] = {
	{ "duration", f_duration },
	{ "format_ns", f_format_ns },
	{ NULL, NULL }
};

/* package.preload loader for an embedded module (upvalue: its index). */
static int
load_embedded(lua_State *L)
{
	const lua_module *m = &lua_modules[lua_tointeger(L,
	    lua_upvalueindex(1))];
	char chunkname[256];

	snprintf(chunkname, sizeof (chunkname), "@%s", m->path);
	if (luaL_loadbufferx(L, m->source, m->len, chunkname, "t") != LUA_OK)
		return (lua_error(L));
	lua_pushstring(L, m->name);
	lua_call(L, 1, 1);
	return (1);
}

/*
 * The modules of lua/ become requirable as statemap.NAME, whether the
 * program runs a script or plain lua5.4 loads statemap.so.
 */
static void
preload_modules(lua_State *L)
{
	int i;

	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
	lua_pushcfunction(L, luaopen_statemap);
	lua_setfield(L, -2, "statemap");
	for (i = 0; lua_modules[i].name != NULL; i++) {
		lua_pushinteger(L, i);
		lua_pushcclosure(L, load_embedded, 1);
		lua_setfield(L, -2, lua_modules[i].name);
	}
	lua_pop(L, 1);
}

/*
 * statemap.NAME for a module of lua/ that is not yet loaded: requires
 * "statemap.NAME" and keeps it in the table, so `statemap.palette` and
 * `require "statemap.palette"` are the same table, loaded when first
 * used.  Any other missing field stays nil.
 */
static int
module_index(lua_State *L)
{
	const char *key = lua_tostring(L, 2);
	int i;

	if (key == NULL)
		return (0);
	for (i = 0; lua_modules[i].name != NULL; i++) {
		const char *name = lua_modules[i].name;

		if (strncmp(name, "statemap.", 9) != 0 ||
		    strcmp(name + 9, key) != 0)
			continue;
		lua_getglobal(L, "require");
		lua_pushstring(L, name);
		lua_call(L, 1, 1);
		lua_pushvalue(L, 2);
		lua_pushvalue(L, -2);
		lua_rawset(L, 1);
		return (1);
	}
	return (0);
}

/*
 * statemap.defaults: the defaults of pictures and statemaps, from the C
 * that applies them, so lua/ modules never repeat a number.
 */
static void
push_defaults(lua_State *L)
{
	lua_createtable(L, 0, 8);
	lua_pushinteger(L, RENDER_WIDTH);
	lua_setfield(L, -2, "width");
	lua_pushinteger(L, RENDER_ROW_HEIGHT);
	lua_setfield(L, -2, "row_height");
	lua_pushinteger(L, RENDER_MARGIN);
	lua_setfield(L, -2, "margin");
	lua_pushstring(L, RENDER_FONT);
	lua_setfield(L, -2, "font");
	lua_pushinteger(L, RENDER_FONT_SIZE);
	lua_setfield(L, -2, "font_size");
	lua_pushinteger(L, COALESCE_BUDGET);
	lua_setfield(L, -2, "coalesce");
	lua_pushinteger(L, SVG_STRIP_WIDTH);
	lua_setfield(L, -2, "interactive_width");
	lua_pushinteger(L, SVG_STRIP_HEIGHT);
	lua_setfield(L, -2, "interactive_row_height");
}

/*
 * The object types' metatables, each put together from the tables of the
 * binding files that give the type its methods and fields: a trace's
 * queries are spread over the files of the C modules they call.
 */
static void
open_classes(lua_State *L)
{
	static const luaL_Reg none[] = { { NULL, NULL } };
	const luaL_Reg *nothing[] = { none, NULL };
	const luaL_Reg *trace_methods[] = { lua_entity_trace_methods,
	    lua_tree_trace_methods, lua_snapshot_trace_methods,
	    lua_store_trace_methods, lua_catalog_trace_methods,
	    lua_value_summary_trace_methods, lua_transform_trace_methods,
	    lua_count_series_trace_methods, lua_reduce_trace_methods,
	    lua_merge_traces_trace_methods, lua_flows_trace_methods,
	    lua_writer_trace_methods, NULL };
	const luaL_Reg *trace_fields[] = { lua_trace_fields,
	    lua_catalog_trace_fields, NULL };
	const luaL_Reg *entity_methods[] = { lua_store_entity_methods,
	    lua_value_summary_entity_methods, NULL };
	const luaL_Reg *entity_fields[] = { lua_entity_fields, NULL };
	const luaL_Reg *builder_methods[] = { lua_builder_methods, NULL };

	lua_object_class(L, LUA_TRACE_TYPE, trace_methods, trace_fields,
	    lua_trace_metamethods);
	lua_object_class(L, LUA_ENTITY_TYPE, entity_methods, entity_fields,
	    lua_entity_metamethods);
	lua_object_class(L, LUA_STORE_INTERVALS_TYPE, nothing, nothing,
	    lua_store_intervals_metamethods);
	lua_object_sequence_class(L, LUA_COUNT_SERIES_TYPE,
	    lua_count_series_methods, lua_count_series_index,
	    lua_count_series_metamethods);
	lua_object_sequence_class(L, LUA_REDUCE_ARRAY_TYPE,
	    lua_reduce_array_methods, lua_reduce_array_index,
	    lua_reduce_array_metamethods);
	lua_object_class(L, LUA_FLOWS_TYPE, nothing, nothing,
	    lua_flows_metamethods);
	lua_object_class(L, LUA_BUILDER_TYPE, builder_methods, nothing,
	    lua_builder_metamethods);
}

int
luaopen_statemap(lua_State *L)
{
	work_init();
	preload_modules(L);
	luaL_newlib(L, statemap_functions);
	lua_createtable(L, 0, 1);
	lua_pushcfunction(L, module_index);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, -2);
	open_classes(L);
	luaL_setfuncs(L, lua_trace_functions, 0);
	luaL_setfuncs(L, lua_events_functions, 0);
	luaL_setfuncs(L, lua_merge_traces_functions, 0);
	luaL_setfuncs(L, lua_builder_functions, 0);
	luaL_setfuncs(L, lua_render_functions, 0);
	luaL_setfuncs(L, lua_serve_functions, 0);
	luaL_setfuncs(L, lua_options_functions, 0);
	lua_newtable(L);
	lua_render_push_keys(L);
	lua_setfield(L, -2, "render");
	lua_setfield(L, -2, "option_keys");
	lua_newtable(L);
	luaL_setfuncs(L, lua_json_functions, 0);
	lua_json_push_null(L);
	lua_setfield(L, -2, "null");
	lua_setfield(L, -2, "json");
	lua_pushstring(L, STATEMAP_VERSION);
	lua_setfield(L, -2, "version");
	push_defaults(L);
	lua_setfield(L, -2, "defaults");
	return (1);
}
