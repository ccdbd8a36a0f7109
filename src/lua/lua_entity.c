/*
 * lua_entity.c: the entity object: an entity id with its trace as user
 * value, so the trace lives as long as any of its entities; entity
 * arguments; t:entity and t:sorted.
 */
#include "lua/lua_entity.h"

#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "base/natural.h"
#include "lua/lua_args.h"
#include "lua/lua_catalog.h"
#include "lua/lua_object.h"
#include "lua/lua_trace.h"

const char lua_entity_type[] = "statemap.entity";

typedef struct lentity {
	lua_object_head head;
	uint32_t id;
} lentity;

void
lua_entity_push(lua_State *L, int trace_idx, uint32_t id)
{
	lentity *e;

	trace_idx = lua_absindex(L, trace_idx);
	e = lua_object_new(L, LUA_ENTITY_TYPE, sizeof (lentity), 1);
	e->id = id;
	lua_pushvalue(L, trace_idx);
	lua_setiuservalue(L, -2, 1);
}

trace *
lua_entity_check(lua_State *L, int idx, uint32_t *id)
{
	lentity *e = lua_object_check(L, idx, LUA_ENTITY_TYPE);
	trace *d;

	lua_getiuservalue(L, idx, 1);
	d = lua_trace_check(L, -1);
	lua_pop(L, 1);
	*id = e->id;
	return (d);
}

/*
 * The id in d of the entity object at idx, or else the name of the entity
 * it stands for (*len bytes) and INTERN_NONE.
 */
static uint32_t
entity_of(lua_State *L, const trace *d, int idx, const char **name,
    size_t *len)
{
	uint32_t id;
	const trace *owner = lua_entity_check(L, idx, &id);

	if (owner == d)
		return (id);
	/* An entity of another trace (say the one this was derived from)
	 * stands for the entity of the same name here. */
	*name = intern_name(owner->cat->entities, id, len);
	return (INTERN_NONE);
}

uint32_t
lua_entity_id(lua_State *L, const trace *d, int idx)
{
	size_t len = 0;
	const char *name = NULL;
	uint32_t id;

	if (lua_type(L, idx) == LUA_TUSERDATA) {
		if ((id = entity_of(L, d, idx, &name, &len)) != INTERN_NONE)
			return (id);
	} else {
		name = luaL_checklstring(L, idx, &len);
	}
	id = intern_find(d->cat->entities, name, len);
	if (id == INTERN_NONE)
		luaL_error(L, "no entity \"%s\" in trace %s", name,
		    d->cat->name);
	return (id);
}

uint32_t
lua_entity_item(lua_State *L, const trace *d, int idx, const char *fname,
    const char *key, size_t i)
{
	size_t len = 0;
	const char *name = NULL;
	uint32_t id;

	if (lua_type(L, idx) == LUA_TUSERDATA) {
		if ((id = entity_of(L, d, idx, &name, &len)) != INTERN_NONE)
			return (id);
	} else if (lua_isstring(L, idx)) {	/* a number is a name too */
		name = lua_tolstring(L, idx, &len);
	} else {
		return ((uint32_t)luaL_error(L, "%s: %s: item %d is a %s, "
		    "not an entity or a name", fname, key, (int)i,
		    luaL_typename(L, idx)));
	}
	id = intern_find(d->cat->entities, name, len);
	if (id == INTERN_NONE)
		luaL_error(L, "%s: %s: no entity \"%s\" in trace %s", fname,
		    key, name, d->cat->name);
	return (id);
}

uint32_t *
lua_entity_list(lua_State *L, const trace *d, int idx, size_t *n,
    const char *fname, const char *key)
{
	uint32_t *ids;
	size_t i;

	idx = lua_absindex(L, idx);
	*n = lua_rawlen(L, idx);
	ids = lua_object_scratch(L, *n, sizeof (uint32_t));
	for (i = 0; i < *n; i++) {
		lua_rawgeti(L, idx, (lua_Integer)i + 1);
		ids[i] = lua_entity_item(L, d, lua_gettop(L), fname, key,
		    i + 1);
		lua_pop(L, 1);
	}
	return (ids);
}

/* ---- the entity ---- */

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

const luaL_Reg lua_entity_metamethods[] = {
	{ "__tostring", entity_tostring },
	{ "__eq", entity_eq },
	{ NULL, NULL }
};

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

/* e.kind -> "states", "values" or "nested" */
static int
field_kind(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);
	store_kind k = store_kind_of(d->st, id);

	lua_pushstring(L, k == STORE_VALUES ? "values" : k == STORE_NESTED ?
	    "nested" : "states");
	return (1);
}

