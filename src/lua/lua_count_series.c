/*
 * lua_count_series.c: t:count_series and the series object it returns: how
 * many entities are in some states over time, as steps kept in C
 * (count_series.h), read by index or iterated without a table per step.
 *
 *   #s                 the number of steps
 *   s[i]               {time=, count=}: the old shape, so that
 *                      `for _, p in ipairs(s)` still works (a table per
 *                      step read: use the methods below in loops)
 *   s:time(i), s:count(i)   one field of step i, no table
 *   for i, time, count in s:each() do ... end
 *   s:at(time)         the count at a time
 *   s:stats()          {min=, max=, mean=} weighted by time
 *   s:table()          every step as {time=, count=}, a plain Lua table
 *   s.begin, s.finish  the range counted
 *
 * Indexing returns nil outside 1..#s, as a table would.
 */
#include "lua/lua_count_series.h"

#include <limits.h>
#include <string.h>

#include <lauxlib.h>

#include "base/duration.h"
#include "base/runlimit.h"
#include "lua/lua_args.h"
#include "lua/lua_catalog.h"
#include "lua/lua_object.h"
#include "lua/lua_trace.h"
#include "store/count_series.h"

const char lua_count_series_type[] = "statemap.series";

typedef struct lseries {
	lua_object_head head;
	series sr;
	size_t charged;		/* its memory, counted against the limit */
} lseries;

static lseries *
check_series(lua_State *L, int idx)
{
	return (lua_object_check(L, idx, LUA_COUNT_SERIES_TYPE));
}

static void
push_step(lua_State *L, const series *sr, size_t k)
{
	lua_createtable(L, 0, 2);
	lua_pushinteger(L, (lua_Integer)sr->time[k]);
	lua_setfield(L, -2, "time");
	lua_pushinteger(L, (lua_Integer)sr->count[k]);
	lua_setfield(L, -2, "count");
}

/* s[i] -> {time=, count=}; s.name -> a method or field */
int
lua_count_series_index(lua_State *L)
{
	lseries *s = check_series(L, 1);
	size_t k;

	if (lua_type(L, 2) == LUA_TNUMBER) {
		if ((k = lua_object_index(L, 2, s->sr.n,
		    "step number (an integer)")) == SIZE_MAX)
			return (0);
		push_step(L, &s->sr, k);
		return (1);
	}
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
		return (1);
	if (lua_type(L, 2) == LUA_TSTRING) {
		const char *key = lua_tostring(L, 2);

		if (strcmp(key, "begin") == 0) {
			lua_pushinteger(L, (lua_Integer)s->sr.begin);
			return (1);
		}
		if (strcmp(key, "finish") == 0) {
			lua_pushinteger(L, (lua_Integer)s->sr.finish);
			return (1);
		}
	}
	return (0);
}

static int
series_len(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)check_series(L, 1)->sr.n);
	return (1);
}

static int
series_tostring(lua_State *L)
{
	lseries *s = check_series(L, 1);
	char span[64];

	duration_format(s->sr.finish - s->sr.begin, span, sizeof (span));
	lua_pushfstring(L, "<series: %I steps over %s>",
	    (lua_Integer)s->sr.n, span);
	return (1);
}

static int
series_gc(lua_State *L)
{
	lseries *s = lua_object_finalizing(L, LUA_COUNT_SERIES_TYPE);

	if (s == NULL)
		return (0);
	series_free(&s->sr);
	runlimit_credit(s->charged);
	s->charged = 0;
	s->head.finalized = 1;
	return (0);
}

/* s:time(i) -> the time step i starts (nil if none) */
static int
s_time(lua_State *L)
{
	lseries *s = check_series(L, 1);
	size_t k = lua_object_index(L, 2, s->sr.n,
	    "step number (an integer)");

	if (k == SIZE_MAX)
		return (0);
	lua_pushinteger(L, (lua_Integer)s->sr.time[k]);
	return (1);
}

/* s:count(i) -> the count of step i (nil if none) */
static int
s_count(lua_State *L)
{
	lseries *s = check_series(L, 1);
	size_t k = lua_object_index(L, 2, s->sr.n,
	    "step number (an integer)");

	if (k == SIZE_MAX)
		return (0);
	lua_pushinteger(L, (lua_Integer)s->sr.count[k]);
	return (1);
}

