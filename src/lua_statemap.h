/*
 * lua_statemap.h: the `statemap` Lua module (functions that are not
 * methods of an object): duration parsing and formatting, the version.
 */
#ifndef SM_LUA_STATEMAP_H
#define SM_LUA_STATEMAP_H

#include <lua.h>

int luaopen_statemap(lua_State *L);

#endif
