/*
 * fuzz_lua_prelude.h: tests/fuzz/fuzz_lua_prelude.lua, embedded by
 * src/output/embed_text.lua for fuzz_lua.c.
 */
#ifndef SM_FUZZ_LUA_PRELUDE_H
#define SM_FUZZ_LUA_PRELUDE_H

#include <stddef.h>

extern const char fuzz_lua_prelude[];
extern const size_t fuzz_lua_prelude_len;

#endif
