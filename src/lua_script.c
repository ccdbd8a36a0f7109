#include "lua_script.h"

#include <stdio.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua_modules.h"
#include "lua_statemap.h"

/* Adds a traceback to an error message, as lua.c does. */
static int
message_handler(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);

	if (msg == NULL) {
		if (luaL_callmeta(L, 1, "__tostring") &&
		    lua_type(L, -1) == LUA_TSTRING)
			return (1);
		msg = lua_pushfstring(L, "(error object is a %s value)",
		    luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return (1);
}

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

static void
preload_modules(lua_State *L)
{
	int i;

	lua_getglobal(L, "package");
	lua_getfield(L, -1, "preload");
	lua_pushcfunction(L, luaopen_statemap);
	lua_setfield(L, -2, "statemap");
	for (i = 0; lua_modules[i].name != NULL; i++) {
		lua_pushinteger(L, i);
		lua_pushcclosure(L, load_embedded, 1);
		lua_setfield(L, -2, lua_modules[i].name);
	}
	lua_pop(L, 2);
}

static int
run_protected(lua_State *L)
{
	int argc = (int)lua_tointeger(L, 1);
	char **argv = lua_touserdata(L, 2);
	int i, status;

	luaL_openlibs(L);
	preload_modules(L);
	luaL_requiref(L, "statemap", luaopen_statemap, 1);
	lua_pop(L, 1);

	lua_createtable(L, argc, 1);
	for (i = 0; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i);
	}
	lua_setglobal(L, "arg");

	lua_pushcfunction(L, message_handler);
	status = luaL_loadfile(L, argv[0]);
	if (status == LUA_OK) {
		for (i = 1; i < argc; i++)
			lua_pushstring(L, argv[i]);
		status = lua_pcall(L, argc - 1, 0, -(argc + 1));
	}
	if (status != LUA_OK) {
		fprintf(stderr, "statemap-lua: %s\n", lua_tostring(L, -1));
		lua_pushinteger(L, 1);
		return (1);
	}
	lua_pushinteger(L, 0);
	return (1);
}

int
lua_script_run(int argc, char **argv)
{
	lua_State *L = luaL_newstate();
	int rv = 1;

	if (L == NULL) {
		fprintf(stderr, "statemap-lua: cannot create Lua state\n");
		return (1);
	}
	lua_pushcfunction(L, run_protected);
	lua_pushinteger(L, argc);
	lua_pushlightuserdata(L, argv);
	if (lua_pcall(L, 2, 1, 0) != LUA_OK)
		fprintf(stderr, "statemap-lua: %s\n", lua_tostring(L, -1));
	else
		rv = (int)lua_tointeger(L, -1);
	lua_close(L);
	return (rv);
}
