/*
 * lua_reduce.c: the bulk forms of t:intervals, which keep the data in
 * C (reduce.h): t:columns{...} returns typed arrays, t:reduce{...} sums
 * by a key; and the array object.
 *
 *   local start, dur = t:columns{"start", "duration", from = "1s"}
 *   #dur, dur[i], dur:sum(), dur:min(), dur:max(), dur:table()
 *   local st = t:columns{"state"}; st[i] (a position in t.states),
 *   st:name(i), st.names
 *   t:reduce{by = "state"} -> {["on-cpu"] = {time=, count=}, ...}
 *
 * An array is a userdata holding one column (64-bit times, or 32-bit
 * codes of entities, states and tags) in memory of its own, counted
 * against --memory-limit and told to the collector; it keeps its trace
 * alive (its user value) to name what the codes stand for.
 */
#include "lua/lua_reduce.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "base/intern.h"
#include "base/json.h"
#include "base/runlimit.h"
#include "base/util.h"
#include "lua/lua_args.h"
#include "lua/lua_catalog.h"
#include "lua/lua_entity.h"
#include "lua/lua_object.h"
#include "lua/lua_options.h"
#include "lua/lua_trace.h"
#include "store/reduce.h"

/* The columns t:columns knows, in the order of reduce_columns. */
typedef enum column_kind {
	COL_START, COL_FINISH, COL_DURATION, COL_ENTITY, COL_STATE, COL_TAG,
	NCOLUMNS
} column_kind;

static const char *const column_names[NCOLUMNS] = {
	"start", "finish", "duration", "entity", "state", "tag"
};

#define COLUMN_LIST	"start, finish, duration, entity, state, tag"

const char lua_reduce_array_type[] = "statemap.array";

typedef struct larray {
	lua_object_head head;
	column_kind kind;
	size_t n;
	uint64_t *u64;		/* start, finish, duration (malloc'd) */
	uint32_t *u32;		/* entity, state, tag: codes from 1 (tag 0:
				 * none) (malloc'd) */
	size_t charged;		/* counted against the memory limit */
} larray;

static int
is_code(column_kind k)
{
	return (k == COL_ENTITY || k == COL_STATE || k == COL_TAG);
}

/* ---- selections: from, to, entities, states ---- */

/*
 * The keys of a selection, as t:intervals takes it, which t:columns and
 * t:reduce take too.
 */
#define SELECTION_KEYS \
	{ .key = "from", .kind = LUA_OPTION_TIME }, \
	{ .key = "to", .kind = LUA_OPTION_TIME }, \
	{ .key = "entities", .kind = LUA_OPTION_TABLE, \
	    .what = "a list of entities or names" }, \
	{ .key = "states", .kind = LUA_OPTION_TABLE, \
	    .what = "a list of state names" }

static const lua_option columns_keys[] = {
	SELECTION_KEYS,
	{ .key = NULL }
};

static const lua_option reduce_keys[] = {
	SELECTION_KEYS,
	{ .key = "by", .kind = LUA_OPTION_STRING },
	{ .key = "field", .kind = LUA_OPTION_STRING },
	{ .key = NULL }
};

/*
 * Reads the selection in the options; the arrays it needs are scratch
 * memory left on the stack.  Any other string key is an error naming the
 * method and the keys it takes (a misspelt "form" would otherwise select
 * everything); other keys are the method's (t:columns' list of names).
 */
static void
check_selection(lua_State *L, const trace *d, const lua_options *opts,
    reduce_selection *q)
{
	memset(q, 0, sizeof (*q));
	q->from = d->begin;
	q->to = d->end;
	lua_options_check_keys(opts);
	lua_options_time(opts, "from", &q->from);
	lua_options_time(opts, "to", &q->to);
	if (lua_options_table(opts, "entities")) {
		int list = lua_gettop(L);

		q->entities = lua_entity_list(L, d, list, &q->nentities,
		    opts->fname, "entities");
		lua_remove(L, list);	/* the scratch stays */
	}
	if (lua_options_table(opts, "states")) {
		int list = lua_gettop(L);
		unsigned char *set;

		set = lua_object_scratch(L, d->cat->nstates, 1);
		lua_catalog_mark_states(L, d->cat, list, set, opts->fname,
		    "states");
		q->states = set;
		lua_remove(L, list);
	}
}

