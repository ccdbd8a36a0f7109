/*
 * lua_selector.h: how a script chooses entities (t:keep, t:drop):
 * a POSIX extended regular expression matched against names, as -f
 * does, or a Lua function of an entity returning true.  A regex is
 * compiled into a userdata (statemap.regex) whose __gc frees it, so an
 * error anywhere after leaks nothing.
 */
#ifndef SM_LUA_SELECTOR_H
#define SM_LUA_SELECTOR_H

#include <regex.h>
#include <stdint.h>

#include <lua.h>

#include "trace/trace.h"

typedef struct lua_selector {
	const regex_t *re;	/* the regex, or NULL: the function */
	int fn;			/* the function's stack index */
} lua_selector;

/*
 * The selector at idx (a string or a function): an argument error if it
 * is neither, an error naming the pattern if it does not compile.  A
 * regex's userdata is pushed and must stay on the stack while it is used.
 */
void lua_selector_check(lua_State *L, int idx, lua_selector *sel);

/* Whether it chooses entity id of d, the trace object at trace_idx. */
int lua_selector_match(lua_State *L, const lua_selector *sel, int trace_idx,
    const trace *d, uint32_t id);

/*
 * Compiles pattern (REG_EXTENDED | REG_NOSUB) into a userdata pushed on
 * the stack; what names it in the error if it does not compile.
 */
const regex_t *lua_selector_regex(lua_State *L, const char *pattern,
    const char *what);

#endif
