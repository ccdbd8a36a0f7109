/*
 * lua_merge_traces.c: statemap.merge{...}, several traces on one time
 * axis, and t:shift(ns), one moved in time (merge_traces.h): the
 * arguments and the tables.
 */
#include "lua/lua_merge_traces.h"

#include <lauxlib.h>

#include "base/duration.h"
#include "lua/lua_args.h"
#include "lua/lua_object.h"
#include "lua/lua_options.h"
#include "lua/lua_trace.h"
#include "trace/merge_traces.h"

/* ---- arguments ---- */

/*
 * A signed time: an integer of ns, or a duration string with an optional
 * leading '-' ("-1.5ms").  what names the argument in errors.
 */
static int64_t
check_signed_time(lua_State *L, int idx, const char *what)
{
	if (lua_type(L, idx) == LUA_TSTRING) {
		const char *s = lua_tostring(L, idx), *why = NULL;
		int neg = s[0] == '-';
		int64_t ns;

		if (!duration_parse(s + neg, &ns, &why))
			luaL_error(L, "%s: bad time \"%s\": %s", what, s, why);
		return (neg ? -ns : ns);
	}
	if (lua_type(L, idx) == LUA_TNUMBER) {
		int exact;
		lua_Integer v = lua_tointegerx(L, idx, &exact);

		if (exact)
			return ((int64_t)v);
	}
	luaL_error(L, "%s must be ns as an integer or a string like "
	    "\"-1.5ms\", not %s", what, luaL_typename(L, idx));
	return (0);
}

/* ---- statemap.merge ---- */

static const lua_option merge_keys[] = {
	{ .key = "offsets", .kind = LUA_OPTION_TABLE,
	    .what = "a list of times, or a table of times by prefix" },
	{ .key = "prefixes", .kind = LUA_OPTION_TABLE,
	    .what = "a list of strings" },
	{ .key = NULL }
};

/*
 * statemap.merge{t1, t2, ... [, offsets = {...}] [, prefixes = {...}]}
 * -> the merged trace, and the list of its inputs' prefixes.  offsets is
 * a list (by place) or a table by prefix (as t:align gives), of ns to add
 * to each input's times.
 */
static int
f_merge(lua_State *L)
{
	const trace **inputs;
	const catalog **cats;
	char **q;
	int64_t *offsets;
	size_t n, i;
	const char *why = NULL;
	lua_options opts;
	trace *d;

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	/*
	 * The options first, on the stack (2, 3): reading them may run the
	 * table's __index, which must not find the traces' pointers taken
	 * (it could take an item out of the list and collect it).  Items are
	 * read raw, after.
	 */
	lua_options_init(&opts, L, 1, "statemap.merge", merge_keys);
	if (!lua_options_table(&opts, "prefixes"))
		lua_pushnil(L);
	if (!lua_options_table(&opts, "offsets"))
		lua_pushnil(L);
	n = lua_rawlen(L, 1);
	if (n == 0)
		return (luaL_error(L, "statemap.merge: give a list of one "
		    "trace or more"));
	inputs = lua_object_scratch(L, n, sizeof (trace *));	/* 4 */
	cats = lua_object_scratch(L, n, sizeof (catalog *));	/* 5 */
	offsets = lua_object_scratch(L, n, sizeof (int64_t));	/* 6 */
	for (i = 0; i < n; i++) {
		lua_rawgeti(L, 1, (lua_Integer)i + 1);
		if (lua_trace_test(L, -1) == NULL)
			return (luaL_error(L, "statemap.merge: item %d is a "
			    "%s, not a trace", (int)i + 1,
			    luaL_typename(L, -1)));
		inputs[i] = lua_trace_check(L, -1);
		cats[i] = inputs[i]->cat;
		lua_pop(L, 1);
	}
	/* The prefixes, as Lua strings in a table (7): no leak on errors. */
	lua_createtable(L, (int)n, 0);
	if (!lua_isnil(L, 2)) {
		for (i = 0; i < n; i++) {
			size_t len, j;
			const char *p;

			if (lua_rawgeti(L, 2, (lua_Integer)i + 1) !=
			    LUA_TSTRING)
				return (luaL_error(L, "statemap.merge: prefixes "
				    "must be a list of %d strings", (int)n));
			p = lua_args_check_name(L, -1, &len, "a prefix");
			if (!merge_traces_qualifier_ok(p, len))
				return (luaL_error(L, "statemap.merge: prefix "
				    "\"%s\" must not be empty, hold a '/' or "
				    "start with '#'", p));
			for (j = 0; j < i; j++) {
				lua_rawgeti(L, 7, (lua_Integer)j + 1);
				if (lua_rawequal(L, -1, -2))
					return (luaL_error(L, "statemap.merge: "
					    "prefix \"%s\" given twice", p));
				lua_pop(L, 1);
			}
			lua_rawseti(L, 7, (lua_Integer)i + 1);
		}
	} else {
		char **made = merge_traces_qualifiers(cats, n);

		for (i = 0; i < n; i++) {
			lua_pushstring(L, made[i]);
			lua_rawseti(L, 7, (lua_Integer)i + 1);
		}
		merge_traces_free_names(made, n);
	}
	if (!lua_isnil(L, 3)) {
		for (i = 0; i < n; i++) {
			if (lua_rawgeti(L, 3, (lua_Integer)i + 1) == LUA_TNIL) {
				lua_pop(L, 1);
				lua_rawgeti(L, 7, (lua_Integer)i + 1);
				lua_rawget(L, 3);
			}
			if (!lua_isnil(L, -1))
				offsets[i] = check_signed_time(L, -1,
				    "statemap.merge: an offset");
			lua_pop(L, 1);
		}
	}
	q = lua_object_scratch(L, n, sizeof (char *));	/* 8 */
	for (i = 0; i < n; i++) {
		lua_rawgeti(L, 7, (lua_Integer)i + 1);
		q[i] = (char *)lua_tostring(L, -1);	/* held by table 7 */
		lua_pop(L, 1);
	}
	d = merge_traces(inputs, n, q, offsets, &why);
	if (d == NULL)
		return (luaL_error(L, "statemap.merge: %s", why));
	lua_trace_push(L, d);
	lua_pushvalue(L, 7);
	return (2);
}

/* t:shift(ns) -> the trace moved by ns (may be negative) in absolute time. */
static int
t_shift(lua_State *L)
{
	trace *d = lua_trace_check(L, 1), *nd;
	int64_t ns = check_signed_time(L, 2, "shift");
	const char *why = NULL;

	if ((nd = merge_traces_shift(d, ns, &why)) == NULL)
		return (luaL_error(L, "shift: %s", why));
	lua_trace_push(L, nd);
	return (1);
}

const luaL_Reg lua_merge_traces_trace_methods[] = {
	{ "shift", t_shift },
	{ NULL, NULL }
};

const luaL_Reg lua_merge_traces_functions[] = {
	{ "merge", f_merge },
	{ NULL, NULL }
};
