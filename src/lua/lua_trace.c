/*
 * lua_trace.c: the trace object: statemap.load, the fields and queries of
 * a trace (its transforms are lua_transform.c, its intervals
 * lua_intervals.c), and what the other object files share.
 *
 * A trace is a userdata holding a C trace (trace.h).  Every query is one
 * call into the store: scripts run at C speed and Lua sees only results.
 */
#include "lua/lua_trace.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "base/duration.h"
#include "base/intern.h"
#include "lua/lua_args.h"
#include "lua/lua_reduce.h"
#include "lua/lua_entity.h"
#include "lua/lua_flows.h"
#include "lua/lua_intervals.h"
#include "lua/lua_json.h"
#include "lua/lua_merge_traces.h"
#include "lua/lua_object.h"
#include "lua/lua_statesys.h"
#include "lua/lua_count_series.h"
#include "lua/lua_transform.h"
#include "base/natural.h"
#include "base/runlimit.h"
#include "store/snapshot.h"
#include "base/utf8.h"
#include "base/util.h"

#define TRACE_MT	"statemap.trace"

/*
 * t:at keeps where it found each entity last (snapshot.h) and a buffer
 * for the states, made at its first call; its user value holds the
 * entities' and states' names as Lua strings, made once, so that an
 * answer costs no string and no allocation but its table.
 */
typedef struct ltrace {
	lua_object_head head;
	trace *d;
	size_t charged;		/* its memory, counted against the limit */
	snapshot_cursor at;	/* t:at: where each entity was found */
	uint32_t *at_states;	/* t:at: the states found (NULL at first) */
	int at_busy;		/* t:at is filling at_states */
} ltrace;

/* The user value's fields: lists of names, by id + 1. */
enum { NAMES_ENTITIES = 1, NAMES_STATES };

/* ---- arguments ---- */

trace *
lua_trace_check(lua_State *L, int idx)
{
	return (((ltrace *)lua_object_check(L, idx, TRACE_MT))->d);
}

trace *
lua_trace_test(lua_State *L, int idx)
{
	ltrace *t = lua_object_test(L, idx, TRACE_MT);

	return (t != NULL ? t->d : NULL);
}

/* The value of the state named by the string at idx. */
uint32_t
lua_trace_state(lua_State *L, const catalog *cat, int idx)
{
	size_t len;
	const char *name = luaL_checklstring(L, idx, &len);
	int64_t s = catalog_state_by_name(cat, name, len);

	if (s < 0)
		luaL_error(L, "no state \"%s\" in trace %s", name, cat->name);
	return ((uint32_t)s);
}

/*
 * The states named in the list at idx, as one flag per state (scratch
 * memory on the stack): count's and count_series's argument.
 */
const unsigned char *
lua_trace_state_set(lua_State *L, const catalog *cat, int idx,
    const char *what)
{
	unsigned char *set;
	size_t i, n;

	luaL_checktype(L, idx, LUA_TTABLE);
	n = lua_rawlen(L, idx);
	if (n == 0)
		luaL_error(L, "%s needs a list of states", what);
	set = lua_object_scratch(L, cat->nstates, 1);
	for (i = 1; i <= n; i++) {
		lua_rawgeti(L, idx, (lua_Integer)i);
		set[lua_trace_state(L, cat, -1)] = 1;
		lua_pop(L, 1);
	}
	return (set);
}

