/*
 * lua_count_series.h: t:count_series and the series object it returns,
 * over count_series.h.
 */
#ifndef SM_LUA_COUNT_SERIES_H
#define SM_LUA_COUNT_SERIES_H

#include <lauxlib.h>

/* The type's name, "statemap.series"; its address tags the objects
 * (lua_object.h). */
extern const char lua_count_series_type[];
#define LUA_COUNT_SERIES_TYPE	lua_count_series_type

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
