#include "base/fatal.h"

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/*
 * A slot is claimed by compare-and-swap on `state` (0 free, 1 being
 * filled, 2 in use); a handler reads only slots in use.
 */
typedef struct temp_slot {
	atomic_int state;
	char path[PATH_MAX];
} temp_slot;

typedef struct map_slot {
	atomic_int state;
	const char *start, *end;
	const char *name;
} map_slot;

static temp_slot temps[FATAL_MAX_TEMPS];
static map_slot maps[FATAL_MAX_MAPS];

static int
claim(atomic_int *state)
{
	int expected = 0;

	return (atomic_compare_exchange_strong(state, &expected, 1));
}

int
fatal_add_temp(const char *path)
{
	size_t len = strlen(path);
	int i;

	if (len >= PATH_MAX)
		return (-1);
	for (i = 0; i < FATAL_MAX_TEMPS; i++) {
		if (!claim(&temps[i].state))
			continue;
		memcpy(temps[i].path, path, len + 1);
		atomic_store(&temps[i].state, 2);
		return (i);
	}
	return (-1);
}

void
fatal_drop_temp(int slot)
{
	if (slot >= 0 && slot < FATAL_MAX_TEMPS)
		atomic_store(&temps[slot].state, 0);
}

int
fatal_watch_map(const void *addr, size_t len, const char *name)
{
	int i;

	for (i = 0; i < FATAL_MAX_MAPS; i++) {
		if (!claim(&maps[i].state))
			continue;
		maps[i].start = addr;
		maps[i].end = (const char *)addr + len;
		maps[i].name = name;
		atomic_store(&maps[i].state, 2);
		return (i);
	}
	return (-1);
}

void
fatal_unwatch_map(int slot)
{
	if (slot >= 0 && slot < FATAL_MAX_MAPS)
		atomic_store(&maps[slot].state, 0);
}

void
fatal_cleanup(void)
{
	int i;

	for (i = 0; i < FATAL_MAX_TEMPS; i++) {
		if (atomic_load(&temps[i].state) == 2)
			(void) unlink(temps[i].path);
	}
}

static void
say(const char *s)
{
	if (s != NULL)
		(void) !write(STDERR_FILENO, s, strlen(s));
}

void
fatal_exit(const char *what, const char *why, int status)
{
	fatal_cleanup();
	say("statemap-lua: ");
	if (what != NULL) {
		say(what);
		say(": ");
	}
	say(why);
	say("\n");
	_exit(status);
}

/* SIGTERM, SIGHUP, SIGINT: clean up, then die of the same signal. */
static void
on_terminate(int sig)
{
	fatal_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * SIGBUS: a page of a mapped file that is no longer there.  If it is one
 * of ours, the file changed under us; anything else is a real crash, and
 * returning with the default action back makes the access fault again
 * and end the process as it would have.
 */
static void
on_bus(int sig, siginfo_t *info, void *context)
{
	const char *addr = info->si_addr;
	int i;

	(void) context;
	for (i = 0; i < FATAL_MAX_MAPS; i++) {
		if (atomic_load(&maps[i].state) == 2 &&
		    addr >= maps[i].start && addr < maps[i].end)
			fatal_exit(maps[i].name, "changed while being read "
			    "(it was truncated or rewritten)", 1);
	}
	signal(sig, SIG_DFL);
}

/* A signal the process was started ignoring (nohup, &) stays ignored. */
static void
catch_unless_ignored(int sig, const struct sigaction *sa)
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return;
	sigaction(sig, sa, NULL);
}

void
fatal_handle_signals(int with_sigint)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof (sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_terminate;
	catch_unless_ignored(SIGTERM, &sa);
	catch_unless_ignored(SIGHUP, &sa);
	if (with_sigint)
		catch_unless_ignored(SIGINT, &sa);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, NULL);
}
