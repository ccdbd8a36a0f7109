/*
 * reduce.h: the intervals of a selection of a store (a range, some
 * entities, some states), read in bulk in C: counted, copied into typed
 * arrays (t:columns) or summed by a key (t:reduce).  The same intervals,
 * in the same order, as store_iter gives (clipped to the range, empty
 * ones skipped), filtered by state: what t:intervals yields one table at
 * a time.
 *
 * Each function is one pass over the columns, with no allocation, and
 * may stop for a script's limits (runlimit.h): it then returns -1 with
 * *why, having written only part of its output.
 */
#ifndef SM_REDUCE_H
#define SM_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct reduce_selection {
	uint64_t from, to;		/* clipped to the store's bounds */
	const uint32_t *entities;	/* in this order; NULL: all, by id */
	size_t nentities;
	const unsigned char *states;	/* a flag per state; NULL: all */
} reduce_selection;

/*
 * At least as many as the intervals selected, from binary searches
 * only: room for reduce_fill to fill.
 */
size_t reduce_bound(const store *s, const reduce_selection *q);

/*
 * Copies of the selected intervals' fields into the arrays not NULL,
 * each with room for reduce_bound's number; *n gets how many there are:
 * start and finish clipped to the range, and their difference; entity
 * ids, state values and tag ids (STORE_NONE: untagged), each plus one
 * (so that 0 is no tag, and a state indexes a Lua list of states).
 */
typedef struct reduce_columns {
	uint64_t *start, *finish, *duration;
	uint32_t *entity, *state, *tag;
} reduce_columns;

int reduce_fill(const store *s, const reduce_selection *q,
    const reduce_columns *out, size_t *n, const char **why);

/* What the selected intervals are summed by. */
typedef enum reduce_key {
	REDUCE_STATE,		/* their state value */
	REDUCE_ENTITY,		/* their entity id */
	REDUCE_TAG		/* key_of[tag id]: tagged ones only */
} reduce_key;

/*
 * For each key k: time[k] += the intervals' time, count[k] += their
 * number (arrays of as many keys as there are states, entities, or
 * values in key_of).  For REDUCE_TAG, key_of has a key for each of
 * ntags tag ids; intervals without a tag, with a tag id past ntags or
 * whose key is STORE_NONE are left out.
 */
int reduce_sums(const store *s, const reduce_selection *q, reduce_key by,
    const uint32_t *key_of, uint32_t ntags, uint64_t *time, uint64_t *count,
    const char **why);

#endif
