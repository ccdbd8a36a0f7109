/*
 * lua_modules.h: the Lua modules of lua/, embedded at build time by
 * src/lua/embed.lua, and their registration as preloaded modules.
 */
#ifndef SM_LUA_MODULES_H
#define SM_LUA_MODULES_H

#include <stddef.h>

typedef struct lua_module {
	const char *name;	/* "statemap.report" */
	const char *path;	/* "lua/report.lua", for error messages */
	const char *source;
	size_t len;
} lua_module;

/* Ends with an entry whose name is NULL. */
extern const lua_module lua_modules[];

#endif
