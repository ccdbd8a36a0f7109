/*
 * lua_render.h: statemap.render, pictures of traces through render.h.
 */
#ifndef SM_LUA_RENDER_H
#define SM_LUA_RENDER_H

#include <lauxlib.h>

/* The module's function render. */
extern const luaL_Reg lua_render_functions[];

/* Pushes the list of the option keys statemap.render takes. */
void lua_render_push_keys(lua_State *L);

#endif
