#include "base/runlimit.h"

#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static atomic_int interrupted;
static uint64_t deadline;	/* monotonic ns; 0: none */
static size_t memory_limit;	/* bytes; 0: none */
static atomic_size_t lua_bytes, c_bytes;
static char timeout_reason[96], memory_reason[96];

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec);
}

void
runlimit_set(uint64_t timeout_ns, size_t memory_bytes)
{
	deadline = timeout_ns != 0 ? now_ns() + timeout_ns : 0;
	memory_limit = memory_bytes;
	snprintf(timeout_reason, sizeof (timeout_reason), "timed out after "
	    "%.14g s (--timeout)", (double)timeout_ns / 1e9);
	snprintf(memory_reason, sizeof (memory_reason), "needed more than "
	    "the memory limit of %zu MB (--memory-limit)",
	    memory_bytes >> 20);
}

void
runlimit_interrupt(void)
{
	atomic_store(&interrupted, 1);
}

void
runlimit_clear_interrupt(void)
{
	atomic_store(&interrupted, 0);
}

int
runlimit_interrupted(void)
{
	return (atomic_load(&interrupted));
}

int
runlimit_expired(void)
{
	return (deadline != 0 && now_ns() > deadline);
}

static int
fits(size_t more)
{
	size_t used = atomic_load(&lua_bytes) + atomic_load(&c_bytes);

	return (memory_limit == 0 ||
	    (more <= memory_limit && used <= memory_limit - more));
}

/*
 * Lua's own allocations are held to the limit by themselves: were the
 * traces counted here too, a script over the limit could not allocate
 * even the message of its error, nor free anything (finalizers do not
 * run in an emergency collection).  C work counts both (fits above).
 *
 * Each thread's changes are added to the shared count in steps of
 * LUA_STEP bytes, not one by one (an allocation's atomic add cost a
 * few percent of a script that makes a table an event): the count is
 * at most that far from the truth per thread running Lua, and a growth
 * is checked against it with what this thread has not added yet.
 */
#define LUA_STEP	((long long)64 << 10)

static _Thread_local long long lua_pending;

int
runlimit_lua_resize(size_t old_size, size_t new_size)
{
	if (new_size > old_size && memory_limit != 0) {
		size_t lua = atomic_load_explicit(&lua_bytes,
		    memory_order_relaxed);
		size_t more = new_size - old_size;

		if (lua_pending > 0)
			lua += (size_t)lua_pending;
		if (more > memory_limit || lua > memory_limit - more)
			return (-1);
	}
	lua_pending += (long long)new_size - (long long)old_size;
	if (lua_pending >= LUA_STEP) {
		atomic_fetch_add(&lua_bytes, (size_t)lua_pending);
		lua_pending = 0;
	} else if (lua_pending <= -LUA_STEP) {
		/* Never below 0: what this thread frees another may have
		 * allocated, and not added yet. */
		size_t cur = atomic_load(&lua_bytes);
		size_t less = (size_t)-lua_pending;

		while (!atomic_compare_exchange_weak(&lua_bytes, &cur,
		    cur > less ? cur - less : 0))
			continue;
		lua_pending = 0;
	}
	return (0);
}

size_t
runlimit_room(void)
{
	size_t used = atomic_load(&lua_bytes) + atomic_load(&c_bytes);

	if (memory_limit == 0)
		return (SIZE_MAX);
	return (used < memory_limit ? memory_limit - used : 0);
}

void
runlimit_charge(size_t bytes)
{
	atomic_fetch_add(&c_bytes, bytes);
}

void
runlimit_credit(size_t bytes)
{
	atomic_fetch_sub(&c_bytes, bytes);
}

int
runlimit_check(size_t extra, const char **why)
{
	/* One Ctrl-C stops one thing: whoever sees it first takes it. */
	if (atomic_exchange(&interrupted, 0)) {
		*why = "interrupted";
		return (-1);
	}
	if (runlimit_expired()) {
		*why = timeout_reason;
		return (-1);
	}
	if (!fits(extra)) {
		*why = memory_reason;
		return (-1);
	}
	return (0);
}
