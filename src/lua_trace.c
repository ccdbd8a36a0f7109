/*
 * lua_trace.c: the trace and entity objects of the statemap Lua module.
 *
 * A trace is a userdata holding a trace (trace.h); an entity is a
 * userdata holding an entity id, with its trace as user value so the
 * trace lives as long as any of its entities.  Every query is one call
 * into the store: scripts run at C speed and Lua sees only results.
 */
#include "lua_trace.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "trace.h"
#include "duration.h"
#include "intern.h"
#include "natural.h"

#define TRACE_MT	"statemap.trace"
#define ENTITY_MT	"statemap.entity"
#define ITER_MT		"statemap.intervals"

typedef struct ltrace {
	trace *d;
} ltrace;

typedef struct lentity {
	uint32_t id;
} lentity;

typedef struct liter {
	store_iter it;
	uint32_t *entities;	/* the entities asked for, or NULL: all */
	unsigned char *states;	/* nstates flags, or NULL: all */
} liter;

/* ---- arguments ---- */

static trace *
check_trace(lua_State *L, int idx)
{
	return (((ltrace *)luaL_checkudata(L, idx, TRACE_MT))->d);
}

trace *
lua_trace_check(lua_State *L, int idx)
{
	return (check_trace(L, idx));
}

trace *
lua_trace_test(lua_State *L, int idx)
{
	ltrace *t = luaL_testudata(L, idx, TRACE_MT);

	return (t != NULL ? t->d : NULL);
}

/* A time: integer ns, or a duration string such as "1.5s". */
static uint64_t
check_time(lua_State *L, int idx)
{
	const char *why = NULL;
	int64_t ns;

	if (lua_type(L, idx) == LUA_TSTRING) {
		if (!duration_parse(lua_tostring(L, idx), &ns, &why))
			luaL_error(L, "bad time \"%s\": %s",
			    lua_tostring(L, idx), why);
		return ((uint64_t)ns);
	}
	/* A float with an integral value (1e9) is as good as an integer. */
	if (lua_type(L, idx) == LUA_TNUMBER) {
		int exact;
		lua_Integer v = lua_tointegerx(L, idx, &exact);

		if (exact && v >= 0)
			return ((uint64_t)v);
	}
	luaL_typeerror(L, idx, "time (ns as a non-negative integer, "
	    "or a string like \"1.5s\")");
	return (0);
}

uint64_t
lua_trace_check_time(lua_State *L, int idx)
{
	return (check_time(L, idx));
}

static uint64_t
opt_time(lua_State *L, int idx, uint64_t dflt)
{
	return (lua_isnoneornil(L, idx) ? dflt : check_time(L, idx));
}

static uint32_t
state_value(lua_State *L, const catalog *cat, const char *name)
{
	int64_t s = catalog_state_by_name(cat, name);

	if (s < 0)
		luaL_error(L, "no state \"%s\" in trace %s", name, cat->name);
	return ((uint32_t)s);
}

uint32_t
lua_trace_entity_id(lua_State *L, const trace *d, int idx)
{
	size_t len;
	const char *name;
	uint32_t id;

	if (lua_type(L, idx) == LUA_TUSERDATA) {
		lentity *e = luaL_checkudata(L, idx, ENTITY_MT);
		const trace *owner;

		lua_getiuservalue(L, idx, 1);
		owner = check_trace(L, -1);
		lua_pop(L, 1);
		if (owner == d)
			return (e->id);
		/* An entity of another trace (say the one this was derived
		 * from) stands for the entity of the same name here. */
		name = intern_name(owner->cat->entities, e->id, &len);
	} else {
		name = luaL_checklstring(L, idx, &len);
	}
	id = intern_find(d->cat->entities, name, len);
	if (id == INTERN_NONE)
		luaL_error(L, "no entity \"%s\" in trace %s", name,
		    d->cat->name);
	return (id);
}

/* ---- results ---- */

static void
push_state(lua_State *L, const catalog *cat, uint32_t s)
{
	lua_pushlstring(L, cat->states[s].name, cat->states[s].name_len);
}

static void
push_tag(lua_State *L, const catalog *cat, uint32_t tag)
{
	size_t len;
	const char *name;

	if (tag == STORE_NONE) {
		lua_pushnil(L);
		return;
	}
	name = intern_name(cat->tag_names, cat->tags[tag].name, &len);
	lua_pushlstring(L, name, len);
}

/* {state name = ns} for every state. */
static void
push_state_times(lua_State *L, const catalog *cat, const uint64_t *times)
{
	uint32_t s;

	lua_createtable(L, 0, (int)cat->nstates);
	for (s = 0; s < cat->nstates; s++) {
		push_state(L, cat, s);
		lua_pushinteger(L, (lua_Integer)times[s]);
		lua_settable(L, -3);
	}
}

static void
push_entity(lua_State *L, int trace_idx, uint32_t id)
{
	lentity *e = lua_newuserdatauv(L, sizeof (lentity), 1);

	e->id = id;
	luaL_setmetatable(L, ENTITY_MT);
	lua_pushvalue(L, trace_idx);
	lua_setiuservalue(L, -2, 1);
}

static void
push_trace(lua_State *L, trace *d)
{
	ltrace *t = lua_newuserdatauv(L, sizeof (ltrace), 0);

	t->d = d;
	luaL_setmetatable(L, TRACE_MT);
}

/* ---- statemap.load ---- */

static int64_t
field_time(lua_State *L, int opts, const char *key, int *given)
{
	int64_t v;

	lua_getfield(L, opts, key);
	*given = !lua_isnil(L, -1);
	v = *given ? (int64_t)check_time(L, lua_gettop(L)) : 0;
	lua_pop(L, 1);
	return (v);
}

/*
 * statemap.load(path [, {begin=, ["end"]=, duration=, ignore_tags=,
 * filter=, cache=}])
 */