/* The options table at idx, or a new empty one there if none is given. */
static void
options_at(lua_State *L, int idx)
{
	if (lua_isnoneornil(L, idx)) {
		lua_settop(L, idx - 1);
		lua_newtable(L);
	} else {
		luaL_checktype(L, idx, LUA_TTABLE);
		lua_settop(L, idx);
	}
}

/* ---- the array object ---- */

static larray *
check_array(lua_State *L, int idx)
{
	return (lua_object_check(L, idx, LUA_REDUCE_ARRAY_TYPE));
}

static void
push_element(lua_State *L, const larray *a, size_t k)
{
	if (a->u64 != NULL)
		lua_pushinteger(L, (lua_Integer)a->u64[k]);
	else
		lua_pushinteger(L, (lua_Integer)a->u32[k]);
}

/* The trace an array's codes are of. */
static trace *
array_trace(lua_State *L, int idx)
{
	trace *d;

	lua_getiuservalue(L, idx, 1);
	d = lua_trace_check(L, -1);
	lua_pop(L, 1);
	return (d);
}

/* Pushes the name a code stands for (a tag code of 0: nil). */
static void
push_name(lua_State *L, const trace *d, column_kind kind, uint32_t code)
{
	size_t len;
	const char *name;

	if (code == 0) {
		lua_pushnil(L);
		return;
	}
	switch (kind) {
	case COL_ENTITY:
		name = catalog_entity_name(d->cat, code - 1, &len);
		lua_pushlstring(L, name, len);
		break;
	case COL_STATE:
		lua_catalog_push_state(L, d->cat, code - 1);
		break;
	default:
		lua_catalog_push_tag(L, d->cat, code - 1);
		break;
	}
}

/* a.names: what each code stands for, as a list indexed by code */
static void
push_names(lua_State *L, const trace *d, column_kind kind)
{
	uint32_t n = kind == COL_ENTITY ? catalog_nentities(d->cat) :
	    kind == COL_STATE ? d->cat->nstates : catalog_ntags(d->cat), i;

	lua_createtable(L, (int)n, 0);
	for (i = 1; i <= n; i++) {
		push_name(L, d, kind, i);
		lua_rawseti(L, -2, (lua_Integer)i);
	}
}

/* a[i] -> the value; a.name -> a method or field */
int
lua_reduce_array_index(lua_State *L)
{
	larray *a = check_array(L, 1);
	size_t k;

	if (lua_type(L, 2) == LUA_TNUMBER) {
		if ((k = lua_object_index(L, 2, a->n, "index (an integer)")) ==
		    SIZE_MAX)
			return (0);
		push_element(L, a, k);
		return (1);
	}
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
		return (1);
	if (lua_type(L, 2) == LUA_TSTRING) {
		const char *key = lua_tostring(L, 2);

		if (strcmp(key, "column") == 0) {
			lua_pushstring(L, column_names[a->kind]);
			return (1);
		}
		if (strcmp(key, "names") == 0 && is_code(a->kind)) {
			push_names(L, array_trace(L, 1), a->kind);
			return (1);
		}
	}
	return (0);
}

static int
array_len(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)check_array(L, 1)->n);
	return (1);
}

static int
array_tostring(lua_State *L)
{
	larray *a = check_array(L, 1);

	lua_pushfstring(L, "<array %s: %I values>", column_names[a->kind],
	    (lua_Integer)a->n);
	return (1);
}

static int
array_gc(lua_State *L)
{
	larray *a = lua_object_finalizing(L, LUA_REDUCE_ARRAY_TYPE);

	if (a == NULL)
		return (0);
	free(a->u64);
	free(a->u32);
	a->u64 = NULL;
	a->u32 = NULL;
	a->n = 0;
	runlimit_credit(a->charged);
	a->charged = 0;
	a->head.finalized = 1;
	return (0);
}

static uint64_t
value(const larray *a, size_t k)
{
	return (a->u64 != NULL ? a->u64[k] : a->u32[k]);
}

/* a:sum() -> the sum (an integer; a float if it would not fit) */
static int
a_sum(lua_State *L)
{
	larray *a = check_array(L, 1);
	uint64_t sum = 0;
	double big = 0;
	int overflow = 0;
	size_t k;

	for (k = 0; k < a->n; k++) {
		uint64_t v = value(a, k);

		if (!overflow && (sum + v < sum || sum + v > (uint64_t)
		    LUA_MAXINTEGER)) {
			overflow = 1;
			big = (double)sum;
		}
		if (overflow)
			big += (double)v;
		else
			sum += v;
	}
	if (overflow)
		lua_pushnumber(L, (lua_Number)big);
	else
		lua_pushinteger(L, (lua_Integer)sum);
	return (1);
}

