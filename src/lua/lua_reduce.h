/*
 * lua_reduce.h: t:columns and t:reduce, the bulk forms of t:intervals
 * that keep the data in C (reduce.h), and the array object t:columns
 * returns.
 */
#ifndef SM_LUA_REDUCE_H
#define SM_LUA_REDUCE_H

#include <lauxlib.h>

/* The trace methods columns and reduce. */
extern const luaL_Reg lua_reduce_methods[];

/* Registers the array metatable. */
void lua_reduce_open(lua_State *L);

#endif
