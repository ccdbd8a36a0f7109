/*
 * tagtime.h: the time a coalesced rectangle spent in each tag, kept so
 * that adding time costs no search and no shifting.
 *
 * A list is a sorted run of distinct tags followed by an unsorted tail
 * of additions, which may repeat tags.  Adding appends to the tail (or
 * adds to its last entry when the tag is the same); when the tail grows
 * past a fraction of the run it is sorted, folded and merged into the
 * run, so each addition costs O(log tail) amortised however long the
 * run is, where an insertion into a sorted array cost a binary search
 * over cold memory and a shift of half the array.
 *
 * tagtime_settle makes the whole list one sorted run (what readers see);
 * tagtime_absorb adds one list's times to another's.  Merging needs a
 * second buffer: the caller keeps one scratch list and passes it in;
 * buffers trade places with it, so nothing is allocated once warm.
 *
 * Ownership: a list owns its array; tagtime_free releases it.  A zeroed
 * tagtime is an empty list.
 */
#ifndef SM_TAGTIME_H
#define SM_TAGTIME_H

#include <stdint.h>

#include "coalesce.h"

typedef struct tagtime {
	coalesce_tag *v;	/* run [0, sorted), then tail [sorted, n) */
	uint32_t sorted, n, cap;
} tagtime;

void tagtime_free(tagtime *t);

/* Empties the list, keeping its array. */
void tagtime_clear(tagtime *t);

/* Adds time to tag. */
void tagtime_add(tagtime *t, uint32_t tag, uint64_t time, tagtime *scratch);

/* Makes the list one sorted run of distinct tags (v[0, n), ascending). */
void tagtime_settle(tagtime *t, tagtime *scratch);

/* Adds every time of from to into, and empties from. */
void tagtime_absorb(tagtime *into, tagtime *from, tagtime *scratch);

#endif
