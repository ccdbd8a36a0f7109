/*
 * lua_trace.h: the trace object of the statemap Lua module (its
 * metatable, statemap.load, its queries) and what the other object files
 * share with it: lua_entity.c, lua_intervals.c, lua_transform.c,
 * lua_render.c.
 *
 * A trace object is a userdata owning a C trace (trace.h).  Once its
 * __gc has run (which Lua code can still reach, through an object another
 * finalizer resurrected), every use of it is an error.
 */
#ifndef SM_LUA_TRACE_H
#define SM_LUA_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "trace/trace.h"

/* Registers the objects' metatables; sets `load` in the table on top. */
void lua_trace_open(lua_State *L);

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

/* The value of the state named by the string at idx (an error if none). */
uint32_t lua_trace_state(lua_State *L, const catalog *cat, int idx);

/*
 * The id in d of the entity at idx, given as an entity object or a name.
 * An entity of another trace stands for the entity of the same name in d
 * (so entities of a trace work with the traces derived from it).  An
 * error if d has no such entity.
 */
uint32_t lua_trace_entity_id(lua_State *L, const trace *d, int idx);

/* A state's name; a tag's name (nil for STORE_NONE). */
void lua_trace_push_state(lua_State *L, const catalog *cat, uint32_t s);
void lua_trace_push_tag(lua_State *L, const catalog *cat, uint32_t tag);

/*
 * The states named in the list at idx (a non-empty list of names), as
 * one flag per state of cat, in scratch memory pushed on the stack; what
 * names the method in the error.
 */
const unsigned char *lua_trace_state_set(lua_State *L, const catalog *cat,
    int idx, const char *what);

/*
 * Pushes {state name = ns} for one entity (or STORE_NONE: all) over
 * [from, to), the optional arguments at 2 and 3 (default: the window).
 */
int lua_trace_push_time_in(lua_State *L, trace *d, uint32_t entity);

/* {state name = n} for every state (n from times[state]). */
void lua_trace_push_state_times(lua_State *L, const catalog *cat,
    const uint64_t *times);

#endif