/* The iterator of s:each(): (s, i) -> i + 1, time, count */
static int
each_next(lua_State *L)
{
	lseries *s = check_series(L, 1);
	lua_Integer i = luaL_checkinteger(L, 2);

	if (i < 0 || (lua_Unsigned)i >= s->sr.n)
		return (0);
	lua_pushinteger(L, i + 1);
	lua_pushinteger(L, (lua_Integer)s->sr.time[i]);
	lua_pushinteger(L, (lua_Integer)s->sr.count[i]);
	return (3);
}

/* for i, time, count in s:each() do ... end */
static int
s_each(lua_State *L)
{
	check_series(L, 1);
	lua_pushcfunction(L, each_next);
	lua_pushvalue(L, 1);
	lua_pushinteger(L, 0);
	return (3);
}

/* s:at(time) -> the count at that time; nil outside [begin, finish) */
static int
s_at(lua_State *L)
{
	lseries *s = check_series(L, 1);
	size_t k = series_find(&s->sr, lua_args_check_time(L, 2));

	if (k == SIZE_MAX)
		return (0);
	lua_pushinteger(L, (lua_Integer)s->sr.count[k]);
	return (1);
}

/* s:stats() -> {min=, max=, mean=}, the mean weighted by time */
static int
s_stats(lua_State *L)
{
	lseries *s = check_series(L, 1);
	const series *sr = &s->sr;
	uint32_t min = UINT32_MAX, max = 0;
	double sum = 0;
	size_t k;

	if (sr->n == 0)
		return (0);
	for (k = 0; k < sr->n; k++) {
		uint64_t end = k + 1 < sr->n ? sr->time[k + 1] : sr->finish;

		if (sr->count[k] < min)
			min = sr->count[k];
		if (sr->count[k] > max)
			max = sr->count[k];
		sum += (double)sr->count[k] * (double)(end - sr->time[k]);
	}
	lua_createtable(L, 0, 3);
	lua_pushinteger(L, (lua_Integer)min);
	lua_setfield(L, -2, "min");
	lua_pushinteger(L, (lua_Integer)max);
	lua_setfield(L, -2, "max");
	lua_pushnumber(L, (lua_Number)(sum /
	    (double)(sr->finish - sr->begin)));
	lua_setfield(L, -2, "mean");
	return (1);
}

/* s:table() -> { {time=, count=}, ... } */
static int
s_table(lua_State *L)
{
	lseries *s = check_series(L, 1);
	size_t k;

	lua_createtable(L, s->sr.n > INT_MAX ? INT_MAX : (int)s->sr.n, 0);
	for (k = 0; k < s->sr.n; k++) {
		push_step(L, &s->sr, k);
		lua_rawseti(L, -2, (lua_Integer)k + 1);
	}
	return (1);
}

const luaL_Reg lua_count_series_methods[] = {
	{ "time", s_time },
	{ "count", s_count },
	{ "each", s_each },
	{ "at", s_at },
	{ "stats", s_stats },
	{ "table", s_table },
	{ NULL, NULL }
};

const luaL_Reg lua_count_series_metamethods[] = {
	{ "__len", series_len },
	{ "__tostring", series_tostring },
	{ "__gc", series_gc },
	{ NULL, NULL }
};

/*
 * t:count_series(states [, from, to]) -> a series: how many entities
 * are in any of `states`, at from and at each change before to.
 */
static int
t_count_series(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint64_t from = lua_args_opt_time(L, 3, d->begin);
	uint64_t to = lua_args_opt_time(L, 4, d->end);
	const unsigned char *counted;
	lseries *s;
	const char *why;

	lua_settop(L, 4);
	counted = lua_catalog_state_set(L, d->cat, 2, "count_series");
	/* Made first, so that it frees whatever an error leaves in it. */
	s = lua_object_new(L, LUA_COUNT_SERIES_TYPE, sizeof (lseries), 0);
	if (from < d->begin)
		from = d->begin;
	if (to > d->end)
		to = d->end;
	if (series_count(d->st, counted, from, to, &s->sr, &why) != 0)
		return (luaL_error(L, "%s", why));
	s->charged = series_memory(&s->sr);
	lua_object_charge(L, s->charged);
	return (1);
}

const luaL_Reg lua_count_series_trace_methods[] = {
	{ "count_series", t_count_series },
	{ NULL, NULL }
};
