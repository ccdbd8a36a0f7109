/*
 * lua_transform.h: the trace methods that make new traces from one
 * (map, map_intervals, recolor, keep, drop, rename, slice, count,
 * group), over transform.h.
 */
#ifndef SM_LUA_TRANSFORM_H
#define SM_LUA_TRANSFORM_H

#include <lauxlib.h>

/* The trace methods it adds. */
extern const luaL_Reg lua_transform_trace_methods[];

/*
 * Whether the trace object at idx was made by t:group: a summary of
 * another trace's entities, which statemap.render leaves out of a
 * legend it shares with panels of the entities themselves.
 */
int lua_transform_is_summary(lua_State *L, int idx);

#endif
