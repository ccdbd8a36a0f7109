/*
 * exits.c: short-lived threads and processes, the workload of the
 * scheduler captures in tests/contrib/ (perf-record.txt,
 * perf-sched-record.txt; see tests/contrib/README.md).
 *
 * ROUNDS times: start a thread "brief" and fork a process "child"; each
 * computes for about 300 us and exits; the main thread ("exits") sleeps
 * 200 us, joins the thread, reaps the child and sleeps 1 ms, so the CPUs
 * go idle in between.
 *
 * usage: exits [ROUNDS]     (default 3)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void
compute(long us)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 1000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000L +
	    (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *
brief(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "brief");
	compute(300);
	return NULL;
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;

	for (int r = 0; r < rounds; r++) {
		pthread_t t;
		pid_t child;

		if (pthread_create(&t, NULL, brief, NULL) != 0)
			return 1;
		child = fork();
		if (child == 0) {
			prctl(PR_SET_NAME, "child");
			compute(300);
			_exit(0);
		}
		usleep(200);
		pthread_join(t, NULL);
		if (child > 0)
			waitpid(child, NULL, 0);
		usleep(1000);
	}
	return 0;
}
