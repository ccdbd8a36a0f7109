/*
 * lua_statesys.c: the queries of the generic state system (values,
 * nested states, the attribute tree, tag definitions) on the entity and
 * trace objects.  Each is one call into the store or the tree.
 */
#include "lua/lua_statesys.h"

#include <string.h>

#include "lua/lua_args.h"
#include "lua/lua_entity.h"
#include "lua/lua_json.h"
#include "lua/lua_object.h"
#include "lua/lua_trace.h"
#include "store/tree.h"
#include "trace/writer.h"

/* ---- results ---- */

void
lua_statesys_push_value(lua_State *L, const catalog *cat, sm_value v)
{
	int64_t i;
	double d;

	if (value_is_none(v)) {
		lua_pushnil(L);
	} else if (value_is_string(v)) {
		size_t len;
		const char *s = intern_name(cat->value_strings,
		    value_string_id(v), &len);

		lua_pushlstring(L, s, len);
	} else if (value_integer(d = value_to_double(v), &i)) {
		lua_pushinteger(L, (lua_Integer)i);
	} else {
		lua_pushnumber(L, (lua_Number)d);
	}
}

void
lua_statesys_push_tag_fields(lua_State *L, const catalog *cat, uint32_t tag)
{
	if (tag == STORE_NONE || tag >= catalog_ntags(cat))
		lua_pushnil(L);
	else
		lua_json_push_members(L, cat->tags[tag].members);
}

static const char *
kind_name(store_kind k)
{
	return (k == STORE_VALUES ? "values" : k == STORE_NESTED ? "nested" :
	    "states");
}

static int
not_values(lua_State *L, trace *d, uint32_t id, const char *call)
{
	return (luaL_error(L, "%s: entity \"%s\" holds states, not values",
	    call, catalog_entity_name(d->cat, id, NULL)));
}

/* Pushes {min=, max=, mean=, integral=}, or nothing if no number. */
static int
push_stats(lua_State *L, const value_stats *st)
{
	if (st->covered == 0)
		return (0);
	lua_createtable(L, 0, 4);
	lua_pushnumber(L, (lua_Number)st->min);
	lua_setfield(L, -2, "min");
	lua_pushnumber(L, (lua_Number)st->max);
	lua_setfield(L, -2, "max");
	lua_pushnumber(L, (lua_Number)(st->integral / (double)st->covered));
	lua_setfield(L, -2, "mean");
	lua_pushnumber(L, (lua_Number)st->integral);
	lua_setfield(L, -2, "integral");
	return (1);
}

int
lua_statesys_push_value_interval(lua_State *L, const trace *d,
    const store_interval *iv)
{
	size_t len;
	const char *name = catalog_entity_name(d->cat, iv->entity, &len);

	lua_createtable(L, 0, 4);
	lua_pushlstring(L, name, len);
	lua_setfield(L, -2, "entity");
	lua_statesys_push_value(L, d->cat, iv->value);
	lua_setfield(L, -2, "value");
	lua_pushinteger(L, (lua_Integer)iv->start);
	lua_setfield(L, -2, "start");
	lua_pushinteger(L, (lua_Integer)iv->end);
	lua_setfield(L, -2, "finish");
	return (1);
}

/* ---- entity ---- */

int
lua_statesys_entity_value_at(lua_State *L, trace *d, uint32_t id)
{
	store_interval iv;

	if (!store_value_at(d->st, id, lua_args_check_time(L, 2), &iv))
		return (0);
	lua_statesys_push_value(L, d->cat, iv.value);
	lua_pushnil(L);
	lua_pushinteger(L, (lua_Integer)iv.start);
	lua_pushinteger(L, (lua_Integer)(iv.end < d->end ? iv.end : d->end));
	return (4);
}

int
lua_statesys_entity_stats(lua_State *L, trace *d, uint32_t id)
{
	uint64_t from = lua_args_opt_time(L, 2, d->begin);
	uint64_t to = lua_args_opt_time(L, 3, d->end);
	value_stats st;

	value_stats_init(&st);
	store_value_stats(d->st, id, from, to, &st);
	return (push_stats(L, &st));
}

