/*
 * snapshot.h: the state of every entity of a store at a time (t:at),
 * starting each entity's search where the last one ended, or from an
 * index of where every entity is at evenly spaced times.
 *
 * Scripts ask for the states at one time after another, mostly close
 * together (stepping through a trace); each entity's last position is
 * kept, and the next search gallops from there: O(1) per entity for
 * a small step, O(log distance) for a larger one, and never worse than
 * a few probes more than a binary search over the whole column.  After
 * a jump far from the last time, each search starts instead from the
 * index: for each of B evenly spaced times (B about a quarter of the
 * transitions per entity), each entity's position there, so a jump
 * costs about one line of the time column per entity.  The index also
 * keeps the transitions and values again bucket by bucket (each time
 * less its bucket's start in 32 bits, and its state or value) with
 * every entity's state or value as each bucket starts: the states and
 * values at any time then come from one bucket's bytes, read in a row,
 * and no entity's columns are read at all (not when a bucket spans 2^32
 * ns or more: the searches then start from the positions).  The index
 * takes a byte per transition (7.5 with the copy: 4 bytes of time, 2
 * of state, 0.5 for the states at the buckets' starts; a value 15) and
 * one pass
 * over the columns, so it is made only once far jumps have cost about
 * as much as making it (never, for a script that steps), and only if
 * the memory limit leaves room; until then a far search starts where
 * the time would fall if the entity's transitions were spread evenly.  The entities'
 * columns are far apart in memory: each one's lines are asked for a few
 * entities ahead of its search, so that the misses overlap.
 *
 * Ownership: a cursor belongs to whatever asks (one per trace object),
 * is never shared between threads, and holds C memory counted against
 * the run limit (runlimit.h) until snapshot_cursor_free; the store is
 * only read, must not change while the cursor lives (a trace object's
 * store never does), and must outlive the cursor.
 */
#ifndef SM_SNAPSHOT_H
#define SM_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct snapshot_index snapshot_index;

/*
 * An entity's columns as the cursor keeps them: looked up once, side by
 * side for all entities, instead of through the store's own larger
 * per-entity records at every call.
 */
typedef struct snapshot_column {
	const uint64_t *times;
	const uint16_t *states;	/* NULL for a value entity */
	const sm_value *values;	/* a value entity's, else NULL */
	size_t count;
} snapshot_column;

typedef struct snapshot_cursor {
	uint64_t last;		/* the last time asked (UINT64_MAX: none) */
	size_t *pos;		/* per entity: where it was found last */
	snapshot_column *cols;	/* per entity */
	uint32_t nentities;	/* entries in pos */
	uint64_t far_work;	/* entity searches after far jumps, so far */
	snapshot_index *index;	/* once made */
	int no_index;		/* not worth making, or no room for it */
	size_t charged;		/* bytes counted against the run limit */
} snapshot_cursor;

/* A cursor for s, with nothing asked yet (one allocation, charged). */
void snapshot_cursor_init(snapshot_cursor *c, const store *s);
void snapshot_cursor_free(snapshot_cursor *c);

/*
 * states[e] = the state of entity e at t, or STORE_NONE if it has none
 * then (as store_states_at), for every e below store_nentities(s), which
 * must be the store the cursor was made for.  Returns how many entities
 * have a state.
 */
uint32_t snapshot_states(const store *s, snapshot_cursor *c, uint64_t t,
    uint32_t *states);

/*
 * The same, and values[e] = the value of value entity e at t, or
 * VALUE_NONE before its first value (states[e] is then STORE_NONE, as
 * snapshot_states gives it for a value entity): one search per entity
 * from where the last call left it, as for states.  Returns how many
 * entities have a state or a value.
 */
uint32_t snapshot_states_values(const store *s, snapshot_cursor *c,
    uint64_t t, uint32_t *states, sm_value *values);

/*
 * The index of s with about per_bucket transitions (or values) per entity
 * between two of its times (at least 1), or NULL when it would have fewer than
 * two times or an entity holds 2^32 transitions or more.  For tests and
 * for snapshot_states; freed by snapshot_index_free.
 */
snapshot_index *snapshot_index_make(const store *s, size_t per_bucket);
size_t snapshot_index_bytes(const snapshot_index *ix);

/*
 * Where the index starts entity e's search for time t (within the
 * index's store's bounds): how many of e's times are before the last of
 * the index's times at or before t.
 */
size_t snapshot_index_start(const snapshot_index *ix, uint32_t e,
    uint64_t t);
void snapshot_index_free(snapshot_index *ix);

#endif
