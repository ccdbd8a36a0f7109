/*
 * workload.c: threads with known habits for the proc-statemap test:
 * "spin" computes, "nap" sleeps, "io" writes and syncs a file, main waits.
 * usage: workload SECONDS FILE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds;
static const char *file;

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
spin(void *arg)
{
	volatile unsigned long x = 0;
	double end = now() + seconds;
	(void)arg;
	while (now() < end)
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
	while (now() < end)
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
	while (fd >= 0 && now() < end) {
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
	for (int i = 0; i < 3; i++) {
		pthread_create(&t[i], NULL, fn[i], NULL);
		pthread_setname_np(t[i], names[i]);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	unlink(file);
	return 0;
}
