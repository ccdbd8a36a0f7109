/*
 * Tests for series_count (src/store/count_series.c): its sweep by blocks
 * of time must give, step for step, what series_walk's heap gives, on
 * stores of every shape that changes the blocks (few entities, many,
 * more changes than a block holds, changes bunched at one time, runs of
 * equal times, entities with nothing in the range), over the whole range
 * and over ranges inside it, for any set of states counted.
 */
#include <stdlib.h>
#include <string.h>

#include "store/count_series.h"
#include "store/store.h"
#include "unit.h"
#define RANDTRACE_SEED 0x9e3779b97f4a7c15ULL
#include "randtrace.h"

/* series_walk's steps, gathered. */
typedef struct steps {
	uint64_t *time;
	uint32_t *count;
	size_t n, cap;
} steps;

static int
take_step(void *ctx, uint64_t time, uint32_t count, const char **why)
{
	steps *w = ctx;

	(void)why;
	if (w->n == w->cap) {
		w->cap = w->cap == 0 ? 1024 : 2 * w->cap;
		w->time = realloc(w->time, w->cap * sizeof (uint64_t));
		w->count = realloc(w->count, w->cap * sizeof (uint32_t));
	}
	w->time[w->n] = time;
	w->count[w->n++] = count;
	return (0);
}

/* Whether series_count and series_walk agree on s over [from, to). */
static int
agree(const store *s, const unsigned char *counted, uint64_t from,
    uint64_t to)
{
	steps w = { NULL, NULL, 0, 0 };
	const char *why;
	series sr;
	int ok;

	if (series_count(s, counted, from, to, &sr, &why) != 0 ||
	    series_walk(s, counted, from, to, take_step, &w, &why) != 0)
		return (0);
	ok = sr.n == w.n && (w.n == 0 ||
	    (memcmp(sr.time, w.time, w.n * sizeof (uint64_t)) == 0 &&
	    memcmp(sr.count, w.count, w.n * sizeof (uint32_t)) == 0));
	series_free(&sr);
	free(w.time);
	free(w.count);
	return (ok);
}

/*
 * A store of n transitions over nent entities and nstates states: times
 * rising by up to gap (0: all at one time), runs of equal times where
 * runs is set, entities chosen at random (some never).
 */
static store *
make_store(uint32_t nent, uint32_t nstates, size_t n, uint64_t gap, int runs,
    uint64_t *end)
{
	store *s = store_new(nstates);
	uint64_t t = 1000;
	size_t i;

	for (i = 0; i < n; i++) {
		if (gap > 0 && (!runs || below(4) == 0))
			t += below(gap);
		store_append(s, (uint32_t)below(nent), t,
		    (uint32_t)below(nstates), STORE_NONE);
	}
	*end = t + 1 + below(1000);
	store_finish(s, 1000, *end);
	return (s);
}

static void
check_shape(const char *name, uint32_t nent, uint32_t nstates, size_t n,
    uint64_t gap, int runs)
{
	unsigned char counted[64];
	uint64_t end, span;
	store *s = make_store(nent, nstates, n, gap, runs, &end);
	int ok = 1, round;
	uint32_t k;

	span = end - 1000;
	for (round = 0; round < 6 && ok; round++) {
		uint64_t a = 1000 + below(span), b = a + below(end - a + 1);

		for (k = 0; k < nstates; k++)
			counted[k] = (unsigned char)below(2);
		counted[below(nstates)] = 1;
		ok = agree(s, counted, 1000, end) &&
		    agree(s, counted, a, b) &&
		    agree(s, counted, 0, a) &&
		    agree(s, counted, b, end + 5);
	}
	CHECK(name, ok);
	store_free(s);
}

/*
 * Times written over after the store was made (a mapped cache entry
 * changed after it was checked) make the series wrong, but never break
 * its invariants: times rise strictly, neighbours differ, and no count
 * exceeds the entities.  Each column has a time taken back below the
 * range's start, so that a change can fall at the very start of the
 * range, where the first step already is (a sweep that put a second step
 * there fails this check).
 */
static void
check_times_written_over(void)
{
	unsigned char counted[3] = { 1, 0, 1 };
	int ok = 1, round;

	for (round = 0; round < 200 && ok; round++) {
		uint32_t nent = 1 + (uint32_t)below(6), e;
		uint64_t end, from, to;
		store *s = make_store(nent, 3, 20 + below(200), 20, round & 1,
		    &end);
		series sr;
		const char *why;
		size_t i;

		from = 1000 + below(end - 1000);
		to = from + 1 + below(end - from);
		for (e = 0; e < nent; e++) {
			size_t n = store_count(s, e);
			uint64_t *times = (uint64_t *)store_times(s, e);

			if (n > 0)
				times[below(n)] = 1000 + below(from - 999);
		}
		if (series_count(s, counted, from, to, &sr, &why) != 0) {
			ok = 0;
		} else {
			for (i = 0; i < sr.n; i++)
				ok &= sr.count[i] <= nent && (i == 0 ||
				    (sr.time[i] > sr.time[i - 1] &&
				    sr.count[i] != sr.count[i - 1]));
			series_free(&sr);
		}
		store_free(s);
	}
	CHECK("count_series: times written over keep the series' rules", ok);
}

int
main(void)
{
	check_shape("count_series: few entities, a few blocks", 10, 6,
	    300000, 1000, 0);
	check_shape("count_series: entities of a transition or two", 50000, 3,
	    100000, 100, 0);
	check_shape("count_series: 2 states, runs of equal times", 1000, 2,
	    300000, 50, 1);
	check_shape("count_series: everything at one time", 300, 4, 200000, 0,
	    0);
	check_shape("count_series: small", 5, 3, 50, 10, 1);
	check_shape("count_series: many states", 100, 60, 200000, 3000, 0);
	check_times_written_over();
	return (unit_exit());
}
