/*
 * work.h: the steps of the loops whose length the input decides, counted,
 * so that work out of proportion to the input is a finding, not a hang.
 *
 * The rule the code keeps: no work or memory grows faster than the
 * input's size (transitions, entities, states used, stack depth, name
 * length) times a small log factor.  A loop that could break it if
 * written carelessly (a glob over a path, a walk down a stack, a sweep
 * over states) counts its steps here, a few at a time, where counting is
 * cheap next to the step.  Nothing happens unless a limit is set:
 * STATEMAP_WORK_LIMIT=N (steps; tests use it to turn "quadratic" into a
 * deterministic failure, where a time limit would depend on the machine)
 * makes passing N end the process, as a hang stopped would, with
 * "statemap-lua: more than N steps of work (STATEMAP_WORK_LIMIT)" and
 * exit status 3, removing its temporary outputs (fatal.h); the fuzzers
 * set a budget from each input's size with work_reset.
 * STATEMAP_DEBUG=work prints the totals on standard error at exit.
 *
 * Memory is counted too, as the bytes handed out (util.h's allocations
 * and the arena's; a total, which bounds the peak from above): the
 * fuzzers give each input a budget of bytes as of steps, since memory out
 * of proportion (a product of two counts) is the same kind of finding.
 *
 * The counters are shared by every thread (relaxed atomics: totals, not
 * an order).
 */
#ifndef SM_WORK_H
#define SM_WORK_H

#include <stdatomic.h>
#include <stdint.h>

extern _Atomic uint64_t work_total, work_bytes_total;
extern uint64_t work_limit, work_bytes_limit;	/* UINT64_MAX: none */

_Noreturn void work_exceeded(void);

/* Counts n steps. */
static inline void
work_steps(uint64_t n)
{
	uint64_t was = atomic_fetch_add_explicit(&work_total, n,
	    memory_order_relaxed);

	if (was + n > work_limit)
		work_exceeded();
}

/* Counts n bytes handed out. */
static inline void
work_bytes(uint64_t n)
{
	uint64_t was = atomic_fetch_add_explicit(&work_bytes_total, n,
	    memory_order_relaxed);

	if (was + n > work_bytes_limit)
		work_exceeded();
}

/* Reads STATEMAP_WORK_LIMIT and STATEMAP_DEBUG=work (once, at start). */
void work_init(void);

/* The steps and the bytes counted so far. */
uint64_t work_done(void);
uint64_t work_bytes_done(void);

/*
 * Starts counting again from 0 with limits of steps and of bytes (0:
 * none); for a fuzzer, an input's budgets.  exceeded, if not NULL, is
 * called instead of ending the process when a limit is passed, with what
 * was passed ("steps" or "bytes") and its limit; it must not return.
 */
void work_reset(uint64_t steps, uint64_t bytes,
    void (*exceeded)(const char *what, uint64_t limit));

#endif
