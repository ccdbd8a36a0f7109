/*
 * value_summary.h: min, max and time integral of a value entity's numbers over
 * any range of its intervals, in O(log n).
 *
 * A value entity's intervals are its values, each from its time to the
 * next value's time (value i holds over [time[i], time[i + 1])).  The
 * summary is levels of blocks, the seed's "mipmap": a node of level 1
 * sums up 16 intervals, one of level 2 sums up 16 nodes of level 1, and
 * so on.  A range of intervals is the intervals at its ragged ends, then
 * whole nodes of higher and higher levels, at most 15 at each end of each
 * level: about 30 log16(n) reads, 2 microseconds at worst for 10 million
 * values, in 2.1 bytes per value.  The same answer serves e:stats and a
 * drawing's pixel column (the min, max and mean of what it covers).
 *
 * Only numbers count: strings and none (null) are left out of min and
 * max, and out of the integral and of `covered`, the time that had a
 * number, so the mean is integral / covered.  Zero-length intervals (two
 * values at one time) count for nothing.  The last value's interval ends
 * with the trace, which the summary does not know: it covers intervals 0
 * to n - 2, whose ends are fixed; store.h clips the ends of a query.
 *
 * Ownership: the summary owns its nodes and reads the columns it was
 * built from, which the caller keeps (it builds a new one when they
 * grow).
 */
#ifndef SM_VALUE_SUMMARY_H
#define SM_VALUE_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "store/value.h"

typedef struct summary summary;

/*
 * An integer entity's (value.h) min and max are kept exact in imin and
 * imax as well; min and max are then the nearest doubles.  The integral
 * is a double for every entity (an integer times ns soon passes 2^63).
 */
typedef struct value_stats {
	double min, max;	/* of the numbers counted; +-inf before any */
	double integral;	/* sum of number * ns */
	uint64_t covered;	/* ns that had a number */
	int ints;		/* the words are integers (value_num_is) */
	int64_t imin, imax;	/* then: exact, valid if covered > 0 */
} value_stats;

/* Empty statistics of an entity whose words are integers or not. */
void value_stats_init(value_stats *st, int ints);

/*
 * Adds one interval of value v lasting ns (nothing if not a number).
 * Inline: a PNG of a trace of values adds every value once, and a call
 * apiece was a tenth of its time.
 */
static inline void
value_stats_add(value_stats *st, sm_value v, uint64_t ns)
{
	double d;

	if (ns == 0 || !value_num_is(v, st->ints))
		return;
	d = value_num_double(v, st->ints);
	if (st->ints) {
		int64_t i = value_to_int(v);

		if (i < st->imin)
			st->imin = i;
		if (i > st->imax)
			st->imax = i;
	}
	if (d < st->min)
		st->min = d;
	if (d > st->max)
		st->max = d;
	st->integral += d * (double)ns;
	st->covered += ns;
}

/* Adds the statistics of another range. */
void value_stats_merge(value_stats *st, const value_stats *more);

/*
 * The summary of n values at times (ascending): of intervals 0..n-2;
 * ints: the words are integers.
 */
summary *summary_build(const uint64_t *time, const sm_value *value,
    size_t n, int ints);
void summary_free(summary *sm);

/* Bytes it holds; summary_memory_for: what one of n values will hold. */
size_t summary_memory(const summary *sm);
size_t summary_memory_for(size_t n);

/*
 * Adds intervals a to b - 1 (b at most n - 1) of the columns it was built
 * from into st (made by value_stats_init with the summary's ints).
 */
void summary_add(const summary *sm, const uint64_t *time,
    const sm_value *value, size_t a, size_t b, value_stats *st);

#endif
