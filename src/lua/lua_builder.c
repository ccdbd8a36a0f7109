/*
 * lua_builder.c: statemap.new{...} and the builder object it returns
 * (builder.h): a trace made call by call, then b:finish() gives it as a
 * trace object with every query and transform.
 *
 * The store a builder fills counts against the script's memory limit as
 * it grows (checked every so many calls, so the check costs nothing);
 * the trace object charges it anew when it takes it over.
 */
#include "lua/lua_builder.h"

#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "base/runlimit.h"
#include "base/utf8.h"
#include "base/util.h"
#include "lua/lua_args.h"
#include "lua/lua_catalog.h"
#include "lua/lua_json.h"
#include "lua/lua_object.h"
#include "lua/lua_options.h"
#include "lua/lua_trace.h"
#include "trace/builder.h"

/* Calls between two looks at the builder's memory. */
#define CHARGE_EVERY	4096

const char lua_builder_type[] = "statemap.builder";

/*
 * Names b:set has met, by the address of their Lua string: a string's
 * bytes stay where they are while it lives, and each cached string is
 * kept alive in the builder's user value (a list of NAME_CACHE slots a
 * kind), so an address seen again is the same string.  A script that
 * names the same entities, states and tags over and over (a handler of
 * statemap.events) then finds each id without hashing the name again.
 */
#define NAME_CACHE	64

enum { CACHE_ENTITY, CACHE_STATE, CACHE_TAG, NCACHES };

typedef struct cached_name {
	const char *s;		/* the string's bytes, or NULL */
	uint32_t id;		/* entity, state value or tag name id */
} cached_name;

typedef struct lbuilder {
	lua_object_head head;
	builder *b;	/* NULL once finished */
	size_t charged;		/* its memory, counted against the limit */
	unsigned calls;
	cached_name cache[NCACHES][NAME_CACHE];
} lbuilder;

/* The slot of the string at s in a cache. */
static unsigned
cache_slot(const char *s)
{
	uintptr_t a = (uintptr_t)s;

	return ((unsigned)((a >> 4) ^ (a >> 10)) % NAME_CACHE);
}

/* The id cached for the string at s, or UINT32_MAX. */
static uint32_t
cached(const lbuilder *lb, int which, const char *s)
{
	const cached_name *c = &lb->cache[which][cache_slot(s)];

	return (c->s == s ? c->id : UINT32_MAX);
}

/* Caches id for the string at stack index idx (builder at 1). */
static void
remember(lua_State *L, lbuilder *lb, int which, int idx, uint32_t id)
{
	const char *s = lua_tostring(L, idx);
	unsigned slot = cache_slot(s);

	if (id == UINT32_MAX)
		return;
	lua_getiuservalue(L, 1, 1);
	lua_pushvalue(L, idx);
	lua_rawseti(L, -2, (lua_Integer)which * NAME_CACHE + slot + 1);
	lua_pop(L, 1);
	lb->cache[which][slot].s = s;
	lb->cache[which][slot].id = id;
}

static lbuilder *
check_lbuilder(lua_State *L, const char *call)
{
	lbuilder *lb = lua_object_check(L, 1, LUA_BUILDER_TYPE);

	if (lb->b == NULL)
		luaL_error(L, "%s: this builder has finished", call);
	return (lb);
}

/* Charges what the builder grew by, now and then; stops at the limit. */
static void
charge(lua_State *L, lbuilder *lb, int now)
{
	size_t mem;
	const char *why;

	if (!now && ++lb->calls % CHARGE_EVERY != 0)
		return;
	mem = builder_memory(lb->b);
	if (mem > lb->charged) {
		runlimit_charge(mem - lb->charged);
		lb->charged = mem;
	}
	if (runlimit_check(0, &why) != 0)
		luaL_error(L, "%s", why);
}

static void
uncharge(lbuilder *lb)
{
	runlimit_credit(lb->charged);
	lb->charged = 0;
}

