/*
 * lua_snapshot.c: t:at, every entity's state at one time.  For a trace of
 * states, one search per entity from where the last call left it
 * (snapshot.h), with the names kept as Lua strings in the trace object's
 * user value, made once, and so is the buffer the states are found in,
 * so that an answer costs no string and no allocation but its table.
 * With values or {intervals = true}, entity by entity from the store.
 */
#include "lua/lua_snapshot.h"

#include "lua/lua_args.h"
#include "lua/lua_catalog.h"
#include "lua/lua_entity.h"
#include "lua/lua_object.h"
#include "lua/lua_options.h"
#include "lua/lua_trace.h"

/*
 * The user value's fields: lists of names, by id + 1, and t:at's buffer
 * of states while no call is using it.
 */
enum { NAMES_ENTITIES = 1, NAMES_STATES, NAMES_BUFFER };

/*
 * The buffer's type: an object like any other, checked as any other, as
 * the debug library can put anything in a user value (debug.getuservalue).
 * Its states follow its head.
 */
static const char buffer_type[] = "statemap.states";

/* An entity's interval as t:at(.., {intervals = true}) gives it. */
static void
push_interval(lua_State *L, const trace *d, const store_interval *iv,
    uint32_t depth)
{
	lua_createtable(L, 0, 6);
	if (depth == 0) {
		lua_catalog_push_value(L, d->cat, iv->entity, iv->value);
		lua_setfield(L, -2, "value");
	} else {
		lua_catalog_push_state(L, d->cat, iv->state);
		lua_setfield(L, -2, "state");
		lua_catalog_push_tag(L, d->cat, iv->tag);
		lua_setfield(L, -2, "tag");
		if (iv->tag != STORE_NONE && d->cat->tags[iv->tag].members !=
		    NULL) {
			lua_catalog_push_tag_fields(L, d->cat, iv->tag);
			lua_setfield(L, -2, "tag_fields");
		}
		lua_pushinteger(L, (lua_Integer)depth);
		lua_setfield(L, -2, "depth");
	}
	lua_pushinteger(L, (lua_Integer)iv->start);
	lua_setfield(L, -2, "start");
	lua_pushinteger(L, (lua_Integer)(iv->end < d->end ? iv->end : d->end));
	lua_setfield(L, -2, "finish");
}

/* Whether the value at idx is an options table with intervals = true. */
static int
wants_intervals(lua_State *L, int idx)
{
	int yes;

	if (lua_type(L, idx) != LUA_TTABLE)
		return (0);
	lua_pushliteral(L, "intervals");
	/* true, never a state name: a table t:at filled is not taken. */
	yes = lua_rawget(L, idx) == LUA_TBOOLEAN && lua_toboolean(L, -1);
	lua_pop(L, 1);
	return (yes);
}

static const lua_option at_keys[] = {
	{ .key = "intervals", .kind = LUA_OPTION_BOOLEAN },
	{ .key = NULL }
};

/*
 * t:at(time [, {intervals = true}]) of a trace with values, or asking for
 * whole intervals: entity by entity from the store, with values and the
 * depth of nested states.
 */
static int
full_at(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint64_t t = lua_trace_check_query_time(L, d, 2, "t:at");
	uint32_t e, n = catalog_nentities(d->cat);
	lua_options opts;
	int full = 0;

	lua_options_init(&opts, L, 3, "at", at_keys);
	lua_options_boolean(&opts, "intervals", &full);
	lua_createtable(L, 0, (int)n);
	for (e = 0; e < n; e++) {
		store_interval iv;
		uint32_t depth;
		size_t len;
		const char *name;

		if (store_kind_of(d->st, e) == STORE_VALUES) {
			if (!store_value_at(d->st, e, t, &iv) ||
			    (!full && value_is_none(iv.value)))
				continue;
			depth = 0;
		} else {
			if (!store_state_at(d->st, e, t, &iv))
				continue;
			depth = store_stack_at(d->st, e, t, NULL, 0);
			if (depth == 0)
				depth = 1;
		}
		name = catalog_entity_name(d->cat, e, &len);
		lua_pushlstring(L, name, len);
		if (full)
			push_interval(L, d, &iv, depth);
		else if (depth == 0)
			lua_catalog_push_value(L, d->cat, e, iv.value);
		else
			lua_catalog_push_state(L, d->cat, iv.state);
		lua_rawset(L, -3);
	}
	return (1);
}

