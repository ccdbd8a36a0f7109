/*
 * lua_statesys.h: the queries of the generic state system, for scripts:
 * value entities (e:value_at, e:stats from the summary, t:stats), nested
 * entities (e:stack_at), the attribute tree (t:children, t:entities with
 * a glob pattern), full queries with bounds (t:at(time, {intervals =
 * true})) and tag definitions (t.tags, the members of a tag).
 *
 * The entity and trace objects (lua_entity.c, lua_trace.c) add these
 * methods and hand their own queries here for the kinds they do not
 * know, so that those files change little.
 */
#ifndef SM_LUA_STATESYS_H
#define SM_LUA_STATESYS_H

#include <lauxlib.h>

#include "trace/trace.h"

/* Methods added to entities and to traces. */
extern const luaL_Reg lua_statesys_entity_methods[];
extern const luaL_Reg lua_statesys_trace_methods[];

/* Pushes a value (value.h): an integer, a number, a string or nil. */
void lua_statesys_push_value(lua_State *L, const catalog *cat, sm_value v);

/* Pushes the members of a tag's definition as a table (nil: no tag). */
void lua_statesys_push_tag_fields(lua_State *L, const catalog *cat,
    uint32_t tag);

/*
 * Pushes a value entity's interval for t:intervals: {entity =, value =,
 * start =, finish =}.  Returns 1.
 */
int lua_statesys_push_value_interval(lua_State *L, const trace *d,
    const store_interval *iv);

/* e:at(time) of a value entity -> value, nil, start, finish; or nil. */
int lua_statesys_entity_value_at(lua_State *L, trace *d, uint32_t id);

/* e:stats([from, to]) of a value entity -> {min, max, mean, integral}. */
int lua_statesys_entity_stats(lua_State *L, trace *d, uint32_t id);

/* t:entities(pattern) -> the entities whose names match the glob. */
int lua_statesys_entities(lua_State *L);

/* t:at(time [, {intervals = true}]) of a trace with values or options. */
int lua_statesys_at(lua_State *L);

/* Whether the value at idx is an options table with intervals = true. */
int lua_statesys_wants_intervals(lua_State *L, int idx);

/* Fields: t.tags, e.kind. */
int lua_statesys_field_tags(lua_State *L);
int lua_statesys_field_kind(lua_State *L);

#endif