/* The state at idx: a name or a value. */
static uint32_t
check_state(lua_State *L, lbuilder *lb, int idx, const char *call)
{
	if (lua_type(L, idx) == LUA_TSTRING) {
		size_t len;
		const char *name = lua_tolstring(L, idx, &len);
		uint32_t known = cached(lb, CACHE_STATE, name);
		int64_t s;

		if (known != UINT32_MAX)
			return (known);
		if ((s = builder_state(lb->b, name, len)) < 0)
			luaL_error(L, "%s: unknown state \"%s\"", call, name);
		remember(L, lb, CACHE_STATE, idx, (uint32_t)s);
		return ((uint32_t)s);
	}
	if (lua_isinteger(L, idx)) {
		lua_Integer s = lua_tointeger(L, idx);

		if (s < 0 || s >= (lua_Integer)builder_nstates(lb->b))
			luaL_error(L, "%s: unknown state %I (states are 0 to "
			    "%d)", call, s, (int)builder_nstates(lb->b) - 1);
		return ((uint32_t)s);
	}
	luaL_error(L, "%s: a state is a name or a value, not %s", call,
	    luaL_typename(L, idx));
	return (0);
}

static const char *
opt_tag(lua_State *L, int idx, size_t *len, const char *call)
{
	if (lua_isnoneornil(L, idx))
		return (NULL);
	if (lua_type(L, idx) != LUA_TSTRING)
		luaL_error(L, "%s: a tag is a string, not %s", call,
		    luaL_typename(L, idx));
	return (lua_tolstring(L, idx, len));
}

static const char *
check_entity(lua_State *L, int idx, size_t *len, const char *call)
{
	if (lua_type(L, idx) != LUA_TSTRING)
		luaL_error(L, "%s: an entity is named by a string, not %s",
		    call, luaL_typename(L, idx));
	return (lua_tolstring(L, idx, len));
}

static int
failed(lua_State *L, lbuilder *lb, const char *call)
{
	return (luaL_error(L, "%s: %s", call, builder_error(lb->b)));
}

typedef int (*state_call)(builder *b, uint64_t time, const char *entity,
    size_t len, uint32_t state, const char *tag, size_t tag_len);

/* b:set and b:push take the same arguments: (time, entity, state [, tag]). */
static int
state_datum(lua_State *L, const char *call, state_call fn)
{
	lbuilder *lb = check_lbuilder(L, call);
	uint64_t t = lua_args_check_time(L, 2);
	size_t len, tlen = 0;
	const char *e = check_entity(L, 3, &len, call);
	uint32_t s = check_state(L, lb, 4, call);
	const char *tag = opt_tag(L, 5, &tlen, call);

	if (fn(lb->b, t, e, len, s, tag, tlen) != 0)
		return (failed(L, lb, call));
	charge(L, lb, 0);
	return (0);
}

/*
 * b:set: by the ids of names met before where it can (see cached), else
 * by name, which then caches them.
 */
static int
set_datum(lua_State *L)
{
	lbuilder *lb = check_lbuilder(L, "b:set");
	uint64_t t = lua_args_check_time(L, 2);
	size_t len, tlen = 0;
	const char *e = check_entity(L, 3, &len, "b:set");
	uint32_t s = check_state(L, lb, 4, "b:set");
	const char *tag = opt_tag(L, 5, &tlen, "b:set");
	uint32_t eid = cached(lb, CACHE_ENTITY, e);
	uint32_t tid = tag == NULL ? CATALOG_NO_TAG :
	    cached(lb, CACHE_TAG, tag);
	store_kind kind;
	size_t count;

	if (eid != UINT32_MAX && (tag == NULL || tid != UINT32_MAX)) {
		if (builder_set_ids(lb->b, t, eid, s, tid) != 0)
			return (failed(L, lb, "b:set"));
	} else {
		if (builder_set(lb->b, t, e, len, s, tag, tlen) != 0)
			return (failed(L, lb, "b:set"));
		remember(L, lb, CACHE_ENTITY, 3,
		    builder_entity(lb->b, e, len, &kind, &count));
		if (tag != NULL)
			remember(L, lb, CACHE_TAG, 5,
			    builder_tag_name(lb->b, tag, tlen));
	}
	charge(L, lb, 0);
	return (0);
}

/*
 * b:set(time, entity, state [, tag]); state nil ends the entity's data
 * (no state from time on), as b:remove does.
 */
