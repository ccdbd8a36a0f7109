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
	double key;		/* a number key, a string key's rank, or the
				 * time in a state (negated) */
} sort_item;

static int
compare_items(const void *pa, const void *pb)
{
	const sort_item *a = pa, *b = pb;
	int r;

	if (a->key != b->key)
		return (a->key < b->key ? -1 : 1);
	if ((r = natural_compare(a->name, a->len, b->name, b->len)) != 0)
		return (r);
	return (a->id < b->id ? -1 : a->id > b->id);
}

/*
 * String keys are sorted as their ranks.  Comparing the strings in the
 * entities' sort walked two keys' common prefix at each of n log n
 * comparisons: 40,000 entities keyed by a 64 KB string took 22 s, the
 * string one object or a few.  Here each distinct string object is
 * ranked once, in natural order (equal strings, one object or not, get
 * one rank), so the work on the strings is in proportion to the bytes
 * they hold, and the entities' sort compares numbers.
 */
typedef struct key_string {
	const char *s;
	size_t len;
	uint32_t item;		/* the entity's item; a group's first in r */
	uint32_t count;		/* items holding this object (groups) */
} key_string;

static int
compare_objects(const void *pa, const void *pb)
{
	uintptr_t a = (uintptr_t)((const key_string *)pa)->s;
	uintptr_t b = (uintptr_t)((const key_string *)pb)->s;

	return (a < b ? -1 : a > b);
}

static int
compare_strings(const void *pa, const void *pb)
{
	const key_string *a = pa, *b = pb;

	/* Copies of one string: memcmp's pace, not a walk of the names. */
	if (a->len == b->len && memcmp(a->s, b->s, a->len) == 0)
		return (0);
	return (natural_compare(a->s, a->len, b->s, b->len));
}

/* The key table is on top of the stack: item i's string at i + 1. */
static void
rank_string_keys(lua_State *L, sort_item *items, uint32_t n)
{
	key_string *r = lua_object_scratch(L, n, sizeof (key_string));
	key_string *g = lua_object_scratch(L, n, sizeof (key_string));
	uint32_t i, j, ngroups = 0;
	double rank = 0;

	for (i = 0; i < n; i++) {
		lua_rawgeti(L, -3, (lua_Integer)i + 1);
		/* The key table holds the string: the pointer stays good. */
		r[i].s = lua_tolstring(L, -1, &r[i].len);
		r[i].item = i;
		lua_pop(L, 1);
	}
	qsort(r, n, sizeof (key_string), compare_objects);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && r[j].s == r[i].s; j++)
			continue;
		g[ngroups] = r[i];
		g[ngroups].item = i;
		g[ngroups++].count = j - i;
	}
	qsort(g, ngroups, sizeof (key_string), compare_strings);
	for (i = 0; i < ngroups; i++) {
		if (i > 0 && compare_strings(&g[i - 1], &g[i]) != 0)
			rank++;
		for (j = 0; j < g[i].count; j++)
			items[r[g[i].item + j].item].key = rank;
	}
	lua_pop(L, 2);
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
	int fn = lua_type(L, 2) == LUA_TFUNCTION;
	uint32_t strings = 0;
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
				strings++;
				lua_rawseti(L, -2, (lua_Integer)i + 1);
				continue;
			} else {
				return (luaL_error(L, "sort key for entity "
				    "\"%s\" is a %s; keys are numbers or "
				    "strings", it->name, luaL_typename(L, -1)));
			}
			lua_pop(L, 1);
		}
	}
	if (strings != 0 && strings != n)
		return (luaL_error(L, "sort keys mix numbers and strings"));
	if (strings != 0)
		rank_string_keys(L, items, n);
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
