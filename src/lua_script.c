#include "lua_script.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua_statemap.h"

/* ---- limits ---- */

typedef struct budget {
	size_t used, limit;	/* bytes; limit 0 is none */
	int exceeded;
	uint64_t deadline;	/* monotonic ns; 0 is none */
	uint64_t timeout;
} budget;

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
	budget *b = ud;
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

/* Runs every few thousand instructions: time and Ctrl-C. */
static void
check_hook(lua_State *L, lua_Debug *ar)
{
	budget *b;

	(void) ar;
	lua_getallocf(L, (void **)&b);
	if (interrupted) {
		interrupted = 0;
		luaL_error(L, "interrupted");
	}
	if (b->deadline != 0 && now_ns() > b->deadline)
		luaL_error(L, "script timed out after %f s (--timeout)",
		    (double)b->timeout / 1e9);
}

/* SIGINT: ask the running script to stop at its next instruction. */
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
run_protected(lua_State *L)
{
	int argc = (int)lua_tointeger(L, 1);
	char **argv = lua_touserdata(L, 2);
	int i, status;

	luaL_openlibs(L);
	luaL_requiref(L, "statemap", luaopen_statemap, 1);
	lua_pop(L, 1);

	lua_createtable(L, argc, 1);
	for (i = 0; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i);
	}
	lua_setglobal(L, "arg");

	lua_pushcfunction(L, message_handler);
	status = luaL_loadfile(L, argv[0]);
	if (status == LUA_OK) {
		for (i = 1; i < argc; i++)
			lua_pushstring(L, argv[i]);
		status = lua_pcall(L, argc - 1, 0, -(argc + 1));
	}
	if (status != LUA_OK) {
		budget *b;

		lua_getallocf(L, (void **)&b);
		if (!b->exceeded)
			fprintf(stderr, "statemap-lua: %s\n",
			    lua_tostring(L, -1));
		lua_pushinteger(L, 1);
		return (1);
	}
	lua_pushinteger(L, 0);
	return (1);
}

int
lua_script_run(int argc, char **argv, const script_limits *limits)
{
	budget b = { 0, limits->memory_bytes, 0, 0, limits->timeout_ns };
	lua_State *L = lua_newstate(limited_alloc, &b);
	int rv = 1, status;

	if (L == NULL) {
		fprintf(stderr, "statemap-lua: cannot create Lua state\n");
		return (1);
	}
	lua_atpanic(L, NULL);
	if (b.timeout != 0) {
		b.deadline = now_ns() + b.timeout;
		lua_sethook(L, check_hook, LUA_MASKCOUNT, 10000);
	}
	running = L;
	signal(SIGINT, on_sigint);
	lua_pushcfunction(L, run_protected);
	lua_pushinteger(L, argc);
	lua_pushlightuserdata(L, argv);
	status = lua_pcall(L, 2, 1, 0);
	if (b.exceeded)
		fprintf(stderr, "statemap-lua: %s: the script needed more than "
		    "its memory limit of %zu MB (--memory-limit)\n", argv[0],
		    b.limit >> 20);
	else if (status != LUA_OK)
		fprintf(stderr, "statemap-lua: %s\n", lua_tostring(L, -1));
	else
		rv = (int)lua_tointeger(L, -1);
	signal(SIGINT, SIG_DFL);
	running = NULL;
	lua_close(L);
	return (rv);
}
