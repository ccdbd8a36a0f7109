/*
 * merge.h: the transitions of several entities of a store, merged into
 * one stream in time order, as if read from a file sorted by time.
 *
 * Ties in time come in the order the entities were given, and within an
 * entity in store order.  Memory is one cursor per entity.
 *
 * Ownership: the merge borrows the store, which must outlive it.
 */
#ifndef SM_MERGE_H
#define SM_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

typedef struct merge merge;

typedef struct merge_item {
	size_t rank;		/* the entity's position in the list given */
	uint32_t entity;
	uint64_t time;
	uint32_t state;
	uint32_t tag;		/* STORE_NONE when untagged */
} merge_item;

merge *merge_new(const store *s, const uint32_t *entities, size_t n);

/*
 * The same from time `from` on: each entity starts at its last transition
 * at or before `from` (the state it is in then), or at its first if it
 * has none by then; the earlier ones are skipped in O(log n).
 */
merge *merge_new_from(const store *s, const uint32_t *entities, size_t n,
    uint64_t from);
void merge_free(merge *m);

/* The next transition: returns 1 and fills out, or 0 at the end. */
int merge_next(merge *m, merge_item *out);

#endif