static int
b_set(lua_State *L)
{
	if (lua_gettop(L) >= 4 && lua_isnil(L, 4)) {
		lbuilder *lb = check_lbuilder(L, "b:set");
		uint64_t t = lua_args_check_time(L, 2);
		size_t len;
		const char *e = check_entity(L, 3, &len, "b:set");

		if (!lua_isnoneornil(L, 5))
			return (luaL_error(L, "b:set: a nil state (no data) "
			    "has no tag"));
		if (builder_end(lb->b, t, e, len) != 0)
			return (failed(L, lb, "b:set"));
		charge(L, lb, 0);
		return (0);
	}
	return (set_datum(L));
}

/* b:push(time, entity, state [, tag]) */
static int
b_push(lua_State *L)
{
	return (state_datum(L, "b:push", builder_push));
}

/* b:pop(time, entity [, state]) */
static int
b_pop(lua_State *L)
{
	lbuilder *lb = check_lbuilder(L, "b:pop");
	uint64_t t = lua_args_check_time(L, 2);
	size_t len;
	const char *e = check_entity(L, 3, &len, "b:pop");
	uint32_t s = lua_isnoneornil(L, 4) ? UINT32_MAX :
	    check_state(L, lb, 4, "b:pop");

	if (builder_pop(lb->b, t, e, len, s) != 0)
		return (failed(L, lb, "b:pop"));
	charge(L, lb, 0);
	return (0);
}

/* b:value(time, entity, number | string | nil) */
static int
b_value(lua_State *L)
{
	lbuilder *lb = check_lbuilder(L, "b:value");
	uint64_t t = lua_args_check_time(L, 2);
	size_t len, slen;
	const char *e = check_entity(L, 3, &len, "b:value");
	int r;

	switch (lua_type(L, 4)) {
	case LUA_TNUMBER:
		if (lua_isinteger(L, 4))
			r = builder_integer(lb->b, t, e, len,
			    (int64_t)lua_tointeger(L, 4));
		else
			r = builder_number(lb->b, t, e, len,
			    (double)lua_tonumber(L, 4));
		break;
	case LUA_TSTRING: {
		const char *s = lua_tolstring(L, 4, &slen);

		r = builder_string(lb->b, t, e, len, s, slen);
		break;
	}
	case LUA_TNIL:
	case LUA_TNONE:
		r = builder_none(lb->b, t, e, len);
		break;
	default:
		return (luaL_error(L, "b:value: a value is a number, a string "
		    "or nil, not %s", luaL_typename(L, 4)));
	}
	if (r != 0)
		return (failed(L, lb, "b:value"));
	charge(L, lb, 0);
	return (0);
}

/* b:declare(entity, "number"): its numbers are floats, of either kind */
static int
b_declare(lua_State *L)
{
	lbuilder *lb = check_lbuilder(L, "b:declare");
	size_t len, tlen;
	const char *e = check_entity(L, 2, &len, "b:declare");
	const char *type = luaL_checklstring(L, 3, &tlen);

	if (strcmp(type, "number") != 0)
		return (luaL_error(L, "b:declare: the type is \"number\" (the "
		    "entity's numbers are floats), not \"%s\"", type));
	if (builder_declare_numeric(lb->b, e, len) != 0)
		return (failed(L, lb, "b:declare"));
	return (0);
}

/* b:describe(entity, text) */
static int
b_describe(lua_State *L)
{
	lbuilder *lb = check_lbuilder(L, "b:describe");
	size_t len, tlen;
	const char *e = check_entity(L, 2, &len, "b:describe");
	const char *text = luaL_checklstring(L, 3, &tlen);

	if (builder_describe(lb->b, e, len, text, tlen) != 0)
		return (failed(L, lb, "b:describe"));
	return (0);
}

/*
 * Whether every string in the value at idx, keys and values of tables
 * within it too, is valid UTF-8.  JSON encoding would write U+FFFD for
 * what is not; the builder refuses it instead, as in its names.  Only
 * for a value encoded already: one without a cycle, nested at most
 * JSON_MAX_DEPTH deep.
 */
static int
valid_text(lua_State *L, int idx)
{
	size_t len;
	const char *s;

	if (lua_type(L, idx) == LUA_TSTRING) {
		s = lua_tolstring(L, idx, &len);
		return (utf8_valid(s, len));
	}
	if (lua_type(L, idx) != LUA_TTABLE)
		return (1);
	idx = lua_absindex(L, idx);
	luaL_checkstack(L, 3, "fields nested too deeply");
	lua_pushnil(L);
	while (lua_next(L, idx) != 0) {
		int ok = valid_text(L, -2) && valid_text(L, -1);

		lua_pop(L, ok ? 1 : 2);
		if (!ok)
			return (0);
	}
	return (1);
}