uint32_t
lua_trace_entity_id(lua_State *L, const trace *d, int idx)
{
	size_t len;
	const char *name;
	uint32_t id;

	if (lua_type(L, idx) == LUA_TUSERDATA) {
		const trace *owner = lua_entity_check(L, idx, &id);

		if (owner == d)
			return (id);
		/* An entity of another trace (say the one this was derived
		 * from) stands for the entity of the same name here. */
		name = intern_name(owner->cat->entities, id, &len);
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

void
lua_trace_push_state(lua_State *L, const catalog *cat, uint32_t s)
{
	lua_pushlstring(L, cat->states[s].name, cat->states[s].name_len);
}

void
lua_trace_push_tag(lua_State *L, const catalog *cat, uint32_t tag)
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
void
lua_trace_push_state_times(lua_State *L, const catalog *cat,
    const uint64_t *times)
{
	uint32_t s;

	lua_createtable(L, 0, (int)cat->nstates);
	for (s = 0; s < cat->nstates; s++) {
		lua_trace_push_state(L, cat, s);
		lua_pushinteger(L, (lua_Integer)times[s]);
		lua_settable(L, -3);
	}
}

static int
new_object(lua_State *L)
{
	lua_object_new(L, TRACE_MT, sizeof (ltrace), 1);
	return (1);
}

/*
 * Pushes a trace object for d, which it then owns; its store is charged
 * (lua_object_charge) for as long as the trace lives.
 */
void
lua_trace_push(lua_State *L, trace *d)
{
	ltrace *t;

	/* Made under pcall: without memory for it, d is freed, not lost. */
	lua_pushcfunction(L, new_object);
	if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
		trace_free(d);
		lua_error(L);
	}
	t = lua_touserdata(L, -1);
	t->d = d;
	t->charged = store_memory(d->st);
	lua_object_charge(L, t->charged);
}

/* ---- statemap.load ---- */

static int64_t
field_time(lua_State *L, int opts, const char *key, int *given)
{
	int64_t v;

	lua_getfield(L, opts, key);
	*given = !lua_isnil(L, -1);
	v = *given ? (int64_t)lua_args_check_time(L, lua_gettop(L)) : 0;
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
	int have_b = 0, have_e = 0, have_d = 0;
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
		if (!lua_isnil(L, -1))
			o.filter = lua_args_regex(L, luaL_checkstring(L, -1),
			    "filter");
	}
	if (have_d) {
		if (have_b && have_e)
			return (luaL_error(L, "give at most two of begin, "
			    "end and duration"));
		if (have_e) {
			if (dur > o.end)
				return (luaL_error(L, "duration exceeds end"));
			o.begin = o.end - dur;
		} else {
			if (dur > INT64_MAX - o.begin)
				return (luaL_error(L, "begin plus duration is "
				    "beyond 2^63 ns"));
			o.end = o.begin + dur;
		}
	}
	if (o.end != 0 && o.end <= o.begin)
		return (luaL_error(L, "begin must be before end"));

	d = trace_load(path, &o, &err);
	if (d == NULL) {
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "%s", msg));
	}
	lua_trace_push(L, d);
	return (1);
}

/* ---- the trace ---- */

/*
 * Whether the running C function was called by the collector, as a
 * finalizer.  The debug library reaches a trace's __gc too
 * (debug.getmetatable(t).__gc(t)), and could call it from a function
 * that a method of that very trace is calling, which would go on with
 * freed memory.  Lua names a function the collector runs as a finalizer
 * "__gc" with namewhat "metamethod" (Lua 5.4's lua_getinfo); a call by
 * hand gets another name, or none.
 */
static int
called_by_collector(lua_State *L)
{
	lua_Debug ar;

	return (lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) &&
	    ar.namewhat != NULL && strcmp(ar.namewhat, "metamethod") == 0 &&
	    ar.name != NULL && strcmp(ar.name, "__gc") == 0);
}

static int
trace_gc(lua_State *L)
{
	ltrace *t = luaL_checkudata(L, 1, TRACE_MT);

	if (!called_by_collector(L))
		return (luaL_error(L, "a trace is finalized by the collector, "
		    "not by hand"));
	/* The live server (statemap.serve) may hold it too. */
	trace_release(t->d);
	t->d = NULL;
	t->head.finalized = 1;	/* lua_trace_check refuses it from now on */
	if (t->at_states != NULL)
		snapshot_cursor_free(&t->at);
	free(t->at_states);
	t->at_states = NULL;
	runlimit_credit(t->charged);
	t->charged = 0;
	return (0);
}

static int
trace_tostring(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	const char *title = d->cat->title != NULL ? d->cat->title :
	    d->cat->name;
	char span[64];

	duration_format(d->end - d->begin, span, sizeof (span));
	lua_object_push_quoted(L, title, strlen(title));
	lua_pushfstring(L, "<trace %s: %d entities, %d states, %I "
	    "transitions, %s>", lua_tostring(L, -1),
	    (int)catalog_nentities(d->cat), (int)d->cat->nstates,
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
		lua_trace_push_state(L, cat, s);
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
	trace *d = lua_trace_check(L, 1);
	uint32_t i, n = catalog_nentities(d->cat);

	if (!lua_isnoneornil(L, 2))
		return (lua_statesys_entities(L));
	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		lua_entity_push(L, 1, i);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return (1);
}

/* t:entity(name) -> the entity; an error if there is none */
static int
t_entity(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);

	lua_entity_push(L, 1, lua_trace_entity_id(L, d, 2));
	return (1);
}

