/*
 * lua_reduce.h: t:columns and t:reduce, the bulk forms of t:intervals
 * that keep the data in C (reduce.h), and the array object t:columns
 * returns.
 */
#ifndef SM_LUA_REDUCE_H
#define SM_LUA_REDUCE_H

#include <lauxlib.h>

/* The type's name, "statemap.array"; its address tags the objects
 * (lua_object.h). */
extern const char lua_reduce_array_type[];
#define LUA_REDUCE_ARRAY_TYPE	lua_reduce_array_type

/* The trace methods columns and reduce. */
extern const luaL_Reg lua_reduce_trace_methods[];

/*
 * The array object, a sequence (lua_object_sequence_class): its methods,
 * metamethods, and its __index (whose upvalue is the methods table).
 */
extern const luaL_Reg lua_reduce_array_methods[];
extern const luaL_Reg lua_reduce_array_metamethods[];
int lua_reduce_array_index(lua_State *L);

#endif
