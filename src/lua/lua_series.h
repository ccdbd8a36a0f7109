/*
 * lua_series.h: t:count_series and the series object it returns
 * (lua_series.c).
 */
#ifndef SM_LUA_SERIES_H
#define SM_LUA_SERIES_H

#include <lauxlib.h>

/* The trace method count_series. */
extern const luaL_Reg lua_series_methods[];

/* Registers the series metatable. */
void lua_series_open(lua_State *L);

#endif
