#include "lua_script.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua_statemap.h"

/* ---- limits ---- */

/* What a state has used of its limits (script_limits), and when it ends. */
typedef struct meter {
	size_t used, limit;	/* bytes; limit 0 is none */
	int exceeded;
	uint64_t deadline;	/* monotonic ns; 0 is none */
	uint64_t timeout;
} meter;

static volatile sig_atomic_t interrupted;
static lua_State *running;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec);
}

/* The allocator Lua uses, counting every byte against the limit. */
static void *
limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	meter *b = ud;
	size_t old = ptr != NULL ? osize : 0;
	void *p;

	if (nsize == 0) {
		free(ptr);
		b->used -= old;
		return (NULL);
	}
	if (b->limit != 0 && nsize > old && b->used - old + nsize > b->limit) {
		b->exceeded = 1;
		return (NULL);
	}
	if ((p = realloc(ptr, nsize)) == NULL)
		return (NULL);
	b->used = b->used - old + nsize;
	return (p);
}

/* The hook a state runs when nobody has pressed Ctrl-C: the timeout's. */
static void check_hook(lua_State *L, lua_Debug *ar);

static void
base_hook(lua_State *L)
{
	meter *b;

	lua_getallocf(L, (void **)&b);
	if (b->timeout != 0)
		lua_sethook(L, check_hook, LUA_MASKCOUNT, 10000);
	else
		lua_sethook(L, NULL, 0, 0);
}

/* Runs every few thousand instructions: time and Ctrl-C. */
static void
check_hook(lua_State *L, lua_Debug *ar)
{
	meter *b;

	(void) ar;
	lua_getallocf(L, (void **)&b);
	if (interrupted) {
		/* The REPL goes on after this error: back to the cheap hook. */
		interrupted = 0;
		base_hook(L);
		luaL_error(L, "interrupted");
	}
	if (b->deadline != 0 && now_ns() > b->deadline)
		luaL_error(L, "script timed out after %f s (--timeout)",
		    (double)b->timeout / 1e9);
}

/* SIGINT: ask the running code to stop at its next instruction. */
static void
on_sigint(int sig)
{
	(void) sig;
	interrupted = 1;
	if (running != NULL)
		lua_sethook(running, check_hook, LUA_MASKCALL | LUA_MASKRET |
		    LUA_MASKCOUNT, 1);
}

/* Adds a traceback to an error message, as lua.c does. */
static int
message_handler(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);

	if (msg == NULL) {
		if (luaL_callmeta(L, 1, "__tostring") &&
		    lua_type(L, -1) == LUA_TSTRING)
			return (1);
		msg = lua_pushfstring(L, "(error object is a %s value)",
		    luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return (1);
}

static int
open_libraries(lua_State *L)
{
	luaL_openlibs(L);
	luaL_requiref(L, "statemap", luaopen_statemap, 1);
	lua_pop(L, 1);
	return (0);
}

lua_State *
lua_script_state(const script_limits *limits)
{
	meter *b = calloc(1, sizeof (*b));
	lua_State *L;
	struct sigaction sa;

	if (b == NULL || (L = lua_newstate(limited_alloc, b)) == NULL) {
		free(b);
		fprintf(stderr, "statemap-lua: cannot create Lua state\n");
		return (NULL);
	}
	b->limit = limits->memory_bytes;
	b->timeout = limits->timeout_ns;
	lua_atpanic(L, NULL);
	lua_pushcfunction(L, open_libraries);
	if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
		fprintf(stderr, "statemap-lua: cannot open the Lua libraries: "
		    "%s\n", b->exceeded ? "out of memory" : lua_tostring(L, -1));
		lua_script_close(L);
		return (NULL);
	}
	if (b->timeout != 0)
		b->deadline = now_ns() + b->timeout;
	base_hook(L);
	running = L;
	/* No SA_RESTART: a Ctrl-C at the REPL's prompt must wake its wait. */
	memset(&sa, 0, sizeof (sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	return (L);
}

void
lua_script_close(lua_State *L)
{
	meter *b;

	signal(SIGINT, SIG_DFL);
	running = NULL;
	interrupted = 0;
	lua_getallocf(L, (void **)&b);
	lua_close(L);
	free(b);
}

int
lua_script_pcall(lua_State *L, int nargs, int nresults)
{
	int base = lua_gettop(L) - nargs, status;

	lua_pushcfunction(L, message_handler);
	lua_insert(L, base);
	status = lua_pcall(L, nargs, nresults, base);
	lua_remove(L, base);
	return (status);
}

const char *
lua_script_error(lua_State *L)
{
	meter *b;

	lua_getallocf(L, (void **)&b);
	if (b->exceeded) {
		b->exceeded = 0;
		return (lua_pushfstring(L, "needed more than the memory limit "
		    "of %d MB (--memory-limit)", (int)(b->limit >> 20)));
	}
	return (lua_tostring(L, -1) != NULL ? lua_tostring(L, -1) :
	    "(error object is not a string)");
}

void
lua_script_clear_interrupt(lua_State *L)
{
	interrupted = 0;
	base_hook(L);
}

int
lua_script_interrupted(void)
{
	return (interrupted != 0);
}

/* Sets arg and runs the script; under lua_pcall, so that running out of
 * memory while setting up is an error rather than a panic. */
static int
run_script(lua_State *L)
{
	int argc = (int)lua_tointeger(L, 1);
	char **argv = lua_touserdata(L, 2);
	int i;

	lua_createtable(L, argc, 1);
	for (i = 0; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i);
	}
	lua_setglobal(L, "arg");
	if (luaL_loadfile(L, argv[0]) != LUA_OK)
		return (lua_error(L));
	luaL_checkstack(L, argc, "too many arguments");
	for (i = 1; i < argc; i++)
		lua_pushstring(L, argv[i]);
	if (lua_script_pcall(L, argc - 1, 0) != LUA_OK)
		return (lua_error(L));
	return (0);
}

int
lua_script_run(int argc, char **argv, const script_limits *limits)
{
	lua_State *L = lua_script_state(limits);
	meter *b;
	int rv = 0;

	if (L == NULL)
		return (1);
	lua_getallocf(L, (void **)&b);
	lua_pushcfunction(L, run_script);
	lua_pushinteger(L, argc);
	lua_pushlightuserdata(L, argv);
	if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
		if (b->exceeded)
			fprintf(stderr, "statemap-lua: %s: the script needed "
			    "more than its memory limit of %zu MB "
			    "(--memory-limit)\n", argv[0], b->limit >> 20);
		else
			fprintf(stderr, "statemap-lua: %s\n",
			    lua_tostring(L, -1));
		rv = 1;
	}
	lua_script_close(L);
	return (rv);
}
