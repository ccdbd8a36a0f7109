#include "snapshot.h"

/* How far a search gallops before it takes the rest by halves. */
#define GALLOP_STEPS	6

/*
 * The number of times at or before t in times[0..n), searched from
 * position p (< n): forward or back by doubling steps, then by halves
 * between the last two probes.  Unsorted times (a mapped cache entry
 * written over) give some count in [0, n], as a binary search would.
 */
static size_t
through_from(const uint64_t *times, size_t n, uint64_t t, size_t p)
{
	size_t lo, hi, step = 1;
	int i;

	if (times[p] <= t) {
		/* The answer is above p: find hi with times[hi] > t. */
		lo = p + 1;
		for (i = 0; i < GALLOP_STEPS; i++) {
			hi = p + step;
			if (hi >= n || times[hi] > t)
				break;
			lo = hi + 1;
			step *= 2;
		}
		if (i == GALLOP_STEPS)
			hi = n;
		if (hi > n)
			hi = n;
	} else {
		/* At or below p: find lo with times[lo - 1] <= t. */
		hi = p;
		for (i = 0; i < GALLOP_STEPS; i++) {
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
		if (i == GALLOP_STEPS)
			lo = 0;
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

typedef struct column {
	const uint64_t *times;
	const uint16_t *states;
	size_t n;
} column;

/* Looks up entity e's column and asks for the lines its search reads. */
static inline void
prefetch_entity(const store *s, uint32_t e, const size_t *pos, column *c)
{
	size_t p;

	c->n = store_count(s, e);
	if (c->n == 0)
		return;
	c->times = store_times(s, e);
	c->states = store_states(s, e);
	p = pos[e] < c->n ? pos[e] : c->n - 1;
	__builtin_prefetch(c->times + p);
	__builtin_prefetch(c->times + p + 4);
	__builtin_prefetch(c->states + p);
}

uint32_t
snapshot_states(const store *s, uint64_t t, size_t *pos, uint32_t *states)
{
	uint32_t ne = store_nentities(s), e, have = 0;
	uint64_t end = store_end(s);
	int inside = t >= store_begin(s) && t < end;
	column ring[AHEAD];

	if (!inside) {
		for (e = 0; e < ne; e++)
			states[e] = STORE_NONE;
		return (0);
	}
	for (e = 0; e < ne && e < AHEAD; e++)
		prefetch_entity(s, e, pos, &ring[e]);
	for (e = 0; e < ne; e++) {
		column c = ring[e % AHEAD];
		size_t k;

		if (e + AHEAD < ne)
			prefetch_entity(s, e + AHEAD, pos, &ring[e % AHEAD]);
		states[e] = STORE_NONE;
		if (c.n == 0)
			continue;
		k = through_from(c.times, c.n, t, pos[e] < c.n ? pos[e] :
		    c.n - 1);
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
