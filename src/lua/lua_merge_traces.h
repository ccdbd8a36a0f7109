/*
 * lua_merge_traces.h: statemap.merge{t1, t2, ... [, offsets =]
 * [, prefixes =]} and t:shift(ns), over merge_traces.h.
 */
#ifndef SM_LUA_MERGE_TRACES_H
#define SM_LUA_MERGE_TRACES_H

#include <lauxlib.h>

/* The trace method shift. */
extern const luaL_Reg lua_merge_traces_trace_methods[];

/* The module's function merge. */
extern const luaL_Reg lua_merge_traces_functions[];

#endif
