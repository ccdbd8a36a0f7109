/*
 * lua_flows.h: the messages of a trace for scripts: t:flows and t:align,
 * over flows.h, and the flows object t:flows iterates over.
 */
#ifndef SM_LUA_FLOWS_H
#define SM_LUA_FLOWS_H

#include <lauxlib.h>

#define LUA_FLOWS_TYPE	"statemap.flows"

/* The trace methods flows and align. */
extern const luaL_Reg lua_flows_trace_methods[];

/* The flows object's metamethods (__gc). */
extern const luaL_Reg lua_flows_metamethods[];

#endif