/*
 * Pushes the trace object's lists of entity and state names (made at the
 * first call): at the top, the entities' below the states'.
 */
static void
push_names(lua_State *L, int idx, const trace *d)
{
	uint32_t i, n;

	if (lua_getiuservalue(L, idx, 1) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_createtable(L, 2, 0);
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
			lua_trace_push_state(L, d->cat, i);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		lua_rawseti(L, -2, NAMES_STATES);
		lua_pushvalue(L, -1);
		lua_setiuservalue(L, idx, 1);
	}
	lua_rawgeti(L, -1, NAMES_ENTITIES);
	lua_rawgeti(L, -2, NAMES_STATES);
	lua_remove(L, -3);
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
	ltrace *lt = lua_touserdata(L, 1);
	uint64_t t = lua_args_check_time(L, 2);
	uint32_t e, n = store_nentities(d->st), have, *states;
	int en, sn, stacked, into = !lua_isnoneornil(L, 3);

	/* {intervals = true}, or a trace with values: lua_statesys.c. */
	if (into ? lua_statesys_wants_intervals(L, 3) :
	    store_values_total(d->st) > 0)
		return (lua_statesys_at(L));
	if (into)
		luaL_checktype(L, 3, LUA_TTABLE);
	lua_settop(L, 3);
	if (lt->at_states == NULL) {
		size_t bytes = ((size_t)n + 1) * sizeof (uint32_t);

		snapshot_cursor_init(&lt->at, d->st);
		lt->at_states = xcalloc((size_t)n + 1, sizeof (uint32_t));
		lt->charged += bytes;
		runlimit_charge(bytes);
	}
	/*
	 * Building the table may run finalizers, which may call t:at on
	 * this trace: such a call gets a buffer of its own.
	 */
	states = lt->at_busy ? lua_object_scratch(L, n, sizeof (uint32_t)) :
	    lt->at_states;
	have = snapshot_states(d->st, &lt->at, t, states);
	push_names(L, 1, d);
	en = lua_gettop(L) - 1;
	sn = en + 1;
	lt->at_busy = 1;
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
	lt->at_busy = 0;
	return (1);
}

/*
 * Pushes {state name = ns} for one entity (or STORE_NONE: all) over
 * [from, to), the optional arguments at 2 and 3 (default: the window).
 */
int
lua_trace_push_time_in(lua_State *L, trace *d, uint32_t entity)
{
	uint64_t from = lua_args_opt_time(L, 2, d->begin), to = lua_args_opt_time(L, 3, d->end);
	uint64_t *times = lua_object_scratch(L, d->cat->nstates, sizeof (uint64_t));

	store_time_in(d->st, entity, from, to, times);
	lua_trace_push_state_times(L, d->cat, times);
	return (1);
}

/* t:time_in([from, to]) -> {state name = ns} over all entities */
static int
t_time_in(lua_State *L)
{
	return (lua_trace_push_time_in(L, lua_trace_check(L, 1), STORE_NONE));
}

