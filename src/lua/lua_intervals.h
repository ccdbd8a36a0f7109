/*
 * lua_intervals.h: t:intervals{from=, to=, entities=, states=}, an
 * iterator of the intervals {entity=, state=, tag=, start=, finish=} of
 * a trace, entity by entity in time order, clipped to the range.
 */
#ifndef SM_LUA_INTERVALS_H
#define SM_LUA_INTERVALS_H

#include <lauxlib.h>

/* The trace method it adds. */
extern const luaL_Reg lua_intervals_methods[];

/* Registers the iterator's metatable. */
void lua_intervals_open(lua_State *L);

#endif
