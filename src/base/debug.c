#include "base/debug.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
debug_on(const char *knob)
{
	const char *list = getenv("STATEMAP_DEBUG"), *p;
	size_t len = strlen(knob);

	for (p = list; p != NULL && (p = strstr(p, knob)) != NULL; p += len) {
		if ((p == list || p[-1] == ',') &&
		    (p[len] == '\0' || p[len] == ','))
			return (1);
	}
	return (0);
}

void
debug_hold(const char *knob, const char *what, int resume)
{
	sigset_t wake, old;
	int sig = 0;

	if (!debug_on(knob))
		return;
	sigemptyset(&wake);
	sigaddset(&wake, SIGUSR1);
	sigaddset(&wake, SIGINT);
	if (resume)
		pthread_sigmask(SIG_BLOCK, &wake, &old);
	fprintf(stderr, "holding %s\n", what);
	fflush(stderr);
	if (!resume)
		for (;;)
			pause();
	(void) sigwait(&wake, &sig);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Ctrl-C resumes too, and reaches the process's own handler just
	 * as if it had come in the middle of the work held up here. */
	if (sig == SIGINT)
		raise(SIGINT);
}