static int
extreme(lua_State *L, int want_max)
{
	larray *a = check_array(L, 1);
	uint64_t best;
	size_t k;

	if (a->n == 0)
		return (0);
	best = value(a, 0);
	for (k = 1; k < a->n; k++) {
		uint64_t v = value(a, k);

		if (want_max ? v > best : v < best)
			best = v;
	}
	lua_pushinteger(L, (lua_Integer)best);
	return (1);
}

/* a:min(), a:max() -> the smallest, the largest (nil if empty) */
static int
a_min(lua_State *L)
{
	return (extreme(L, 0));
}

static int
a_max(lua_State *L)
{
	return (extreme(L, 1));
}

/* a:table() -> the values as a plain Lua list */
static int
a_table(lua_State *L)
{
	larray *a = check_array(L, 1);
	size_t k;

	lua_createtable(L, a->n > INT_MAX ? INT_MAX : (int)a->n, 0);
	for (k = 0; k < a->n; k++) {
		push_element(L, a, k);
		lua_rawseti(L, -2, (lua_Integer)k + 1);
	}
	return (1);
}

/* a:name(i) -> the entity, state or tag name element i stands for */
static int
a_name(lua_State *L)
{
	larray *a = check_array(L, 1);
	size_t k = lua_object_index(L, 2, a->n, "index (an integer)");

	if (!is_code(a->kind))
		return (luaL_error(L, "a %s array holds times: only entity, "
		    "state and tag arrays have names", column_names[a->kind]));
	if (k == SIZE_MAX)
		return (0);
	push_name(L, array_trace(L, 1), a->kind, a->u32[k]);
	return (1);
}

const luaL_Reg lua_reduce_array_methods[] = {
	{ "sum", a_sum },
	{ "min", a_min },
	{ "max", a_max },
	{ "table", a_table },
	{ "name", a_name },
	{ NULL, NULL }
};

const luaL_Reg lua_reduce_array_metamethods[] = {
	{ "__len", array_len },
	{ "__tostring", array_tostring },
	{ "__gc", array_gc },
	{ NULL, NULL }
};

/* ---- t:columns ---- */

/*
 * t:columns{"start", "duration", ..., from=, to=, entities=, states=}
 * -> one array per column named, in that order: the fields of the
 * intervals t:intervals would give for the same options.
 */
