/*
 * lua_serve.h: statemap.serve, the live server (server.h) from Lua.
 *
 *   statemap.serve(trace or {trace, ...} [, {port=, bind=, title=, sort=,
 *       coalesce=}])
 *
 * serves the traces, stacked top to bottom, as statemap-lua --serve
 * serves files.  In a script (and in plain lua5.4) it blocks until
 * SIGINT, then stops serving and returns; SIGTERM stops serving and then
 * ends the program as it would have.  In the REPL (lua_serve_background)
 * it returns the page's URL at once and serves in the background while
 * the prompt stays usable.  Called again, it replaces what is served
 * (every open page refreshes); statemap.serve() stops it, and so does
 * closing the Lua state (leaving the REPL).  The server never touches
 * the Lua state: it holds references to the C traces (trace_retain).
 */
#ifndef SM_LUA_SERVE_H
#define SM_LUA_SERVE_H

#include <lauxlib.h>

/* The module's function serve. */
extern const luaL_Reg lua_serve_functions[];

/* Whether serve returns at once, serving in the background (the REPL). */
void lua_serve_background(int on);

#endif
