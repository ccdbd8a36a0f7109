/*
 * luatable: what Lua itself takes to build the table t:at answers with,
 * the part of a call that no change of ours can take away.  A table of N
 * string keys (short decimal names, as bench/gentrace gives entities),
 * each set to one of 12 state names, is filled through the C API as t:at
 * fills it (src/lua/lua_snapshot.c): lua_createtable with room for N,
 * then for each key its name from a list, a state name from the stack
 * and lua_rawset.  CALLS tables a round, made and dropped, two rounds to
 * warm up and five timed; prints the median round's CPU time, in µs a
 * table, as bench/shape.lua times t:at (os.clock).  The state's memory
 * comes from a pool as a script's does (src/base/small_pool.h), which
 * keeps a large table's freed block for the next.
 *
 *	build/luatable N [CALLS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>

#include "base/small_pool.h"

#define STATES	12
#define ROUNDS	7	/* the first two not timed */

static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
}

/* Lua's allocator: the pool's, as src/cli/script.c's but for limits. */
static void *
pool_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	return (small_pool_realloc(ud, ptr, ptr != NULL ? osize : 0, nsize));
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	long calls = argc > 2 ? strtol(argv[2], NULL, 10) : 2000;
	double us[ROUNDS];
	small_pool *pool;
	lua_State *L;
	long i, k;
	int r, names, first_state;

	if (n < 1 || n > 10000000 || calls < 1) {
		fprintf(stderr, "usage: luatable N [CALLS]: N keys, 1 to "
		    "10000000, and CALLS tables a round, at least 1\n");
		return (2);
	}
	if ((pool = small_pool_new(0)) == NULL ||
	    (L = lua_newstate(pool_alloc, pool)) == NULL) {
		fprintf(stderr, "luatable: no memory for a Lua state\n");
		return (1);
	}
	lua_createtable(L, (int)n, 0);
	names = lua_gettop(L);
	for (i = 0; i < n; i++) {
		lua_pushfstring(L, "%I", (lua_Integer)i);
		lua_rawseti(L, names, (lua_Integer)i + 1);
	}
	if (!lua_checkstack(L, STATES + 4)) {
		fprintf(stderr, "luatable: no room on Lua's stack\n");
		return (1);
	}
	first_state = lua_gettop(L) + 1;
	for (i = 0; i < STATES; i++)
		lua_pushfstring(L, "state%I", (lua_Integer)i);
	for (r = 0; r < ROUNDS; r++) {
		double t0 = cpu_seconds();

		for (k = 0; k < calls; k++) {
			lua_createtable(L, 0, (int)n);
			for (i = 0; i < n; i++) {
				lua_rawgeti(L, names, (lua_Integer)i + 1);
				lua_pushvalue(L, first_state +
				    (int)((i * 7 + k) % STATES));
				lua_rawset(L, -3);
			}
			lua_pop(L, 1);
		}
		us[r] = (cpu_seconds() - t0) / (double)calls * 1e6;
	}
	qsort(us + 2, ROUNDS - 2, sizeof (us[0]), by_value);
	printf("%.1f\n", us[2 + (ROUNDS - 2) / 2]);
	lua_close(L);
	small_pool_free(pool);
	return (0);
}