/* For sorting member names. */
static int
compare_names(const void *a, const void *b)
{
	return (strcmp(*(const char *const *)a, *(const char *const *)b));
}

/* Whether an event's field name is end or id, which are not members. */
static int
message_field(const char *name)
{
	return (strcmp(name, "end") == 0 || strcmp(name, "id") == 0);
}

static int
no_field(const char *name)
{
	(void)name;
	return (0);
}

/*
 * The members a table of fields (at idx) gives a record, as a file has
 * them and the input's reader writes them back: "name": value pairs in
 * the order of their names (so that the same fields always give the same
 * bytes), joined by ", " (malloc'd in *members, NULL if none), leaving
 * out the names skip says.  Raises an error naming call for a name that
 * is not a string, one of taken (what owns says whose it is), or a
 * value that is no JSON.  The names are kept in a userdata, so that an
 * error frees them.
 */
static void
fields_members(lua_State *L, int idx, const char *call,
    const char *const *taken, size_t ntaken, const char *owns,
    int (*skip)(const char *), char **members, size_t *members_len)
{
	const char **names;
	size_t n = 0, i, k, len;
	luaL_Buffer buf;
	char *text;

	*members = NULL;
	*members_len = 0;
	lua_pushnil(L);
	while (lua_next(L, idx) != 0) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING)
			luaL_error(L, "%s: fields are a table of names "
			    "to values, not a %s key", call,
			    luaL_typename(L, -1));
		for (k = 0; k < ntaken; k++) {
			if (strcmp(lua_tostring(L, -1), taken[k]) == 0)
				luaL_error(L, "%s: \"%s\" %s", call,
				    taken[k], owns);
		}
		n += !skip(lua_tostring(L, -1));
		lua_pushvalue(L, -1);
		lua_gettable(L, idx);
		if (lua_type(L, -1) == LUA_TFUNCTION ||
		    lua_type(L, -1) == LUA_TUSERDATA ||
		    lua_type(L, -1) == LUA_TLIGHTUSERDATA ||
		    lua_type(L, -1) == LUA_TTHREAD)
			luaL_error(L, "%s: field \"%s\" is a %s: fields "
			    "are JSON values", call, lua_tostring(L, -2),
			    luaL_typename(L, -1));
		lua_pop(L, 1);
	}
	if (n == 0)
		return;
	names = lua_newuserdatauv(L, n * sizeof (*names), 0);
	i = 0;
	lua_pushnil(L);
	while (lua_next(L, idx) != 0) {
		lua_pop(L, 1);
		if (!skip(lua_tostring(L, -1)))
			names[i++] = lua_tostring(L, -1);  /* the table's key */
	}
	qsort(names, n, sizeof (*names), compare_names);
	luaL_buffinit(L, &buf);
	for (i = 0; i < n; i++) {
		if (i > 0)
			luaL_addstring(&buf, ", ");
		lua_pushstring(L, names[i]);
		text = lua_json_encode(L, -1, &len);
		lua_pop(L, 1);
		luaL_addlstring(&buf, text, len);
		free(text);
		luaL_addstring(&buf, ": ");
		lua_getfield(L, idx, names[i]);
		text = lua_json_encode(L, -1, &len);
		lua_pop(L, 1);
		luaL_addlstring(&buf, text, len);
		free(text);
	}
	luaL_pushresult(&buf);
	text = (char *)lua_tolstring(L, -1, &len);
	*members = xstrndup(text, len);
	*members_len = len;
	lua_pop(L, 2);
}

/*
 * b:tag(state, tag, fields): defines a tag, with the members of fields
 * (a table of names to JSON-able values, or nil) as its definition.
 */
