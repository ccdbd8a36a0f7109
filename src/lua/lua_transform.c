/*
 * lua_transform.c: the trace methods that make new traces (t:map,
 * t:map_intervals, t:recolor, t:keep, t:drop, t:rename, t:slice,
 * t:count, t:group).  Each asks its questions of the
 * script in Lua (a mapping function is called once per state and tag,
 * not per transition, but for map_intervals), then transform.h does the
 * work over every transition in C.
 */
#include "lua/lua_transform.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "lua/lua_args.h"
#include "lua/lua_catalog.h"
#include "lua/lua_entity.h"
#include "lua/lua_object.h"
#include "lua/lua_trace.h"
#include "trace/transform.h"

/* Pushes the trace a transform made, or raises why it could not,
 * naming the method (fname, as "t:map"). */
static int
push_made(lua_State *L, trace *nd, const char *why, const char *fname)
{
	if (nd == NULL)
		return (luaL_error(L, "%s: %s", fname, why));
	lua_trace_push(L, nd);
	return (1);
}

/*
 * The new state value for the name on the stack top: the one it already
 * has, or the next.  New states live in Lua tables until every call of
 * the mapping function is done, so an error there leaks nothing: names
 * (at index `names`) maps name -> value + 1, order (at `order`) lists
 * the names by value.
 */
static uint32_t
mapped_state(lua_State *L, int names, int order, uint32_t *n,
    const char *fname)
{
	uint32_t v;

	lua_pushvalue(L, -1);
	if (lua_rawget(L, names) == LUA_TNUMBER) {
		v = (uint32_t)lua_tointeger(L, -1) - 1;
		lua_pop(L, 1);
		return (v);
	}
	lua_pop(L, 1);
	{
		size_t len;

		lua_pushfstring(L, "%s: a state name the function returned",
		    fname);
		lua_args_check_name(L, -2, &len, lua_tostring(L, -1));
		lua_pop(L, 1);
	}
	if (*n >= STORE_MAX_STATES)
		luaL_error(L, "%s: the function makes more than %d states",
		    fname, STORE_MAX_STATES);
	v = (*n)++;
	lua_pushvalue(L, -1);
	lua_pushinteger(L, (lua_Integer)v + 1);
	lua_rawset(L, names);
	lua_pushvalue(L, -1);
	lua_rawseti(L, order, (lua_Integer)v + 1);
	return (v);
}

/*
 * Calls the mapping function (below its nargs arguments on the stack) for
 * a transition in `state`; leaves the new state's name, the old one's if
 * the function said nil.  fname names the method for the error.
 */