/* e:value_at(time) -> value, start, finish; nil if it has none then */
static int
e_value_at(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);
	store_interval iv;

	if (store_kind_of(d->st, id) != STORE_VALUES &&
	    store_count(d->st, id) > 0)
		return (not_values(L, d, id, "e:value_at"));
	if (!store_value_at(d->st, id, lua_args_check_time(L, 2), &iv))
		return (0);
	lua_statesys_push_value(L, d->cat, iv.value);
	lua_pushinteger(L, (lua_Integer)iv.start);
	lua_pushinteger(L, (lua_Integer)(iv.end < d->end ? iv.end : d->end));
	return (3);
}

/*
 * e:stack_at(time) -> the state names on the stack, bottom first, and
 * their tags (false where untagged); empty if it has no state then.
 */
static int
e_stack_at(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);
	uint64_t t = lua_args_check_time(L, 2);
	store_frame few[64], *frames = few;
	uint32_t depth, i;

	if (store_kind_of(d->st, id) == STORE_VALUES)
		return (luaL_error(L, "e:stack_at: entity \"%s\" holds values, "
		    "not states", catalog_entity_name(d->cat, id, NULL)));
	depth = store_stack_at(d->st, id, t, few, 64);
	if (depth > 64) {
		frames = lua_object_scratch(L, depth, sizeof (store_frame));
		store_stack_at(d->st, id, t, frames, depth);
	}
	lua_createtable(L, (int)depth, 0);
	lua_createtable(L, (int)depth, 0);
	for (i = 0; i < depth; i++) {
		lua_trace_push_state(L, d->cat, frames[i].state);
		lua_rawseti(L, -3, (lua_Integer)i + 1);
		if (frames[i].tag == STORE_NONE)
			lua_pushboolean(L, 0);
		else
			lua_trace_push_tag(L, d->cat, frames[i].tag);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return (2);
}

int
lua_statesys_field_kind(lua_State *L)
{
	uint32_t id;
	trace *d = lua_entity_check(L, 1, &id);

	lua_pushstring(L, kind_name(store_kind_of(d->st, id)));
	return (1);
}

const luaL_Reg lua_statesys_entity_methods[] = {
	{ "value_at", e_value_at },
	{ "stack_at", e_stack_at },
	{ NULL, NULL }
};

/* ---- trace ---- */

/* Whether entity e's name matches the pattern at idx (none: all). */
static int
name_matches(lua_State *L, const trace *d, int idx, uint32_t e)
{
	size_t plen, nlen;
	const char *pattern, *name;

	if (lua_isnoneornil(L, idx))
		return (1);
	pattern = lua_tolstring(L, idx, &plen);
	name = catalog_entity_name(d->cat, e, &nlen);
	return (tree_glob_match(pattern, plen, name, nlen));
}

int
lua_statesys_entities(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint32_t e, n = catalog_nentities(d->cat);
	lua_Integer k = 0;

	luaL_checkstring(L, 2);
	lua_settop(L, 2);
	lua_newtable(L);
	for (e = 0; e < n; e++) {
		if (!name_matches(L, d, 2, e))
			continue;
		lua_entity_push(L, 1, e);
		lua_rawseti(L, -2, ++k);
	}
	return (1);
}

/* t:children([path]) -> the paths of path's children, in natural order */
static int
t_children(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	const tree *tr = catalog_tree(d->cat);
	uint32_t node = TREE_ROOT, i, n;
	const uint32_t *kids;

	if (!lua_isnoneornil(L, 2)) {
		size_t len;
		const char *path = luaL_checklstring(L, 2, &len);

		if ((node = tree_find(tr, path, len)) == TREE_NONE)
			return (luaL_error(L, "t:children: no path \"%s\" in "
			    "trace %s", path, d->cat->name));
	}
	n = tree_nchildren(tr, node);
	kids = tree_children(tr, node);
	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		size_t len;
		const char *p = tree_path(tr, kids[i], &len);

		lua_pushlstring(L, p, len);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return (1);
}

