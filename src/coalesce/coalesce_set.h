/*
 * coalesce_set.h: the ordered set of rectangles by weight (private to the coalescer's files; coalesce_state.h
 * says which does what).
 */
#ifndef SM_COALESCE_SET_H
#define SM_COALESCE_SET_H

#include <stdint.h>

#include "coalesce/coalesce_state.h"

/* The rest of the key, for equal weights: start, entity, then index. */
static inline int
coalesce_set_key_less(const coalesce *c, uint64_t start, uint32_t entity,
    uint32_t r, uint32_t other)
{
	const rect_info *o = &c->info[other];

	if (start != o->start)
		return (start < o->start);
	if (entity != o->entity)
		return (entity < o->entity);
	/*
	 * Only zero-length rectangles can tie this far (the reference then
	 * corrupts its own state); the index keeps us deterministic.
	 */
	return (r < other);
}

/* Takes a rectangle out of the set, if it is in. */
void coalesce_set_remove(coalesce *c, uint32_t r);

/*
 * Called when rectangle r's weight may have changed: one not in the set
 * enters it; one in it keeps its entry as it is (see coalesce_set.c).
 * entity is r's (the callers have it at hand; r's own record may be out
 * of the cache).
 */
void coalesce_set_reweigh(coalesce *c, uint32_t r, uint32_t entity);

/*
 * Brings rectangle r's key up to its weight where it is, or puts it in;
 * entity is r's.
 */
void coalesce_set_rekey(coalesce *c, uint32_t r, uint32_t entity);

/*
 * Puts an entity's second rectangle in the set without an entry of its
 * own, its first being in the heap (see coalesce_set.c).
 */
void coalesce_set_shadow(coalesce *c, uint32_t r);

/* Makes the top of the set the smallest true key, if not known to be. */
void coalesce_set_refresh_top(coalesce *c);

static inline void
coalesce_set_fresh_top(coalesce *c)
{
	if (!c->top_fresh)
		coalesce_set_refresh_top(c);
}

#endif