static int
b_tag(lua_State *L)
{
	static const char *const taken[] = { "state", "tag", "time",
	    "description" };
	lbuilder *lb = check_lbuilder(L, "b:tag");
	uint32_t s = check_state(L, lb, 2, "b:tag");
	size_t tlen, mlen;
	const char *tag = opt_tag(L, 3, &tlen, "b:tag");
	char *members;

	if (tag == NULL)
		return (luaL_error(L, "b:tag: a tag is a string, not nil"));
	if (lua_isnoneornil(L, 4) || (lua_type(L, 4) == LUA_TTABLE &&
	    (lua_pushnil(L), lua_next(L, 4) == 0))) {
		if (builder_tag(lb->b, s, tag, tlen, xstrndup("", 0)) != 0)
			return (failed(L, lb, "b:tag"));
		return (0);
	}
	lua_settop(L, 4);
	if (lua_type(L, 4) != LUA_TTABLE || lua_rawlen(L, 4) > 0)
		return (luaL_error(L, "b:tag: fields are a table of names to "
		    "values, not %s", lua_type(L, 4) == LUA_TTABLE ?
		    "a list" : luaL_typename(L, 4)));
	/*
	 * "state" and "tag" are the definition's own; "time" and
	 * "description" would make it another record (a datum, a tag
	 * declaration): no file holds such a definition, so t:write could
	 * not write it.
	 */
	fields_members(L, 4, "b:tag", taken, sizeof (taken) /
	    sizeof (taken[0]), "cannot be a field: a tag definition in a "
	    "file reads it as another member", no_field, &members, &mlen);
	if (!valid_text(L, 4)) {
		free(members);
		return (luaL_error(L, "b:tag: a name or a string in the fields "
		    "is not valid UTF-8 text"));
	}
	if (builder_tag(lb->b, s, tag, tlen, members != NULL ? members :
	    xstrndup("", 0)) != 0)
		return (failed(L, lb, "b:tag"));
	return (0);
}

/* What b:event reads of its fields; the others are the event's members. */
static const lua_option event_keys[] = {
	{ .key = "end", .kind = LUA_OPTION_TIME },
	{ .key = NULL }
};

/* b:event(time, entity, name [, target [, fields]]) */
static int
b_event(lua_State *L)
{
	static const char *const own[] = { "time", "entity", "event",
	    "target" };
	lbuilder *lb = check_lbuilder(L, "b:event");
	uint64_t t = lua_args_check_time(L, 2), end = CATALOG_NO_END;
	size_t len, klen, tlen = 0, id_len = 0, members_len = 0;
	const char *e = check_entity(L, 3, &len, "b:event");
	const char *kind = luaL_checklstring(L, 4, &klen);
	const char *target = NULL, *id = NULL;
	char *members = NULL;
	builder_message msg;
	int r;
	lua_options opts;

	if (!lua_isnoneornil(L, 5))
		target = check_entity(L, 5, &tlen, "b:event");
	if (!lua_isnoneornil(L, 6)) {
		lua_settop(L, 6);
		if (lua_type(L, 6) != LUA_TTABLE || lua_rawlen(L, 6) > 0)
			return (luaL_error(L, "b:event: fields are a table of "
			    "names to values, not %s", lua_type(L, 6) ==
			    LUA_TTABLE ? "a list" : luaL_typename(L, 6)));
		lua_options_init_members(&opts, L, 6, "b:event", event_keys);
		if (lua_options_time(&opts, "end", &end)) {
			if (end < t)
				return (luaL_error(L, "b:event: end %I is "
				    "before time %I: a message is received "
				    "(end) after it is sent (time)",
				    (lua_Integer)end, (lua_Integer)t));
		}
		lua_getfield(L, 6, "id");	/* kept on the stack */
		if (!lua_isnil(L, -1)) {
			if (lua_type(L, -1) != LUA_TSTRING)
				return (luaL_error(L, "b:event: the event's "
				    "\"id\" is a string, not %s",
				    luaL_typename(L, -1)));
			id = lua_tolstring(L, -1, &id_len);
			if (id_len == 0)
				return (luaL_error(L, "b:event: the event's "
				    "\"id\" is empty: an id names a message"));
		}
		fields_members(L, 6, "b:event", own, sizeof (own) /
		    sizeof (own[0]), "is the event's own, not one of its "
		    "fields", message_field, &members, &members_len);
		if (!valid_text(L, 6)) {
			free(members);
			return (luaL_error(L, "b:event: a name or a string in "
			    "the fields is not valid UTF-8 text"));
		}
	}
	msg.end = end;
	msg.id = id;
	msg.id_len = id_len;
	msg.members = members;
	msg.members_len = members_len;
	r = builder_event(lb->b, t, e, len, kind, klen, target, tlen, &msg);
	free(members);
	if (r != 0)
		return (failed(L, lb, "b:event"));
	charge(L, lb, 0);
	return (0);
}

