/*
 * lua_events.c: statemap.events, a kernel trace's events handed to a Lua
 * function one by one (ingest/kernel.h's kernel_events).
 *
 * The readers call back from inside libtracecmd and libbabeltrace2, so
 * nothing may unwind through them: each event's table is made, and the
 * handler called, in a protected call, and an error stops the reading,
 * closes the trace, and is raised again from here.
 */
#include "lua/lua_events.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ingest/kernel.h"
#include "lua/lua_args.h"
#include "lua/lua_options.h"

#define FNAME	"statemap.events"

static const lua_option events_keys[] = {
	{ .key = "events", .kind = LUA_OPTION_TABLE,
	    .what = "a list of event names" },
	{ .key = "from", .kind = LUA_OPTION_TIME },
	{ .key = "to", .kind = LUA_OPTION_TIME },
	{ .key = NULL }
};

typedef struct walk {
	lua_State *L;
	int handler;		/* its stack index */
	const kev *cur;		/* the event being handed */
	int failed;		/* the handler's error is on the stack */
	/*
	 * By kind: how many fields its last event had (0: none seen), so
	 * that the next one's table is made that size at once rather than
	 * grown field by field.
	 */
	uint16_t *nfields;
	uint32_t nkinds;
	int depth;		/* of structures and arrays, while visiting */
	unsigned count;		/* the fields set at depth 0 */
} walk;

/* ---- a field into the table on top of the stack ---- */

/* Sets the value on top as field name of the table under it, or as the
 * next item of a list when name is NULL. */
static void
set(walk *w, const char *name)
{
	lua_State *L = w->L;

	if (w->depth == 0)
		w->count++;
	if (name != NULL)
		lua_setfield(L, -2, name);
	else
		lua_seti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
}

static void
v_integer(void *ctx, const char *name, int64_t v, int is_signed)
{
	walk *w = ctx;

	(void)is_signed;
	lua_pushinteger(w->L, (lua_Integer)v);
	set(w, name);
}

static void
v_real(void *ctx, const char *name, double v)
{
	walk *w = ctx;

	lua_pushnumber(w->L, v);
	set(w, name);
}

static void
v_string(void *ctx, const char *name, const char *s, size_t len)
{
	walk *w = ctx;

	lua_pushlstring(w->L, s, len);
	set(w, name);
}

/* A structure or array opens a table; its end sets it in its parent,
 * under the name kept beneath it (nil: the next item). */
static void
v_begin(void *ctx, const char *name, int is_array)
{
	walk *w = ctx;
	lua_State *L = w->L;

	(void)is_array;
	w->depth++;
	luaL_checkstack(L, 3, "fields nested too deep");
	if (name != NULL)
		lua_pushstring(L, name);
	else
		lua_pushnil(L);
	lua_newtable(L);
}

static void
v_end(void *ctx)
{
	walk *w = ctx;
	lua_State *L = w->L;

	/* parent, name, table -> parent */
	w->depth--;
	if (lua_isnil(L, -2)) {
		lua_remove(L, -2);
		set(w, NULL);
	} else {
		if (w->depth == 0)
			w->count++;
		lua_settable(L, -3);
	}
}

static const kev_visitor to_table = {
	v_integer, v_real, v_string, v_begin, v_end
};

/* ---- the handler ---- */

/* In a protected call (the handler, the walk): the event's table, then
 * the handler on it. */
static int
call_handler(lua_State *L)
{
	walk *w = lua_touserdata(L, 2);
	const kev *e = w->cur;
	int hint;

	lua_pushvalue(L, 1);	/* the handler */
	lua_createtable(L, 0, 7);
	lua_pushinteger(L, (lua_Integer)e->time);
	lua_setfield(L, -2, "time");
	lua_pushinteger(L, (lua_Integer)e->cpu);
	lua_setfield(L, -2, "cpu");
	lua_pushstring(L, e->name);
	lua_setfield(L, -2, "name");
	lua_pushinteger(L, (lua_Integer)e->pid);
	lua_setfield(L, -2, "pid");
	lua_pushlstring(L, e->comm, e->comm_len);
	lua_setfield(L, -2, "comm");
	hint = e->kind < w->nkinds ? w->nfields[e->kind] : 0;
	lua_createtable(L, 0, hint);
	w->depth = 0;
	w->count = 0;
	kev_visit(e, &to_table, w);
	if (e->kind < w->nkinds)
		w->nfields[e->kind] = (uint16_t)(w->count > UINT16_MAX ?
		    UINT16_MAX : w->count);
	lua_setfield(L, -2, "fields");
	lua_call(L, 1, 1);
	return (1);
}

