/*
 * lua_builder.h: statemap.new{title =, host =, start = {s, ns}, states =
 * {...}} and the builder object (b:set, b:push, b:pop, b:value,
 * b:describe, b:tag, b:event, b:finish): traces made by scripts, over
 * builder.h.
 */
#ifndef SM_LUA_BUILDER_H
#define SM_LUA_BUILDER_H

#include <lauxlib.h>

/* The type's name, "statemap.builder"; its address tags the objects
 * (lua_object.h). */
extern const char lua_builder_type[];
#define LUA_BUILDER_TYPE	lua_builder_type

/* The builder's methods and metamethods (__gc, __tostring). */
extern const luaL_Reg lua_builder_methods[];
extern const luaL_Reg lua_builder_metamethods[];

/* The module's function new. */
extern const luaL_Reg lua_builder_functions[];

#endif