/* b:increment(time, entity [, by]): TC's incrementAttribute */
static int
b_increment(lua_State *L)
{
	lbuilder *lb = check_lbuilder(L, "b:increment");
	uint64_t t = lua_args_check_time(L, 2);
	size_t len;
	const char *e = check_entity(L, 3, &len, "b:increment");
	double by = 1;
	int64_t iby = 1;
	int integer = 1;

	if (!lua_isnoneornil(L, 4)) {
		if (lua_type(L, 4) != LUA_TNUMBER)
			return (luaL_error(L, "b:increment: the increment is "
			    "a number, not %s", luaL_typename(L, 4)));
		integer = lua_isinteger(L, 4);
		iby = integer ? (int64_t)lua_tointeger(L, 4) : 0;
		by = (double)lua_tonumber(L, 4);
	}
	if (builder_increment(lb->b, t, e, len, integer, iby, by) != 0)
		return (failed(L, lb, "b:increment"));
	charge(L, lb, 0);
	return (0);
}

/*
 * b:remove(time, entity): TC's removeAttribute: a value entity's null, a
 * state entity's end of data (no state from time on)
 */
static int
b_remove(lua_State *L)
{
	lbuilder *lb = check_lbuilder(L, "b:remove");
	uint64_t t = lua_args_check_time(L, 2);
	size_t len;
	const char *e = check_entity(L, 3, &len, "b:remove");

	if (builder_remove(lb->b, t, e, len) != 0)
		return (failed(L, lb, "b:remove"));
	charge(L, lb, 0);
	return (0);
}

/* b:current_end() -> the latest time of any datum so far */
static int
b_current_end(lua_State *L)
{
	lbuilder *lb = check_lbuilder(L, "b:current_end");

	lua_pushinteger(L, (lua_Integer)builder_current_end(lb->b));
	return (1);
}

static const char *
kind_name(store_kind k)
{
	return (k == STORE_VALUES ? "values" : k == STORE_NESTED ? "nested" :
	    "states");
}

/* b:entity(name) -> {name=, kind=, count=}, or nil if there is none */
static int
b_entity(lua_State *L)
{
	lbuilder *lb = check_lbuilder(L, "b:entity");
	size_t len, count;
	const char *name = check_entity(L, 2, &len, "b:entity");
	store_kind kind;

	if (builder_entity(lb->b, name, len, &kind, &count) == UINT32_MAX)
		return (0);
	lua_createtable(L, 0, 3);
	lua_pushlstring(L, name, len);
	lua_setfield(L, -2, "name");
	lua_pushstring(L, count == 0 ? "none" : kind_name(kind));
	lua_setfield(L, -2, "kind");
	lua_pushinteger(L, (lua_Integer)count);
	lua_setfield(L, -2, "count");
	return (1);
}

/*
 * b:at(time, entity) -> state, tag, start, finish (value, nil, start,
 * finish for a value entity); nothing if it has nothing then.  finish is
 * nil while the interval is still open.
 */
static int
b_at(lua_State *L)
{
	lbuilder *lb = check_lbuilder(L, "b:at");
	uint64_t t = lua_args_check_time(L, 2);
	size_t len, count;
	const char *name = check_entity(L, 3, &len, "b:at");
	const catalog *cat = builder_catalog(lb->b);
	store_interval iv;
	store_kind kind;
	uint32_t e;

	if (t > builder_current_end(lb->b))
		return (luaL_error(L, "b:at: time %I ns is after the builder's "
		    "current end, %I ns", (lua_Integer)t,
		    (lua_Integer)builder_current_end(lb->b)));
	if ((e = builder_entity(lb->b, name, len, &kind, &count)) ==
	    UINT32_MAX)
		return (luaL_error(L, "b:at: no entity \"%s\"", name));
	if (!builder_at(lb->b, e, t, &iv))
		return (0);
	if (kind == STORE_VALUES) {
		lua_catalog_push_value(L, cat, e, iv.value);
		lua_pushnil(L);
	} else {
		lua_catalog_push_state(L, cat, iv.state);
		lua_catalog_push_tag(L, cat, iv.tag);
	}
	lua_pushinteger(L, (lua_Integer)iv.start);
	if (iv.end == UINT64_MAX)
		lua_pushnil(L);
	else
		lua_pushinteger(L, (lua_Integer)iv.end);
	return (4);
}

