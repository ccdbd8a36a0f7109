#include "lua/lua_object.h"

static int
object_index(lua_State *L)
{
	lua_settop(L, 2);
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
		return (1);
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TFUNCTION)
		return (0);
	lua_pushvalue(L, 1);
	lua_call(L, 1, 1);
	return (1);
}

void
lua_object_class(lua_State *L, const char *name,
    const luaL_Reg *const *methods, const luaL_Reg *fields,
    const luaL_Reg *metamethods)
{
	size_t i;

	luaL_newmetatable(L, name);
	luaL_setfuncs(L, metamethods, 0);
	lua_newtable(L);
	for (i = 0; methods[i] != NULL; i++)
		luaL_setfuncs(L, methods[i], 0);
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, "methods");
	lua_newtable(L);
	luaL_setfuncs(L, fields, 0);
	lua_pushcclosure(L, object_index, 2);
	lua_setfield(L, -2, "__index");
	lua_pushstring(L, name);
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 1);
}

void
lua_object_sequence_class(lua_State *L, const char *name,
    const luaL_Reg *methods, lua_CFunction index,
    const luaL_Reg *metamethods)
{
	static const luaL_Reg none[] = { { NULL, NULL } };
	const luaL_Reg *all[] = { methods, NULL };

	lua_object_class(L, name, all, none, metamethods);
	luaL_getmetatable(L, name);
	lua_getfield(L, -1, "methods");
	lua_pushcclosure(L, index, 1);
	lua_setfield(L, -2, "__index");
	lua_pop(L, 1);
}
