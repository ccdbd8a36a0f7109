/*
 * store_append.c: transitions appended (store.h): one, many of an entity at
 * once, and nested ones (pushed, popped, a run of them stacked, replayed by
 * depth).
 */
#include "store/store.h"

#include <string.h>

#include "base/util.h"
#include "store/spill.h"
#include "store/store_internal.h"

/* ---- states ---- */

/* A transition to a store on disk (spill.h). */
static void
append_to_disk(store *s, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag)
{
	if (!s->lost && spill_append(s->spill, entity, time, (uint16_t)state,
	    tag, s->why) != 0)
		s->lost = 1;
	s->total++;
}

/*
 * Appends a transition to a column in memory; returns its index.  A
 * store with nested or value entities never goes to disk
 * (store_column_reserve), so the column always grows here.
 */
static size_t
append_one(store *s, column *c, uint64_t time, uint32_t state, uint32_t tag)
{
	if (state >= s->nstates && state != STORE_GAP)
		store_misuse("store_append of state", state, s->nstates);
	if (c->vals != NULL)
		store_bug("store_append of a state to a value entity");
	if (c->borrowed)
		store_own_column(s, c);
	if (c->count == c->cap && store_column_reserve(s, c, c->count + 1))
		store_bug("a store with nested entities went to disk");
	if (c->count >= c->populated)
		store_column_populate(c, c->count + 1);
	if (tag != STORE_NONE && c->tag == NULL) {
		size_t i;

		c->tag = xmalloc(c->cap * sizeof (uint32_t));
		s->heap_bytes += c->cap * sizeof (uint32_t);
		for (i = 0; i < c->count; i++)
			c->tag[i] = STORE_NONE;
	}
	c->time[c->count] = time;
	c->state[c->count] = (uint16_t)state;
	if (c->tag != NULL)
		c->tag[c->count] = tag;
	if (c->depth != NULL) {
		c->depth[c->count] = state == STORE_GAP ? 0 : 1;
		c->below[c->count] = STORE_NONE;
	}
	s->total++;
	return (c->count++);
}

void
store_append(store *s, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag)
{
	column *c = store_column_of(s, entity);

	if (state >= s->nstates && state != STORE_GAP)
		store_misuse("store_append of state", state, s->nstates);
	if (c->vals != NULL)
		store_bug("store_append of a state to a value entity");
	if (s->spill != NULL) {
		append_to_disk(s, entity, time, state, tag);
		return;
	}
	if (c->borrowed)
		store_own_column(s, c);
	if (c->count == c->cap && store_column_reserve(s, c, c->count + 1)) {
		append_to_disk(s, entity, time, state, tag);
		return;
	}
	append_one(s, c, time, state, tag);
}

void
store_prefetch_column(const store *s, uint32_t entity, int near)
{
	const column *c;

	if (entity >= s->ncols)
		return;
	c = &s->cols[entity];
	if (!near) {
		/* Both ends: a record can straddle two lines. */
		__builtin_prefetch(c);
		__builtin_prefetch((const char *)(c + 1) - 1);
		return;
	}
	if (c->time != NULL) {
		__builtin_prefetch(c->time + c->count, 1);
		__builtin_prefetch(c->state + c->count, 1);
	}
}

void
store_append_many(store *s, uint32_t entity, const uint64_t *time,
    const uint16_t *state, size_t n)
{
	column *c = store_column_of(s, entity);
	size_t i;

	if (n == 0)
		return;
	if (c->vals != NULL)
		store_bug("store_append_many to a value entity");
	if (s->spill == NULL) {
		if (c->borrowed)
			store_own_column(s, c);
		if (c->count + n > c->cap)
			(void) store_column_reserve(s, c, c->count + n);
	}
	if (s->spill != NULL) {
		if (!s->lost && spill_append_many(s->spill, entity, time,
		    state, n, s->why) != 0)
			s->lost = 1;
		s->total += n;
		return;
	}
	if (c->count + n > c->populated)
		store_column_populate(c, c->count + n);
	memcpy(c->time + c->count, time, n * sizeof (uint64_t));
	memcpy(c->state + c->count, state, n * sizeof (uint16_t));
	if (c->tag != NULL) {
		for (i = 0; i < n; i++)
			c->tag[c->count + i] = STORE_NONE;
	}
	if (c->depth != NULL) {
		for (i = 0; i < n; i++) {
			c->depth[c->count + i] = state[i] == STORE_GAP ? 0 : 1;
			c->below[c->count + i] = STORE_NONE;
		}
	}
	c->count += n;
	s->total += n;
}

/* ---- nested states ---- */

/*
 * Gives a column the depth and below columns, its past all depth 1 (0
 * where its data ended).
 */
void
store_make_nested(store *s, column *c)
{
	size_t i;

	c->depth = xmalloc(c->cap * sizeof (uint16_t));
	c->below = xmalloc(c->cap * sizeof (uint32_t));
	s->heap_bytes += c->cap * NESTED_BYTES;
	for (i = 0; i < c->count; i++) {
		c->depth[i] = c->state[i] == STORE_GAP ? 0 : 1;
		c->below[i] = STORE_NONE;
	}
	s->special++;
}

