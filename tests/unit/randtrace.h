/*
 * randtrace.h: what the unit tests over generated traces share.  With
 * RANDTRACE_SEED defined before including it, a xorshift generator of
 * that seed (every run draws the same numbers); with RANDTRACE_WITH_TRACE,
 * a trace written by the test to a temporary file, then loaded (without
 * the cache) and the file removed.
 * Header-only, for tests: each test program includes it once.
 */
#ifndef SM_RANDTRACE_H
#define SM_RANDTRACE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef RANDTRACE_WITH_TRACE
#include "base/error.h"
#include "trace/trace.h"
#endif

#ifdef RANDTRACE_SEED
static uint64_t rng = RANDTRACE_SEED;

static uint64_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (rng);
}

/* A number in [0, n) (0 for n = 0). */
static uint64_t
below(uint64_t n)
{
	return (n == 0 ? 0 : next() % n);
}
#endif

#ifdef RANDTRACE_WITH_TRACE
/*
 * A new temporary file for a trace, its name in path (which must hold
 * "/tmp/NAME_XXXXXX"); exits naming who when it cannot be made.
 */
static FILE *
randtrace_create(char *path, const char *who)
{
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (f == NULL) {
		perror(who);
		exit(1);
	}
	return (f);
}

/* Closes f, loads the trace at path and removes the file; exits on error. */
static trace *
randtrace_load(FILE *f, const char *path)
{
	trace_options o;
	sm_error err;
	trace *d;

	fclose(f);
	memset(&o, 0, sizeof (o));
	o.no_cache = 1;
	d = trace_load(path, &o, &err);
	unlink(path);
	if (d == NULL) {
		error_print(&err, stdout);
		exit(1);
	}
	return (d);
}
#endif

#endif
