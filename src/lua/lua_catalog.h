/*
 * lua_catalog.h: what a trace's catalog (catalog.h) names, as Lua
 * values: states, tags, values (value.h) and the members of tag
 * definitions, and states named by scripts; and the parts of a trace
 * that are its catalog's: t.states, t.tags and t:events.
 */
#ifndef SM_LUA_CATALOG_H
#define SM_LUA_CATALOG_H

#include <stdint.h>

#include <lauxlib.h>

#include "store/catalog.h"
#include "store/value.h"

/* The trace's fields states and tags, and its method events. */
extern const luaL_Reg lua_catalog_trace_fields[];
extern const luaL_Reg lua_catalog_trace_methods[];

/* A state's name; a tag's name (nil for STORE_NONE). */
void lua_catalog_push_state(lua_State *L, const catalog *cat, uint32_t s);
void lua_catalog_push_tag(lua_State *L, const catalog *cat, uint32_t tag);

/* A value: an integer, a number, a string or nil. */
void lua_catalog_push_value(lua_State *L, const catalog *cat,
    uint32_t entity, sm_value v);

/* The members of a tag's definition as a table (nil: no tag). */
void lua_catalog_push_tag_fields(lua_State *L, const catalog *cat,
    uint32_t tag);

/* {state name = n} for every state (n from times[state]). */
void lua_catalog_push_state_times(lua_State *L, const catalog *cat,
    const uint64_t *times);

/* The value of the state named by the string at idx (an error if none). */
uint32_t lua_catalog_state(lua_State *L, const catalog *cat, int idx);

/*
 * The same for item i (from 1) of a list, at idx: its errors name the
 * function and the list's key (NULL for a list given as an argument),
 * "columns: states: item 2 is a table, not a state name", as an argument
 * number could not.
 */
uint32_t lua_catalog_state_item(lua_State *L, const catalog *cat, int idx,
    const char *fname, const char *key, size_t i);

/* Sets set[s] for each state s named in the list (a table) at idx, read
 * by lua_catalog_state_item. */
void lua_catalog_mark_states(lua_State *L, const catalog *cat, int idx,
    unsigned char *set, const char *fname, const char *key);

/*
 * The states named in the list at idx (a non-empty list of names), as
 * one flag per state of cat, in scratch memory pushed on the stack; what
 * names the method in the error.
 */
const unsigned char *lua_catalog_state_set(lua_State *L, const catalog *cat,
    int idx, const char *what);

#endif
