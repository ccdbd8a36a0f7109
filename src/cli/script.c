#include "cli/script.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND	0	/* set STATEMAP_PLAIN_ALLOC=1 */
#endif
#include <lua.h>
#include <lualib.h>

#include "base/fatal.h"
#include "base/runlimit.h"
#include "base/small_pool.h"
#include "lua/lua_object.h"
#include "lua/lua_statemap.h"

/* ---- limits ---- */

/* What a state has used of its limits (runlimit.h keeps the counts). */
typedef struct meter {
	size_t limit;		/* bytes; 0 is none */
	int exceeded;		/* an allocation was refused */
	uint64_t timeout;	/* ns; 0 is none */
	pthread_t watchdog;
	int watching;
	small_pool *pool;	/* the state's blocks */
	char message[96];	/* for script_error */
} meter;

static lua_State *running;
/* Ctrl-Cs seen by on_sigint, ever (script_sigints). */
static volatile sig_atomic_t sigints;

/* The allocator Lua uses, counting every byte against the limit. */
static void *
limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	meter *m = ud;
	size_t old = ptr != NULL ? osize : 0;
	void *p;

	if (nsize == 0) {
		(void) small_pool_realloc(m->pool, ptr, old, 0);
		(void) runlimit_lua_resize(old, 0);
		return (NULL);
	}
	if (runlimit_lua_resize(old, nsize) != 0) {
		m->exceeded = 1;
		return (NULL);
	}
	if ((p = small_pool_realloc(m->pool, ptr, old, nsize)) == NULL)
		(void) runlimit_lua_resize(nsize, old);
	return (p);
}

/* The hook a state runs when nobody has pressed Ctrl-C: the timeout's. */
static void check_hook(lua_State *L, lua_Debug *ar);

static void
base_hook(lua_State *L)
{
	meter *m;

	lua_getallocf(L, (void **)&m);
	if (m->timeout != 0)
		lua_sethook(L, check_hook, LUA_MASKCOUNT, 10000);
	else
		lua_sethook(L, NULL, 0, 0);
}

/* Runs every few thousand instructions: time and Ctrl-C. */
static void
check_hook(lua_State *L, lua_Debug *ar)
{
	const char *why;

	(void) ar;
	if (runlimit_interrupted()) {
		/* The REPL goes on after this error: back to the cheap hook. */
		runlimit_clear_interrupt();
		base_hook(L);
		luaL_error(L, "interrupted");
	}
	if (runlimit_expired() && runlimit_check(0, &why) != 0)
		luaL_error(L, "script %s", why);
}

/*
 * SIGINT: ask the running code to stop at its next instruction, and C
 * loops at their next check.  Lua cannot be interrupted inside some
 * library functions (a pattern match that backtracks for ever): a
 * second Ctrl-C while the first is still waiting ends the process.
 */
static void
on_sigint(int sig)
{
	(void) sig;
	if (runlimit_interrupted())
		fatal_exit(NULL, "interrupted again while the first Ctrl-C "
		    "was still waiting: stopping", 128 + SIGINT);
	sigints = sigints + 1;
	runlimit_interrupt();
	if (running != NULL)
		lua_sethook(running, check_hook, LUA_MASKCALL | LUA_MASKRET |
		    LUA_MASKCOUNT, 1);
}

/*
 * The timeout's last resort: a thread that ends the process a little
 * after the deadline, for code the hook cannot stop in time (a Lua
 * library function such as string.find, which runs no hook inside).
 * Anything that can stop has by then.
 */
#define WATCHDOG_GRACE_NS	2000000000ULL