uint32_t
store_depth_now(const store *s, uint32_t entity)
{
	const column *c;

	if (entity >= s->ncols || s->cols[entity].count == 0)
		return (0);
	c = &s->cols[entity];
	if (c->state[c->count - 1] == STORE_GAP)
		return (0);
	return (c->depth != NULL ? c->depth[c->count - 1] : 1);
}

void
store_push(store *s, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag)
{
	column *c;
	uint32_t depth;
	size_t i;

	if (store_refuse_on_disk(s))
		return;
	c = store_column_of(s, entity);
	depth = store_depth_now(s, entity);
	if (c->vals != NULL || depth >= STORE_MAX_DEPTH || state == STORE_GAP)
		store_bug("store_push on a value entity, too deep or of no "
		    "state");
	if (c->borrowed)
		store_own_column(s, c);
	/*
	 * Room first, so that the new columns have the column's size; but
	 * nested first if it has no room at all (a first push), so that
	 * the store stays in memory (store_column_reserve).
	 */
	if (c->depth == NULL && c->cap == 0)
		store_make_nested(s, c);
	if (c->count == c->cap)
		store_column_reserve(s, c, c->count + 1);
	if (c->depth == NULL)
		store_make_nested(s, c);
	i = append_one(s, c, time, state, tag);
	/* On an entity with no state, the stack starts: depth 1. */
	c->depth[i] = (uint16_t)(depth + 1);
	c->below[i] = depth == 0 ? STORE_NONE : (uint32_t)(i - 1);
}

void
store_pop(store *s, uint32_t entity, uint64_t time)
{
	column *c;
	uint32_t depth, under;
	size_t i;

	if (store_refuse_on_disk(s))
		return;
	c = store_column_of(s, entity);
	depth = store_depth_now(s, entity);
	if (depth < 1)
		store_bug("store_pop with no state");
	if (depth == 1) {
		/* The last state popped: no state from time on. */
		store_append(s, entity, time, STORE_GAP, STORE_NONE);
		return;
	}
	under = c->below[c->count - 1];
	i = append_one(s, c, time, c->state[under],
	    c->tag != NULL ? c->tag[under] : STORE_NONE);
	c->depth[i] = (uint16_t)(depth - 1);
	c->below[i] = c->below[under];
}

void
store_append_stacked(store *s, uint32_t entity, const uint64_t *times,
    const uint8_t *ops, const uint16_t *states, size_t n)
{
	column *c;
	size_t i, k;

	if (n == 0 || store_refuse_on_disk(s))
		return;
	c = store_column_of(s, entity);
	if (c->count == 0 || c->vals != NULL)
		store_bug("store_append_stacked on an entity with no state");
	if (c->borrowed)
		store_own_column(s, c);
	/* Nested first: a store with nested entities never goes to disk. */
	if (c->depth == NULL)
		store_make_nested(s, c);
	if (c->count + n > c->cap && store_column_reserve(s, c, c->count + n))
		store_bug("a store with nested entities went to disk");
	if (c->count + n > c->populated)
		store_column_populate(c, c->count + n);
	for (i = 0, k = c->count; i < n; i++, k++) {
		uint32_t depth = c->depth[k - 1], state = states[i];
		uint32_t tag = STORE_NONE, below = STORE_NONE;

		switch (ops[i]) {
		case STORE_SET:
			depth = state == STORE_GAP ? 0 : 1;
			break;
		case STORE_PUSH:
			if (depth >= STORE_MAX_DEPTH || state == STORE_GAP)
				store_bug("store_append_stacked: too deep");
			below = depth == 0 ? STORE_NONE : (uint32_t)(k - 1);
			depth++;
			break;
		default:
			if (depth < 1)
				store_bug("store_append_stacked: a pop with "
				    "no state");
			if (depth == 1) {
				/* The last popped: no state. */
				state = STORE_GAP;
				depth = 0;
				break;
			}
			below = c->below[k - 1];
			state = c->state[below];
			if (c->tag != NULL)
				tag = c->tag[below];
			below = c->below[below];
			depth--;
			break;
		}
		if (state >= s->nstates && state != STORE_GAP)
			store_misuse("store_append_stacked of state", state,
			    s->nstates);
		c->time[k] = times[i];
		c->state[k] = (uint16_t)state;
		if (c->tag != NULL)
			c->tag[k] = tag;
		c->depth[k] = (uint16_t)depth;
		c->below[k] = below;
	}
	c->count = k;
	s->total += n;
}

void
store_append_depth(store *s, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag, uint32_t depth)
{
	uint32_t now = store_depth_now(s, entity);

	/*
	 * A nested entity's first transition starts its stack, so that
	 * one never deeper than 1 (a push on no state) stays nested.
	 */
	if (depth == 0 || state == STORE_GAP)
		store_append(s, entity, time, STORE_GAP, STORE_NONE);
	else if (depth <= 1 && now == 0)
		store_push(s, entity, time, state, tag);
	else if (depth <= 1)
		store_append(s, entity, time, state, tag);
	else if (depth == now + 1)
		store_push(s, entity, time, state, tag);
	else if (depth + 1 == now)
		store_pop(s, entity, time);
	else
		store_bug("store_append_depth: a depth no push or pop "
		    "leads to");
}
