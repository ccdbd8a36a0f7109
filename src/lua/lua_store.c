/*
 * lua_store.c: the store's queries that are one call each: t:intervals
 * and the iterator object it returns, which walks the intervals of a set
 * of entities over a range one at a time (store_iter), keeping its trace
 * alive; t:time_in, t:count_at; e:at, e:time_in, e:stack_at.
 */
#include "lua/lua_store.h"

#include <stdlib.h>

#include "lua/lua_args.h"
#include "lua/lua_catalog.h"
#include "lua/lua_entity.h"
#include "lua/lua_object.h"
#include "lua/lua_options.h"
#include "lua/lua_trace.h"

/* ---- t:intervals ---- */

/* A value entity's interval: {entity =, value =, start =, finish =}. */
static int
push_value_interval(lua_State *L, const trace *d, const store_interval *iv)
{
	size_t len;
	const char *name = catalog_entity_name(d->cat, iv->entity, &len);

	lua_createtable(L, 0, 4);
	lua_pushlstring(L, name, len);
	lua_setfield(L, -2, "entity");
	lua_catalog_push_value(L, d->cat, iv->entity,
	    iv->value);
	lua_setfield(L, -2, "value");
	lua_pushinteger(L, (lua_Integer)iv->start);
	lua_setfield(L, -2, "start");
	lua_pushinteger(L, (lua_Integer)iv->end);
	lua_setfield(L, -2, "finish");
	return (1);
}

const char lua_store_intervals_type[] = "statemap.intervals";

typedef struct liter {
	lua_object_head head;
	store_iter it;
	uint32_t *entities;	/* the entities asked for, or NULL: all */
	unsigned char *states;	/* nstates flags, or NULL: all */
} liter;

/* The iterator of t:intervals: one interval per call, as a table. */
static int
intervals_next(lua_State *L)
{
	liter *it = lua_object_check(L, lua_upvalueindex(1),
	    LUA_STORE_INTERVALS_TYPE);
	trace *d;
	store_interval iv;

	lua_getiuservalue(L, lua_upvalueindex(1), 1);
	d = lua_trace_check(L, -1);
	while (store_iter_next(&it->it, &iv)) {
		size_t len;
		const char *name;

		if (iv.depth == 0) {
			if (it->states != NULL)
				continue;
			return (push_value_interval(L, d, &iv));
		}
		if (it->states != NULL && !it->states[iv.state])
			continue;
		lua_createtable(L, 0, 5);
		name = catalog_entity_name(d->cat, iv.entity, &len);
		lua_pushlstring(L, name, len);
		lua_setfield(L, -2, "entity");
		if (iv.depth > 1 || store_depths(d->st, iv.entity) != NULL) {
			lua_pushinteger(L, (lua_Integer)iv.depth);
			lua_setfield(L, -2, "depth");
		}
		if (iv.tag != STORE_NONE && d->cat->tags[iv.tag].members !=
		    NULL) {
			lua_catalog_push_tag_fields(L, d->cat, iv.tag);
			lua_setfield(L, -2, "tag_fields");
		}
		lua_catalog_push_state(L, d->cat, iv.state);
		lua_setfield(L, -2, "state");
		lua_catalog_push_tag(L, d->cat, iv.tag);
		lua_setfield(L, -2, "tag");
		lua_pushinteger(L, (lua_Integer)iv.start);
		lua_setfield(L, -2, "start");
		lua_pushinteger(L, (lua_Integer)iv.end);
		lua_setfield(L, -2, "finish");
		return (1);
	}
	return (0);
}

static int
intervals_gc(lua_State *L)
{
	liter *it = lua_object_finalizing(L, LUA_STORE_INTERVALS_TYPE);

	if (it == NULL)
		return (0);
	free(it->entities);
	free(it->states);
	it->entities = NULL;
	it->states = NULL;
	it->head.finalized = 1;
	return (0);
}

static const lua_option intervals_keys[] = {
	{ .key = "from", .kind = LUA_OPTION_TIME },
	{ .key = "to", .kind = LUA_OPTION_TIME },
	{ .key = "entities", .kind = LUA_OPTION_TABLE,
	    .what = "a list of entities or names" },
	{ .key = "states", .kind = LUA_OPTION_TABLE,
	    .what = "a list of state names" },
	{ .key = NULL }
};

/*
 * t:intervals{from=, to=, entities={...}, states={...}} -> an iterator
 * over the intervals overlapping [from, to), clipped, entity by entity.
 */
