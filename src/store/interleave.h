/*
 * interleave.h: the transitions of several entities of a store, merged into
 * one stream in time order, as if read from a file sorted by time.
 *
 * Ties in time come in the order the entities were given, and within an
 * entity in store order.  Memory is one cursor per entity.
 *
 * Ownership: an interleave borrows the store, which must outlive it.
 */
#ifndef SM_INTERLEAVE_H
#define SM_INTERLEAVE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct interleave interleave;

typedef struct interleave_item {
	size_t rank;		/* the entity's position in the list given */
	uint32_t entity;
	uint64_t time;
	uint32_t state;
	uint32_t tag;		/* STORE_NONE when untagged */
} interleave_item;

interleave *interleave_new(const store *s, const uint32_t *entities, size_t n);

/*
 * The same from time `from` on: each entity starts at its last transition
 * at or before `from` (the state it is in then), or at its first if it
 * has none by then; the earlier ones are skipped in O(log n).
 */
interleave *interleave_new_from(const store *s, const uint32_t *entities, size_t n,
    uint64_t from);
void interleave_free(interleave *m);

/* The next transition: returns 1 and fills out, or 0 at the end. */
int interleave_next(interleave *m, interleave_item *out);

#endif
