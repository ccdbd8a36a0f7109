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

#endif
