/*
 * lua_render.h: statemap.render, pictures of traces through render.h.
 */
#ifndef SM_LUA_RENDER_H
#define SM_LUA_RENDER_H

#include <lua.h>

/* Sets `render` in the table on the stack. */
void lua_render_open(lua_State *L);

#endif
