#include "base/threads.h"

#include <pthread.h>
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

/* One thread's part: every step-th job from first. */
typedef struct share {
	void (*run)(void *);
	char *jobs;
	size_t njobs, job_size, first, step;
} share;

static void *
run_share(void *arg)
{
	const share *sh = arg;
	size_t i;

	for (i = sh->first; i < sh->njobs; i += sh->step)
		sh->run(sh->jobs + i * sh->job_size);
	return (NULL);
}

void
threads_run(void (*run)(void *job), void *jobs, size_t njobs,
    size_t job_size)
{
	share shares[MAX_THREADS];
	pthread_t threads[MAX_THREADS];
	int started[MAX_THREADS];
	size_t n = (size_t)threads_count(), i;

	if (n > njobs)
		n = njobs;
	for (i = 0; i < n; i++) {
		shares[i].run = run;
		shares[i].jobs = jobs;
		shares[i].njobs = njobs;
		shares[i].job_size = job_size;
		shares[i].first = i;
		shares[i].step = n;
		started[i] = i > 0 && pthread_create(&threads[i], NULL,
		    run_share, &shares[i]) == 0;
	}
	for (i = 0; i < n; i++) {
		if (!started[i])
			run_share(&shares[i]);
	}
	for (i = 1; i < n; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
	}
}