static int
f_load(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	trace_options o;
	trace *d;
	sm_error err;
	regex_t re;
	int have_b = 0, have_e = 0, have_d = 0, have_re = 0;
	int64_t dur = 0;
	char msg[sizeof (err.message) + sizeof (err.file) + 64];

	memset(&o, 0, sizeof (o));
	if (!lua_isnoneornil(L, 2)) {
		luaL_checktype(L, 2, LUA_TTABLE);
		o.begin = field_time(L, 2, "begin", &have_b);
		o.end = field_time(L, 2, "end", &have_e);
		dur = field_time(L, 2, "duration", &have_d);
		lua_getfield(L, 2, "ignore_tags");
		o.ignore_tags = lua_toboolean(L, -1);
		lua_getfield(L, 2, "cache");
		o.no_cache = !lua_isnil(L, -1) && !lua_toboolean(L, -1);
		lua_pop(L, 1);
		lua_getfield(L, 2, "filter");
		if (!lua_isnil(L, -1)) {
			const char *pat = luaL_checkstring(L, -1);
			int rc = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB);

			if (rc != 0) {
				regerror(rc, &re, msg, sizeof (msg));
				return (luaL_error(L, "bad filter \"%s\": %s",
				    pat, msg));
			}
			o.filter = &re;
			have_re = 1;
		}
		lua_pop(L, 2);
	}
	if (have_d) {
		if (have_b && have_e)
			return (luaL_error(L, "give at most two of begin, "
			    "end and duration"));
		if (have_e)
			o.begin = o.end - dur;
		else
			o.end = o.begin + dur;
		if (o.begin < 0)
			return (luaL_error(L, "duration exceeds end"));
	}
	if (o.end != 0 && o.end <= o.begin)
		return (luaL_error(L, "begin must be before end"));

	d = trace_load(path, &o, &err);
	if (have_re)
		regfree(&re);
	if (d == NULL) {
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "%s", msg));
	}
	push_trace(L, d);
	return (1);
}

/* ---- the trace ---- */

static int
trace_gc(lua_State *L)
{
	ltrace *t = luaL_checkudata(L, 1, TRACE_MT);

	/* The live server (statemap.serve) may hold it too. */
	trace_release(t->d);
	t->d = NULL;
	return (0);
}

static int
trace_tostring(lua_State *L)
{
	trace *d = check_trace(L, 1);
	char span[64];

	duration_format(d->end - d->begin, span, sizeof (span));
	lua_pushfstring(L, "<trace \"%s\": %d entities, %d states, %I "
	    "transitions, %s>", d->cat->title != NULL ? d->cat->title :
	    d->cat->name, (int)catalog_nentities(d->cat), (int)d->cat->nstates,
	    (lua_Integer)store_total(d->st), span);
	return (1);
}

static void
push_opt_string(lua_State *L, const char *s)
{
	if (s == NULL)
		lua_pushnil(L);
	else
		lua_pushstring(L, s);
}

static void
push_states(lua_State *L, const catalog *cat)
{
	uint32_t s;

	lua_createtable(L, (int)cat->nstates, 0);
	for (s = 0; s < cat->nstates; s++) {
		char hex[8];

		color_format(cat->states[s].color, hex);
		lua_createtable(L, 0, 3);
		push_state(L, cat, s);
		lua_setfield(L, -2, "name");
		lua_pushinteger(L, s);
		lua_setfield(L, -2, "value");
		lua_pushstring(L, hex);
		lua_setfield(L, -2, "color");
		lua_rawseti(L, -2, (lua_Integer)s + 1);
	}
}

/* t:entities() -> every entity, in order of first appearance */
static int
t_entities(lua_State *L)
{
	trace *d = check_trace(L, 1);
	uint32_t i, n = catalog_nentities(d->cat);

	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		push_entity(L, 1, i);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return (1);
}

/* t:entity(name) -> the entity; an error if there is none */
static int
t_entity(lua_State *L)
{
	trace *d = check_trace(L, 1);

	push_entity(L, 1, lua_trace_entity_id(L, d, 2));
	return (1);
}

/* t:at(time) -> {entity name = state name} for entities with a state */
static int
t_at(lua_State *L)
{
	trace *d = check_trace(L, 1);
	uint64_t t = check_time(L, 2);
	uint32_t e, n = store_nentities(d->st);
	store_interval iv;

	lua_createtable(L, 0, (int)n);
	for (e = 0; e < n; e++) {
		size_t len;
		const char *name;

		if (!store_state_at(d->st, e, t, &iv))
			continue;
		name = catalog_entity_name(d->cat, e, &len);
		lua_pushlstring(L, name, len);
		push_state(L, d->cat, iv.state);
		lua_settable(L, -3);
	}
	return (1);
}

/*
 * Pushes {state name = ns} for one entity (or STORE_NONE: all) over
 * [from, to), the optional arguments at 2 and 3 (default: the window).
 */
static int
push_time_in(lua_State *L, trace *d, uint32_t entity)
{
	uint64_t from = opt_time(L, 2, d->begin), to = opt_time(L, 3, d->end);
	uint64_t *times = calloc(d->cat->nstates, sizeof (uint64_t));

	if (times == NULL)
		return (luaL_error(L, "out of memory"));
	store_time_in(d->st, entity, from, to, times);
	push_state_times(L, d->cat, times);
	free(times);
	return (1);
}

/* t:time_in([from, to]) -> {state name = ns} over all entities */
static int
t_time_in(lua_State *L)
{
	return (push_time_in(L, check_trace(L, 1), STORE_NONE));
}

/* t:count_at(time) -> {state name = entities in it} */
static int
t_count_at(lua_State *L)
{
	trace *d = check_trace(L, 1);
	uint64_t *counts = calloc(d->cat->nstates, sizeof (uint64_t));

	if (counts == NULL)
		return (luaL_error(L, "out of memory"));
	store_count_at(d->st, check_time(L, 2), counts);
	push_state_times(L, d->cat, counts);
	free(counts);
	return (1);
}

