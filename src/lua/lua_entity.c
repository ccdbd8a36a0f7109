/*
 * lua_entity.c: the entity object: an entity id with its trace as user
 * value, so the trace lives as long as any of its entities.
 */
#include "lua/lua_entity.h"

#include <stdlib.h>

#include <lauxlib.h>

#include "lua/lua_args.h"
#include "lua/lua_object.h"
#include "lua/lua_statesys.h"
#include "lua/lua_trace.h"

#define ENTITY_MT	"statemap.entity"

typedef struct lentity {
	uint32_t id;
} lentity;

void
lua_entity_push(lua_State *L, int trace_idx, uint32_t id)
{
	lentity *e = lua_newuserdatauv(L, sizeof (lentity), 1);

	e->id = id;
	luaL_setmetatable(L, ENTITY_MT);
	lua_pushvalue(L, trace_idx);
	lua_setiuservalue(L, -2, 1);
}

trace *
lua_entity_check(lua_State *L, int idx, uint32_t *id)
{
	lentity *e = luaL_checkudata(L, idx, ENTITY_MT);
	trace *d;

	lua_getiuservalue(L, idx, 1);
	d = lua_trace_check(L, -1);
	lua_pop(L, 1);
	*id = e->id;
	return (d);
}

/*
 * e:at(time) -> state, tag, start, finish; or nil.  For a value entity:
 * value, nil, start, finish.
 */
static int
e_at(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);
	store_interval iv;

	if (store_kind_of(d->st, id) == STORE_VALUES)
		return (lua_statesys_entity_value_at(L, d, id));
	if (!store_state_at(d->st, id, lua_args_check_time(L, 2), &iv))
		return (0);
	lua_trace_push_state(L, d->cat, iv.state);
	lua_trace_push_tag(L, d->cat, iv.tag);
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

	return (lua_trace_push_time_in(L, d, id));
}

/*
 * e:stats([from, to]) -> {min=, max=, mean=} of an entity whose state
 * names are numbers (a counting entity): the mean is weighted by time.
 * Nothing is returned if the entity has no state in the range.  A value
 * entity's come from its summary, with the integral too.
 */
static int
e_stats(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);
	uint64_t from = lua_args_opt_time(L, 2, d->begin), to = lua_args_opt_time(L, 3, d->end);
	double min = 0, max = 0, sum = 0, total = 0;
	store_iter it;
	store_interval iv;
	int any = 0;

	if (store_kind_of(d->st, id) == STORE_VALUES)
		return (lua_statesys_entity_stats(L, d, id));
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
	if (!any)
		return (0);
	lua_createtable(L, 0, 3);
	lua_pushnumber(L, (lua_Number)min);
	lua_setfield(L, -2, "min");
	lua_pushnumber(L, (lua_Number)max);
	lua_setfield(L, -2, "max");
	lua_pushnumber(L, (lua_Number)(sum / total));
	lua_setfield(L, -2, "mean");
	return (1);
}

static int
entity_tostring(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);
	size_t len;
	const char *name = catalog_entity_name(d->cat, id, &len);

	lua_object_push_quoted(L, name, len);
	lua_pushfstring(L, "<entity %s: %I transitions>", lua_tostring(L, -1),
	    (lua_Integer)store_count(d->st, id));
	return (1);
}

static int
entity_eq(lua_State *L)
{
	uint32_t a, b;
	trace *da = lua_entity_check(L, 1, &a), *db = lua_entity_check(L, 2, &b);

	lua_pushboolean(L, da == db && a == b);
	return (1);
}

static int
field_name(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);
	size_t len;
	const char *name = catalog_entity_name(d->cat, id, &len);

	lua_pushlstring(L, name, len);
	return (1);
}

static int
field_description(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);

	if (d->cat->descriptions[id] == NULL)
		lua_pushnil(L);
	else
		lua_pushstring(L, d->cat->descriptions[id]);
	return (1);
}

static int
field_transitions(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);

	lua_pushinteger(L, (lua_Integer)store_count(d->st, id));
	return (1);
}

void
lua_entity_open(lua_State *L)
{
	static const luaL_Reg methods[] = {
		{ "at", e_at },
		{ "time_in", e_time_in },
		{ "stats", e_stats },
		{ NULL, NULL }
	};
	static const luaL_Reg fields[] = {
		{ "name", field_name },
		{ "description", field_description },
		{ "transitions", field_transitions },
		{ "kind", lua_statesys_field_kind },
		{ NULL, NULL }
	};
	static const luaL_Reg metamethods[] = {
		{ "__tostring", entity_tostring },
		{ "__eq", entity_eq },
		{ NULL, NULL }
	};
	const luaL_Reg *all[] = { methods, lua_statesys_entity_methods, NULL };
	const luaL_Reg *all_fields[] = { fields, NULL };

	lua_object_class(L, ENTITY_MT, all, all_fields, metamethods);
}