static int
t_columns(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	larray *cols[NCOLUMNS] = { NULL };
	int slot[NCOLUMNS];	/* where each array is on the stack */
	reduce_columns out;
	reduce_selection q;
	lua_options opts;
	int nasked, i;
	size_t n = 0, bound, width = 0;
	const char *why;

	options_at(L, 2);
	nasked = (int)lua_rawlen(L, 2);
	if (nasked == 0)
		return (luaL_error(L, "columns: name the columns to return, "
		    "such as t:columns{\"state\", \"duration\"} (columns are "
		    COLUMN_LIST ")"));
	lua_options_init(&opts, L, 2, "columns", columns_keys);
	check_selection(L, d, &opts, &q);
	luaL_checkstack(L, nasked + 8, "too many columns");
	bound = reduce_bound(d->st, &q);
	for (i = 1; i <= nasked; i++) {
		const char *name;
		column_kind k;
		larray *a;

		lua_rawgeti(L, 2, i);
		name = lua_tostring(L, -1);
		for (k = 0; k < NCOLUMNS; k++)
			if (name != NULL && lua_type(L, -1) == LUA_TSTRING &&
			    strcmp(name, column_names[k]) == 0)
				break;
		if (k == NCOLUMNS)
			return (luaL_error(L, "columns: no column %s%s%s "
			    "(columns are " COLUMN_LIST ")", name != NULL ?
			    "\"" : "", name != NULL ? name :
			    luaL_typename(L, -1), name != NULL ? "\"" : ""));
		lua_pop(L, 1);
		if (cols[k] != NULL) {
			/* Asked for twice: the same array twice. */
			lua_pushvalue(L, slot[k]);
			continue;
		}
		a = lua_object_new(L, LUA_REDUCE_ARRAY_TYPE, sizeof (larray), 1);
		a->kind = k;
		lua_pushvalue(L, 1);
		lua_setiuservalue(L, -2, 1);
		cols[k] = a;
		slot[k] = lua_gettop(L);
		width += is_code(k) ? sizeof (uint32_t) : sizeof (uint64_t);
	}
	/*
	 * Room for the bound, filled, then cut to what was filled: large
	 * blocks are mapped, their pages come in as they are written, and
	 * cutting one gives its tail back without a copy.  Without a state
	 * filter the bound is near the count, and is checked first.
	 */
	if (q.states == NULL && runlimit_check(bound * width, &why) != 0)
		return (luaL_error(L, "%s", why));
	for (i = 0; i < NCOLUMNS; i++) {
		if (cols[i] == NULL || bound == 0)
			continue;
		if (is_code(cols[i]->kind))
			cols[i]->u32 = xmalloc(bound * sizeof (uint32_t));
		else
			cols[i]->u64 = xmalloc(bound * sizeof (uint64_t));
	}
	out.start = cols[COL_START] != NULL ? cols[COL_START]->u64 : NULL;
	out.finish = cols[COL_FINISH] != NULL ? cols[COL_FINISH]->u64 : NULL;
	out.duration = cols[COL_DURATION] != NULL ?
	    cols[COL_DURATION]->u64 : NULL;
	out.entity = cols[COL_ENTITY] != NULL ? cols[COL_ENTITY]->u32 : NULL;
	out.state = cols[COL_STATE] != NULL ? cols[COL_STATE]->u32 : NULL;
	out.tag = cols[COL_TAG] != NULL ? cols[COL_TAG]->u32 : NULL;
	if (bound > 0 && reduce_fill(d->st, &q, &out, &n, &why) != 0)
		return (luaL_error(L, "%s", why));
	for (i = 0; i < NCOLUMNS; i++) {
		larray *a = cols[i];

		if (a == NULL || bound == 0)
			continue;
		a->n = n;
		if (n < bound && a->u64 != NULL)
			a->u64 = xrealloc(a->u64, (n + 1) * sizeof (uint64_t));
		if (n < bound && a->u32 != NULL)
			a->u32 = xrealloc(a->u32, (n + 1) * sizeof (uint32_t));
		a->charged = n * (is_code(a->kind) ? sizeof (uint32_t) :
		    sizeof (uint64_t));
		lua_object_charge(L, a->charged);
	}
	return (nasked);
}

/* ---- t:reduce ---- */

/*
 * For by = a tag field: each tag's value of that member of its
 * definition, as keys: key_of[tag id] indexes the list of distinct
 * values (at index `values`, pushed), or STORE_NONE where the tag has
 * no such member, or a null, an array or an object there.  Returns the
 * number of distinct values.
 */
static uint32_t
field_keys(lua_State *L, const catalog *cat, const char *field,
    uint32_t *key_of)
{
	uint32_t ntags = catalog_ntags(cat), t, nkeys = 0;
	json_arena *ja = json_arena_new();
	luaL_Buffer b;
	int values, ids;

	lua_newtable(L);	/* key id + 1 -> value */
	values = lua_gettop(L);
	lua_newtable(L);	/* value -> key id */
	ids = lua_gettop(L);
	for (t = 0; t < ntags; t++) {
		const char *members = cat->tags[t].members;
		json_value *doc, *v;
		json_error err;

		key_of[t] = STORE_NONE;
		if (members == NULL)
			continue;
		luaL_buffinit(L, &b);
		luaL_addchar(&b, '{');
		luaL_addstring(&b, members);
		luaL_addchar(&b, '}');
		luaL_pushresult(&b);
		json_arena_reset(ja);
		doc = json_parse_document(ja, lua_tostring(L, -1),
		    lua_rawlen(L, -1), &err);
		v = doc != NULL ? json_object_get(doc, field) : NULL;
		lua_pop(L, 1);
		if (v == NULL)
			continue;
		switch (v->type) {
		case JSON_STRING:
			lua_pushlstring(L, v->str, v->len);
			break;
		case JSON_NUMBER:
			lua_pushlstring(L, v->str, v->len);
			if (lua_stringtonumber(L, lua_tostring(L, -1)) == 0)
				lua_pushnil(L);
			lua_remove(L, -2);
			break;
		case JSON_TRUE:
		case JSON_FALSE:
			lua_pushboolean(L, v->type == JSON_TRUE);
			break;
		default:
			lua_pushnil(L);
			break;
		}
		/* A float NaN cannot be a key; JSON has none, but be sure. */
		if (lua_isnil(L, -1) || lua_tonumber(L, -1) !=
		    lua_tonumber(L, -1)) {
			lua_pop(L, 1);
			continue;
		}
		lua_pushvalue(L, -1);
		if (lua_rawget(L, ids) == LUA_TNUMBER) {
			key_of[t] = (uint32_t)lua_tointeger(L, -1);
			lua_pop(L, 2);
			continue;
		}
		lua_pop(L, 1);
		key_of[t] = nkeys++;
		lua_pushvalue(L, -1);
		lua_rawseti(L, values, nkeys);
		lua_pushinteger(L, key_of[t]);
		lua_rawset(L, ids);
	}
	json_arena_free(ja);
	lua_pop(L, 1);		/* ids; values stays */
	return (nkeys);
}

