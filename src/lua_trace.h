/*
 * lua_trace.h: statemap.load and the trace, entity and interval-iterator
 * objects it returns (one metatable each).
 */
#ifndef SM_LUA_TRACE_H
#define SM_LUA_TRACE_H

#include <stdint.h>

#include <lua.h>

#include "trace.h"

/* Registers the metatables and sets `load` in the table on the stack. */
void lua_trace_open(lua_State *L);

/* The trace of the trace object at idx: an argument error if it is not
 * one (check), or NULL (test). The trace object owns it. */
trace *lua_trace_check(lua_State *L, int idx);
trace *lua_trace_test(lua_State *L, int idx);

/* The id in d of the entity at idx, given as an entity object or a name.
 * An entity of another trace stands for the entity of the same name in d
 * (so entities of a trace work with the traces derived from it). Raises
 * a Lua error if d has no such entity. */
/* A time argument: integer ns, or a duration string such as "1.5s". */
uint64_t lua_trace_check_time(lua_State *L, int idx);

uint32_t lua_trace_entity_id(lua_State *L, const trace *d, int idx);

#endif
