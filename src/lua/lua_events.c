/*
 * lua_events.c: statemap.events, a kernel trace's events handed to a Lua
 * function one by one (ingest/kernel.h's kernel_events).
 *
 * The readers call back from inside libtracecmd and libbabeltrace2, so
 * nothing may unwind through them: each event's table is made, and the
 * handler called, in a protected call, and an error stops the reading,
 * closes the trace, and is raised again from here.
 *
 * Keys are made once: the tables' fixed keys, each kind's name and its
 * fields' names (the format's strings, the same pointers event after
 * event) are kept as Lua strings in one list, and each table is filled
 * with raw sets of those, not by name (which would hash and compare the
 * C string again for every field of every event).
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

/* The keys list's first items: the event table's own keys. */
enum { KEY_TIME = 1, KEY_CPU, KEY_NAME, KEY_PID, KEY_COMM, KEY_FIELDS,
    KEY_FIRST_FREE };

static const char *const table_keys[KEY_FIRST_FREE - 1] = {
	"time", "cpu", "name", "pid", "comm", "fields"
};

/* The stack index of the keys list inside call_handler. */
#define KEYS	3

/* The first fields of a kind whose names are kept. */
#define CACHED_FIELDS	32

/* What is kept of a kind, made at its first event. */
typedef struct kind_keys {
	int name;		/* its name's slot in the keys list */
	/*
	 * How many fields its last event had, so that the next one's
	 * table is made that size at once rather than grown field by field.
	 */
	uint16_t nfields;
	/* By position at depth 0: the format's name and its slot. */
	const char *field[CACHED_FIELDS];
	int slot[CACHED_FIELDS];
} kind_keys;

typedef struct walk {
	lua_State *L;
	int handler;		/* its stack index */
	int keys;		/* the keys list's stack index (f_events) */
	const kev *cur;		/* the event being handed */
	int failed;		/* the handler's error is on the stack */
	kind_keys **kinds;	/* by kind, NULL until its first event */
	uint32_t nkinds;
	int next_slot;		/* the keys list's next free slot */
	kind_keys *kk;		/* the current event's kind, or NULL */
	int depth;		/* of structures and arrays, while visiting */
	unsigned count;		/* the fields set at depth 0 */
} walk;

/* Keeps the string s in a new slot of the keys list (at KEYS). */
static int
keep_key(walk *w, const char *s)
{
	int slot = w->next_slot++;

	lua_pushstring(w->L, s);
	lua_rawseti(w->L, KEYS, slot);
	return (slot);
}

/* Pushes the key of slot. */
static void
push_slot(lua_State *L, int slot)
{
	lua_rawgeti(L, KEYS, slot);
}

/* ---- a field into the table on top of the stack ---- */

/*
 * Before a field's value is pushed: pushes its kept key and returns 1,
 * or returns 0 for a name not kept (set then sets it by name, or as the
 * next item of a list when name is NULL).
 */
static int
key(walk *w, const char *name)
{
	kind_keys *kk = w->kk;
	unsigned i = w->count;

	if (w->depth != 0 || name == NULL || kk == NULL ||
	    i >= CACHED_FIELDS)
		return (0);
	if (kk->slot[i] == 0) {
		kk->slot[i] = keep_key(w, name);
		kk->field[i] = name;
	} else if (kk->field[i] != name && strcmp(kk->field[i], name) == 0) {
		kk->field[i] = name;	/* the same name elsewhere */
	}
	/* A position whose name varies keeps its first one's key (the
	 * keys list does not grow with the events). */
	if (kk->field[i] != name)
		return (0);
	push_slot(w->L, kk->slot[i]);
	return (1);
}

/* Sets the value on top into the table under it (under its key, when
 * keyed). */
static void
set(walk *w, const char *name, int keyed)
{
	lua_State *L = w->L;

	if (w->depth == 0)
		w->count++;
	if (keyed)
		lua_rawset(L, -3);
	else if (name != NULL)
		lua_setfield(L, -2, name);
	else
		lua_seti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
}

