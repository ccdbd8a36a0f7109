/*
 * lua_entity.h: the entity object of the statemap Lua module: one entity
 * of a trace (e.name, e.description, e.transitions, e.kind), which keeps
 * its trace alive; entities given as arguments; and the trace's methods
 * that give entities by name or in order (t:entity, t:sorted).  Its
 * queries are the other binding files', put together by lua_statemap.c.
 */
#ifndef SM_LUA_ENTITY_H
#define SM_LUA_ENTITY_H

#include <stddef.h>
#include <stdint.h>

#include <lauxlib.h>

#include "trace/trace.h"

/* The type's name, "statemap.entity"; its address tags the objects
 * (lua_object.h). */
extern const char lua_entity_type[];
#define LUA_ENTITY_TYPE	lua_entity_type

/* The entity's fields and metamethods (__tostring, __eq). */
extern const luaL_Reg lua_entity_fields[];
extern const luaL_Reg lua_entity_metamethods[];

/* The trace methods entity and sorted. */
extern const luaL_Reg lua_entity_trace_methods[];

/* Pushes entity id of the trace object at trace_idx. */
void lua_entity_push(lua_State *L, int trace_idx, uint32_t id);

/* The trace and id of the entity object at idx (an argument error if it
 * is not one; an error if its trace was finalized). */
trace *lua_entity_check(lua_State *L, int idx, uint32_t *id);

/*
 * The id in d of the entity at idx, given as an entity object or a name.
 * An entity of another trace stands for the entity of the same name in d
 * (so entities of a trace work with the traces derived from it).  An
 * error if d has no such entity.
 */
uint32_t lua_entity_id(lua_State *L, const trace *d, int idx);

/*
 * The same for item i (from 1) of a list, at idx: its errors name the
 * function and the list's key, "columns: entities: item 2 is a table, not
 * an entity or a name", as an argument number could not.
 */
uint32_t lua_entity_item(lua_State *L, const trace *d, int idx,
    const char *fname, const char *key, size_t i);

/* The ids in d of the entities in the list (a table) at idx, *n of them,
 * in scratch memory pushed on the stack; read by lua_entity_item. */
uint32_t *lua_entity_list(lua_State *L, const trace *d, int idx, size_t *n,
    const char *fname, const char *key);

#endif
