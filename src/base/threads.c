#include "base/threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS	64

int
threads_count(void)
{
	static int count;
	const char *env;

	if (count > 0)
		return (count);
	env = getenv("STATEMAP_THREADS");
	if (env != NULL && *env != '\0') {
		char *end;
		long n = strtol(env, &end, 10);

		if (*end == '\0' && n > 0)
			count = n > MAX_THREADS ? MAX_THREADS : (int)n;
	}
	if (count == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		count = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
	}
	return (count);
}

/*
 * What the threads share: the jobs, and the next one not yet taken.  A
 * thread takes jobs one at a time as it comes free, so one that drew a
 * long job does not hold up the others' (a picture's strips cost what
 * their entities hold, which can differ a hundredfold side by side).
 */
typedef struct share {
	void (*run)(void *);
	char *jobs;
	size_t njobs, job_size;
	atomic_size_t next;
} share;

static void *
run_share(void *arg)
{
	share *sh = arg;
	size_t i;

	while ((i = atomic_fetch_add(&sh->next, 1)) < sh->njobs)
		sh->run(sh->jobs + i * sh->job_size);
	return (NULL);
}

void
threads_run(void (*run)(void *job), void *jobs, size_t njobs,
    size_t job_size)
{
	share sh;
	pthread_t threads[MAX_THREADS];
	int started[MAX_THREADS];
	size_t n = (size_t)threads_count(), i;

	if (n > njobs)
		n = njobs;
	sh.run = run;
	sh.jobs = jobs;
	sh.njobs = njobs;
	sh.job_size = job_size;
	atomic_init(&sh.next, 0);
	for (i = 1; i < n; i++)
		started[i] = pthread_create(&threads[i], NULL, run_share,
		    &sh) == 0;
	/* This thread works too, and takes whatever the others could not. */
	run_share(&sh);
	for (i = 1; i < n; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
	}
}
