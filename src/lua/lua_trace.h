/*
 * lua_trace.h: the trace object of the statemap Lua module (trace.h):
 * statemap.load, what makes and checks a trace object, and the trace's
 * own fields.  Its queries are the other binding files', whose method
 * tables lua_statemap.c puts together in the trace's metatable.
 *
 * A trace object is a userdata owning a C trace.  Once its __gc has run
 * (which Lua code can still reach, through an object another finalizer
 * resurrected), every use of it is an error.  Its one user value is
 * t:at's (lua_snapshot.c).
 */
#ifndef SM_LUA_TRACE_H
#define SM_LUA_TRACE_H

#include <stdint.h>

#include <lauxlib.h>

#include "store/snapshot.h"
#include "trace/trace.h"

/* The type's name, "statemap.trace"; its address tags the objects
 * (lua_object.h). */
extern const char lua_trace_type[];
#define LUA_TRACE_TYPE	lua_trace_type

/* The trace's own fields (title, name, begin, finish...) and its
 * metamethods (__gc, __tostring). */
extern const luaL_Reg lua_trace_fields[];
extern const luaL_Reg lua_trace_metamethods[];

/* The module's function load. */
extern const luaL_Reg lua_trace_functions[];

/* The trace of the trace object at idx: an argument error if it is not
 * one (check), or NULL (test); an error if it was finalized. */
trace *lua_trace_check(lua_State *L, int idx);
trace *lua_trace_test(lua_State *L, int idx);

/*
 * Pushes a new trace object owning d.  Its store counts against a
 * script's memory limit while it lives, and the collector is told of it;
 * an error (after pushing) if the memory limit is now passed.
 */
void lua_trace_push(lua_State *L, trace *d);

/*
 * What t:at keeps with a trace in C: where it found each entity last,
 * made at its first call, charged and freed with the trace.  (What else
 * it keeps is Lua values, in the trace object's user value: lua_snapshot.c.)
 */
typedef struct lua_trace_snapshot {
	snapshot_cursor cursor;
	int made;		/* cursor is made */
} lua_trace_snapshot;

/* That of the trace object at idx (checked by lua_trace_check first). */
lua_trace_snapshot *lua_trace_snapshot_of(lua_State *L, int idx);

#endif
