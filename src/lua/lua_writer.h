/*
 * lua_writer.h: t:write(path), any trace written back as a statemap file
 * (writer.h).
 */
#ifndef SM_LUA_WRITER_H
#define SM_LUA_WRITER_H

#include <lauxlib.h>

/* The trace method write. */
extern const luaL_Reg lua_writer_trace_methods[];

#endif
