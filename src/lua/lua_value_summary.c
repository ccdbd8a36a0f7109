/*
 * lua_value_summary.c: e:value_at, e:stats and t:stats: each one call
 * into the store, whose value entities answer from their summaries.
 */
#include "lua/lua_value_summary.h"

#include <stdlib.h>

#include "lua/lua_args.h"
#include "lua/lua_catalog.h"
#include "lua/lua_entity.h"
#include "lua/lua_options.h"
#include "lua/lua_trace.h"
#include "lua/lua_tree.h"
#include "store/value_summary.h"

/*
 * Pushes {min=, max=, mean=, integral=}, or nothing if no number.  span
 * 0: the mean is over the time with a number (nulls ignored); else over
 * span ns, the range queried, in which the rest counts as zero (Trace
 * Compass's queryRangeAverage): then min and max are left out if there
 * is no number, and the rest is there even so.
 */
static int
push_stats(lua_State *L, const value_stats *st, uint64_t span)
{
	if (st->covered == 0 && span == 0)
		return (0);
	lua_createtable(L, 0, 4);
	if (st->covered > 0 && st->ints) {
		lua_pushinteger(L, (lua_Integer)st->imin);
		lua_setfield(L, -2, "min");
		lua_pushinteger(L, (lua_Integer)st->imax);
		lua_setfield(L, -2, "max");
	} else if (st->covered > 0) {
		lua_pushnumber(L, (lua_Number)st->min);
		lua_setfield(L, -2, "min");
		lua_pushnumber(L, (lua_Number)st->max);
		lua_setfield(L, -2, "max");
	}
	lua_pushnumber(L, (lua_Number)(span > 0 ? st->integral /
	    (double)span : st->integral / (double)st->covered));
	lua_setfield(L, -2, "mean");
	lua_pushnumber(L, (lua_Number)st->integral);
	lua_setfield(L, -2, "integral");
	return (1);
}

/* e:value_at(time) -> value, start, finish; nil if it has none then */
static int
e_value_at(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);
	store_interval iv;

	if (store_kind_of(d->st, id) != STORE_VALUES &&
	    store_count(d->st, id) > 0)
		return (luaL_error(L, "e:value_at: entity \"%s\" holds states, "
		    "not values", catalog_entity_name(d->cat, id, NULL)));
	if (!store_value_at(d->st, id, lua_trace_check_query_time(L, d, 2,
	    "e:value_at"), &iv))
		return (0);
	lua_catalog_push_value(L, d->cat, id, iv.value);
	lua_pushinteger(L, (lua_Integer)iv.start);
	lua_pushinteger(L, (lua_Integer)(iv.end < d->end ? iv.end : d->end));
	return (3);
}

/*
 * The stats of a counting entity, whose state names are numbers: the
 * mean is weighted by time.  Nothing if it has no state in the range.
 */
static int
counting_stats(lua_State *L, const trace *d, uint32_t id, uint64_t from,
    uint64_t to, uint64_t span)
{
	double min = 0, max = 0, sum = 0, total = 0;
	store_iter it;
	store_interval iv;
	int any = 0;

	store_iter_init(&it, d->st, &id, 1, from, to);
	while (store_iter_next(&it, &iv)) {
		const catalog_state *st = &d->cat->states[iv.state];
		char *end;
		double v = strtod(st->name, &end);

		if (end == st->name || *end != '\0')
			return (luaL_error(L, "stats needs numeric states, but "
			    "entity \"%s\" is in state \"%s\"",
			    catalog_entity_name(d->cat, id, NULL), st->name));
		if (!any || v < min)
			min = v;
		if (!any || v > max)
			max = v;
		any = 1;
		sum += v * (double)(iv.end - iv.start);
		total += (double)(iv.end - iv.start);
	}
	if (!any && span == 0)
		return (0);
	lua_createtable(L, 0, 3);
	if (any) {
		lua_pushnumber(L, (lua_Number)min);
		lua_setfield(L, -2, "min");
		lua_pushnumber(L, (lua_Number)max);
		lua_setfield(L, -2, "max");
	}
	lua_pushnumber(L, (lua_Number)(span > 0 ? sum / (double)span :
	    sum / total));
	lua_setfield(L, -2, "mean");
	return (1);
}

static const char *const nulls_names[] = { "ignore", "zero", NULL };

static const lua_option stats_keys[] = {
	{ .key = "from", .kind = LUA_OPTION_TIME },
	{ .key = "to", .kind = LUA_OPTION_TIME },
	{ .key = "nulls", .kind = LUA_OPTION_CHOICE, .names = nulls_names },
	{ .key = NULL }
};

/*
 * e:stats([from, to] [, options]) or e:stats(options) -> {min=, max=,
 * mean=, integral=} of a value entity, from its summary; {min=, max=,
 * mean=} of a counting entity.  nulls = "zero": the mean is over the
 * whole range, null (and no value) counted as zero.
 */
static int
e_stats(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);
	int table = lua_type(L, 2) == LUA_TTABLE;
	uint64_t from = d->begin, to = d->end;
	uint64_t span = 0;
	value_stats st;
	lua_options opts;
	int nulls = 0;

	if (!table)
		lua_args_opt_range(L, 2, "e:stats", d->begin, d->end, &from,
		    &to);
	lua_options_init(&opts, L, table ? 2 : 4, "e:stats", stats_keys);
	lua_options_check_keys(&opts);
	if (table)
		lua_options_range(&opts, &from, &to);
	lua_options_choice(&opts, "nulls", &nulls);
	if (nulls == 1) {
		uint64_t a = from > d->begin ? from : d->begin;
		uint64_t b = to < d->end ? to : d->end;

		if (b <= a)
			return (0);
		span = b - a;
	}
	if (store_kind_of(d->st, id) != STORE_VALUES)
		return (counting_stats(L, d, id, from, to, span));
	value_stats_init(&st, catalog_value_ints(d->cat, id));
	store_value_stats(d->st, id, from, to, &st);
	return (push_stats(L, &st, span));
}

const luaL_Reg lua_value_summary_entity_methods[] = {
	{ "value_at", e_value_at },
	{ "stats", e_stats },
	{ NULL, NULL }
};

/*
 * t:stats([pattern [, from, to]]) -> {entity name = {min, max, mean,
 * integral}} for the value entities matching (with a number in range).
 */
static int
t_stats(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint64_t from, to;
	uint32_t e, n = catalog_nentities(d->cat);
	const uint8_t *sel;

	lua_args_opt_range(L, 3, "stats", d->begin, d->end, &from, &to);
	if (!lua_isnoneornil(L, 2))
		luaL_checkstring(L, 2);
	lua_settop(L, 4);	/* the pattern stays at 2 */
	sel = lua_tree_selection(L, d, 2, "t:stats");
	lua_newtable(L);
	for (e = 0; e < n; e++) {
		value_stats st;
		size_t len;
		const char *name;

		if (store_kind_of(d->st, e) != STORE_VALUES || (sel != NULL ?
		    !sel[e] : !lua_tree_match(L, d, 2, e)))
			continue;
		value_stats_init(&st, catalog_value_ints(d->cat, e));
		store_value_stats(d->st, e, from, to, &st);
		name = catalog_entity_name(d->cat, e, &len);
		lua_pushlstring(L, name, len);
		if (push_stats(L, &st, 0))
			lua_rawset(L, -3);
		else
			lua_pop(L, 1);
	}
	return (1);
}

const luaL_Reg lua_value_summary_trace_methods[] = {
	{ "stats", t_stats },
	{ NULL, NULL }
};
