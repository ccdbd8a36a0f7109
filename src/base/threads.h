/*
 * threads.h: how many threads the program may use, and work shared out
 * among them.
 *
 * The number of online processors, or $STATEMAP_THREADS if it is set to
 * a positive number (STATEMAP_THREADS=1 runs everything on one thread:
 * the tests compare that with the default, which must give the same
 * bytes).  Read once; at most 64.
 */
#ifndef SM_THREADS_H
#define SM_THREADS_H

#include <stddef.h>

int threads_count(void);

/*
 * Calls run on each of njobs jobs (an array of job_size-byte elements),
 * on up to threads_count() threads, this one among them, and returns when
 * every job is done.  Each thread takes the next job not yet taken as it
 * comes free, so more jobs than threads even out jobs of unequal work.
 * Jobs must not depend on each other; which thread runs which is not to
 * be relied on.  Where a thread cannot be started, the others (this one
 * at least) take its jobs.
 */
void threads_run(void (*run)(void *job), void *jobs, size_t njobs,
    size_t job_size);

#endif
