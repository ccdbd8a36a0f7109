/*
 * lua_json.h: statemap.json, JSON for scripts on the same parser as
 * ingest: decode(text [, name]) and encode(value), and json.null.
 */
#ifndef SM_LUA_JSON_H
#define SM_LUA_JSON_H

#include <lua.h>

/* Sets `json` in the table on the stack. */
void lua_json_open(lua_State *L);

#endif
