/*
 * lua_statemap.h: the `statemap` Lua module, as a script sees it and as
 * plain lua5.4 loads it from statemap.so: its functions (duration,
 * format_ns, load, merge, new, render, serve, json), version and
 * defaults, the object types (each metatable put together here from the
 * tables the binding files export), and the lua/ modules, preloaded as
 * statemap.NAME and reachable as fields of the module.
 */
#ifndef SM_LUA_STATEMAP_H
#define SM_LUA_STATEMAP_H

#include <lua.h>

int luaopen_statemap(lua_State *L);

#endif
