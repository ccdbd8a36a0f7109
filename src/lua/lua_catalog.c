/*
 * lua_catalog.c: a catalog's names and definitions as Lua values, the
 * states scripts name, and t.states, t.tags and t:events.
 */
#include "lua/lua_catalog.h"

#include "base/color.h"
#include "base/intern.h"
#include "lua/lua_json.h"
#include "lua/lua_object.h"
#include "lua/lua_options.h"
#include "lua/lua_trace.h"

/* ---- names and values ---- */

void
lua_catalog_push_state(lua_State *L, const catalog *cat, uint32_t s)
{
	lua_pushlstring(L, cat->states[s].name, cat->states[s].name_len);
}

void
lua_catalog_push_tag(lua_State *L, const catalog *cat, uint32_t tag)
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

void
lua_catalog_push_value(lua_State *L, const catalog *cat, uint32_t entity,
    sm_value v)
{
	if (value_is_none(v)) {
		lua_pushnil(L);
	} else if (catalog_value_ints(cat, entity)) {
		lua_pushinteger(L, (lua_Integer)value_to_int(v));
	} else if (value_is_string(v)) {
		size_t len;
		const char *s = intern_name(cat->value_strings,
		    value_string_id(v), &len);

		lua_pushlstring(L, s, len);
	} else {
		lua_pushnumber(L, (lua_Number)value_to_double(v));
	}
}

void
lua_catalog_push_tag_fields(lua_State *L, const catalog *cat, uint32_t tag)
{
	if (tag == STORE_NONE || tag >= catalog_ntags(cat))
		lua_pushnil(L);
	else
		lua_json_push_members(L, cat->tags[tag].members);
}

void
lua_catalog_push_state_times(lua_State *L, const catalog *cat,
    const uint64_t *times)
{
	uint32_t s;

	lua_createtable(L, 0, (int)cat->nstates);
	for (s = 0; s < cat->nstates; s++) {
		lua_catalog_push_state(L, cat, s);
		lua_pushinteger(L, (lua_Integer)times[s]);
		lua_settable(L, -3);
	}
}

/* ---- states named by scripts ---- */

uint32_t
lua_catalog_state(lua_State *L, const catalog *cat, int idx)
{
	size_t len;
	const char *name = luaL_checklstring(L, idx, &len);
	int64_t s = catalog_state_by_name(cat, name, len);

	if (s < 0)
		luaL_error(L, "no state \"%s\" in trace %s", name, cat->name);
	return ((uint32_t)s);
}

uint32_t
lua_catalog_state_item(lua_State *L, const catalog *cat, int idx,
    const char *fname, const char *key, size_t i)
{
	size_t len;
	const char *name;
	int64_t s;

	if (!lua_isstring(L, idx))	/* a number is a name too */
		luaL_error(L, "%s: %s%sitem %d is a %s, not a state name",
		    fname, key != NULL ? key : "", key != NULL ? ": " : "",
		    (int)i, luaL_typename(L, idx));
	name = lua_tolstring(L, idx, &len);
	if ((s = catalog_state_by_name(cat, name, len)) < 0)
		luaL_error(L, "%s: %s%sno state \"%s\" in trace %s", fname,
		    key != NULL ? key : "", key != NULL ? ": " : "", name,
		    cat->name);
	return ((uint32_t)s);
}

void
lua_catalog_mark_states(lua_State *L, const catalog *cat, int idx,
    unsigned char *set, const char *fname, const char *key)
{
	size_t i, n = lua_rawlen(L, idx);

	for (i = 1; i <= n; i++) {
		lua_rawgeti(L, idx, (lua_Integer)i);
		set[lua_catalog_state_item(L, cat, -1, fname, key, i)] = 1;
		lua_pop(L, 1);
	}
}

/* count's and count_series's argument. */
const unsigned char *
lua_catalog_state_set(lua_State *L, const catalog *cat, int idx,
    const char *what)
{
	unsigned char *set;

	luaL_checktype(L, idx, LUA_TTABLE);
	if (lua_rawlen(L, idx) == 0)
		luaL_error(L, "%s needs a list of states", what);
	set = lua_object_scratch(L, cat->nstates, 1);
	lua_catalog_mark_states(L, cat, idx, set, what, NULL);
	return (set);
}

/* ---- t.states, t.tags ---- */

static int
field_states(lua_State *L)
{
	const catalog *cat = lua_trace_check(L, 1)->cat;
	uint32_t s;

	lua_createtable(L, (int)cat->nstates, 0);
	for (s = 0; s < cat->nstates; s++) {
		char hex[8];

		color_format(cat->states[s].color, hex);
		lua_createtable(L, 0, 3);
		lua_catalog_push_state(L, cat, s);
		lua_setfield(L, -2, "name");
		lua_pushinteger(L, s);
		lua_setfield(L, -2, "value");
		lua_pushstring(L, hex);
		lua_setfield(L, -2, "color");
		lua_rawseti(L, -2, (lua_Integer)s + 1);
	}
	return (1);
}

/*
 * t.tags -> every tag, in id order: {state =, tag =, fields = {the
 * definition's members}, defined = whether a definition was given}.  A
 * list, not a map by name: one tag name may go with several states.
 */
static int
field_tags(lua_State *L)
{
	const catalog *cat = lua_trace_check(L, 1)->cat;
	uint32_t i, n = catalog_ntags(cat);

	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		lua_createtable(L, 0, 3);
		lua_catalog_push_state(L, cat, cat->tags[i].state);
		lua_setfield(L, -2, "state");
		lua_catalog_push_tag(L, cat, i);
		lua_setfield(L, -2, "tag");
		lua_catalog_push_tag_fields(L, cat, i);
		lua_setfield(L, -2, "fields");
		lua_pushboolean(L, cat->tags[i].members != NULL);
		lua_setfield(L, -2, "defined");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return (1);
}

const luaL_Reg lua_catalog_trace_fields[] = {
	{ "states", field_states },
	{ "tags", field_tags },
	{ NULL, NULL }
};

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
push_name_set(lua_State *L, const lua_options *opts, const char *key)
{
	size_t i, n;

	if (!lua_options_table(opts, key)) {
		lua_pushnil(L);
		return;
	}
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

static const lua_option events_keys[] = {
	{ .key = "from", .kind = LUA_OPTION_TIME },
	{ .key = "to", .kind = LUA_OPTION_TIME },
	{ .key = "entities", .kind = LUA_OPTION_TABLE,
	    .what = "a list of names" },
	{ .key = "events", .kind = LUA_OPTION_TABLE,
	    .what = "a list of names" },
	{ .key = NULL }
};

/*
 * t:events{from=, to=, entities=, events=} -> an iterator over the
 * event records in file order, as {time=, entity=, event=, target=}.
 */
static int
t_events(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint64_t from = d->begin, to = d->end;
	lua_options opts;

	lua_settop(L, 2);
	lua_options_init(&opts, L, 2, "events", events_keys);
	lua_options_range(&opts, &from, &to);
	lua_pushvalue(L, 1);
	lua_pushinteger(L, 0);
	lua_pushinteger(L, (lua_Integer)from);
	lua_pushinteger(L, (lua_Integer)to);
	push_name_set(L, &opts, "entities");
	push_name_set(L, &opts, "events");
	lua_pushcclosure(L, events_next, 6);
	return (1);
}

const luaL_Reg lua_catalog_trace_methods[] = {
	{ "events", t_events },
	{ NULL, NULL }
};
