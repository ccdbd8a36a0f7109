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

uint32_t
snapshot_states(const store *s, uint64_t t, size_t *pos, uint32_t *states)
{
	uint32_t ne = store_nentities(s), e, have = 0;
	uint64_t end = store_end(s);

	/*
	 * Each entity's search reads its column where it was left, memory
	 * that has long left the cache: ask for all of them first, so that
	 * the reads overlap instead of waiting one after another.
	 */
	for (e = 0; e < ne; e++) {
		size_t n = store_count(s, e);

		if (n > 0) {
			const uint64_t *times = store_times(s, e);
			size_t p = pos[e] < n ? pos[e] : n - 1;

			__builtin_prefetch(times + p);
			__builtin_prefetch(times + p + 8);
			__builtin_prefetch(store_states(s, e) + p);
		}
	}
	for (e = 0; e < ne; e++) {
		size_t n = store_count(s, e), k;
		const uint64_t *times;

		states[e] = STORE_NONE;
		if (n == 0 || t < store_begin(s) || t >= end)
			continue;
		times = store_times(s, e);
		k = through_from(times, n, t, pos[e] < n ? pos[e] : n - 1);
		if (k == 0)
			continue;
		pos[e] = k - 1;
		/* Its interval ends at the next time, or at the end: past t
		 * unless the times are out of order. */
		if (k < n && times[k] <= t)
			continue;
		states[e] = store_states(s, e)[k - 1];
		have++;
	}
	return (have);
}