static void *
watchdog(void *arg)
{
	const meter *m = arg;
	struct timespec ts;
	uint64_t ns = m->timeout + WATCHDOG_GRACE_NS;
	const char *why = "timed out (--timeout)";

	ts.tv_sec = (time_t)(ns / 1000000000ULL);
	ts.tv_nsec = (long)(ns % 1000000000ULL);
	while (nanosleep(&ts, &ts) != 0)
		;
	(void) runlimit_check(0, &why);
	fatal_exit(NULL, why, 1);
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

/*
 * Whether Lua's blocks come from malloc one by one rather than from the
 * pool: under valgrind and the sanitizers, which then see each of them,
 * or with STATEMAP_PLAIN_ALLOC=1.
 */
static int
plain_blocks(void)
{
	const char *v = getenv("STATEMAP_PLAIN_ALLOC");

#if defined(__SANITIZE_ADDRESS__)
	return (1);
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return (1);
#endif
#endif
	if (v != NULL && strcmp(v, "1") == 0)
		return (1);
	return (RUNNING_ON_VALGRIND != 0);
}

lua_State *
script_state(const script_limits *limits)
{
	meter *m = calloc(1, sizeof (*m));
	lua_State *L;
	struct sigaction sa;

	if (m != NULL && (m->pool = small_pool_new(plain_blocks())) == NULL) {
		free(m);
		m = NULL;
	}
	if (m == NULL || (L = lua_newstate(limited_alloc, m)) == NULL) {
		if (m != NULL)
			small_pool_free(m->pool);
		free(m);
		fprintf(stderr, "statemap-lua: cannot create Lua state\n");
		return (NULL);
	}
	m->limit = limits->memory_bytes;
	m->timeout = limits->timeout_ns;
	runlimit_set(m->timeout, m->limit);
	lua_atpanic(L, NULL);
	lua_pushcfunction(L, open_libraries);
	if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
		fprintf(stderr, "statemap-lua: cannot open the Lua libraries: "
		    "%s\n", m->exceeded ? "out of memory" : lua_tostring(L, -1));
		script_close(L);
		return (NULL);
	}
	if (m->timeout != 0 &&
	    pthread_create(&m->watchdog, NULL, watchdog, m) == 0) {
		m->watching = 1;
		pthread_detach(m->watchdog);
	}
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
script_close(lua_State *L)
{
	meter *m;

	signal(SIGINT, SIG_DFL);
	running = NULL;
	runlimit_clear_interrupt();
	lua_getallocf(L, (void **)&m);
	lua_close(L);
	small_pool_free(m->pool);
	m->pool = NULL;
	/* A watchdog still sleeping reads m: it lives as long as the
	 * process (one state per process). */
	if (!m->watching)
		free(m);
}

int
script_pcall(lua_State *L, int nargs, int nresults)
{
	int base = lua_gettop(L) - nargs, status;

	lua_pushcfunction(L, message_handler);
	lua_insert(L, base);
	status = lua_pcall(L, nargs, nresults, base);
	lua_remove(L, base);
	return (status);
}

const char *
script_error(lua_State *L)
{
	meter *m;

	lua_getallocf(L, (void **)&m);
	if (m->exceeded) {
		/* Nothing is allocated for it: the memory is still in use
		 * (by traces the collector has not taken yet, say). */
		m->exceeded = 0;
		snprintf(m->message, sizeof (m->message), "needed more than "
		    "the memory limit of %zu MB (--memory-limit)",
		    m->limit >> 20);
		return (m->message);
	}
	return (lua_tostring(L, -1) != NULL ? lua_tostring(L, -1) :
	    "(error object is not a string)");
}

void
script_clear_interrupt(lua_State *L)
{
	runlimit_clear_interrupt();
	base_hook(L);
}

int
script_interrupted(void)
{
	return (runlimit_interrupted());
}

int
script_sigints(void)
{
	return ((int)sigints);
}

/* Sets arg and runs the script; under lua_pcall, so that running out of
 * memory while setting up is an error rather than a panic.  The script
 * can reach it (debug.getinfo), but not call it: its argv is a pointer. */
static int
run_script(lua_State *L)
{
	int argc = (int)lua_tointeger(L, 1);
	char **argv = lua_touserdata(L, 2);
	int i;

	if (!lua_object_called_by(L, NULL))
		return (luaL_error(L, "the function that runs the script is "
		    "not a script's to call"));
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
	if (script_pcall(L, argc - 1, 0) != LUA_OK)
		return (lua_error(L));
	return (0);
}

int
script_run(int argc, char **argv, const script_limits *limits)
{
	lua_State *L = script_state(limits);
	meter *m;
	int rv = 0;

	if (L == NULL)
		return (1);
	lua_getallocf(L, (void **)&m);
	lua_pushcfunction(L, run_script);
	lua_pushinteger(L, argc);
	lua_pushlightuserdata(L, argv);
	if (lua_pcall(L, 2, 0, 0) == LUA_OK) {
		/* What the script printed must have been written, as the
		 * classic command and the REPL check. */
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "statemap-lua: %s: error writing "
			    "standard output: %s\n", argv[0], strerror(errno));
			rv = 1;
		}
	} else {
		if (m->exceeded)
			fprintf(stderr, "statemap-lua: %s: the script needed "
			    "more than its memory limit of %zu MB "
			    "(--memory-limit)\n", argv[0], m->limit >> 20);
		else
			fprintf(stderr, "statemap-lua: %s\n",
			    lua_tostring(L, -1));
		rv = 1;
	}
	script_close(L);
	return (rv);
}
