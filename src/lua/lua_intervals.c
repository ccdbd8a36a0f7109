/*
 * lua_intervals.c: t:intervals{...} and the iterator object it returns,
 * which walks the store's intervals of a set of entities over a range
 * one at a time (store_iter), keeping its trace alive.
 */
#include "lua/lua_intervals.h"

#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lua/lua_args.h"
#include "lua/lua_object.h"
#include "lua/lua_statesys.h"
#include "lua/lua_trace.h"

#define ITER_MT		"statemap.intervals"

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
	liter *it = lua_object_check(L, lua_upvalueindex(1), ITER_MT);
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
			return (lua_statesys_push_value_interval(L, d, &iv));
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
			lua_statesys_push_tag_fields(L, d->cat, iv.tag);
			lua_setfield(L, -2, "tag_fields");
		}
		lua_trace_push_state(L, d->cat, iv.state);
		lua_setfield(L, -2, "state");
		lua_trace_push_tag(L, d->cat, iv.tag);
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
	liter *it = luaL_checkudata(L, 1, ITER_MT);

	free(it->entities);
	free(it->states);
	it->entities = NULL;
	it->states = NULL;
	it->head.finalized = 1;
	return (0);
}

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
	liter *it;

	if (!lua_isnoneornil(L, 2))
		luaL_checktype(L, 2, LUA_TTABLE);
	else
		lua_newtable(L);
	lua_settop(L, 2);
	it = lua_object_new(L, ITER_MT, sizeof (liter), 1);
	lua_pushvalue(L, 1);
	lua_setiuservalue(L, 3, 1);

	if (lua_getfield(L, 2, "from") != LUA_TNIL)
		from = lua_args_check_time(L, -1);
	if (lua_getfield(L, 2, "to") != LUA_TNIL)
		to = lua_args_check_time(L, -1);
	lua_pop(L, 2);
	if (lua_getfield(L, 2, "entities") != LUA_TNIL) {
		size_t i;

		luaL_checktype(L, -1, LUA_TTABLE);
		n = lua_rawlen(L, -1);
		if ((it->entities = calloc(n + 1, sizeof (uint32_t))) == NULL)
			return (luaL_error(L, "out of memory"));
		for (i = 0; i < n; i++) {
			lua_rawgeti(L, -1, (lua_Integer)i + 1);
			it->entities[i] = lua_trace_entity_id(L, d, lua_gettop(L));
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 1);
	if (lua_getfield(L, 2, "states") != LUA_TNIL) {
		size_t i, ns;

		luaL_checktype(L, -1, LUA_TTABLE);
		ns = lua_rawlen(L, -1);
		if ((it->states = calloc(d->cat->nstates, 1)) == NULL)
			return (luaL_error(L, "out of memory"));
		for (i = 0; i < ns; i++) {
			lua_rawgeti(L, -1, (lua_Integer)i + 1);
			it->states[lua_trace_state(L, d->cat, -1)] = 1;
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 1);
	store_iter_init(&it->it, d->st, it->entities, n, from, to);
	store_iter_values(&it->it);
	lua_pushcclosure(L, intervals_next, 1);
	return (1);
}

const luaL_Reg lua_intervals_methods[] = {
	{ "intervals", t_intervals },
	{ NULL, NULL }
};

void
lua_intervals_open(lua_State *L)
{
	static const luaL_Reg none[] = { { NULL, NULL } };
	static const luaL_Reg metamethods[] = {
		{ "__gc", intervals_gc },
		{ NULL, NULL }
	};
	const luaL_Reg *nothing[] = { none, NULL };

	lua_object_class(L, ITER_MT, nothing, nothing, metamethods);
}