static void
call_mapping(lua_State *L, const catalog *cat, uint32_t state, int nargs,
    const char *fname)
{
	lua_call(L, nargs, 1);
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		lua_catalog_push_state(L, cat, state);
	} else if (lua_type(L, -1) != LUA_TSTRING) {
		luaL_error(L, "%s: the function returned a %s; it must return "
		    "a state name (a string) or nil to keep the state", fname,
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

	states = xcalloc(nnew + 1, sizeof (catalog_state));
	for (i = 0; i < nnew; i++) {
		size_t len;
		const char *name;
		int64_t old;

		lua_rawgeti(L, order, (lua_Integer)i + 1);
		name = lua_tolstring(L, -1, &len);
		states[i].name = xstrndup(name, len);
		states[i].name_len = len;
		if ((old = catalog_state_by_name(cat, name, len)) >= 0) {
			states[i].color = cat->states[old].color;
			states[i].color_text = xstrdup_or_null(
			    cat->states[old].color_text);
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
	trace *d = lua_trace_check(L, 1), *nd;
	const char *why;
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
		lua_catalog_push_state(L, cat, i);
		lua_pushnil(L);
		call_mapping(L, cat, i, 2, "t:map");
		by_state[i] = mapped_state(L, names, order, &nnew, "t:map");
		lua_pop(L, 1);
	}
	for (i = 0; i < ntags; i++) {
		lua_pushvalue(L, 2);
		lua_catalog_push_state(L, cat, cat->tags[i].state);
		lua_catalog_push_tag(L, cat, i);
		call_mapping(L, cat, cat->tags[i].state, 2, "t:map");
		by_tag[i] = mapped_state(L, names, order, &nnew, "t:map");
		lua_pop(L, 1);
	}
	states = states_from_order(L, cat, order, nnew);
	nd = transform_map(d, states, nnew, by_state, by_tag, &why);
	return (push_made(L, nd, why, "t:map"));
}

/*
 * t:map_intervals(function(iv) return state end) -> a new trace: the
 * function gets every interval as {entity, state, tag, start, finish}
 * and returns its new state (nil keeps it).  It runs once per
 * transition (but those that end an entity's data, which stay so), so
 * it is for what t:map cannot express.
 */
static int
t_map_intervals(lua_State *L)
{
	trace *d = lua_trace_check(L, 1), *nd;
	const char *why;
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
			/* No data is no interval: it stays no data. */
			if (iv.state == STORE_GAP) {
				each[index] = STORE_GAP;
				continue;
			}
			iv.tag = store_tags(d->st, e)[k];
			iv.start = store_times(d->st, e)[k];
			iv.end = k + 1 < n ? store_times(d->st, e)[k + 1] :
			    d->end;
			lua_pushvalue(L, 2);
			lua_createtable(L, 0, 5);
			lua_pushlstring(L, ename, len);
			lua_setfield(L, -2, "entity");
			lua_catalog_push_state(L, cat, iv.state);
			lua_setfield(L, -2, "state");
			lua_catalog_push_tag(L, cat, iv.tag);
			lua_setfield(L, -2, "tag");
			lua_pushinteger(L, (lua_Integer)iv.start);
			lua_setfield(L, -2, "start");
			lua_pushinteger(L, (lua_Integer)iv.end);
			lua_setfield(L, -2, "finish");
			call_mapping(L, cat, iv.state, 1, "t:map_intervals");
			each[index] = mapped_state(L, names, order, &nnew,
			    "t:map_intervals");
			lua_pop(L, 1);
		}
	}
	nd = transform_map_each(d, states_from_order(L, cat, order, nnew),
	    nnew, each, &why);
	return (push_made(L, nd, why, "t:map_intervals"));
}

/* t:recolor{state = colour, ...} -> a new trace with those colours */
static int
t_recolor(lua_State *L)
{
	trace *d = lua_trace_check(L, 1), *nd;
	const char *why;
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
			return (luaL_error(L, "t:recolor takes state names as "
			    "keys, not a %s", luaL_typename(L, -2)));
		lua_catalog_state_item(L, cat, -2, "recolor", NULL, 0);
		/* A key's value: no argument number to name. */
		if (lua_type(L, -1) != LUA_TSTRING)
			return (luaL_error(L, "t:recolor: the colour of state "
			    "\"%s\" must be a string, not a %s",
			    lua_tostring(L, -2), luaL_typename(L, -1)));
		c = lua_tolstring(L, -1, &len);
		if (!color_parse(c, len, &col))
			return (luaL_error(L, "t:recolor: \"%s\" is not a "
			    "colour: use #rrggbb or a CSS colour name", c));
		lua_pop(L, 1);
	}
	states = catalog_copy_states(cat);
	lua_pushnil(L);
	while (lua_next(L, 2) != 0) {
		size_t len;
		const char *c = lua_tolstring(L, -1, &len);
		uint32_t v = lua_catalog_state(L, cat, -2);

		color_parse(c, len, &states[v].color);
		free(states[v].color_text);
		states[v].color_text = xstrndup(c, len);
		lua_pop(L, 1);
	}
	nd = transform_map(d, states, cat->nstates, by_state, by_tag, &why);
	return (push_made(L, nd, why, "t:recolor"));
}

/*
 * Whether t:keep and t:drop choose entity id of d: its name matches re,
 * a POSIX extended regular expression, as -f does; or, without one, the
 * function at index 2 returns true for it.
 */
static int
chosen(lua_State *L, const regex_t *re, const trace *d, uint32_t id)
{
	int r;

	if (re != NULL)
		return (regexec(re, catalog_entity_name(d->cat, id, NULL), 0,
		    NULL, 0) == 0);
	lua_pushvalue(L, 2);
	lua_entity_push(L, 1, id);
	lua_call(L, 1, 1);
	r = lua_toboolean(L, -1);
	lua_pop(L, 1);
	return (r);
}

