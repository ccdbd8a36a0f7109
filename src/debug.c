#include "debug.h"

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
	sigset_t usr1, old;
	int sig;

	if (!debug_on(knob))
		return;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	fprintf(stderr, "holding %s\n", what);
	fflush(stderr);
	if (resume)
		(void) sigwait(&usr1, &sig);
	else
		for (;;)
			pause();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