/* The iterator of t:intervals: one interval per call, as a table. */
static int
intervals_next(lua_State *L)
{
	liter *it = luaL_checkudata(L, lua_upvalueindex(1), ITER_MT);
	trace *d;
	store_interval iv;

	lua_getiuservalue(L, lua_upvalueindex(1), 1);
	d = check_trace(L, -1);
	while (store_iter_next(&it->it, &iv)) {
		size_t len;
		const char *name;

		if (it->states != NULL && !it->states[iv.state])
			continue;
		lua_createtable(L, 0, 5);
		name = catalog_entity_name(d->cat, iv.entity, &len);
		lua_pushlstring(L, name, len);
		lua_setfield(L, -2, "entity");
		push_state(L, d->cat, iv.state);
		lua_setfield(L, -2, "state");
		push_tag(L, d->cat, iv.tag);
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
	return (0);
}

/*
 * t:intervals{from=, to=, entities={...}, states={...}} -> an iterator
 * over the intervals overlapping [from, to), clipped, entity by entity.
 */
static int
t_intervals(lua_State *L)
{
	trace *d = check_trace(L, 1);
	uint64_t from = d->begin, to = d->end;
	size_t n = 0;
	liter *it;

	if (!lua_isnoneornil(L, 2))
		luaL_checktype(L, 2, LUA_TTABLE);
	else
		lua_newtable(L);
	lua_settop(L, 2);
	it = lua_newuserdatauv(L, sizeof (liter), 1);
	memset(it, 0, sizeof (*it));
	luaL_setmetatable(L, ITER_MT);
	lua_pushvalue(L, 1);
	lua_setiuservalue(L, 3, 1);

	if (lua_getfield(L, 2, "from") != LUA_TNIL)
		from = check_time(L, -1);
	if (lua_getfield(L, 2, "to") != LUA_TNIL)
		to = check_time(L, -1);
	lua_pop(L, 2);
	if (lua_getfield(L, 2, "entities") != LUA_TNIL) {
		size_t i;

		luaL_checktype(L, -1, LUA_TTABLE);
		n = lua_rawlen(L, -1);
		it->entities = calloc(n + 1, sizeof (uint32_t));
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
		it->states = calloc(d->cat->nstates, 1);
		for (i = 0; i < ns; i++) {
			lua_rawgeti(L, -1, (lua_Integer)i + 1);
			it->states[state_value(L, d->cat,
			    luaL_checkstring(L, -1))] = 1;
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 1);
	store_iter_init(&it->it, d->st, it->entities, n, from, to);
	lua_pushcclosure(L, intervals_next, 1);
	return (1);
}

/* ---- transforms ---- */

/*
 * The new state value for the name on the stack top: the one it already
 * has, or the next.  New states live in Lua tables until every call of
 * the mapping function is done, so an error there leaks nothing: names
 * (at index `names`) maps name -> value + 1, order (at `order`) lists
 * the names by value.
 */
static uint32_t
mapped_state(lua_State *L, int names, int order, uint32_t *n)
{
	uint32_t v;

	lua_pushvalue(L, -1);
	if (lua_rawget(L, names) == LUA_TNUMBER) {
		v = (uint32_t)lua_tointeger(L, -1) - 1;
		lua_pop(L, 1);
		return (v);
	}
	lua_pop(L, 1);
	if (*n >= CATALOG_MAX_STATES)
		luaL_error(L, "map makes more than %d states",
		    CATALOG_MAX_STATES);
	v = (*n)++;
	lua_pushvalue(L, -1);
	lua_pushinteger(L, (lua_Integer)v + 1);
	lua_rawset(L, names);
	lua_pushvalue(L, -1);
	lua_rawseti(L, order, (lua_Integer)v + 1);
	return (v);
}

/* Calls fn(state, tag) on the stack top pair; leaves the new name. */
static void
call_mapping(lua_State *L, const catalog *cat, uint32_t state)
{
	lua_call(L, 2, 1);
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		push_state(L, cat, state);
	} else if (lua_type(L, -1) != LUA_TSTRING) {
		luaL_error(L, "map function returned a %s; it must return a "
		    "state name (a string) or nil to keep the state",
		    luaL_typename(L, -1));
	}
}

/*
 * The states named in the order table (at index `order`, nnew of them),
 * as a C array for a new trace: a name an old state had keeps its
 * colour; new names get generated colours.
 */
static catalog_state *
states_from_order(lua_State *L, const catalog *cat, int order, uint32_t nnew)
{
	catalog_state *states;
	uint32_t i, gen = 0;

	if ((states = calloc(nnew, sizeof (catalog_state))) == NULL)
		luaL_error(L, "out of memory");
	for (i = 0; i < nnew; i++) {
		size_t len;
		const char *name;
		int64_t old = -1;
		uint32_t k;

		lua_rawgeti(L, order, (lua_Integer)i + 1);
		name = lua_tolstring(L, -1, &len);
		states[i].name = malloc(len + 1);
		memcpy(states[i].name, name, len + 1);
		states[i].name_len = len;
		for (k = 0; k < cat->nstates && old < 0; k++) {
			if (cat->states[k].name_len == len &&
			    memcmp(cat->states[k].name, name, len) == 0)
				old = k;
		}
		if (old >= 0) {
			states[i].color = cat->states[old].color;
			states[i].color_text = cat->states[old].color_text ==
			    NULL ? NULL : strdup(cat->states[old].color_text);
		} else {
			states[i].color = color_generated(gen++);
		}
		lua_pop(L, 1);
	}
	return (states);
}

/*
 * t:map(function(state, tag) return new_state end) -> a new trace.  The
 * function runs once per state (tag nil) and once per (state, tag) pair;
 * the mapping is then applied to every transition in C.  A new state
 * named like an old one keeps its colour; others get generated ones.
 */
static int
t_map(lua_State *L)
{
	trace *d = check_trace(L, 1);
	const catalog *cat = d->cat;
	uint32_t ntags = catalog_ntags(cat), nnew = 0, i;
	uint32_t *by_state, *by_tag;
	catalog_state *states;
	int names, order;

	luaL_checktype(L, 2, LUA_TFUNCTION);
	lua_newtable(L);
	names = lua_gettop(L);
	lua_newtable(L);
	order = lua_gettop(L);
	by_state = lua_newuserdatauv(L, (cat->nstates + 1) * sizeof (uint32_t),
	    0);
	by_tag = lua_newuserdatauv(L, (ntags + 1) * sizeof (uint32_t), 0);
	for (i = 0; i < cat->nstates; i++) {
		lua_pushvalue(L, 2);
		push_state(L, cat, i);
		lua_pushnil(L);
		call_mapping(L, cat, i);
		by_state[i] = mapped_state(L, names, order, &nnew);
		lua_pop(L, 1);
	}
	for (i = 0; i < ntags; i++) {
		lua_pushvalue(L, 2);
		push_state(L, cat, cat->tags[i].state);
		push_tag(L, cat, i);
		call_mapping(L, cat, cat->tags[i].state);
		by_tag[i] = mapped_state(L, names, order, &nnew);
		lua_pop(L, 1);
	}
	states = states_from_order(L, cat, order, nnew);
	push_trace(L, trace_derive(d, states, nnew, by_state, by_tag));
	return (1);
}

/*
 * t:map_intervals(function(iv) return state end) -> a new trace: the
 * function gets every interval as {entity, state, tag, start, finish}
 * and returns its new state (nil keeps it).  It runs once per
 * transition, so it is for what t:map cannot express.
 */
static int
t_map_intervals(lua_State *L)
{
	trace *d = check_trace(L, 1);
	const catalog *cat = d->cat;
	uint32_t e, nnew = 0;
	uint32_t *each;
	size_t index = 0;
	int names, order;

	luaL_checktype(L, 2, LUA_TFUNCTION);
	lua_newtable(L);
	names = lua_gettop(L);
	lua_newtable(L);
	order = lua_gettop(L);
	each = lua_newuserdatauv(L, (store_total(d->st) + 1) *
	    sizeof (uint32_t), 0);
	for (e = 0; e < store_nentities(d->st); e++) {
		size_t k, n = store_count(d->st, e), len;
		const char *ename = catalog_entity_name(cat, e, &len);

		for (k = 0; k < n; k++, index++) {
			store_interval iv;

			iv.state = store_states(d->st, e)[k];
			iv.tag = store_tags(d->st, e)[k];
			iv.start = store_times(d->st, e)[k];
			iv.end = k + 1 < n ? store_times(d->st, e)[k + 1] :
			    d->end;
			lua_pushvalue(L, 2);
			lua_createtable(L, 0, 5);
			lua_pushlstring(L, ename, len);
			lua_setfield(L, -2, "entity");
			push_state(L, cat, iv.state);
			lua_setfield(L, -2, "state");
			push_tag(L, cat, iv.tag);
			lua_setfield(L, -2, "tag");
			lua_pushinteger(L, (lua_Integer)iv.start);
			lua_setfield(L, -2, "start");
			lua_pushinteger(L, (lua_Integer)iv.end);
			lua_setfield(L, -2, "finish");
			lua_call(L, 1, 1);
			if (lua_isnil(L, -1)) {
				lua_pop(L, 1);
				push_state(L, cat, iv.state);
			} else if (lua_type(L, -1) != LUA_TSTRING) {
				return (luaL_error(L, "map_intervals function "
				    "returned a %s; it must return a state "
				    "name or nil", luaL_typename(L, -1)));
			}
			each[index] = mapped_state(L, names, order, &nnew);
			lua_pop(L, 1);
		}
	}
	push_trace(L, trace_derive_each(d, states_from_order(L, cat,
	    order, nnew), nnew, each));
	return (1);
}

/* t:recolor{state = colour, ...} -> a new trace with those colours */
static int
t_recolor(lua_State *L)
{
	trace *d = check_trace(L, 1);
	const catalog *cat = d->cat;
	uint32_t ntags = catalog_ntags(cat), i;
	uint32_t *by_state, *by_tag;
	catalog_state *states;

	luaL_checktype(L, 2, LUA_TTABLE);
	by_state = lua_newuserdatauv(L, (cat->nstates + 1) * sizeof (uint32_t),
	    0);
	by_tag = lua_newuserdatauv(L, (ntags + 1) * sizeof (uint32_t), 0);
	for (i = 0; i < cat->nstates; i++)
		by_state[i] = i;
	for (i = 0; i < ntags; i++)
		by_tag[i] = cat->tags[i].state;
	/* Check everything before allocating what an error would leak. */
	lua_pushnil(L);
	while (lua_next(L, 2) != 0) {
		size_t len;
		const char *c;
		color col;

		if (lua_type(L, -2) != LUA_TSTRING)
			return (luaL_error(L, "recolor takes state names as "
			    "keys"));
		state_value(L, cat, lua_tostring(L, -2));
		c = luaL_checklstring(L, -1, &len);
		if (!color_parse(c, len, &col))
			return (luaL_error(L, "\"%s\" is not a colour: use "
			    "#rrggbb or a CSS colour name", c));
		lua_pop(L, 1);
	}
	states = catalog_copy_states(cat);
	lua_pushnil(L);
	while (lua_next(L, 2) != 0) {
		size_t len;
		const char *c = lua_tolstring(L, -1, &len);
		uint32_t v = (uint32_t)catalog_state_by_name(cat,
		    lua_tostring(L, -2));

		color_parse(c, len, &states[v].color);
		free(states[v].color_text);
		states[v].color_text = strdup(c);
		lua_pop(L, 1);
	}
	push_trace(L, trace_derive(d, states, cat->nstates, by_state,
	    by_tag));
	return (1);
}

/*
 * Whether entity i is selected by the argument at idx: a POSIX extended
 * regex (as -f) matched against its name, or a function of the entity.
 */
static int
selected(lua_State *L, int idx, const regex_t *re, uint32_t i)
{
	int r;

	if (re != NULL) {
		trace *d = check_trace(L, 1);

		return (regexec(re, catalog_entity_name(d->cat, i, NULL), 0, NULL,
		    0) == 0);
	}
	lua_pushvalue(L, idx);
	push_entity(L, 1, i);
	lua_call(L, 1, 1);
	r = lua_toboolean(L, -1);
	lua_pop(L, 1);
	return (r);
}

/* Regexes are compiled into a userdata whose __gc frees them. */
static int
regex_gc(lua_State *L)
{
	regfree(luaL_checkudata(L, 1, "statemap.regex"));
	return (0);
}

static regex_t *
check_selector(lua_State *L, int idx)
{
	regex_t *re;
	int rc;

	if (lua_type(L, idx) == LUA_TFUNCTION)
		return (NULL);
	luaL_checktype(L, idx, LUA_TSTRING);
	re = lua_newuserdatauv(L, sizeof (regex_t), 0);
	if ((rc = regcomp(re, lua_tostring(L, idx), REG_EXTENDED |
	    REG_NOSUB)) != 0) {
		char msg[256];

		regerror(rc, re, msg, sizeof (msg));
		return (luaL_error(L, "bad pattern \"%s\": %s",
		    lua_tostring(L, idx), msg), NULL);
	}
	if (luaL_newmetatable(L, "statemap.regex")) {
		lua_pushcfunction(L, regex_gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_setmetatable(L, -2);
	return (re);
}

static int
keep_or_drop(lua_State *L, int keep)
{
	trace *d = check_trace(L, 1);
	uint32_t i, n = catalog_nentities(d->cat), k = 0;
	regex_t *re = check_selector(L, 2);
	uint32_t *ids = lua_newuserdatauv(L, (n + 1) * sizeof (uint32_t), 0);

	for (i = 0; i < n; i++) {
		if (selected(L, 2, re, i) == keep)
			ids[k++] = i;
	}
	push_trace(L, trace_select(d, ids, k, NULL, NULL));
	return (1);
}

/* t:keep(regex or function(entity)) -> a trace of the entities that match */
static int
t_keep(lua_State *L)
{
	return (keep_or_drop(L, 1));
}

/* t:drop(regex or function(entity)) -> a trace without those entities */
static int
t_drop(lua_State *L)
{
	return (keep_or_drop(L, 0));
}

/*
 * t:rename(function(entity) or {old = new}) -> a trace with entities
 * renamed (nil keeps a name); two entities may not end up with one name.
 */
static int
t_rename(lua_State *L)
{
	trace *d = check_trace(L, 1);
	uint32_t i, n = catalog_nentities(d->cat);
	const char **names;
	size_t *lens;
	uint32_t *ids;
	int fn = lua_type(L, 2) == LUA_TFUNCTION, list;
	trace *nd;

	if (!fn)
		luaL_checktype(L, 2, LUA_TTABLE);
	names = lua_newuserdatauv(L, (n + 1) * sizeof (char *), 0);
	lens = lua_newuserdatauv(L, (n + 1) * sizeof (size_t), 0);
	ids = lua_newuserdatauv(L, (n + 1) * sizeof (uint32_t), 0);
	lua_createtable(L, (int)n, 0);	/* keeps the new names alive */
	list = lua_gettop(L);
	for (i = 0; i < n; i++) {
		size_t len;
		const char *old = catalog_entity_name(d->cat, i, &len);

		if (fn) {
			lua_pushvalue(L, 2);
			push_entity(L, 1, i);
			lua_call(L, 1, 1);
		} else {
			lua_pushlstring(L, old, len);
			lua_gettable(L, 2);
		}
		if (lua_isnil(L, -1)) {
			lua_pop(L, 1);
			lua_pushlstring(L, old, len);
		} else if (lua_type(L, -1) != LUA_TSTRING) {
			return (luaL_error(L, "new name for entity \"%s\" "
			    "is a %s, not a string", old,
			    luaL_typename(L, -1)));
		}
		names[i] = lua_tolstring(L, -1, &lens[i]);
		lua_rawseti(L, list, (lua_Integer)i + 1);
		ids[i] = i;
	}
	if ((nd = trace_select(d, ids, n, names, lens)) == NULL)
		return (luaL_error(L, "rename gives two entities the same "
		    "name"));
	push_trace(L, nd);
	return (1);
}

/* t:slice(from, to) -> a trace whose window is [from, to) within this one */
static int
t_slice(lua_State *L)
{
	trace *d = check_trace(L, 1), *nd;
	uint64_t from = check_time(L, 2), to = check_time(L, 3);
	uint32_t i, n = catalog_nentities(d->cat);
	uint32_t *ids;

	if (from < d->begin)
		from = d->begin;
	if (to > d->end)
		to = d->end;
	if (to <= from)
		return (luaL_error(L, "slice [%I, %I) is empty within the "
		    "trace's window [%I, %I)", (lua_Integer)from,
		    (lua_Integer)to, (lua_Integer)d->begin,
		    (lua_Integer)d->end));
	ids = lua_newuserdatauv(L, (n + 1) * sizeof (uint32_t), 0);
	for (i = 0; i < n; i++)
		ids[i] = i;
	nd = trace_select(d, ids, n, NULL, NULL);
	nd->begin = from;
	nd->end = to;
	store_finish(nd->st, from, to);
	push_trace(L, nd);
	return (1);
}

/*
 * t:count(states [, name]) -> a trace with one entity (default "count")
 * whose state is how many entities are in any of the named states: its
 * states are "0" to the number of entities.
 */
static int
t_count(lua_State *L)
{
	trace *d = check_trace(L, 1);
	size_t len, i, n;
	const char *name = luaL_optlstring(L, 3, "count", &len);
	unsigned char *counted;

	luaL_checktype(L, 2, LUA_TTABLE);
	counted = lua_newuserdatauv(L, d->cat->nstates + 1, 0);
	memset(counted, 0, d->cat->nstates + 1);
	n = lua_rawlen(L, 2);
	if (n == 0)
		return (luaL_error(L, "count needs a list of states"));
	for (i = 1; i <= n; i++) {
		lua_rawgeti(L, 2, (lua_Integer)i);
		counted[state_value(L, d->cat, luaL_checkstring(L, -1))] = 1;
		lua_pop(L, 1);
	}
	if (catalog_nentities(d->cat) >= CATALOG_MAX_STATES)
		return (luaL_error(L, "count of more than %d entities",
		    CATALOG_MAX_STATES - 1));
	push_trace(L, trace_count(d, counted, name, len));
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
		r = natural_compare(ka, la, kb, lb);
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
	trace *d = check_trace(L, 1);
	uint32_t i, n = catalog_nentities(d->cat);
	int fn = lua_type(L, 2) == LUA_TFUNCTION, strings = 0;
	int64_t state = -1;
	uint64_t from, to, *times = NULL;
	sort_item *items;

	if (lua_type(L, 2) == LUA_TSTRING &&
	    strcmp(lua_tostring(L, 2), "name") != 0)
		state = state_value(L, d->cat, lua_tostring(L, 2));
	else if (!fn && !lua_isnoneornil(L, 2) &&
	    lua_type(L, 2) != LUA_TSTRING)
		luaL_typeerror(L, 2, "nil, \"name\", a state name or a "
		    "function");
	from = opt_time(L, 3, d->begin);
	to = opt_time(L, 4, d->end);
	items = lua_newuserdatauv(L, (n + 1) * sizeof (sort_item), 0);
	lua_newtable(L);	/* string keys, by ref */
	if (state >= 0 && (times = calloc(d->cat->nstates,
	    sizeof (uint64_t))) == NULL)
		return (luaL_error(L, "out of memory"));
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
			push_entity(L, 1, i);
			lua_call(L, 1, 1);
			if (lua_type(L, -1) == LUA_TNUMBER) {
				it->key = (double)lua_tonumber(L, -1);
			} else if (lua_type(L, -1) == LUA_TSTRING) {
				strings = 1;
				lua_rawseti(L, -2, (lua_Integer)i + 1);
				it->key_ref = (int)i + 1;
				continue;
			} else {
				free(times);
				return (luaL_error(L, "sort key for entity "
				    "\"%s\" is a %s; keys are numbers or "
				    "strings", it->name, luaL_typename(L, -1)));
			}
			lua_pop(L, 1);
		}
	}
	free(times);
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
		push_entity(L, 1, items[i].id);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return (1);
}

/* ---- grouping, count series and events ---- */

/*
 * t:group(key [, priority]) -> a trace with one entity per group.  key is
 * a function of an entity returning the group's name (nil leaves the
 * entity out) or a table {entity name = group name}.  A group is in the
 * first state of `priority` (state names) that any member is in; states
 * it does not list come after, in value order.
 */
static int
t_group(lua_State *L)
{
	trace *d = check_trace(L, 1);
	uint32_t n = catalog_nentities(d->cat), ns = d->cat->nstates, i;
	uint32_t *group_of, *rank, ngroups = 0, next_rank = 0;
	const char **names;
	size_t *lens;
	int groups;

	if (!lua_isfunction(L, 2) && !lua_istable(L, 2))
		return (luaL_typeerror(L, 2, "function or table"));
	if (!lua_isnoneornil(L, 3))
		luaL_checktype(L, 3, LUA_TTABLE);
	lua_settop(L, 3);
	group_of = lua_newuserdatauv(L, (n + 1) * sizeof (uint32_t), 0);
	names = lua_newuserdatauv(L, (n + 1) * sizeof (char *), 0);
	lens = lua_newuserdatauv(L, (n + 1) * sizeof (size_t), 0);
	rank = lua_newuserdatauv(L, (ns + 1) * sizeof (uint32_t), 0);
	lua_newtable(L);	/* group name -> group number */
	groups = lua_gettop(L);
	for (i = 0; i < n; i++) {
		if (lua_isfunction(L, 2)) {
			lua_pushvalue(L, 2);
			push_entity(L, 1, i);
			lua_call(L, 1, 1);
		} else {
			size_t len;
			const char *name = catalog_entity_name(d->cat, i, &len);

			lua_pushlstring(L, name, len);
			lua_gettable(L, 2);
		}
		group_of[i] = UINT32_MAX;
		if (lua_isnil(L, -1)) {
			lua_pop(L, 1);
			continue;
		}
		if (lua_type(L, -1) != LUA_TSTRING &&
		    lua_type(L, -1) != LUA_TNUMBER)
			return (luaL_error(L, "group: the key of entity \"%s\" "
			    "is a %s, not a name", catalog_entity_name(d->cat, i,
			    NULL), luaL_typename(L, -1)));
		lua_tostring(L, -1);	/* numbers name groups too */
		lua_pushvalue(L, -1);
		lua_rawget(L, groups);
		if (lua_isnil(L, -1)) {
			lua_pop(L, 1);
			names[ngroups] = lua_tolstring(L, -1, &lens[ngroups]);
			lua_pushvalue(L, -1);
			lua_pushinteger(L, ngroups);
			lua_rawset(L, groups);
			/* The name stays alive as a key of `groups`. */
			group_of[i] = ngroups++;
		} else {
			group_of[i] = (uint32_t)lua_tointeger(L, -1);
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
	for (i = 0; i < ns; i++)
		rank[i] = UINT32_MAX;
	if (!lua_isnil(L, 3)) {
		size_t k, np = lua_rawlen(L, 3);

		for (k = 1; k <= np; k++) {
			uint32_t s;

			lua_rawgeti(L, 3, (lua_Integer)k);
			s = state_value(L, d->cat, luaL_checkstring(L, -1));
			if (rank[s] == UINT32_MAX)
				rank[s] = next_rank++;
			lua_pop(L, 1);
		}
	}
	for (i = 0; i < ns; i++)
		if (rank[i] == UINT32_MAX)
			rank[i] = next_rank++;
	push_trace(L, trace_group(d, group_of, ngroups, names, lens,
	    rank));
	return (1);
}

/*
 * t:count_series(states [, from, to]) -> { {time=, count=}, ... }: how
 * many entities are in any of `states`, at from and at each change.
 */
static int
t_count_series(lua_State *L)
{
	trace *d = check_trace(L, 1), *c;
	uint64_t from, to;
	unsigned char *counted;
	size_t i, n;
	store_iter it;
	store_interval iv;
	uint32_t zero = 0;
	lua_Integer k = 0;

	luaL_checktype(L, 2, LUA_TTABLE);
	from = opt_time(L, 3, d->begin);
	to = opt_time(L, 4, d->end);
	counted = lua_newuserdatauv(L, d->cat->nstates + 1, 0);
	memset(counted, 0, d->cat->nstates + 1);
	n = lua_rawlen(L, 2);
	if (n == 0)
		return (luaL_error(L, "count_series needs a list of states"));
	for (i = 1; i <= n; i++) {
		lua_rawgeti(L, 2, (lua_Integer)i);
		counted[state_value(L, d->cat, luaL_checkstring(L, -1))] = 1;
		lua_pop(L, 1);
	}
	c = trace_count(d, counted, "count", 5);
	lua_newtable(L);
	store_iter_init(&it, c->st, &zero, 1, from, to);
	while (store_iter_next(&it, &iv)) {
		lua_createtable(L, 0, 2);
		lua_pushinteger(L, (lua_Integer)iv.start);
		lua_setfield(L, -2, "time");
		lua_pushinteger(L, (lua_Integer)iv.state);
		lua_setfield(L, -2, "count");
		lua_rawseti(L, -2, ++k);
	}
	trace_free(c);
	return (1);
}

/* Upvalues of the events iterator. */
enum { EV_TRACE = 1, EV_NEXT, EV_FROM, EV_TO, EV_ENTITIES, EV_KINDS };

static int
in_set(lua_State *L, int set, const char *s, size_t len)
{
	int found;

	if (lua_isnil(L, lua_upvalueindex(set)))
		return (1);
	lua_pushlstring(L, s, len);
	found = lua_rawget(L, lua_upvalueindex(set)) != LUA_TNIL;
	lua_pop(L, 1);
	return (found);
}

static int
events_next(lua_State *L)
{
	trace *d = check_trace(L, lua_upvalueindex(EV_TRACE));
	const catalog *cat = d->cat;
	lua_Integer i = lua_tointeger(L, lua_upvalueindex(EV_NEXT));
	uint64_t from = (uint64_t)lua_tointeger(L, lua_upvalueindex(EV_FROM));
	uint64_t to = (uint64_t)lua_tointeger(L, lua_upvalueindex(EV_TO));

	for (; (size_t)i < cat->nevents; i++) {
		const catalog_event *ev = &cat->events[i];
		size_t elen, klen;
		const char *ename = intern_name(cat->event_entities, ev->entity,
		    &elen);
		const char *kname = intern_name(cat->event_kinds, ev->kind,
		    &klen);

		if (ev->time < from || ev->time >= to ||
		    !in_set(L, EV_ENTITIES, ename, elen) ||
		    !in_set(L, EV_KINDS, kname, klen))
			continue;
		lua_pushinteger(L, i + 1);
		lua_replace(L, lua_upvalueindex(EV_NEXT));
		lua_createtable(L, 0, 4);
		lua_pushinteger(L, (lua_Integer)ev->time);
		lua_setfield(L, -2, "time");
		lua_pushlstring(L, ename, elen);
		lua_setfield(L, -2, "entity");
		lua_pushlstring(L, kname, klen);
		lua_setfield(L, -2, "event");
		if (ev->target != CATALOG_NO_ENTITY) {
			const char *t = intern_name(cat->event_entities,
			    ev->target, &elen);

			lua_pushlstring(L, t, elen);
			lua_setfield(L, -2, "target");
		}
		return (1);
	}
	lua_pushinteger(L, i);
	lua_replace(L, lua_upvalueindex(EV_NEXT));
	return (0);
}

/* A list of names (or entities) as a set {name = true}, or nil. */
static void
push_name_set(lua_State *L, int opts, const char *key)
{
	size_t i, n;

	lua_getfield(L, opts, key);
	if (lua_isnil(L, -1))
		return;
	if (!lua_istable(L, -1))
		luaL_error(L, "events: %s must be a list of names", key);
	n = lua_rawlen(L, -1);
	lua_createtable(L, 0, (int)n);
	for (i = 1; i <= n; i++) {
		lua_rawgeti(L, -2, (lua_Integer)i);
		if (lua_type(L, -1) == LUA_TUSERDATA) {
			lua_getfield(L, -1, "name");
			lua_remove(L, -2);
		}
		if (lua_type(L, -1) != LUA_TSTRING)
			luaL_error(L, "events: %s must be a list of names",
			    key);
		lua_pushboolean(L, 1);
		lua_rawset(L, -3);
	}
	lua_remove(L, -2);
}

/*
 * t:events{from=, to=, entities=, events=} -> an iterator over the
 * event records in file order, as {time=, entity=, event=, target=}.
 */
static int
t_events(lua_State *L)
{
	trace *d = check_trace(L, 1);

	if (!lua_isnoneornil(L, 2))
		luaL_checktype(L, 2, LUA_TTABLE);
	else
		lua_newtable(L);
	lua_settop(L, 2);
	lua_pushvalue(L, 1);
	lua_pushinteger(L, 0);
	lua_getfield(L, 2, "from");
	lua_pushinteger(L, (lua_Integer)(lua_isnil(L, -1) ? d->begin :
	    check_time(L, lua_gettop(L))));
	lua_remove(L, -2);
	lua_getfield(L, 2, "to");
	lua_pushinteger(L, (lua_Integer)(lua_isnil(L, -1) ? d->end :
	    check_time(L, lua_gettop(L))));
	lua_remove(L, -2);
	push_name_set(L, 2, "entities");
	push_name_set(L, 2, "events");
	lua_pushcclosure(L, events_next, 6);
	return (1);
}

static const luaL_Reg trace_methods[] = {
	{ "group", t_group },
	{ "count_series", t_count_series },
	{ "events", t_events },
	{ "sorted", t_sorted },
	{ "map", t_map },
	{ "map_intervals", t_map_intervals },
	{ "recolor", t_recolor },
	{ "keep", t_keep },
	{ "drop", t_drop },
	{ "rename", t_rename },
	{ "slice", t_slice },
	{ "count", t_count },
	{ "entities", t_entities },
	{ "entity", t_entity },
	{ "at", t_at },
	{ "time_in", t_time_in },
	{ "count_at", t_count_at },
	{ "intervals", t_intervals },
	{ NULL, NULL }
};

/* Fields are computed on access; anything else is a method. */
static int
trace_index(lua_State *L)
{
	trace *d = check_trace(L, 1);
	const char *k = luaL_checkstring(L, 2);

	if (strcmp(k, "title") == 0)
		push_opt_string(L, d->cat->title);
	else if (strcmp(k, "host") == 0)
		push_opt_string(L, d->cat->host);
	else if (strcmp(k, "entity_kind") == 0)
		push_opt_string(L, d->cat->entity_kind);
	else if (strcmp(k, "name") == 0)
		lua_pushstring(L, d->cat->name);
	else if (strcmp(k, "start") == 0)
		lua_pushinteger(L, (lua_Integer)catalog_start_ns(d->cat));
	else if (strcmp(k, "begin") == 0)
		lua_pushinteger(L, (lua_Integer)d->begin);
	else if (strcmp(k, "finish") == 0)
		lua_pushinteger(L, (lua_Integer)d->end);
	else if (strcmp(k, "states") == 0)
		push_states(L, d->cat);
	else if (strcmp(k, "records") == 0)
		lua_pushinteger(L, (lua_Integer)d->cat->nrecords);
	else if (strcmp(k, "transitions") == 0)
		lua_pushinteger(L, (lua_Integer)store_total(d->st));
	else {
		luaL_getmetafield(L, 1, "methods");
		lua_getfield(L, -1, k);
	}
	return (1);
}

/* ---- the entity ---- */

static trace *
entity_trace(lua_State *L, int idx, uint32_t *id)
{
	lentity *e = luaL_checkudata(L, idx, ENTITY_MT);
	trace *d;

	lua_getiuservalue(L, idx, 1);
	d = check_trace(L, -1);
	lua_pop(L, 1);
	*id = e->id;
	return (d);
}

/* e:at(time) -> state, tag, start, finish; or nil */
static int
e_at(lua_State *L)
{
	uint32_t id;
	trace *d = entity_trace(L, 1, &id);
	store_interval iv;

	if (!store_state_at(d->st, id, check_time(L, 2), &iv))
		return (0);
	push_state(L, d->cat, iv.state);
	push_tag(L, d->cat, iv.tag);
	lua_pushinteger(L, (lua_Integer)iv.start);
	lua_pushinteger(L, (lua_Integer)iv.end);
	return (4);
}

/* e:time_in([from, to]) -> {state name = ns} */
static int
e_time_in(lua_State *L)
{
	uint32_t id;
	trace *d = entity_trace(L, 1, &id);

	return (push_time_in(L, d, id));
}

/*
 * e:stats([from, to]) -> {min=, max=, mean=} of an entity whose state
 * names are numbers (a counting entity): the mean is weighted by time.
 * Nothing is returned if the entity has no state in the range.
 */
static int
e_stats(lua_State *L)
{
	uint32_t id;
	trace *d = entity_trace(L, 1, &id);
	uint64_t from = opt_time(L, 2, d->begin), to = opt_time(L, 3, d->end);
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
	trace *d = entity_trace(L, 1, &id);

	lua_pushfstring(L, "<entity \"%s\": %I transitions>",
	    catalog_entity_name(d->cat, id, NULL),
	    (lua_Integer)store_count(d->st, id));
	return (1);
}

static int
entity_eq(lua_State *L)
{
	uint32_t a, b;
	trace *da = entity_trace(L, 1, &a), *db = entity_trace(L, 2, &b);

	lua_pushboolean(L, da == db && a == b);
	return (1);
}

static const luaL_Reg entity_methods[] = {
	{ "at", e_at },
	{ "time_in", e_time_in },
	{ "stats", e_stats },
	{ NULL, NULL }
};

static int
entity_index(lua_State *L)
{
	uint32_t id;
	trace *d = entity_trace(L, 1, &id);
	const char *k = luaL_checkstring(L, 2);
	size_t len;

	if (strcmp(k, "name") == 0) {
		const char *name = catalog_entity_name(d->cat, id, &len);

		lua_pushlstring(L, name, len);
	} else if (strcmp(k, "description") == 0) {
		push_opt_string(L, d->cat->descriptions[id]);
	} else if (strcmp(k, "transitions") == 0) {
		lua_pushinteger(L, (lua_Integer)store_count(d->st, id));
	} else {
		luaL_getmetafield(L, 1, "methods");
		lua_getfield(L, -1, k);
	}
	return (1);
}

/* ---- registration ---- */

static void
new_class(lua_State *L, const char *name, const luaL_Reg *methods,
    lua_CFunction index, lua_CFunction tostring, lua_CFunction gc)
{
	luaL_newmetatable(L, name);
	lua_newtable(L);
	luaL_setfuncs(L, methods, 0);
	lua_setfield(L, -2, "methods");
	lua_pushcfunction(L, index);
	lua_setfield(L, -2, "__index");
	if (tostring != NULL) {
		lua_pushcfunction(L, tostring);
		lua_setfield(L, -2, "__tostring");
	}
	if (gc != NULL) {
		lua_pushcfunction(L, gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_pop(L, 1);
}

static int
no_index(lua_State *L)
{
	return (luaL_error(L, "an interval iterator has no fields"));
}

void
lua_trace_open(lua_State *L)
{
	static const luaL_Reg no_methods[] = { { NULL, NULL } };

	new_class(L, TRACE_MT, trace_methods, trace_index, trace_tostring,
	    trace_gc);
	new_class(L, ENTITY_MT, entity_methods, entity_index,
	    entity_tostring, NULL);
	luaL_getmetatable(L, ENTITY_MT);
	lua_pushcfunction(L, entity_eq);
	lua_setfield(L, -2, "__eq");
	lua_pop(L, 1);
	new_class(L, ITER_MT, no_methods, no_index, NULL, intervals_gc);
	lua_pushcfunction(L, f_load);
	lua_setfield(L, -2, "load");
}