static int
t_intervals(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint64_t from = d->begin, to = d->end;
	size_t n = 0;
	lua_options opts;
	liter *it;

	lua_settop(L, 2);
	lua_options_init(&opts, L, 2, "intervals", intervals_keys);
	it = lua_object_new(L, LUA_STORE_INTERVALS_TYPE, sizeof (liter), 1);
	lua_pushvalue(L, 1);
	lua_setiuservalue(L, 3, 1);

	lua_options_range(&opts, &from, &to);
	if (lua_options_table(&opts, "entities")) {
		size_t i;

		n = lua_rawlen(L, -1);
		if ((it->entities = calloc(n + 1, sizeof (uint32_t))) == NULL)
			return (luaL_error(L, "out of memory"));
		for (i = 0; i < n; i++) {
			lua_rawgeti(L, -1, (lua_Integer)i + 1);
			it->entities[i] = lua_entity_item(L, d, lua_gettop(L),
			    "intervals", "entities", i + 1);
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
	if (lua_options_table(&opts, "states")) {
		if ((it->states = calloc(d->cat->nstates, 1)) == NULL)
			return (luaL_error(L, "out of memory"));
		lua_catalog_mark_states(L, d->cat, lua_gettop(L), it->states,
		    "intervals", "states");
		lua_pop(L, 1);
	}
	store_iter_init(&it->it, d->st, it->entities, n, from, to);
	store_iter_values(&it->it);
	lua_pushcclosure(L, intervals_next, 1);
	return (1);
}

const luaL_Reg lua_store_intervals_metamethods[] = {
	{ "__gc", intervals_gc },
	{ NULL, NULL }
};

/* ---- time in states, counts ---- */

/*
 * Pushes {state name = ns} for one entity (or STORE_NONE: all) over
 * [from, to), the optional arguments at 2 and 3 (default: the window).
 */
static int
push_time_in(lua_State *L, trace *d, uint32_t entity, const char *fname)
{
	uint64_t from, to, *times;

	lua_args_opt_range(L, 2, fname, d->begin, d->end, &from, &to);
	times = lua_object_scratch(L, d->cat->nstates, sizeof (uint64_t));

	store_time_in(d->st, entity, from, to, times);
	lua_catalog_push_state_times(L, d->cat, times);
	return (1);
}

/* t:time_in([from, to]) -> {state name = ns} over all entities */
static int
t_time_in(lua_State *L)
{
	return (push_time_in(L, lua_trace_check(L, 1), STORE_NONE,
	    "time_in"));
}

/* t:count_at(time) -> {state name = entities in it} */
static int
t_count_at(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint64_t t = lua_args_check_time(L, 2);
	uint64_t *counts = lua_object_scratch(L, d->cat->nstates,
	    sizeof (uint64_t));

	store_count_at(d->st, t, counts);
	lua_catalog_push_state_times(L, d->cat, counts);
	return (1);
}

const luaL_Reg lua_store_trace_methods[] = {
	{ "intervals", t_intervals },
	{ "time_in", t_time_in },
	{ "count_at", t_count_at },
	{ NULL, NULL }
};

/* ---- an entity's ---- */

/*
 * e:at(time) -> state, tag, start, finish; or nil.  For a value entity:
 * value, nil, start, finish.
 */
static int
e_at(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);
	uint64_t t = lua_trace_check_query_time(L, d, 2, "e:at");
	store_interval iv;

	if (store_kind_of(d->st, id) == STORE_VALUES) {
		if (!store_value_at(d->st, id, t, &iv))
			return (0);
		lua_catalog_push_value(L, d->cat, id, iv.value);
		lua_pushnil(L);
		lua_pushinteger(L, (lua_Integer)iv.start);
		lua_pushinteger(L, (lua_Integer)(iv.end < d->end ? iv.end :
		    d->end));
		return (4);
	}
	if (!store_state_at(d->st, id, t, &iv))
		return (0);
	lua_catalog_push_state(L, d->cat, iv.state);
	lua_catalog_push_tag(L, d->cat, iv.tag);
	lua_pushinteger(L, (lua_Integer)iv.start);
	lua_pushinteger(L, (lua_Integer)iv.end);
	return (4);
}

/* e:time_in([from, to]) -> {state name = ns} */
static int
e_time_in(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);

	return (push_time_in(L, d, id, "e:time_in"));
}

/*
 * e:stack_at(time) -> the state names on the stack, bottom first, and
 * their tags (false where untagged); empty if it has no state then.
 */
static int
e_stack_at(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);
	uint64_t t = lua_trace_check_query_time(L, d, 2, "e:stack_at");
	store_frame few[64], *frames = few;
	uint32_t depth, i;

	if (store_kind_of(d->st, id) == STORE_VALUES)
		return (luaL_error(L, "e:stack_at: entity \"%s\" holds values, "
		    "not states", catalog_entity_name(d->cat, id, NULL)));
	depth = store_stack_at(d->st, id, t, few, 64);
	if (depth > 64) {
		frames = lua_object_scratch(L, depth, sizeof (store_frame));
		store_stack_at(d->st, id, t, frames, depth);
	}
	lua_createtable(L, (int)depth, 0);
	lua_createtable(L, (int)depth, 0);
	for (i = 0; i < depth; i++) {
		lua_catalog_push_state(L, d->cat, frames[i].state);
		lua_rawseti(L, -3, (lua_Integer)i + 1);
		if (frames[i].tag == STORE_NONE)
			lua_pushboolean(L, 0);
		else
			lua_catalog_push_tag(L, d->cat, frames[i].tag);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return (2);
}

const luaL_Reg lua_store_entity_methods[] = {
	{ "at", e_at },
	{ "time_in", e_time_in },
	{ "stack_at", e_stack_at },
	{ NULL, NULL }
};
