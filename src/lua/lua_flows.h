/*
 * lua_flows.h: messages for scripts: statemap.merge, and the trace
 * methods t:shift, t:flows and t:align (lua_flows.c).
 */
#ifndef SM_LUA_FLOWS_H
#define SM_LUA_FLOWS_H

#include <lua.h>
#include <lauxlib.h>

/* The trace methods, for the trace's metatable (lua_trace.c). */
extern const luaL_Reg lua_flows_methods[];

/* Registers the flows iterator's metatable; sets `merge` in the table on
 * top. */
void lua_flows_open(lua_State *L);

#endif