/*
 * t:reduce{by = "state" | "entity" | "tag" | a tag field, from=, to=,
 * entities=, states=} -> {key = {time = ns, count = intervals}}: the
 * intervals t:intervals would give, summed by their state, entity, tag
 * or the value of a member of their tag's definition (field = "name"
 * names a field whatever its name).
 */
static int
t_reduce(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	const catalog *cat = d->cat;
	reduce_selection q;
	reduce_key by;
	lua_options opts;
	const char *name, *field, *why;
	uint32_t nkeys, ntags = catalog_ntags(cat), k, *key_of = NULL;
	uint64_t *time, *count;
	int values = 0, has_by, fields;

	options_at(L, 2);
	lua_pushnil(L);
	while (lua_next(L, 2) != 0) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING)
			return (luaL_error(L, "reduce: options are named: "
			    "t:reduce{by = \"state\", from = ..., to = ...}"));
	}
	lua_options_init(&opts, L, 2, "reduce", reduce_keys);
	has_by = lua_options_string(&opts, "by", &name, NULL);
	fields = lua_options_string(&opts, "field", &field, NULL);
	if (has_by && fields)
		return (luaL_error(L, "reduce: give by or field, not both"));
	if (fields)
		name = field;
	else if (!has_by)
		return (luaL_error(L, "reduce: by is required: \"state\", "
		    "\"entity\", \"tag\" or the name of a tag field"));
	/* Kept on the stack while it is used (an __index may have made
	 * it): a table to keep it in would cost more than the call. */
	name = lua_pushstring(L, name);
	check_selection(L, d, &opts, &q);
	if (!fields && strcmp(name, "state") == 0) {
		by = REDUCE_STATE;
		nkeys = cat->nstates;
	} else if (!fields && strcmp(name, "entity") == 0) {
		by = REDUCE_ENTITY;
		nkeys = catalog_nentities(cat);
	} else if (!fields && strcmp(name, "tag") == 0) {
		by = REDUCE_TAG;
		/* Tags of one name under several states are one key. */
		key_of = lua_object_scratch(L, ntags, sizeof (uint32_t));
		for (k = 0; k < ntags; k++)
			key_of[k] = cat->tags[k].name;
		nkeys = intern_count(cat->tag_names);
	} else {
		by = REDUCE_TAG;
		key_of = lua_object_scratch(L, ntags, sizeof (uint32_t));
		nkeys = field_keys(L, cat, name, key_of);
		values = lua_gettop(L);
	}
	time = lua_object_scratch(L, nkeys, sizeof (uint64_t));
	count = lua_object_scratch(L, nkeys, sizeof (uint64_t));
	if (reduce_sums(d->st, &q, by, key_of, ntags, time, count, &why) != 0)
		return (luaL_error(L, "%s", why));
	lua_createtable(L, 0, 0);
	for (k = 0; k < nkeys; k++) {
		size_t len;
		const char *s;

		if (count[k] == 0)
			continue;
		switch (by) {
		case REDUCE_STATE:
			lua_catalog_push_state(L, cat, k);
			break;
		case REDUCE_ENTITY:
			s = catalog_entity_name(cat, k, &len);
			lua_pushlstring(L, s, len);
			break;
		default:
			if (values != 0) {
				lua_rawgeti(L, values, (lua_Integer)k + 1);
			} else {
				s = intern_name(cat->tag_names, k, &len);
				lua_pushlstring(L, s, len);
			}
			break;
		}
		lua_createtable(L, 0, 2);
		lua_pushinteger(L, (lua_Integer)time[k]);
		lua_setfield(L, -2, "time");
		lua_pushinteger(L, (lua_Integer)count[k]);
		lua_setfield(L, -2, "count");
		lua_rawset(L, -3);
	}
	return (1);
}

const luaL_Reg lua_reduce_trace_methods[] = {
	{ "columns", t_columns },
	{ "reduce", t_reduce },
	{ NULL, NULL }
};