/*
 * Pushes the trace object's user value, then its lists of entity and
 * state names, made at the first call (or again, if the debug library put
 * something else there).
 */
static void
push_names(lua_State *L, int idx, const trace *d)
{
	uint32_t i, n;

	if (lua_getiuservalue(L, idx, 1) == LUA_TTABLE) {
		if (lua_rawgeti(L, -1, NAMES_ENTITIES) == LUA_TTABLE) {
			if (lua_rawgeti(L, -2, NAMES_STATES) == LUA_TTABLE)
				return;
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	lua_createtable(L, 3, 0);
	n = catalog_nentities(d->cat);
	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		size_t len;
		const char *name = catalog_entity_name(d->cat, i, &len);

		lua_pushlstring(L, name, len);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_rawseti(L, -2, NAMES_ENTITIES);
	lua_createtable(L, (int)d->cat->nstates, 0);
	for (i = 0; i < d->cat->nstates; i++) {
		lua_catalog_push_state(L, d->cat, i);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_rawseti(L, -2, NAMES_STATES);
	lua_pushvalue(L, -1);
	lua_setiuservalue(L, idx, 1);
	lua_rawgeti(L, -1, NAMES_ENTITIES);
	lua_rawgeti(L, -2, NAMES_STATES);
}

/*
 * Pushes the buffer for the states of n entities, and their values when
 * values is not NULL, and returns the states: the
 * one the user value at uv keeps, taken out of it while this call uses
 * it, or a new one.  Building the answer may run finalizers, which may
 * call t:at on this trace: such a call finds no buffer, and makes its
 * own.  An error on the way (the memory limit) leaves nothing to undo:
 * the buffer is the collector's, and the next call makes another.
 */
static uint32_t *
take_buffer(lua_State *L, int uv, uint32_t n, sm_value **values)
{
	static const luaL_Reg none[] = { { NULL, NULL } };
	const luaL_Reg *nothing[] = { none, NULL };
	/* The values follow the states, from a multiple of their size. */
	size_t at = (((size_t)n + 1) * sizeof (uint32_t) + sizeof (sm_value) -
	    1) / sizeof (sm_value) * sizeof (sm_value);
	size_t size = sizeof (lua_object_head) + (values != NULL ? at +
	    ((size_t)n + 1) * sizeof (sm_value) : ((size_t)n + 1) *
	    sizeof (uint32_t));
	lua_object_head *b;

	lua_rawgeti(L, uv, NAMES_BUFFER);
	if ((b = lua_object_test(L, -1, buffer_type)) != NULL &&
	    lua_rawlen(L, -1) >= size) {
		lua_pushnil(L);
		lua_rawseti(L, uv, NAMES_BUFFER);
	} else {
		lua_pop(L, 1);
		if (luaL_getmetatable(L, buffer_type) == LUA_TNIL)
			lua_object_class(L, buffer_type, nothing, nothing,
			    none);
		lua_pop(L, 1);
		b = lua_object_new(L, buffer_type, size, 0);
	}
	if (values != NULL)
		*values = (sm_value *)(void *)((char *)(b + 1) + at);
	return ((uint32_t *)(b + 1));
}

/*
 * t:at(time) of a trace with values: the answer of full_at, entity by
 * entity in the same order into a table of the same size, each found
 * from where the last call left it (snapshot.h) instead of by a search
 * of its whole column.
 */
static int
values_at(lua_State *L, const trace *d, uint64_t t)
{
	uint32_t e, n = store_nentities(d->st), *states;
	int uv, en, sn, buf;
	lua_trace_snapshot *at;
	sm_value *values;

	lua_settop(L, 3);
	at = lua_trace_snapshot_of(L, 1);
	push_names(L, 1, d);
	en = lua_gettop(L) - 1;
	sn = en + 1;
	uv = en - 1;
	states = take_buffer(L, uv, n, &values);
	buf = lua_gettop(L);
	(void)snapshot_states_values(d->st, &at->cursor, t, states, values);
	lua_createtable(L, 0, (int)catalog_nentities(d->cat));
	for (e = 0; e < n; e++) {
		if (!value_is_none(values[e])) {
			lua_rawgeti(L, en, (lua_Integer)e + 1);
			lua_catalog_push_value(L, d->cat, e, values[e]);
		} else if (states[e] != STORE_NONE) {
			lua_rawgeti(L, en, (lua_Integer)e + 1);
			lua_rawgeti(L, sn, (lua_Integer)states[e] + 1);
		} else {
			continue;
		}
		lua_rawset(L, -3);
	}
	lua_pushvalue(L, buf);	/* kept for the next call */
	lua_rawseti(L, uv, NAMES_BUFFER);
	return (1);
}

/* States whose names t:at keeps on the Lua stack while it fills a table. */
#define STACKED_STATES	64

/*
 * t:at(time [, into]) -> {entity name = state name} for entities with a
 * state.  One search per entity from where the last call left it
 * (snapshot.h), names from the object's lists: the table is the one
 * allocation.  Given a table `into`, it is filled instead (the entities
 * without a state set to nil) and returned: a script stepping through
 * the trace then allocates nothing, and assigning to keys the table
 * already has costs less than building a new one.
 */
static int
t_at(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint64_t t = lua_trace_check_query_time(L, d, 2, "t:at");
	uint32_t e, n = store_nentities(d->st), have, *states;
	int uv, en, sn, buf, stacked, into = !lua_isnoneornil(L, 3);
	lua_trace_snapshot *at;

	if (into && wants_intervals(L, 3))
		return (full_at(L));
	if (!into && store_values_total(d->st) > 0)
		return (values_at(L, d, t));
	if (into)
		luaL_checktype(L, 3, LUA_TTABLE);
	lua_settop(L, 3);
	at = lua_trace_snapshot_of(L, 1);
	push_names(L, 1, d);
	en = lua_gettop(L) - 1;
	sn = en + 1;
	uv = en - 1;
	states = take_buffer(L, uv, n, NULL);
	buf = lua_gettop(L);
	have = snapshot_states(d->st, &at->cursor, t, states);
	/* A few states' names wait on the stack: copying a slot costs
	 * less than indexing the list. */
	stacked = d->cat->nstates <= STACKED_STATES &&
	    lua_checkstack(L, (int)d->cat->nstates + 4);
	if (stacked) {
		for (e = 0; e < d->cat->nstates; e++)
			lua_rawgeti(L, sn, (lua_Integer)e + 1);
		sn = lua_gettop(L) - (int)d->cat->nstates + 1;
	}
	if (into)
		lua_pushvalue(L, 3);
	else
		lua_createtable(L, 0, (int)have);
	for (e = 0; e < n; e++) {
		if (states[e] == STORE_NONE && !into)
			continue;
		lua_rawgeti(L, en, (lua_Integer)e + 1);
		if (states[e] == STORE_NONE)
			lua_pushnil(L);
		else if (stacked)
			lua_pushvalue(L, sn + (int)states[e]);
		else
			lua_rawgeti(L, sn, (lua_Integer)states[e] + 1);
		lua_rawset(L, -3);
	}
	lua_pushvalue(L, buf);	/* kept for the next call */
	lua_rawseti(L, uv, NAMES_BUFFER);
	return (1);
}

/* Reads list item i (from 1) at idx as a time in d's window. */
static uint64_t
sample_time(lua_State *L, const trace *d, int idx, size_t i)
{
	const char *why;
	uint64_t t = 0;

	lua_rawgeti(L, idx, (lua_Integer)i + 1);
	if (lua_args_time(L, -1, &t, &why) != 0)
		luaL_error(L, "t:sample: times: item %I is %s", (lua_Integer)i +
		    1, why != NULL ? why : lua_pushfstring(L, "a %s, not a time",
		    luaL_typename(L, -1)));
	lua_pop(L, 1);
	if (t < d->begin || t > d->end)
		luaL_error(L, "t:sample: times: item %I, %I ns, is %s the "
		    "trace, which covers [%I, %I) ns", (lua_Integer)i + 1,
		    (lua_Integer)t, t < d->begin ? "before" : "after",
		    (lua_Integer)d->begin, (lua_Integer)d->end);
	return (t);
}

/* Sets entity e's answer at t into the table on top, if it has one. */
static void
sample_entity(lua_State *L, const trace *d, int en, int sn, uint32_t e,
    uint64_t t)
{
	store_interval iv;

	if (store_kind_of(d->st, e) == STORE_VALUES) {
		if (!store_value_at(d->st, e, t, &iv) ||
		    value_is_none(iv.value))
			return;
		lua_rawgeti(L, en, (lua_Integer)e + 1);
		lua_catalog_push_value(L, d->cat, e, iv.value);
	} else {
		if (!store_state_at(d->st, e, t, &iv))
			return;
		lua_rawgeti(L, en, (lua_Integer)e + 1);
		lua_rawgeti(L, sn, (lua_Integer)iv.state + 1);
	}
	lua_rawset(L, -3);
}

/*
 * t:sample(times [, entities]) -> a list with, for each time of the list
 * times, the table t:at gives then ({entity name = state name}, value
 * entities with their value), of every entity or of those listed: full
 * queries at sampled times.  Each time is checked as t:at checks it.  A
 * trace of states asked for every entity steps the trace's cursor
 * (snapshot.h), fastest with times in order; otherwise one search per
 * entity and time.
 */
static int
t_sample(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint32_t n = store_nentities(d->st), *sel = NULL, *states = NULL;
	uint64_t *times;
	size_t ntimes, nsel = 0, i, k;
	lua_trace_snapshot *at = NULL;
	int en, sn, out, stacked;

	luaL_checktype(L, 2, LUA_TTABLE);
	if (!lua_isnoneornil(L, 3))
		luaL_checktype(L, 3, LUA_TTABLE);
	lua_settop(L, 3);
	ntimes = lua_rawlen(L, 2);
	times = lua_object_scratch(L, ntimes, sizeof (uint64_t));
	for (i = 0; i < ntimes; i++)
		times[i] = sample_time(L, d, 2, i);
	if (!lua_isnil(L, 3))
		sel = lua_entity_list(L, d, 3, &nsel, "t:sample", "entities");
	else if (store_values_total(d->st) == 0) {
		at = lua_trace_snapshot_of(L, 1);
		states = lua_object_scratch(L, n, sizeof (uint32_t));
	}
	push_names(L, 1, d);
	en = lua_gettop(L) - 1;
	sn = en + 1;
	/* As t:at: a few states' names wait on the stack for the fast path. */
	stacked = states != NULL && d->cat->nstates <= STACKED_STATES &&
	    lua_checkstack(L, (int)d->cat->nstates + 4);
	if (stacked) {
		for (k = 0; k < d->cat->nstates; k++)
			lua_rawgeti(L, sn, (lua_Integer)k + 1);
		sn = lua_gettop(L) - (int)d->cat->nstates + 1;
	}
	lua_createtable(L, (int)(ntimes < INT32_MAX ? ntimes : 0), 0);
	out = lua_gettop(L);
	for (i = 0; i < ntimes; i++) {
		if (states != NULL) {
			uint32_t e, have = snapshot_states(d->st, &at->cursor,
			    times[i], states);

			lua_createtable(L, 0, (int)have);
			for (e = 0; e < n; e++) {
				if (states[e] == STORE_NONE)
					continue;
				lua_rawgeti(L, en, (lua_Integer)e + 1);
				if (stacked)
					lua_pushvalue(L, sn + (int)states[e]);
				else
					lua_rawgeti(L, sn,
					    (lua_Integer)states[e] + 1);
				lua_rawset(L, -3);
			}
		} else if (sel != NULL) {
			lua_createtable(L, 0, (int)(nsel < 64 ? nsel : 64));
			for (k = 0; k < nsel; k++)
				sample_entity(L, d, en, sn, sel[k], times[i]);
		} else {
			uint32_t e;

			lua_createtable(L, 0, 0);
			for (e = 0; e < n; e++)
				sample_entity(L, d, en, sn, e, times[i]);
		}
		lua_rawseti(L, out, (lua_Integer)i + 1);
	}
	return (1);
}

const luaL_Reg lua_snapshot_trace_methods[] = {
	{ "at", t_at },
	{ "sample", t_sample },
	{ NULL, NULL }
};
