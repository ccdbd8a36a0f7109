/*
 * snapshot.h: the state of every entity of a store at a time (t:at),
 * starting each entity's search where the last one ended.
 *
 * Scripts ask for the states at one time after another, mostly close
 * together (stepping through a trace); each entity's last position is
 * kept, and the next search gallops from there: O(1) per entity for
 * a small step, O(log distance) for a larger one, and never worse than
 * a few probes more than a binary search over the whole column.  After
 * a jump far from the last time, each search starts instead where the
 * time would fall if the entity's transitions were spread evenly, and
 * gallops from there.  The entities' columns are far apart in memory:
 * each one's lines are asked for a few entities ahead of its search, so
 * that the misses overlap.
 *
 * Ownership: the caller keeps the last time asked (UINT64_MAX at first)
 * and the positions (one size_t per entity, zero at first) with whatever
 * asks, and never shares them between threads; the store is only read.
 */
#ifndef SM_SNAPSHOT_H
#define SM_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/*
 * states[e] = the state of entity e at t, or STORE_NONE if it has none
 * then (as store_state_at), for every e below store_nentities(s);
 * *last is the time of the last call, and becomes t; pos[e] is where e
 * was found last, and becomes where it is found now.  Returns how many
 * entities have a state.
 */
uint32_t snapshot_states(const store *s, uint64_t t, uint64_t *last,
    size_t *pos, uint32_t *states);

#endif
