#include "lua/lua_serve.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lua/lua_object.h"
#include "lua/lua_options.h"
#include "lua/lua_trace.h"
#include "serve/served_traces.h"
#include "serve/server.h"

/* The server of a Lua state is kept in its registry under this key. */
#define SERVER_KEY	"statemap.serving"

static const char server_type[] = "statemap.server";

static int background;

/* The server of a Lua state; its __gc stops it. */
typedef struct lserver {
	lua_object_head head;
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
	lserver *ls = lua_object_finalizing(L, server_type);

	if (ls == NULL)
		return (0);
	serve_stop(ls->s);
	ls->s = NULL;
	ls->head.finalized = 1;
	return (0);
}

static const luaL_Reg server_metamethods[] = {
	{ "__gc", server_gc },
	{ NULL, NULL }
};

static lserver *
state_server(lua_State *L)
{
	static const luaL_Reg none[] = { { NULL, NULL } };
	const luaL_Reg *nothing[] = { none, NULL };
	lserver *ls;

	/* The registry is the debug library's to change too: anything but
	 * a live server there is none. */
	lua_getfield(L, LUA_REGISTRYINDEX, SERVER_KEY);
	ls = lua_object_test(L, -1, server_type);
	lua_pop(L, 1);
	if (ls != NULL)
		return (ls);
	if (luaL_getmetatable(L, server_type) == LUA_TNIL)
		lua_object_class(L, server_type, nothing, nothing,
		    server_metamethods);
	lua_pop(L, 1);
	ls = lua_object_new(L, server_type, sizeof (*ls), 0);
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

static const lua_option serve_keys[] = {
	{ .key = "port", .kind = LUA_OPTION_INTEGER, .min = 0, .max = 65535 },
	{ .key = "bind", .kind = LUA_OPTION_STRING },
	{ .key = "title", .kind = LUA_OPTION_STRING },
	{ .key = "sort", .kind = LUA_OPTION_STRING },
	{ .key = "coalesce", .kind = LUA_OPTION_INTEGER, .min = 1,
	    .max = 1000000000 },
	{ .key = NULL }
};

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
	lua_options opts;
	sm_error err;
	sigset_t stop, old;
	size_t n;
	lua_Integer port = 0, budget = 0;
	int port_given, sig;
	char msg[sizeof (err.message) + 64];

	lua_settop(L, 2);	/* traces, options: what follows is scratch */
	ls = state_server(L);
	if (lua_isnil(L, 1)) {
		serve_stop(ls->s);
		ls->s = NULL;
		return (0);
	}
	lua_options_init(&opts, L, 2, "serve", serve_keys);
	traces = check_traces(L, &n);
	lua_options_keep(&opts);	/* the strings, while they are used */
	memset(&o, 0, sizeof (o));
	memset(&so, 0, sizeof (so));
	port_given = lua_options_integer(&opts, "port", &port);
	so.port = (unsigned)port;
	lua_options_string(&opts, "bind", &so.bind, NULL);
	lua_options_string(&opts, "title", &o.title, NULL);
	lua_options_string(&opts, "sort", &o.sortby, NULL);
	lua_options_integer(&opts, "coalesce", &budget);
	o.budget = (uint64_t)budget;
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
