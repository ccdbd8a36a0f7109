/*
 * lua_store.h: the queries of a trace's store (store.h) that are one call
 * each, for scripts: t:intervals{from=, to=, entities=, states=} (an
 * iterator of the intervals {entity=, state=, tag=, start=, finish=},
 * entity by entity in time order, clipped to the range), t:time_in,
 * t:count_at, and an entity's e:at, e:time_in and e:stack_at.
 */
#ifndef SM_LUA_STORE_H
#define SM_LUA_STORE_H

#include <lauxlib.h>

/* The type's name, "statemap.intervals"; its address tags the objects
 * (lua_object.h). */
extern const char lua_store_intervals_type[];
#define LUA_STORE_INTERVALS_TYPE	lua_store_intervals_type

/* The trace methods intervals, time_in and count_at. */
extern const luaL_Reg lua_store_trace_methods[];

/* The entity methods at, time_in and stack_at. */
extern const luaL_Reg lua_store_entity_methods[];

/* The interval iterator's metamethods (__gc). */
extern const luaL_Reg lua_store_intervals_metamethods[];

#endif