static int
on_event(void *ctx, const kev *e)
{
	walk *w = ctx;
	lua_State *L = w->L;
	int stop;

	if (!lua_checkstack(L, 4)) {
		lua_pushliteral(L, FNAME ": out of stack space");
		w->failed = 1;
		return (-1);
	}
	w->cur = e;
	lua_pushcfunction(L, call_handler);
	lua_pushvalue(L, w->handler);
	lua_pushlightuserdata(L, w);
	if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
		w->failed = 1;	/* the error stays on the stack */
		return (-1);
	}
	stop = lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1);
	lua_pop(L, 1);
	return (stop ? 1 : 0);
}

/* ---- statemap.events ---- */

/* The names of the events option, malloc'd (NULL: all events). */
static char **
event_names(lua_State *L, const lua_options *opts, size_t *n)
{
	char **names;
	lua_Integer i, len;

	*n = 0;
	if (!lua_options_table(opts, "events"))
		return (NULL);
	len = luaL_len(L, -1);
	if (len < 0 || len > 1000000)
		luaL_error(L, FNAME ": events: too many names");
	for (i = 1; i <= len; i++) {
		if (lua_geti(L, -1, i) != LUA_TSTRING)
			luaL_error(L, FNAME ": events: item %d is not an "
			    "event name", (int)i);
		lua_pop(L, 1);
	}
	names = xcalloc((size_t)len + 1, sizeof (char *));
	for (i = 1; i <= len; i++) {
		size_t l;
		const char *s;

		lua_geti(L, -1, i);
		s = lua_tolstring(L, -1, &l);
		names[i - 1] = xstrndup(s, l);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	*n = (size_t)len;
	return (names);
}

static void
free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* statemap.events(path [, {events=, from=, to=}], handler) */
static int
f_events(lua_State *L)
{
	const char *path = lua_args_check_path(L, 1, FNAME, "the path");
	lua_options opts;
	uint64_t from = 0, to = UINT64_MAX;
	char **names, msg[sizeof (((sm_error *)0)->message) +
	    sizeof (((sm_error *)0)->file) + 64];
	size_t nnames, i;
	unsigned char *wanted = NULL;
	kev_source *src;
	sm_error err;
	walk w;
	int handler = lua_isfunction(L, 2) ? 2 : 3, rv;
	uint32_t k;

	luaL_checktype(L, handler, LUA_TFUNCTION);
	lua_settop(L, handler);
	/* with no options, index 3 is none: no keys given */
	lua_options_init(&opts, L, handler == 2 ? 3 : 2, FNAME, events_keys);
	lua_options_check_keys(&opts);
	(void)lua_options_time(&opts, "from", &from);
	(void)lua_options_time(&opts, "to", &to);
	if (to < from)
		return (luaL_error(L, FNAME ": from must not be after to"));
	names = event_names(L, &opts, &nnames);
	/* Nothing below raises an error until the trace is closed. */
	if ((src = kernel_open(path, &err)) != NULL) {
		if (names != NULL) {
			wanted = xcalloc(src->nkinds + 1, 1);
			for (k = 0; k < src->nkinds; k++)
				for (i = 0; i < nnames; i++)
					if (strcmp(src->names[k], names[i]) == 0)
						wanted[k] = 1;
		}
		memset(&w, 0, sizeof (w));
		w.L = L;
		w.handler = handler;
		w.nkinds = src->nkinds;
		w.nfields = xcalloc(src->nkinds + 1, sizeof (uint16_t));
		rv = kernel_events(src, wanted, from, to, on_event, &w, &err);
		src->close(src);
		free(wanted);
		free(w.nfields);
	} else {
		rv = -1;
		w.failed = 0;
	}
	free_names(names, nnames);
	if (w.failed)
		return (lua_error(L));
	if (rv != 0) {
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "%s", msg));
	}
	return (0);
}

const luaL_Reg lua_events_functions[] = {
	{ "events", f_events },
	{ NULL, NULL }
};
