/*
 * count_series.h: how many entities of a store are in a set of states, over a
 * range of time, as a step function: what t:count and t:count_series
 * compute.
 *
 * series_walk: one sweep over the transitions in time order, merged
 * across entities by a heap of one cursor per entity.  Each cursor skips,
 * in its own column, the transitions that do not move its entity into or
 * out of the counted states, so the heap sees only those that change the
 * count: memory is one cursor per entity, whatever the trace's size.
 * series_count, which holds the whole series anyway, gives the same steps
 * by blocks of time instead: each block's changes read column by column
 * and sorted by radix, several times faster than the heap (no heap
 * operation a change, each column read in order), for at most 16 bytes a
 * change of one block beside the series.
 *
 * Ownership: a series owns its two arrays (series_free).
 */
#ifndef SM_COUNT_SERIES_H
#define SM_COUNT_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/*
 * Step i: from time[i] to time[i + 1] (the last to `finish`), count[i]
 * entities are in a counted state.  Times rise strictly, and two
 * neighbouring steps never have the same count.
 */
typedef struct series {
	uint64_t *time;
	uint32_t *count;
	size_t n;
	uint64_t begin, finish;	/* the range counted: [begin, finish) */
} series;

/*
 * Counts the entities of s in a state flagged in counted (one flag per
 * state of s) over [from, to), clipped to the store's bounds: the first
 * step is at from (the count then), then one at each change.  An empty
 * range gives no steps.  Returns 0, or -1 with *why when a script's
 * limits say stop (runlimit.h), out left empty.
 *
 * Times that are out of order in a column (a mapped cache entry written
 * over after it was checked) give a wrong series, never a count beyond
 * the entities or steps out of order.
 */
int series_count(const store *s, const unsigned char *counted, uint64_t from,
    uint64_t to, series *out, const char **why);

/*
 * The same steps, handed to fn one by one as the sweep finds them (the
 * invariants above hold for the sequence), holding none: for a count
 * that goes into a store of its own, whatever the trace's size.  fn
 * returns 0, or -1 with *why to stop.  Returns 0, or -1 with *why (from
 * fn, or the limits of a script).
 */
typedef int (*series_step_fn)(void *ctx, uint64_t time, uint32_t count,
    const char **why);

int series_walk(const store *s, const unsigned char *counted, uint64_t from,
    uint64_t to, series_step_fn fn, void *ctx, const char **why);

void series_free(series *sr);

/* Bytes the series holds: for the collector and the memory limit. */
size_t series_memory(const series *sr);

/* The step holding time t, or SIZE_MAX if t is outside [begin, finish). */
size_t series_find(const series *sr, uint64_t t);

#endif
