/*
 * workload.c: threads with known habits for the proc-statemap test:
 * "spin" computes, "nap" sleeps, "io" writes and syncs a file, main waits.
 * usage: workload SECONDS FILE
 * They stop after SECONDS or, if SECONDS is 0, once FILE.stop exists (so
 * that a test, not the clock, decides how long they run).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds;
static const char *file;
static char stopfile[4096];

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Whether to go on: before the end time, or until the stop file exists. */
static int
going(double end)
{
	if (seconds > 0)
		return now() < end;
	return access(stopfile, F_OK) != 0;
}

static void *
spin(void *arg)
{
	volatile unsigned long x = 0;
	double end = now() + seconds;
	(void)arg;
	while (going(end))
		for (int i = 0; i < 100000; i++)
			x += i;
	return NULL;
}

static void *
nap(void *arg)
{
	double end = now() + seconds;
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	(void)arg;
	while (going(end))
		nanosleep(&ts, NULL);
	return NULL;
}

static void *
io(void *arg)
{
	char buf[4096];
	double end = now() + seconds;
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	(void)arg;
	memset(buf, 'x', sizeof buf);
	while (fd >= 0 && going(end)) {
		for (int i = 0; i < 64; i++)
			if (write(fd, buf, sizeof buf) < 0)
				break;
		fsync(fd);
		lseek(fd, 0, SEEK_SET);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

int
main(int argc, char **argv)
{
	void *(*fn[])(void *) = { spin, nap, io };
	const char *names[] = { "spin", "nap", "io" };
	pthread_t t[3];

	if (argc != 3)
		return 2;
	seconds = atof(argv[1]);
	file = argv[2];
	snprintf(stopfile, sizeof stopfile, "%s.stop", file);
	for (int i = 0; i < 3; i++) {
		pthread_create(&t[i], NULL, fn[i], NULL);
		pthread_setname_np(t[i], names[i]);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	unlink(file);
	return 0;
}