static int
keep_or_drop(lua_State *L, int keep)
{
	trace *d = lua_trace_check(L, 1);
	uint32_t i, n = catalog_nentities(d->cat), k = 0;
	uint32_t *ids;
	const regex_t *re = NULL;
	trace *nd;
	const char *why;

	if (lua_type(L, 2) != LUA_TFUNCTION) {
		luaL_argexpected(L, lua_type(L, 2) == LUA_TSTRING, 2,
		    "a regular expression (string) or a function of an "
		    "entity");
		re = lua_args_regex(L, lua_tostring(L, 2), "pattern");
	}
	ids = lua_object_scratch(L, n, sizeof (uint32_t));
	for (i = 0; i < n; i++) {
		if (chosen(L, re, d, i) == keep)
			ids[k++] = i;
	}
	nd = transform_select(d, ids, k, NULL, NULL, &why);
	return (push_made(L, nd, why, keep ? "t:keep" : "t:drop"));
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
 * Checks that every key of the table at tidx, given as {entity name =
 * ...}, names an entity of d: matched of them did, as the caller looked
 * each entity up, so only when the keys are more is one looked for, to
 * be named in the error (a misspelt name is never silently ignored).
 */
static void
check_names_known(lua_State *L, int tidx, const trace *d, uint32_t matched,
    const char *fname)
{
	uint32_t i, n = catalog_nentities(d->cat);
	lua_Integer nkeys = 0;
	int set;

	lua_pushnil(L);
	while (lua_next(L, tidx) != 0) {
		lua_pop(L, 1);
		nkeys++;
	}
	if (nkeys == (lua_Integer)matched)
		return;
	lua_createtable(L, 0, (int)n);
	set = lua_gettop(L);
	for (i = 0; i < n; i++) {
		size_t len;
		const char *name = catalog_entity_name(d->cat, i, &len);

		lua_pushlstring(L, name, len);
		lua_pushboolean(L, 1);
		lua_rawset(L, set);
	}
	lua_pushnil(L);
	while (lua_next(L, tidx) != 0) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING)
			luaL_error(L, "%s: the table's keys are entity names, "
			    "not a %s", fname, luaL_typename(L, -1));
		lua_pushvalue(L, -1);
		if (lua_rawget(L, set) == LUA_TNIL)
			luaL_error(L, "%s: the table names entity \"%s\", "
			    "which the trace does not have", fname,
			    lua_tostring(L, -2));
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

/*
 * t:rename(function(entity) or {old = new}) -> a trace with entities
 * renamed (nil keeps a name); two entities may not end up with one name.
 */
static int
t_rename(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint32_t i, n = catalog_nentities(d->cat), matched = 0;
	const char **names;
	size_t *lens;
	uint32_t *ids;
	int fn = lua_type(L, 2) == LUA_TFUNCTION, list;
	trace *nd;
	const char *why;

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
			lua_entity_push(L, 1, i);
			lua_call(L, 1, 1);
		} else {
			lua_pushlstring(L, old, len);
			if (lua_gettable(L, 2) != LUA_TNIL)
				matched++;
		}
		if (lua_isnil(L, -1)) {
			lua_pop(L, 1);
			lua_pushlstring(L, old, len);
		} else if (lua_type(L, -1) != LUA_TSTRING) {
			return (luaL_error(L, "t:rename: the new name for entity "
			    "\"%s\" is a %s, not a string", old,
			    luaL_typename(L, -1)));
		}
		names[i] = lua_args_check_name(L, -1, &lens[i],
		    "t:rename: a new entity name");
		lua_rawseti(L, list, (lua_Integer)i + 1);
		ids[i] = i;
	}
	if (!fn)
		check_names_known(L, 2, d, matched, "t:rename");
	nd = transform_select(d, ids, n, names, lens, &why);
	return (push_made(L, nd, why, "t:rename"));
}

/* t:slice(from, to) -> a trace whose window is [from, to) within this one */
static int
t_slice(lua_State *L)
{
	trace *d = lua_trace_check(L, 1), *nd;
	uint64_t from = lua_args_check_time(L, 2);
	uint64_t to = lua_args_check_time(L, 3);
	const char *why;

	if (from < d->begin)
		from = d->begin;
	if (to > d->end)
		to = d->end;
	if (to <= from)
		return (luaL_error(L, "t:slice: [%I, %I) is empty within the "
		    "trace's window [%I, %I)", (lua_Integer)from,
		    (lua_Integer)to, (lua_Integer)d->begin,
		    (lua_Integer)d->end));
	nd = transform_slice(d, from, to, &why);
	return (push_made(L, nd, why, "t:slice"));
}

