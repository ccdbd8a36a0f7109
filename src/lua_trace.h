/*
 * lua_trace.h: statemap.load and the trace, entity and interval-iterator
 * objects it returns (one metatable each).
 */
#ifndef SM_LUA_TRACE_H
#define SM_LUA_TRACE_H

#include <lua.h>

/* Registers the metatables and sets `load` in the table on the stack. */
void lua_trace_open(lua_State *L);

#endif
