/*
 * lua_json.h: statemap.json, JSON for scripts on the same parser as
 * ingest: decode(text [, name]) and encode(value), and json.null.
 */
#ifndef SM_LUA_JSON_H
#define SM_LUA_JSON_H

#include <stddef.h>

#include <lauxlib.h>

/* The functions of statemap.json: decode and encode. */
extern const luaL_Reg lua_json_functions[];

/* Pushes json.null, the value that stands for JSON's null. */
void lua_json_push_null(lua_State *L);

/*
 * Pushes the table of JSON object members given as text without the
 * braces (a tag definition's members, catalog.h); NULL or text that does
 * not parse gives an empty table.
 */
void lua_json_push_members(lua_State *L, const char *members);

/*
 * The value at idx as JSON text (as json.encode; malloc'ed, the caller
 * frees it).  Raises a Lua error on a value JSON cannot hold.
 */
char *lua_json_encode(lua_State *L, int idx, size_t *len);

/*
 * The same for members of a given length ("\"a\": 1, \"b\": [2]", as a
 * tag definition's or an event's members are kept), decoded as
 * json.decode would: a table for text that is not such members.
 */
void lua_json_push_members_len(lua_State *L, const char *text,
    size_t len);

#endif