/*
 * t:count(states [, name]) -> a trace with one entity (default "count")
 * whose state is how many entities are in any of the named states: its
 * states are "0" to the number of entities.
 */
static int
t_count(lua_State *L)
{
	trace *d = lua_trace_check(L, 1), *nd;
	size_t len;
	const char *name = luaL_optlstring(L, 3, "count", &len), *why;
	const unsigned char *counted;

	if (!lua_isnoneornil(L, 3))
		lua_args_check_name(L, 3, &len, "the count's name");
	lua_settop(L, 3);
	counted = lua_catalog_state_set(L, d->cat, 2, "count");
	nd = transform_count(d, counted, name, len, &why);
	return (push_made(L, nd, why, "t:count"));
}

/* Pushes the registry's table of the summaries t:group made: weak keys,
 * so that it holds none of them alive. */
static void
summaries(lua_State *L)
{
	static const char key[] = "statemap.summaries";

	if (lua_getfield(L, LUA_REGISTRYINDEX, key) == LUA_TTABLE)
		return;
	lua_pop(L, 1);
	lua_newtable(L);
	lua_createtable(L, 0, 1);
	lua_pushliteral(L, "k");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	lua_pushvalue(L, -1);
	lua_setfield(L, LUA_REGISTRYINDEX, key);
}

int
lua_transform_is_summary(lua_State *L, int idx)
{
	int r;

	idx = lua_absindex(L, idx);
	summaries(L);
	lua_pushvalue(L, idx);
	r = lua_rawget(L, -2) != LUA_TNIL;
	lua_pop(L, 2);
	return (r);
}

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
	trace *d = lua_trace_check(L, 1), *nd;
	uint32_t n = catalog_nentities(d->cat), ns = d->cat->nstates, i;
	uint32_t *group_of, *rank, ngroups = 0, next_rank = 0, matched = 0;
	const char **names, *why;
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
			lua_entity_push(L, 1, i);
			lua_call(L, 1, 1);
		} else {
			size_t len;
			const char *name = catalog_entity_name(d->cat, i, &len);

			lua_pushlstring(L, name, len);
			if (lua_gettable(L, 2) != LUA_TNIL)
				matched++;
		}
		group_of[i] = UINT32_MAX;
		if (lua_isnil(L, -1)) {
			lua_pop(L, 1);
			continue;
		}
		if (lua_type(L, -1) != LUA_TSTRING &&
		    lua_type(L, -1) != LUA_TNUMBER)
			return (luaL_error(L, "t:group: the key of entity \"%s\" "
			    "is a %s, not a name", catalog_entity_name(d->cat, i,
			    NULL), luaL_typename(L, -1)));
		lua_tostring(L, -1);	/* numbers name groups too */
		lua_pushvalue(L, -1);
		lua_rawget(L, groups);
		if (lua_isnil(L, -1)) {
			lua_pop(L, 1);
			names[ngroups] = lua_args_check_name(L, -1, &lens[ngroups],
			    "t:group: a group name");
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
	if (lua_istable(L, 2))
		check_names_known(L, 2, d, matched, "t:group");
	for (i = 0; i < ns; i++)
		rank[i] = UINT32_MAX;
	if (!lua_isnil(L, 3)) {
		size_t k, np = lua_rawlen(L, 3);

		for (k = 1; k <= np; k++) {
			uint32_t s;

			lua_rawgeti(L, 3, (lua_Integer)k);
			s = lua_catalog_state_item(L, d->cat, -1, "group",
			    "priority", k);
			if (rank[s] == UINT32_MAX)
				rank[s] = next_rank++;
			lua_pop(L, 1);
		}
	}
	for (i = 0; i < ns; i++)
		if (rank[i] == UINT32_MAX)
			rank[i] = next_rank++;
	nd = transform_group(d, group_of, ngroups, names, lens, rank, &why);
	push_made(L, nd, why, "t:group");
	summaries(L);
	lua_pushvalue(L, -2);
	lua_pushboolean(L, 1);
	lua_rawset(L, -3);
	lua_pop(L, 1);
	return (1);
}

const luaL_Reg lua_transform_trace_methods[] = {
	{ "map", t_map },
	{ "map_intervals", t_map_intervals },
	{ "recolor", t_recolor },
	{ "keep", t_keep },
	{ "drop", t_drop },
	{ "rename", t_rename },
	{ "slice", t_slice },
	{ "count", t_count },
	{ "group", t_group },
	{ NULL, NULL }
};
