/*
 * Tests for threads_run: every job runs exactly once, whatever the
 * number of jobs against the number of threads.
 */
#include <stdio.h>
#include <stdlib.h>

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

int
main(void)
{
	static const size_t counts[] = { 0, 1, 2, 3, 64, 1000 };
	size_t k, i;

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
	return (unit_exit());
}
