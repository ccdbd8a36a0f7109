#include "base/work.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/debug.h"
#include "base/fatal.h"

_Atomic uint64_t work_total, work_bytes_total;
uint64_t work_limit = UINT64_MAX, work_bytes_limit = UINT64_MAX;
static void (*on_exceeded)(const char *what, uint64_t limit);

void
work_exceeded(void)
{
	int bytes = work_done() <= work_limit;
	char why[96];

	if (on_exceeded != NULL)
		on_exceeded(bytes ? "bytes" : "steps", bytes ?
		    work_bytes_limit : work_limit);
	if (bytes)
		snprintf(why, sizeof (why), "more than %llu bytes handed out",
		    (unsigned long long)work_bytes_limit);
	else
		snprintf(why, sizeof (why), "more than %llu steps of work "
		    "(STATEMAP_WORK_LIMIT)", (unsigned long long)work_limit);
	fatal_exit(NULL, why, 3);
}

static void
print_total(void)
{
	fprintf(stderr, "work: %llu steps, %llu bytes handed out\n",
	    (unsigned long long)work_done(),
	    (unsigned long long)work_bytes_done());
}

void
work_init(void)
{
	static int done;
	const char *s = getenv("STATEMAP_WORK_LIMIT");
	char *end;
	unsigned long long n;

	if (done++)
		return;
	if (s != NULL && *s != '\0') {
		n = strtoull(s, &end, 10);
		if (*end == '\0' && n > 0)
			work_limit = (uint64_t)n;
	}
	if (debug_on("work"))
		atexit(print_total);
}

uint64_t
work_done(void)
{
	return (atomic_load_explicit(&work_total, memory_order_relaxed));
}

uint64_t
work_bytes_done(void)
{
	return (atomic_load_explicit(&work_bytes_total, memory_order_relaxed));
}

void
work_reset(uint64_t steps, uint64_t bytes,
    void (*exceeded)(const char *what, uint64_t limit))
{
	atomic_store_explicit(&work_total, 0, memory_order_relaxed);
	atomic_store_explicit(&work_bytes_total, 0, memory_order_relaxed);
	work_limit = steps == 0 ? UINT64_MAX : steps;
	work_bytes_limit = bytes == 0 ? UINT64_MAX : bytes;
	on_exceeded = exceeded;
}
