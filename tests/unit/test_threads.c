/*
 * Tests for threads_run: every job runs exactly once, whatever the
 * number of jobs against the number of threads, and a thread that comes
 * free takes the next job, whichever thread's turn it would have been.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/threads.h"
#include "unit.h"

typedef struct job {
	size_t index;
	int runs;
	unsigned long sum;	/* some work, so that threads overlap */
} job;

static void
run_job(void *arg)
{
	job *j = arg;
	unsigned long i;

	for (i = 0; i < 100000; i++)
		j->sum += i ^ j->index;
	j->runs++;
}

/*
 * Job 0 waits for every other job to finish: with jobs dealt out in
 * turn, its own thread's next job (2) would wait for it in turn, and the
 * others could never all be done.  The wait is bounded, so that a broken
 * threads_run fails the check rather than hanging the suite.
 */
#define WAITING_JOBS	16

static atomic_int others_done;
static int others_all_done;
static pthread_mutex_t wait_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cond = PTHREAD_COND_INITIALIZER;

static void
run_waiting_job(void *arg)
{
	job *j = arg;

	pthread_mutex_lock(&wait_lock);
	if (j->index != 0) {
		atomic_fetch_add(&others_done, 1);
		pthread_cond_broadcast(&wait_cond);
	} else {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 30;
		while (atomic_load(&others_done) < WAITING_JOBS - 1 &&
		    pthread_cond_timedwait(&wait_cond, &wait_lock,
		    &until) == 0)
			continue;
		others_all_done = atomic_load(&others_done) ==
		    WAITING_JOBS - 1;
	}
	pthread_mutex_unlock(&wait_lock);
	j->runs++;
}

int
main(void)
{
	static const size_t counts[] = { 0, 1, 2, 3, 64, 1000 };
	job waiting[WAITING_JOBS] = { { 0 } };
	size_t k, i;
	int each_once = 1;

	/* Two threads, whatever this machine has (read once, first). */
	setenv("STATEMAP_THREADS", "2", 1);

	for (k = 0; k < sizeof (counts) / sizeof (counts[0]); k++) {
		size_t n = counts[k];
		job *jobs = calloc(n + 1, sizeof (job));
		char name[64];
		int once = 1;

		for (i = 0; i < n; i++)
			jobs[i].index = i;
		threads_run(run_job, jobs, n, sizeof (job));
		for (i = 0; i < n; i++)
			once &= jobs[i].runs == 1;
		once &= jobs[n].runs == 0;	/* nothing past the end */
		snprintf(name, sizeof (name), "threads_run: each of %zu jobs "
		    "once", n);
		CHECK(name, once);
		free(jobs);
	}
	for (i = 0; i < WAITING_JOBS; i++)
		waiting[i].index = i;
	threads_run(run_waiting_job, waiting, WAITING_JOBS, sizeof (job));
	for (i = 0; i < WAITING_JOBS; i++)
		each_once &= waiting[i].runs == 1;
	CHECK("threads_run: a free thread takes every job another is held "
	    "up in", others_all_done && each_once);
	return (unit_exit());
}