static void
v_integer(void *ctx, const char *name, int64_t v, int is_signed)
{
	walk *w = ctx;
	int keyed = key(w, name);

	(void)is_signed;
	lua_pushinteger(w->L, (lua_Integer)v);
	set(w, name, keyed);
}

static void
v_real(void *ctx, const char *name, double v)
{
	walk *w = ctx;
	int keyed = key(w, name);

	lua_pushnumber(w->L, v);
	set(w, name, keyed);
}

static void
v_string(void *ctx, const char *name, const char *s, size_t len)
{
	walk *w = ctx;
	int keyed = key(w, name);

	lua_pushlstring(w->L, s, len);
	set(w, name, keyed);
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
		set(w, NULL, 0);
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

/* The kept keys of e's kind (made at its first event), or NULL. */
static kind_keys *
kind_of(walk *w, const kev *e)
{
	kind_keys *kk;

	if (e->kind >= w->nkinds)
		return (NULL);
	if ((kk = w->kinds[e->kind]) == NULL) {
		kk = xcalloc(1, sizeof (*kk));
		kk->name = keep_key(w, e->name);
		w->kinds[e->kind] = kk;
	}
	return (kk);
}

/* In a protected call (the handler, the walk, the keys list): the
 * event's table, then the handler on it. */
static int
call_handler(lua_State *L)
{
	walk *w = lua_touserdata(L, 2);
	const kev *e = w->cur;
	kind_keys *kk = kind_of(w, e);

	w->kk = kk;
	lua_pushvalue(L, 1);	/* the handler */
	lua_createtable(L, 0, 6);
	push_slot(L, KEY_TIME);
	lua_pushinteger(L, (lua_Integer)e->time);
	lua_rawset(L, -3);
	push_slot(L, KEY_CPU);
	lua_pushinteger(L, (lua_Integer)e->cpu);
	lua_rawset(L, -3);
	push_slot(L, KEY_NAME);
	if (kk != NULL)
		push_slot(L, kk->name);
	else
		lua_pushstring(L, e->name);
	lua_rawset(L, -3);
	push_slot(L, KEY_PID);
	lua_pushinteger(L, (lua_Integer)e->pid);
	lua_rawset(L, -3);
	push_slot(L, KEY_COMM);
	lua_pushlstring(L, e->comm, e->comm_len);
	lua_rawset(L, -3);
	push_slot(L, KEY_FIELDS);
	lua_createtable(L, 0, kk != NULL ? kk->nfields : 0);
	w->depth = 0;
	w->count = 0;
	kev_visit(e, &to_table, w);
	if (kk != NULL)
		kk->nfields = (uint16_t)(w->count > UINT16_MAX ?
		    UINT16_MAX : w->count);
	lua_rawset(L, -3);
	lua_call(L, 1, 1);
	return (1);
}

static int
on_event(void *ctx, const kev *e)
{
	walk *w = ctx;
	lua_State *L = w->L;
	int stop;

	if (!lua_checkstack(L, 5)) {
		lua_pushliteral(L, FNAME ": out of stack space");
		w->failed = 1;
		return (-1);
	}
	w->cur = e;
	lua_pushcfunction(L, call_handler);
	lua_pushvalue(L, w->handler);
	lua_pushlightuserdata(L, w);
	lua_pushvalue(L, w->keys);
	if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
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
	int handler = lua_isfunction(L, 2) ? 2 : 3, rv, keys;
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
	/* The keys list (see the top), its fixed keys first. */
	lua_createtable(L, KEY_FIRST_FREE + 64, 0);
	keys = lua_gettop(L);
	for (i = 0; i < KEY_FIRST_FREE - 1; i++) {
		lua_pushstring(L, table_keys[i]);
		lua_rawseti(L, keys, (lua_Integer)i + 1);
	}
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
		w.kinds = xcalloc(src->nkinds + 1, sizeof (kind_keys *));
		w.keys = keys;
		w.next_slot = KEY_FIRST_FREE;
		rv = kernel_events(src, wanted, from, to, on_event, &w, &err);
		src->close(src);
		free(wanted);
		for (k = 0; k < w.nkinds; k++)
			free(w.kinds[k]);
		free(w.kinds);
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
