/*
 * lua_json.h: statemap.json, JSON for scripts on the same parser as
 * ingest: decode(text [, name]) and encode(value), and json.null.
 */
#ifndef SM_LUA_JSON_H
#define SM_LUA_JSON_H

#include <lua.h>

/* Sets `json` in the table on the stack. */
void lua_json_open(lua_State *L);

/*
 * Pushes a table of JSON object members ("\"a\": 1, \"b\": [2]", as a
 * tag definition's or an event's members are kept), decoded as
 * json.decode would: a table for text that is not such members.
 */
void lua_json_push_members(lua_State *L, const char *text, size_t len);

#endif
