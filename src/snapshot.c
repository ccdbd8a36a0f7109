#include "snapshot.h"

/*
 * The number of times at or before t in times[0..n), searched from
 * position p (< n): forward or back by doubling steps, then by halves
 * between the last two probes: about 2 log2(d) probes for an answer d
 * away, all near p when d is small.  Unsorted times (a mapped cache
 * entry written over) give some count in [0, n], as a binary search
 * would.
 */
static size_t
through_from(const uint64_t *times, size_t n, uint64_t t, size_t p)
{
	size_t lo, hi, step = 1;

	if (times[p] <= t) {
		/* The answer is above p: find hi with times[hi] > t. */
		lo = p + 1;
		for (;;) {
			hi = p + step;
			if (hi >= n) {
				hi = n;
				break;
			}
			if (times[hi] > t)
				break;
			lo = hi + 1;
			step *= 2;
		}
	} else {
		/* At or below p: find lo with times[lo - 1] <= t. */
		hi = p;
		for (;;) {
			if (step > p) {
				lo = 0;
				break;
			}
			lo = p - step;
			if (times[lo] <= t) {
				lo++;
				break;
			}
			hi = lo;
			step *= 2;
		}
	}
	/* times[lo - 1] <= t < times[hi], where those exist. */
	return (lo + store_count_through(times + lo, hi - lo, t));
}

/*
 * How many entities ahead a column's lines are asked for: enough to keep
 * the core's outstanding misses busy, few enough that none is dropped
 * (asking for every entity's lines first overflows the queue, and the
 * search then waits for most of them again).  A power of two: the
 * columns looked up for the prefetch wait in a ring for the search.
 */
#define AHEAD	16

/*
 * A search starts from the last position when the time moved by fewer
 * than this many of the entity's transitions on average; farther, from
 * where the time would fall if its transitions were spread evenly over
 * the store's span (a jump across the trace then costs a few probes
 * near the answer instead of a gallop and a binary search of cold
 * lines, each a miss).
 */
#define NEAR	32.0

typedef struct column {
	const uint64_t *times;
	const uint16_t *states;
	size_t n, start;
} column;

/*
 * Looks up entity e's column, where its search starts, and asks for the
 * lines the search reads first.
 */
static inline void
prefetch_entity(const store *s, uint32_t e, const size_t *pos, double moved,
    double at, column *c)
{
	size_t p;

	c->n = store_count(s, e);
	if (c->n == 0)
		return;
	c->times = store_times(s, e);
	c->states = store_states(s, e);
	if (moved * (double)c->n < NEAR)
		p = pos[e];
	else
		p = (size_t)(at * (double)c->n);
	p = p < c->n ? p : c->n - 1;
	c->start = p;
	__builtin_prefetch(c->times + p);
	__builtin_prefetch(c->times + p + 4);
	__builtin_prefetch(c->states + p);
}

uint32_t
snapshot_states(const store *s, uint64_t t, uint64_t *last, size_t *pos,
    uint32_t *states)
{
	uint32_t ne = store_nentities(s), e, have = 0;
	uint64_t begin = store_begin(s), end = store_end(s);
	double span, moved, at;
	column ring[AHEAD];

	if (t < begin || t >= end) {
		for (e = 0; e < ne; e++)
			states[e] = STORE_NONE;
		return (0);
	}
	/* As fractions of the span: how far t is from the last time asked
	 * (all of it if none was), and where t is. */
	span = (double)(end - begin);
	moved = *last == UINT64_MAX ? 1.0 :
	    (double)(t > *last ? t - *last : *last - t) / span;
	at = (double)(t - begin) / span;
	*last = t;
	for (e = 0; e < ne && e < AHEAD; e++)
		prefetch_entity(s, e, pos, moved, at, &ring[e]);
	for (e = 0; e < ne; e++) {
		column c = ring[e % AHEAD];
		size_t k;

		if (e + AHEAD < ne)
			prefetch_entity(s, e + AHEAD, pos, moved, at,
			    &ring[e % AHEAD]);
		states[e] = STORE_NONE;
		if (c.n == 0)
			continue;
		k = through_from(c.times, c.n, t, c.start);
		if (k == 0)
			continue;
		pos[e] = k - 1;
		/* Its interval ends at the next time, or at the end: past t
		 * unless the times are out of order. */
		if (k < c.n && c.times[k] <= t)
			continue;
		states[e] = c.states[k - 1];
		have++;
	}
	return (have);
}
