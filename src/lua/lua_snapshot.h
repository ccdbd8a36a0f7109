/*
 * lua_snapshot.h: t:at(time [, into | {intervals = true}]), every
 * entity's state at a time (snapshot.h), for scripts.
 */
#ifndef SM_LUA_SNAPSHOT_H
#define SM_LUA_SNAPSHOT_H

#include <lauxlib.h>

/* The trace method at. */
extern const luaL_Reg lua_snapshot_trace_methods[];

#endif
