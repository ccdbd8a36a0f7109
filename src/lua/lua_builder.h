/*
 * lua_builder.h: statemap.new{title =, host =, start = {s, ns}, states =
 * {...}} and the builder object (b:set, b:push, b:pop, b:value,
 * b:describe, b:tag, b:event, b:finish): traces made by scripts.
 */
#ifndef SM_LUA_BUILDER_H
#define SM_LUA_BUILDER_H

#include <lua.h>

/* Registers the builder's metatable and sets `new` in the table on top. */
void lua_builder_open(lua_State *L);

#endif
