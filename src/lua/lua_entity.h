/*
 * lua_entity.h: the entity object of the statemap Lua module: one
 * entity of a trace (e.name, e.description, e.transitions, e:at,
 * e:time_in, e:stats).  It keeps its trace alive.
 */
#ifndef SM_LUA_ENTITY_H
#define SM_LUA_ENTITY_H

#include <stdint.h>

#include <lua.h>

#include "trace/trace.h"

/* Registers the entity metatable. */
void lua_entity_open(lua_State *L);

/* Pushes entity id of the trace object at trace_idx. */
void lua_entity_push(lua_State *L, int trace_idx, uint32_t id);

/* The trace and id of the entity object at idx (an argument error if it
 * is not one; an error if its trace was finalized). */
trace *lua_entity_check(lua_State *L, int idx, uint32_t *id);

#endif
