/*
 * lua_columns.h: t:columns and t:reduce, the bulk forms of t:intervals
 * that keep the data in C, and the array object t:columns returns
 * (lua_columns.c).
 */
#ifndef SM_LUA_COLUMNS_H
#define SM_LUA_COLUMNS_H

#include <lauxlib.h>

/* The trace methods columns and reduce. */
extern const luaL_Reg lua_columns_methods[];

/* Registers the array metatable. */
void lua_columns_open(lua_State *L);

#endif