/*
 * t:stats([pattern [, from, to]]) -> {entity name = {min, max, mean,
 * integral}} for the value entities matching (with a number in range).
 */
static int
t_stats(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint64_t from = lua_args_opt_time(L, 3, d->begin);
	uint64_t to = lua_args_opt_time(L, 4, d->end);
	uint32_t e, n = catalog_nentities(d->cat);

	if (!lua_isnoneornil(L, 2))
		luaL_checkstring(L, 2);
	lua_settop(L, 4);	/* the pattern stays at 2 */
	lua_newtable(L);
	for (e = 0; e < n; e++) {
		value_stats st;
		size_t len;
		const char *name;

		if (store_kind_of(d->st, e) != STORE_VALUES ||
		    !name_matches(L, d, 2, e))
			continue;
		value_stats_init(&st);
		store_value_stats(d->st, e, from, to, &st);
		name = catalog_entity_name(d->cat, e, &len);
		lua_pushlstring(L, name, len);
		if (push_stats(L, &st))
			lua_rawset(L, -3);
		else
			lua_pop(L, 1);
	}
	return (1);
}

/* The interval of a state entity, as t:at(.., {intervals = true}). */
static void
push_interval(lua_State *L, const trace *d, const store_interval *iv,
    uint32_t depth)
{
	lua_createtable(L, 0, 6);
	if (depth == 0) {
		lua_statesys_push_value(L, d->cat, iv->value);
		lua_setfield(L, -2, "value");
	} else {
		lua_trace_push_state(L, d->cat, iv->state);
		lua_setfield(L, -2, "state");
		lua_trace_push_tag(L, d->cat, iv->tag);
		lua_setfield(L, -2, "tag");
		if (iv->tag != STORE_NONE && d->cat->tags[iv->tag].members !=
		    NULL) {
			lua_statesys_push_tag_fields(L, d->cat, iv->tag);
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

int
lua_statesys_wants_intervals(lua_State *L, int idx)
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

int
lua_statesys_at(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint64_t t = lua_args_check_time(L, 2);
	uint32_t e, n = catalog_nentities(d->cat);
	int full = 0;

	if (!lua_isnoneornil(L, 3)) {
		luaL_checktype(L, 3, LUA_TTABLE);
		lua_getfield(L, 3, "intervals");
		full = lua_toboolean(L, -1);
		lua_pop(L, 1);
	}
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
			lua_statesys_push_value(L, d->cat, iv.value);
		else
			lua_trace_push_state(L, d->cat, iv.state);
		lua_rawset(L, -3);
	}
	return (1);
}

/*
 * t.tags -> every tag, in id order: {state =, tag =, fields = {the
 * definition's members}, defined = whether a definition was given}.  A
 * list, not a map by name: one tag name may go with several states.
 */
int
lua_statesys_field_tags(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint32_t i, n = catalog_ntags(d->cat);

	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		lua_createtable(L, 0, 3);
		lua_trace_push_state(L, d->cat, d->cat->tags[i].state);
		lua_setfield(L, -2, "state");
		lua_trace_push_tag(L, d->cat, i);
		lua_setfield(L, -2, "tag");
		lua_statesys_push_tag_fields(L, d->cat, i);
		lua_setfield(L, -2, "fields");
		lua_pushboolean(L, d->cat->tags[i].members != NULL);
		lua_setfield(L, -2, "defined");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return (1);
}

/*
 * t:write(path) writes the trace as a statemap file (writer.h), all or
 * nothing; "-" is standard output.
 */
static int
t_write(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	const char *path = luaL_checkstring(L, 2);
	sm_error err;
	char msg[1024];

	if (writer_save(d, path, &err) != 0) {
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "t:write: %s", msg));
	}
	return (0);
}

const luaL_Reg lua_statesys_trace_methods[] = {
	{ "write", t_write },
	{ "children", t_children },
	{ "stats", t_stats },
	{ NULL, NULL }
};
