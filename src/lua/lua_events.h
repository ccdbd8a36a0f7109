/*
 * lua_events.h: statemap.events(path [, {events=, from=, to=}], handler):
 * each event of a kernel trace (ftrace's trace.dat, a CTF trace), in
 * time order, handed to handler as {time=, cpu=, name=, pid=, comm=,
 * fields=}; a handler that returns false stops there.
 */
#ifndef SM_LUA_EVENTS_H
#define SM_LUA_EVENTS_H

#include <lauxlib.h>

/* statemap.events. */
extern const luaL_Reg lua_events_functions[];

#endif