const luaL_Reg lua_entity_fields[] = {
	{ "name", field_name },
	{ "description", field_description },
	{ "transitions", field_transitions },
	{ "kind", field_kind },
	{ NULL, NULL }
};

/* ---- t:entity ---- */

/* t:entity(name) -> the entity; an error if there is none */
static int
t_entity(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);

	lua_entity_push(L, 1, lua_entity_id(L, d, 2));
	return (1);
}

/* ---- sorting ---- */

typedef struct sort_item {
	uint32_t id;
	const char *name;
	size_t len;
	double key;		/* number keys, or time in a state (negated) */
	int key_ref;		/* string keys: index in a key table, or 0 */
} sort_item;

static lua_State *sort_L;	/* qsort has no context argument */

static int
compare_items(const void *pa, const void *pb)
{
	const sort_item *a = pa, *b = pb;
	int r;

	if (a->key_ref != 0) {
		size_t la, lb;
		const char *ka, *kb;

		lua_rawgeti(sort_L, -1, a->key_ref);
		lua_rawgeti(sort_L, -2, b->key_ref);
		ka = lua_tolstring(sort_L, -2, &la);
		kb = lua_tolstring(sort_L, -1, &lb);
		/*
		 * One string returned for many entities is one object: equal
		 * at once, not after a walk of its length every comparison
		 * (n log n of them).
		 */
		r = ka == kb && la == lb ? 0 : natural_compare(ka, la, kb, lb);
		lua_pop(sort_L, 2);
		if (r != 0)
			return (r);
	} else if (a->key != b->key) {
		return (a->key < b->key ? -1 : 1);
	}
	if ((r = natural_compare(a->name, a->len, b->name, b->len)) != 0)
		return (r);
	return (a->id < b->id ? -1 : a->id > b->id);
}

/*
 * t:sorted([how [, from, to]]) -> entities in order: how is nil or
 * "name" (natural order), a state name (most time in it first, over the
 * window or [from, to)), or a function of an entity returning a number or
 * a string (ascending; called once per entity).  Ties go by name.
 */
static int
t_sorted(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint32_t i, n = catalog_nentities(d->cat);
	int fn = lua_type(L, 2) == LUA_TFUNCTION, strings = 0;
	int64_t state = -1;
	uint64_t from, to, *times = NULL;
	sort_item *items;

	if (lua_type(L, 2) == LUA_TSTRING &&
	    strcmp(lua_tostring(L, 2), "name") != 0)
		state = lua_catalog_state(L, d->cat, 2);
	else if (!fn && !lua_isnoneornil(L, 2) &&
	    lua_type(L, 2) != LUA_TSTRING)
		luaL_typeerror(L, 2, "nil, \"name\", a state name or a "
		    "function");
	lua_args_opt_range(L, 3, "sorted", d->begin, d->end, &from, &to);
	items = lua_object_scratch(L, n, sizeof (sort_item));
	if (state >= 0)
		times = lua_object_scratch(L, d->cat->nstates, sizeof (uint64_t));
	lua_newtable(L);	/* string keys, by ref */
	for (i = 0; i < n; i++) {
		sort_item *it = &items[i];

		it->id = i;
		it->name = catalog_entity_name(d->cat, i, &it->len);
		it->key = 0;
		it->key_ref = 0;
		if (state >= 0) {
			memset(times, 0, d->cat->nstates * sizeof (uint64_t));
			store_time_in(d->st, i, from, to, times);
			it->key = -(double)times[state];
		} else if (fn) {
			lua_pushvalue(L, 2);
			lua_entity_push(L, 1, i);
			lua_call(L, 1, 1);
			if (lua_type(L, -1) == LUA_TNUMBER) {
				it->key = (double)lua_tonumber(L, -1);
			} else if (lua_type(L, -1) == LUA_TSTRING) {
				strings = 1;
				lua_rawseti(L, -2, (lua_Integer)i + 1);
				it->key_ref = (int)i + 1;
				continue;
			} else {
				return (luaL_error(L, "sort key for entity "
				    "\"%s\" is a %s; keys are numbers or "
				    "strings", it->name, luaL_typename(L, -1)));
			}
			lua_pop(L, 1);
		}
	}
	if (strings) {
		for (i = 0; i < n; i++) {
			if (items[i].key_ref == 0) {
				return (luaL_error(L, "sort keys mix numbers "
				    "and strings"));
			}
		}
	}
	sort_L = L;
	qsort(items, n, sizeof (sort_item), compare_items);
	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		lua_entity_push(L, 1, items[i].id);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return (1);
}

const luaL_Reg lua_entity_trace_methods[] = {
	{ "entity", t_entity },
	{ "sorted", t_sorted },
	{ NULL, NULL }
};
