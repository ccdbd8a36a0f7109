#include "lua_statemap.h"

#include <lauxlib.h>

#include "duration.h"
#include "lua_json.h"
#include "lua_trace.h"
#include "version.h"

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

int
luaopen_statemap(lua_State *L)
{
	luaL_newlib(L, statemap_functions);
	lua_trace_open(L);
	lua_json_open(L);
	lua_pushstring(L, STATEMAP_VERSION);
	lua_setfield(L, -2, "version");
	return (1);
}
