/*
 * lua_trace.c: the trace object: statemap.load, making and checking a
 * trace object, its finalizer, and the fields that are the trace's own.
 *
 * A trace is a userdata holding a C trace (trace.h).  Every query is one
 * call into the store: scripts run at C speed and Lua sees only results.
 */
#include "lua/lua_trace.h"

#include <string.h>

#include "base/duration.h"
#include "base/runlimit.h"
#include "lua/lua_args.h"
#include "lua/lua_object.h"
#include "lua/lua_options.h"

const char lua_trace_type[] = "statemap.trace";

typedef struct ltrace {
	lua_object_head head;
	trace *d;
	size_t charged;		/* its memory, counted against the limit */
	lua_trace_snapshot at;	/* t:at's */
} ltrace;

trace *
lua_trace_check(lua_State *L, int idx)
{
	return (((ltrace *)lua_object_check(L, idx, LUA_TRACE_TYPE))->d);
}

trace *
lua_trace_test(lua_State *L, int idx)
{
	ltrace *t = lua_object_test(L, idx, LUA_TRACE_TYPE);

	return (t != NULL ? t->d : NULL);
}

static int
new_object(lua_State *L)
{
	lua_object_new(L, LUA_TRACE_TYPE, sizeof (ltrace), 1);
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

lua_trace_snapshot *
lua_trace_snapshot_of(lua_State *L, int idx)
{
	ltrace *t = lua_touserdata(L, idx);

	if (!t->at.made) {
		snapshot_cursor_init(&t->at.cursor, t->d->st);
		t->at.made = 1;
	}
	return (&t->at);
}

/* ---- statemap.load ---- */

static const lua_option load_keys[] = {
	{ .key = "begin", .kind = LUA_OPTION_TIME },
	{ .key = "end", .kind = LUA_OPTION_TIME },
	{ .key = "duration", .kind = LUA_OPTION_TIME },
	{ .key = "ignore_tags", .kind = LUA_OPTION_BOOLEAN },
	{ .key = "filter", .kind = LUA_OPTION_STRING },
	{ .key = "cache", .kind = LUA_OPTION_BOOLEAN },
	{ .key = NULL }
};

/*
 * statemap.load(path [, {begin=, ["end"]=, duration=, ignore_tags=,
 * filter=, cache=}])
 */
static int
f_load(lua_State *L)
{
	const char *path = lua_args_check_path(L, 1, "statemap.load",
	    "the path"), *filter;
	lua_options opts;
	trace_options o;
	trace *d;
	sm_error err;
	int have_b, have_e, have_d, cache = 1;
	uint64_t begin = 0, end = 0, dur = 0;
	char msg[sizeof (err.message) + sizeof (err.file) + 64];

	memset(&o, 0, sizeof (o));
	lua_settop(L, 2);
	lua_options_init(&opts, L, 2, "statemap.load", load_keys);
	lua_options_keep(&opts);
	have_b = lua_options_time(&opts, "begin", &begin);
	have_e = lua_options_time(&opts, "end", &end);
	have_d = lua_options_time(&opts, "duration", &dur);
	o.begin = (int64_t)begin;
	o.end = (int64_t)end;
	lua_options_boolean(&opts, "ignore_tags", &o.ignore_tags);
	lua_options_boolean(&opts, "cache", &cache);
	o.no_cache = !cache;
	/* The regex stays on the stack while the trace loads. */
	if (lua_options_string(&opts, "filter", &filter, NULL))
		o.filter = lua_args_regex(L, filter, "filter");
	if (have_d) {
		if (have_b && have_e)
			return (luaL_error(L, "give at most two of begin, "
			    "end and duration"));
		if (have_e) {
			if ((int64_t)dur > o.end)
				return (luaL_error(L, "duration exceeds end"));
			o.begin = o.end - (int64_t)dur;
		} else {
			if ((int64_t)dur > INT64_MAX - o.begin)
				return (luaL_error(L, "begin plus duration is "
				    "beyond 2^63 ns"));
			o.end = o.begin + (int64_t)dur;
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

const luaL_Reg lua_trace_functions[] = {
	{ "load", f_load },
	{ NULL, NULL }
};

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
	ltrace *t = lua_object_finalizing(L, LUA_TRACE_TYPE);

	if (t == NULL)
		return (0);
	if (!called_by_collector(L))
		return (luaL_error(L, "a trace is finalized by the collector, "
		    "not by hand"));
	/* The live server (statemap.serve) may hold it too. */
	trace_release(t->d);
	t->d = NULL;
	t->head.finalized = 1;	/* lua_trace_check refuses it from now on */
	if (t->at.made)
		snapshot_cursor_free(&t->at.cursor);
	t->at.made = 0;
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

const luaL_Reg lua_trace_metamethods[] = {
	{ "__tostring", trace_tostring },
	{ "__gc", trace_gc },
	{ NULL, NULL }
};

/* ---- fields ---- */

static void
push_opt_string(lua_State *L, const char *s)
{
	if (s == NULL)
		lua_pushnil(L);
	else
		lua_pushstring(L, s);
}

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

const luaL_Reg lua_trace_fields[] = {
	{ "title", field_title },
	{ "host", field_host },
	{ "entity_kind", field_entity_kind },
	{ "name", field_name },
	{ "start", field_start },
	{ "begin", field_begin },
	{ "finish", field_finish },
	{ "records", field_records },
	{ "transitions", field_transitions },
	{ NULL, NULL }
};
