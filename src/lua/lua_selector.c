#include "lua/lua_selector.h"

#include <string.h>

#include <lauxlib.h>

#include "lua/lua_entity.h"

#define REGEX_MT	"statemap.regex"

typedef struct lregex {
	regex_t re;
	int compiled;		/* regfree only what regcomp made */
} lregex;

static int
regex_gc(lua_State *L)
{
	lregex *r = luaL_checkudata(L, 1, REGEX_MT);

	if (r->compiled)
		regfree(&r->re);
	r->compiled = 0;
	return (0);
}

const regex_t *
lua_selector_regex(lua_State *L, const char *pattern, const char *what)
{
	lregex *r = lua_newuserdatauv(L, sizeof (lregex), 0);
	int rc;

	memset(r, 0, sizeof (*r));
	/* The metatable first: once compiled, nothing may fail before the
	 * regex is the collector's to free. */
	if (luaL_newmetatable(L, REGEX_MT)) {
		lua_pushcfunction(L, regex_gc);
		lua_setfield(L, -2, "__gc");
		lua_pushliteral(L, REGEX_MT);
		lua_setfield(L, -2, "__metatable");
	}
	lua_setmetatable(L, -2);
	if ((rc = regcomp(&r->re, pattern, REG_EXTENDED | REG_NOSUB)) != 0) {
		char msg[256];

		regerror(rc, &r->re, msg, sizeof (msg));
		luaL_error(L, "bad %s \"%s\": %s", what, pattern, msg);
	}
	r->compiled = 1;
	return (&r->re);
}

void
lua_selector_check(lua_State *L, int idx, lua_selector *sel)
{
	sel->re = NULL;
	sel->fn = idx;
	if (lua_type(L, idx) == LUA_TFUNCTION)
		return;
	luaL_argexpected(L, lua_type(L, idx) == LUA_TSTRING, idx,
	    "a regular expression (string) or a function of an entity");
	sel->re = lua_selector_regex(L, lua_tostring(L, idx), "pattern");
}

int
lua_selector_match(lua_State *L, const lua_selector *sel, int trace_idx,
    const trace *d, uint32_t id)
{
	int r;

	if (sel->re != NULL)
		return (regexec(sel->re, catalog_entity_name(d->cat, id, NULL),
		    0, NULL, 0) == 0);
	lua_pushvalue(L, sel->fn);
	lua_entity_push(L, trace_idx, id);
	lua_call(L, 1, 1);
	r = lua_toboolean(L, -1);
	lua_pop(L, 1);
	return (r);
}
