/*
 * lua_count_series.h: t:count_series and the series object it returns,
 * over count_series.h.
 */
#ifndef SM_LUA_COUNT_SERIES_H
#define SM_LUA_COUNT_SERIES_H

#include <lauxlib.h>

/* The trace method count_series. */
extern const luaL_Reg lua_count_series_methods[];

/* Registers the series metatable. */
void lua_count_series_open(lua_State *L);

#endif