/* t:count_at(time) -> {state name = entities in it} */
static int
t_count_at(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint64_t t = lua_args_check_time(L, 2);
	uint64_t *counts = lua_object_scratch(L, d->cat->nstates, sizeof (uint64_t));

	store_count_at(d->st, t, counts);
	lua_trace_push_state_times(L, d->cat, counts);
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
	trace *d = lua_trace_check(L, 1);
	uint32_t i, n = catalog_nentities(d->cat);
	int fn = lua_type(L, 2) == LUA_TFUNCTION, strings = 0;
	int64_t state = -1;
	uint64_t from, to, *times = NULL;
	sort_item *items;

	if (lua_type(L, 2) == LUA_TSTRING &&
	    strcmp(lua_tostring(L, 2), "name") != 0)
		state = lua_trace_state(L, d->cat, 2);
	else if (!fn && !lua_isnoneornil(L, 2) &&
	    lua_type(L, 2) != LUA_TSTRING)
		luaL_typeerror(L, 2, "nil, \"name\", a state name or a "
		    "function");
	from = lua_args_opt_time(L, 3, d->begin);
	to = lua_args_opt_time(L, 4, d->end);
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

/* ---- events ---- */

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

/*
 * A message event's id, end (as `finish`, like an interval's) and other
 * members (as `fields`) into the record on the stack top.
 */
static void
push_event_extra(lua_State *L, const catalog *cat, const catalog_event *ev)
{
	size_t len;
	const char *s;
	uint64_t end = catalog_event_end(cat, ev);

	if ((s = catalog_event_id(cat, ev, &len)) != NULL) {
		lua_pushlstring(L, s, len);
		lua_setfield(L, -2, "id");
	}
	if (end != CATALOG_NO_END) {
		lua_pushinteger(L, (lua_Integer)end);
		lua_setfield(L, -2, "finish");
	}
	if ((s = catalog_event_members(cat, ev, &len)) != NULL) {
		lua_json_push_members_len(L, s, len);
		lua_setfield(L, -2, "fields");
	}
}

static int
events_next(lua_State *L)
{
	trace *d = lua_trace_check(L, lua_upvalueindex(EV_TRACE));
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
		push_event_extra(L, cat, ev);
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
	trace *d = lua_trace_check(L, 1);

	if (!lua_isnoneornil(L, 2))
		luaL_checktype(L, 2, LUA_TTABLE);
	else
		lua_newtable(L);
	lua_settop(L, 2);
	lua_pushvalue(L, 1);
	lua_pushinteger(L, 0);
	lua_getfield(L, 2, "from");
	lua_pushinteger(L, (lua_Integer)(lua_isnil(L, -1) ? d->begin :
	    lua_args_check_time(L, lua_gettop(L))));
	lua_remove(L, -2);
	lua_getfield(L, 2, "to");
	lua_pushinteger(L, (lua_Integer)(lua_isnil(L, -1) ? d->end :
	    lua_args_check_time(L, lua_gettop(L))));
	lua_remove(L, -2);
	push_name_set(L, 2, "entities");
	push_name_set(L, 2, "events");
	lua_pushcclosure(L, events_next, 6);
	return (1);
}

/* ---- fields and methods ---- */

static int
field_title(lua_State *L)
{
	push_opt_string(L, lua_trace_check(L, 1)->cat->title);
	return (1);
}

static int
field_host(lua_State *L)
{
	push_opt_string(L, lua_trace_check(L, 1)->cat->host);
	return (1);
}

static int
field_entity_kind(lua_State *L)
{
	push_opt_string(L, lua_trace_check(L, 1)->cat->entity_kind);
	return (1);
}

static int
field_name(lua_State *L)
{
	lua_pushstring(L, lua_trace_check(L, 1)->cat->name);
	return (1);
}

static int
field_start(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)catalog_start_ns(
	    lua_trace_check(L, 1)->cat));
	return (1);
}

static int
field_begin(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)lua_trace_check(L, 1)->begin);
	return (1);
}

static int
field_finish(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)lua_trace_check(L, 1)->end);
	return (1);
}

static int
field_states(lua_State *L)
{
	push_states(L, lua_trace_check(L, 1)->cat);
	return (1);
}

static int
field_records(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)lua_trace_check(L, 1)->cat->nrecords);
	return (1);
}

static int
field_transitions(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)store_total(lua_trace_check(L, 1)->st));
	return (1);
}

static const luaL_Reg trace_fields[] = {
	{ "title", field_title },
	{ "host", field_host },
	{ "entity_kind", field_entity_kind },
	{ "name", field_name },
	{ "start", field_start },
	{ "begin", field_begin },
	{ "finish", field_finish },
	{ "states", field_states },
	{ "records", field_records },
	{ "transitions", field_transitions },
	{ "tags", lua_statesys_field_tags },
	{ NULL, NULL }
};

static const luaL_Reg trace_methods[] = {
	{ "entities", t_entities },
	{ "entity", t_entity },
	{ "at", t_at },
	{ "time_in", t_time_in },
	{ "count_at", t_count_at },
	{ "sorted", t_sorted },
	{ "events", t_events },
	{ NULL, NULL }
};

void
lua_trace_open(lua_State *L)
{
	static const luaL_Reg metamethods[] = {
		{ "__tostring", trace_tostring },
		{ "__gc", trace_gc },
		{ NULL, NULL }
	};
	const luaL_Reg *methods[] = { trace_methods, lua_transform_methods,
	    lua_intervals_methods, lua_count_series_methods, lua_reduce_methods,
	    lua_flows_methods, lua_merge_traces_methods,
	    lua_statesys_trace_methods, NULL };
	const luaL_Reg *fields[] = { trace_fields, NULL };

	lua_object_class(L, TRACE_MT, methods, fields, metamethods);
	lua_entity_open(L);
	lua_intervals_open(L);
	lua_count_series_open(L);
	lua_reduce_open(L);
	lua_pushcfunction(L, f_load);
	lua_setfield(L, -2, "load");
}