/* b:finish([end]) -> the trace; the builder is then done */
static int
b_finish(lua_State *L)
{
	lbuilder *lb = check_lbuilder(L, "b:finish");
	int has_end = !lua_isnoneornil(L, 2);
	uint64_t end = has_end ? lua_args_check_time(L, 2) : 0;
	trace *d;

	if ((d = builder_finish(lb->b, has_end, end)) == NULL)
		return (failed(L, lb, "b:finish"));
	builder_free(lb->b);
	lb->b = NULL;
	uncharge(lb);
	lua_trace_push(L, d);
	return (1);
}

static int
builder_gc(lua_State *L)
{
	lbuilder *lb = lua_object_finalizing(L, LUA_BUILDER_TYPE);

	if (lb == NULL)
		return (0);
	builder_free(lb->b);
	lb->b = NULL;
	uncharge(lb);
	lb->head.finalized = 1;
	return (0);
}

static int
builder_tostring(lua_State *L)
{
	lbuilder *lb = lua_object_check(L, 1, LUA_BUILDER_TYPE);

	lua_pushstring(L, lb->b == NULL ? "<builder: finished>" :
	    "<builder>");
	return (1);
}

const luaL_Reg lua_builder_methods[] = {
	{ "set", b_set },
	{ "push", b_push },
	{ "pop", b_pop },
	{ "value", b_value },
	{ "declare", b_declare },
	{ "describe", b_describe },
	{ "tag", b_tag },
	{ "event", b_event },
	{ "increment", b_increment },
	{ "remove", b_remove },
	{ "at", b_at },
	{ "entity", b_entity },
	{ "current_end", b_current_end },
	{ "finish", b_finish },
	{ NULL, NULL }
};

const luaL_Reg lua_builder_metamethods[] = {
	{ "__gc", builder_gc },
	{ "__tostring", builder_tostring },
	{ NULL, NULL }
};

/* The states of statemap.new: a list of names, or name = {value, color}. */
static catalog_state *
check_states(lua_State *L, int idx, uint32_t *n)
{
	catalog_state *states;
	lua_Integer len;
	size_t count = 0, i;

	if (lua_type(L, idx) != LUA_TTABLE)
		luaL_error(L, "statemap.new: states is a list of names or a "
		    "table of name = {value =, color =}");
	len = (lua_Integer)lua_rawlen(L, idx);
	if (len > 0) {
		if (len > STORE_MAX_STATES)
			luaL_error(L, "statemap.new: too many states");
		states = lua_object_scratch(L, (size_t)len, sizeof (*states));
		for (i = 0; i < (size_t)len; i++) {
			size_t l;

			lua_rawgeti(L, idx, (lua_Integer)i + 1);
			if (lua_type(L, -1) != LUA_TSTRING)
				luaL_error(L, "statemap.new: state %d is not "
				    "a name", (int)i + 1);
			states[i].name = (char *)lua_tolstring(L, -1, &l);
			states[i].name_len = l;
			lua_pop(L, 1);
		}
		count = (size_t)len;
	} else {
		lua_pushnil(L);
		while (lua_next(L, idx) != 0) {
			count++;
			lua_pop(L, 1);
		}
		if (count > STORE_MAX_STATES)
			luaL_error(L, "statemap.new: too many states");
		states = lua_object_scratch(L, count, sizeof (*states));
		lua_pushnil(L);
		while (lua_next(L, idx) != 0) {
			lua_Integer v = 0;
			size_t l;

			if (lua_type(L, -2) != LUA_TSTRING ||
			    lua_type(L, -1) != LUA_TTABLE)
				luaL_error(L, "statemap.new: states is a list "
				    "of names or a table of name = {value =, "
				    "color =}");
			lua_getfield(L, -1, "value");
			if (!lua_isinteger(L, -1) || (v = lua_tointeger(L, -1))
			    < 0 || (size_t)v >= count)
				luaL_error(L, "statemap.new: the value of state "
				    "\"%s\" must be an integer from 0 to %d",
				    lua_tostring(L, -3), (int)count - 1);
			lua_pop(L, 1);
			if (states[v].name != NULL)
				luaL_error(L, "statemap.new: two states have "
				    "value %d", (int)v);
			states[v].name = (char *)lua_tolstring(L, -2, &l);
			states[v].name_len = l;
			if (lua_getfield(L, -1, "color") != LUA_TNIL) {
				if (lua_type(L, -1) != LUA_TSTRING)
					luaL_error(L, "statemap.new: the color "
					    "of state \"%s\" is not a string",
					    states[v].name);
				/* Anchored by the states table. */
				states[v].color_text =
				    (char *)lua_tostring(L, -1);
			}
			lua_pop(L, 2);
		}
	}
	*n = (uint32_t)count;
	return (states);
}

