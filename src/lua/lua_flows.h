/*
 * lua_flows.h: the messages of a trace for scripts: t:flows and t:align,
 * over flows.h.
 */
#ifndef SM_LUA_FLOWS_H
#define SM_LUA_FLOWS_H

#include <lauxlib.h>

/* The trace methods flows and align. */
extern const luaL_Reg lua_flows_methods[];

/* Registers the flows iterator's metatable. */
void lua_flows_open(lua_State *L);

#endif
