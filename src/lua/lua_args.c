/*
 * lua_args.c: times, names, paths and regular expressions from Lua values.
 */
#include "lua/lua_args.h"

#include <string.h>

#include <lauxlib.h>

#include "base/duration.h"
#include "base/utf8.h"
#include "lua/lua_object.h"

static const char regex_type[] = "statemap.regex";

int
lua_args_time(lua_State *L, int idx, uint64_t *ns, const char **why)
{
	*why = NULL;
	if (lua_type(L, idx) == LUA_TSTRING) {
		int64_t v;

		if (!duration_parse(lua_tostring(L, idx), &v, why))
			return (-1);
		*ns = (uint64_t)v;
		return (0);
	}
	/* A float with an integral value (1e9) is as good as an integer. */
	if (lua_type(L, idx) == LUA_TNUMBER) {
		int exact;
		lua_Integer v = lua_tointegerx(L, idx, &exact);

		if (exact && v >= 0) {
			*ns = (uint64_t)v;
			return (0);
		}
	}
	return (-1);
}

uint64_t
lua_args_check_time(lua_State *L, int idx)
{
	const char *why;
	uint64_t ns = 0;

	if (lua_args_time(L, idx, &ns, &why) == 0)
		return (ns);
	if (why != NULL)
		luaL_argerror(L, idx, lua_pushfstring(L, "bad time \"%s\": %s",
		    lua_tostring(L, idx), why));
	luaL_typeerror(L, idx, "time (ns as a non-negative integer, "
	    "or a string like \"1.5s\")");
	return (0);
}

uint64_t
lua_args_opt_time(lua_State *L, int idx, uint64_t dflt)
{
	return (lua_isnoneornil(L, idx) ? dflt : lua_args_check_time(L, idx));
}

/*
 * A name a script made reaches SVG, JSON and PDF output, which take only
 * valid UTF-8, so anything else is refused here, where the script can be
 * told which name is wrong.
 */
const char *
lua_args_check_name(lua_State *L, int idx, size_t *len, const char *what)
{
	const char *s = lua_tolstring(L, idx, len);

	if (s == NULL || !utf8_valid(s, *len))
		luaL_error(L, "%s is not valid UTF-8 text", what);
	return (s);
}

const char *
lua_args_check_path(lua_State *L, int idx, const char *fname,
    const char *what)
{
	size_t len;
	const char *s = luaL_checklstring(L, idx, &len);

	if (memchr(s, '\0', len) != NULL)
		luaL_error(L, "%s: %s contains a NUL byte", fname, what);
	return (s);
}

typedef struct lregex {
	lua_object_head head;
	regex_t re;
	int compiled;		/* regfree only what regcomp made */
} lregex;

static int
regex_gc(lua_State *L)
{
	lregex *r = lua_object_finalizing(L, regex_type);

	if (r == NULL)
		return (0);
	if (r->compiled)
		regfree(&r->re);
	r->compiled = 0;
	r->head.finalized = 1;
	return (0);
}

static const luaL_Reg regex_metamethods[] = {
	{ "__gc", regex_gc },
	{ NULL, NULL }
};

const regex_t *
lua_args_regex(lua_State *L, const char *pattern, const char *what)
{
	static const luaL_Reg none[] = { { NULL, NULL } };
	const luaL_Reg *nothing[] = { none, NULL };
	lregex *r;
	int rc;

	/* The object with its metatable first (the type's is made when
	 * first needed): once compiled, nothing may fail before the regex
	 * is the collector's to free. */
	if (luaL_getmetatable(L, regex_type) == LUA_TNIL)
		lua_object_class(L, regex_type, nothing, nothing,
		    regex_metamethods);
	lua_pop(L, 1);
	r = lua_object_new(L, regex_type, sizeof (lregex), 0);
	if ((rc = regcomp(&r->re, pattern, REG_EXTENDED | REG_NOSUB)) != 0) {
		char msg[256];

		regerror(rc, &r->re, msg, sizeof (msg));
		luaL_error(L, "bad %s \"%s\": %s", what, pattern, msg);
	}
	r->compiled = 1;
	return (&r->re);
}