static const lua_option new_keys[] = {
	{ .key = "title", .kind = LUA_OPTION_STRING },
	{ .key = "host", .kind = LUA_OPTION_STRING },
	{ .key = "entity_kind", .kind = LUA_OPTION_STRING },
	{ .key = "start", .kind = LUA_OPTION_TABLE,
	    .what = "{seconds, nanoseconds}" },
	{ .key = "states", .kind = LUA_OPTION_TABLE,
	    .what = "a list of names or a table of name = {value =, "
	    "color =}" },
	{ .key = NULL }
};

/*
 * statemap.new{title =, host =, entity_kind =, start = {s, ns}, states =
 * ...} -> a builder.
 */
static int
f_new(lua_State *L)
{
	catalog_state *scratch, *states;
	uint32_t n, i;
	lua_Integer sec = 0, nsec = 0;
	const char *title = NULL, *host = NULL, *kind = NULL, *why = NULL;
	lua_options opts;
	lbuilder *lb;

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	lua_options_init(&opts, L, 1, "statemap.new", new_keys);
	lua_options_keep(&opts);	/* 2: the strings, until the builder
					 * copies them */
	lua_options_string(&opts, "title", &title, NULL);
	lua_options_string(&opts, "host", &host, NULL);
	lua_options_string(&opts, "entity_kind", &kind, NULL);
	if (lua_options_table(&opts, "start")) {
		lua_rawgeti(L, -1, 1);
		lua_rawgeti(L, -2, 2);
		if (!lua_isinteger(L, -2) || (sec = lua_tointeger(L, -2)) < 0 ||
		    (!lua_isnil(L, -1) && (!lua_isinteger(L, -1) ||
		    (nsec = lua_tointeger(L, -1)) < 0)))
			return (luaL_error(L, "statemap.new: start is "
			    "{seconds, nanoseconds}, non-negative integers"));
		lua_pop(L, 3);
	}
	if (!lua_options_table(&opts, "states"))
		lua_pushnil(L);
	scratch = check_states(L, lua_gettop(L), &n);
	lb = lua_object_new(L, LUA_BUILDER_TYPE, sizeof (lbuilder), 1);
	lua_createtable(L, NCACHES * NAME_CACHE, 0);	/* see cached */
	lua_setiuservalue(L, -2, 1);
	/* Copies the builder owns: nothing can raise from here on. */
	states = xcalloc(n > 0 ? n : 1, sizeof (*states));
	for (i = 0; i < n; i++) {
		states[i].name = xstrndup(scratch[i].name,
		    scratch[i].name_len);
		states[i].name_len = scratch[i].name_len;
		states[i].color_text = scratch[i].color_text == NULL ? NULL :
		    xstrndup(scratch[i].color_text,
		    strlen(scratch[i].color_text));
	}
	lb->b = builder_new("(built)", states, n, &why);
	if (lb->b == NULL)
		return (luaL_error(L, "statemap.new: %s", why));
	if (builder_meta(lb->b, title, host, kind, (uint64_t)sec,
	    (uint64_t)nsec) != 0)
		return (luaL_error(L, "statemap.new: %s",
		    builder_error(lb->b)));
	charge(L, lb, 1);
	return (1);
}

const luaL_Reg lua_builder_functions[] = {
	{ "new", f_new },
	{ NULL, NULL }
};
