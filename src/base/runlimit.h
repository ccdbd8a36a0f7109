/*
 * runlimit.h: how long and how much a script may run: a deadline
 * (--timeout), a memory limit (--memory-limit), and Ctrl-C.
 *
 * Lua code is stopped by a hook (script.c).  Work done in C for a
 * script (loading a trace, deriving one, drawing a picture) asks
 * runlimit_check every so often and, when told to stop, gives up with the
 * reason, which the Lua binding raises as an error.  For C work, memory is
 * Lua's heap (runlimit_lua_resize), plus what C holds for scripts, the
 * stores of live traces (runlimit_charge), plus what the asking loop holds
 * so far; Lua's own allocations are held to the limit by themselves, so
 * that a script over it can still raise and handle its error.
 *
 * Process-wide.  With nothing set (the classic command, plain lua5.4)
 * every check passes at the cost of a few loads; reasons are static
 * strings, and every function may be called from any thread
 * (runlimit_interrupt also from a signal handler).
 */
#ifndef SM_RUNLIMIT_H
#define SM_RUNLIMIT_H

#include <stddef.h>
#include <stdint.h>

/* Starts the clock: the deadline is timeout_ns from now.  0: none. */
void runlimit_set(uint64_t timeout_ns, size_t memory_bytes);

/* Ctrl-C: the next check stops (and takes the interrupt), or
 * runlimit_clear_interrupt forgets it. */
void runlimit_interrupt(void);
void runlimit_clear_interrupt(void);
int runlimit_interrupted(void);

/* Whether the deadline has passed. */
int runlimit_expired(void);

/*
 * Lua's heap changes from old_size to new_size bytes: returns 0, or -1
 * (and changes nothing) if growing would pass the memory limit.
 */
int runlimit_lua_resize(size_t old_size, size_t new_size);

/* C memory held for scripts: charged when made, credited when freed. */
void runlimit_charge(size_t bytes);
void runlimit_credit(size_t bytes);

/*
 * How many more bytes C work may hold before the memory limit stops it
 * (the limit less Lua's heap and what is charged); SIZE_MAX without a
 * limit.  For sizing work to fit (a store going to disk past it).
 */
size_t runlimit_room(void);

/*
 * 0 to go on, or -1 with *why set to stop: "interrupted", "timed out
 * after 1.500s (--timeout)", "needed more than the memory limit of 20 MB
 * (--memory-limit)".  extra: bytes the caller holds beyond what is
 * counted (a store being filled, a picture about to be made).
 */
int runlimit_check(size_t extra, const char **why);

#endif
