/*
 * lua_count_series.h: t:count_series and the series object it returns,
 * over count_series.h.
 */
#ifndef SM_LUA_COUNT_SERIES_H
#define SM_LUA_COUNT_SERIES_H

#include <lauxlib.h>

#define LUA_COUNT_SERIES_TYPE	"statemap.series"

/* The trace method count_series. */
extern const luaL_Reg lua_count_series_trace_methods[];

/*
 * The series object, a sequence (lua_object_sequence_class): its methods,
 * metamethods, and its __index (whose upvalue is the methods table).
 */
extern const luaL_Reg lua_count_series_methods[];
extern const luaL_Reg lua_count_series_metamethods[];
int lua_count_series_index(lua_State *L);

#endif
