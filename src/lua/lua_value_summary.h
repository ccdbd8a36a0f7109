/*
 * lua_value_summary.h: what value entities hold, for scripts: e:value_at,
 * and the minimum, maximum, mean and integral over a range that the
 * value summaries give (value_summary.h) as e:stats and t:stats.  e:stats
 * also takes a counting entity, whose state names are numbers.
 */
#ifndef SM_LUA_VALUE_SUMMARY_H
#define SM_LUA_VALUE_SUMMARY_H

#include <lauxlib.h>

/* The entity methods value_at and stats; the trace method stats. */
extern const luaL_Reg lua_value_summary_entity_methods[];
extern const luaL_Reg lua_value_summary_trace_methods[];

#endif
