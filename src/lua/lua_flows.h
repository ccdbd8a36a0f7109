/*
 * lua_flows.h: the messages of a trace for scripts: t:flows and t:align,
 * over flows.h, and the flows object t:flows iterates over.
 */
#ifndef SM_LUA_FLOWS_H
#define SM_LUA_FLOWS_H

#include <lauxlib.h>

/* The type's name, "statemap.flows"; its address tags the objects
 * (lua_object.h). */
extern const char lua_flows_type[];
#define LUA_FLOWS_TYPE	lua_flows_type

/* The trace methods flows and align. */
extern const luaL_Reg lua_flows_trace_methods[];

/* The flows object's metamethods (__gc). */
extern const luaL_Reg lua_flows_metamethods[];

#endif
