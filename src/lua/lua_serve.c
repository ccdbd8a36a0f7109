#include "lua/lua_serve.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lua/lua_trace.h"
#include "serve/server.h"
#include "serve/served_traces.h"

#define SERVER_KEY	"statemap.server"

static int background;

/* The server of a Lua state, in its registry; its __gc stops it. */
typedef struct lserver {
	server *s;
} lserver;

void
lua_serve_background(int on)
{
	background = on;
}

static int
server_gc(lua_State *L)
{
	lserver *ls = lua_touserdata(L, 1);

	serve_stop(ls->s);
	ls->s = NULL;
	return (0);
}

static lserver *
state_server(lua_State *L)
{
	lserver *ls;

	if (lua_getfield(L, LUA_REGISTRYINDEX, SERVER_KEY) == LUA_TUSERDATA) {
		ls = lua_touserdata(L, -1);
		lua_pop(L, 1);
		return (ls);
	}
	lua_pop(L, 1);
	ls = lua_newuserdatauv(L, sizeof (*ls), 0);
	ls->s = NULL;
	lua_createtable(L, 0, 1);
	lua_pushcfunction(L, server_gc);
	lua_setfield(L, -2, "__gc");
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, SERVER_KEY);
	return (ls);
}

/* The traces of argument 1: a trace or a list of them. */
static trace **
check_traces(lua_State *L, size_t *n)
{
	trace **traces;
	size_t i;

	if (lua_trace_test(L, 1) != NULL) {
		traces = lua_newuserdatauv(L, sizeof (trace *), 0);
		traces[0] = lua_trace_test(L, 1);
		*n = 1;
		return (traces);
	}
	if (!lua_istable(L, 1) || (*n = lua_rawlen(L, 1)) == 0)
		luaL_argerror(L, 1, "a trace or a list of traces");
	traces = lua_newuserdatauv(L, *n * sizeof (trace *), 0);
	for (i = 0; i < *n; i++) {
		lua_rawgeti(L, 1, (lua_Integer)i + 1);
		traces[i] = lua_trace_test(L, -1);
		if (traces[i] == NULL)
			luaL_error(L, "serve: item %d of the list is not a trace",
			    (int)i + 1);
		lua_pop(L, 1);
	}
	return (traces);
}

static const char *
opt_string(lua_State *L, const char *key)
{
	const char *s = NULL;

	if (lua_isnil(L, 2))
		return (NULL);
	if (lua_getfield(L, 2, key) != LUA_TNIL) {
		if (lua_type(L, -1) != LUA_TSTRING)
			luaL_error(L, "serve: %s must be a string", key);
		s = lua_tostring(L, -1);
	}
	lua_pop(L, 1);		/* the string stays in the options table */
	return (s);
}

static lua_Integer
opt_integer(lua_State *L, const char *key, lua_Integer min, lua_Integer max,
    lua_Integer dflt, int *given)
{
	lua_Integer v = dflt;

	*given = 0;
	if (lua_isnil(L, 2))
		return (v);
	if (lua_getfield(L, 2, key) != LUA_TNIL) {
		int ok;

		v = lua_tointegerx(L, -1, &ok);
		if (!ok || v < min || v > max)
			luaL_error(L, "serve: %s must be an integer from %I to "
			    "%I", key, min, max);
		*given = 1;
	}
	lua_pop(L, 1);
	return (v);
}

/* Waits for SIGINT or SIGTERM (blocked by the caller); which one. */
static int
wait_for_signal(const sigset_t *stop)
{
	int sig;

	while (sigwait(stop, &sig) != 0)
		continue;
	return (sig);
}

/* statemap.serve(traces [, options]) -> the URL (in the background) */
static int
f_serve(lua_State *L)
{
	lserver *ls;
	served_options o;
	serve_options so;
	served *content;
	trace **traces;
	sm_error err;
	sigset_t stop, old;
	size_t n;
	int port_given, coalesce_given, sig;
	char msg[sizeof (err.message) + 64];

	lua_settop(L, 2);	/* traces, options: what follows is scratch */
	ls = state_server(L);
	if (lua_isnil(L, 1)) {
		serve_stop(ls->s);
		ls->s = NULL;
		return (0);
	}
	if (!lua_isnil(L, 2))
		luaL_checktype(L, 2, LUA_TTABLE);
	traces = check_traces(L, &n);
	memset(&o, 0, sizeof (o));
	memset(&so, 0, sizeof (so));
	so.port = (unsigned)opt_integer(L, "port", 0, 65535, 0, &port_given);
	so.bind = opt_string(L, "bind");
	o.title = opt_string(L, "title");
	o.sortby = opt_string(L, "sort");
	o.budget = (uint64_t)opt_integer(L, "coalesce", 1, 1000000000, 0,
	    &coalesce_given);
	if (ls->s != NULL && (port_given || so.bind != NULL) &&
	    !serve_same_place(ls->s, &so))
		return (luaL_error(L, "serve: already serving at %s; "
		    "statemap.serve() stops it", serve_url(ls->s)));
	if ((content = served_new(traces, n, &o, &err)) == NULL) {
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "serve: %s", msg));
	}
	if (ls->s != NULL) {
		serve_replace(ls->s, content);
		served_release(content);
		lua_pushstring(L, serve_url(ls->s));
		return (1);
	}
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	if (!background)
		pthread_sigmask(SIG_BLOCK, &stop, &old);
	ls->s = serve_start(&so, content, &err);
	served_release(content);
	if (ls->s == NULL) {
		if (!background)
			pthread_sigmask(SIG_SETMASK, &old, NULL);
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "serve: %s", msg));
	}
	fprintf(stderr, "statemap-lua: serving %s\n", serve_url(ls->s));
	fflush(stderr);
	if (background) {
		lua_pushstring(L, serve_url(ls->s));
		return (1);
	}
	sig = wait_for_signal(&stop);
	serve_stop(ls->s);
	ls->s = NULL;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (sig == SIGTERM)
		raise(SIGTERM);	/* ends the program, now that serving has */
	return (0);
}

const luaL_Reg lua_serve_functions[] = {
	{ "serve", f_serve },
	{ NULL, NULL }
};
