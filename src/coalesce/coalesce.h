/*
 * coalesce.h: merges state transitions into at most about `budget`
 * rectangles, reproducing the reference statemap tool's algorithm exactly,
 * so that the same input and options give the same rectangles:
 *
 *  1. Each entity has a list of rectangles in time order; a rectangle has
 *     a start, a duration, and the time it spent in each state and tag.
 *  2. A rectangle weighs its own duration plus its neighbours' in its
 *     entity.  All rectangles are in one set ordered by (weight, start,
 *     entity), lightest first.
 *  3. Data come in file order.  When an entity in a state since s gets a
 *     datum at t (past the begin bound), [max(s, begin), t) becomes its
 *     newest rectangle, and its weight and its left neighbour's are
 *     brought up to date in the set.  Data at or before begin only set the
 *     state; data past the end bound are skipped.
 *  4. After each datum, while the set holds budget or more rectangles,
 *     the lightest is taken out.  Alone in its entity, it just leaves the
 *     set (a neighbour's change brings it back).  Else it merges with a
 *     neighbour: with none on the left it takes in its right one; with
 *     none on the right its left one takes it in; with both, the left one
 *     takes it in if strictly shorter than the right, else it takes in
 *     the right one.  The survivor sums durations and times per state and
 *     tag, and the weights it changes are updated.
 *  5. At the end each entity's open state becomes a last rectangle, to the
 *     last datum's time (or the end bound if earlier), with no merging.
 *
 * Two data of an entity at one time make a zero-length rectangle, which
 * takes part in the merging (and which writers leave out).
 *
 * Feed transitions with coalesce_datum in file order (the order matters:
 * merging happens after each datum), then call coalesce_finish once to
 * close every entity's open state.  It needs no store: memory is bounded
 * by entities and rectangles and the states each rectangle holds (never
 * by a product of the trace's states with either), so the command line
 * streams any input size.
 *
 * Bounds follow the reference: begin and end are ns relative to the
 * trace's metadata start, 0 meaning "unbounded"; they may be negative or
 * beyond the data (stacked files get bounds converted from the first).
 *
 * Rectangles, their times and coalesce_state_time are to be read after
 * coalesce_finish (or, on a coalescer filled with coalesce_put, at any
 * time): until then a rectangle holds its entity's running totals, not
 * its own times, and its tags are not one sorted run.
 *
 * Ownership: the coalescer owns its rectangles; a coalesce_rect's
 * pointers are valid until the next call that changes the coalescer.
 */
#ifndef SM_COALESCE_H
#define SM_COALESCE_H

#include <stddef.h>
#include <stdint.h>

#include "coalesce/taglog.h"

#define COALESCE_NONE	UINT32_MAX
/* The original tool's rectangle budget (-c), the default everywhere. */
#define COALESCE_BUDGET	25000
#define COALESCE_NO_TAG	UINT32_MAX
/*
 * The state that ends an entity's data (store.h's STORE_GAP): from a
 * datum of it to the entity's next, the entity has no state.  That time
 * is a rectangle all the same (an entity's rectangles are contiguous, so
 * that merging sums durations), with time in no state and no interval
 * counted: alone, writers draw nothing over it (the viewer's "no data");
 * merged into a neighbour, it is the part of the neighbour's duration
 * that its states' times do not cover.  An open gap at the end makes no
 * final rectangle.
 */
#define COALESCE_GAP	0xFFFFu

typedef struct coalesce coalesce;

/*
 * A rectangle's time in one tag: tag id and ns spent in it within the
 * rectangle.  The tag logs (taglog.h), which keep them, own the type.
 */
typedef taglog_pair coalesce_tag;

typedef struct coalesce_rect {
	uint64_t start;		/* ns since the metadata start */
	uint64_t duration;
	/*
	 * The intervals with time it stands for (1: one transition, exact;
	 * more: merged), at most UINT32_MAX.  Zero-length ones (two data at
	 * one time) count for nothing, as in viewport.h's answers.
	 */
	uint64_t count;
	/*
	 * The states it has time in, ascending, and the ns in each: only
	 * those (no zeros), so that a rectangle costs what it holds, not
	 * the trace's number of states.
	 */
	const uint32_t *states;
	const uint64_t *times;	/* parallel to states */
	size_t nstates;
	size_t ntags;		/* its tags: coalesce_tags */
} coalesce_rect;

coalesce *coalesce_new(uint32_t nstates, uint64_t budget, int64_t begin,
    int64_t end);
void coalesce_free(coalesce *c);

/*
 * The most words of time per state kept densely, (entities + rectangles)
 * x states, before they move to logs that hold only the states each
 * rectangle has time in (default 8 Mi words, 64 MB): dense is faster,
 * the logs never a product of the trace's counts.  For tests, to take
 * both ways (and the move between them) on small inputs.
 */
void coalesce_set_dense_words(coalesce *c, size_t words);

/* Whether a datum at this time is within the end bound (else skipped). */
int coalesce_in_bounds(const coalesce *c, uint64_t time);

/*
 * One transition: entity enters state (with tag or COALESCE_NO_TAG), or
 * has none from time on (COALESCE_GAP, untagged).
 */
void coalesce_datum(coalesce *c, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag);

/*
 * Asks for the memory a datum of entity will touch, changing nothing: a
 * caller holding data in a batch calls it with stage 0 some data ahead
 * (the entity's own state) and with stage 1 fewer ahead (what that state
 * points to), so that it comes in while earlier data are coalesced.
 */
void coalesce_prefetch(const coalesce *c, uint32_t entity, int stage);

/*
 * Whether that pays: when tags are kept (their logs are large) or the
 * entities are many; asking costs more than it saves when all of it is
 * in the cache anyway.
 */
int coalesce_worth_prefetching(const coalesce *c);

/*
 * Closes every open state with a final rectangle up to the end of the
 * trace: last_time (the last datum's time in file order), or the end bound
 * if that is earlier.  No merging happens after this.
 */
void coalesce_finish(coalesce *c, uint64_t last_time);

/*
 * Appends a rectangle made elsewhere (viewport.h's answers) after the
 * entity's others, as a final one: no merging, nothing enters the set.
 * count is the transitions it stands for; its time in nstates states
 * (ascending, distinct; those of no time are left out) is in states
 * and times; tags ascend by id.  So the writers, which read coalescers,
 * can draw those rectangles too.  Not to be mixed with coalesce_datum
 * on one coalescer.
 */
void coalesce_put(coalesce *c, uint32_t entity, uint64_t start,
    uint64_t duration, uint64_t count, const uint32_t *states,
    const uint64_t *times, size_t nstates, const coalesce_tag *tags,
    size_t ntags);

/* Rectangles in the ordered set (what the reference reports). */
uint64_t coalesce_size(const coalesce *c);

/* The end used by coalesce_finish (valid after it). */
uint64_t coalesce_end(const coalesce *c);

/* Entities are the ids given to coalesce_datum; this is the largest + 1. */
uint32_t coalesce_nentities(const coalesce *c);

/*
 * Whether the entity had a datum that was not past the end bound.  The
 * reference tool never creates an entity whose data all lie past the end
 * (it skips them before looking the entity up), so neither do we.
 */
int coalesce_seen(const coalesce *c, uint32_t entity);

/* Walks an entity's rectangles in time order: first, then next. */
uint32_t coalesce_first(const coalesce *c, uint32_t entity);
uint32_t coalesce_next(const coalesce *c, uint32_t rect);
void coalesce_get(const coalesce *c, uint32_t rect, coalesce_rect *out);

/*
 * A rectangle's ntags tags, ascending by id, copied to *buf (grown as
 * grow_array grows it, *cap its capacity; the caller frees it): they
 * are kept packed (taglog.h), so readers are handed them whole.
 */
void coalesce_tags(const coalesce *c, uint32_t rect, coalesce_tag **buf,
    size_t *cap);

/*
 * The state and tag (or COALESCE_NO_TAG) of an entity's last datum:
 * returns 0 if it has had none, or its data ended (COALESCE_GAP).  So a reader of nested states can put
 * back the state a pop returns to.
 */
int coalesce_current(const coalesce *c, uint32_t entity, uint32_t *state,
    uint32_t *tag);

/* The time of an entity's last datum (as coalesce_current; 0: none). */
int coalesce_current_since(const coalesce *c, uint32_t entity,
    uint64_t *time);

/* Total time of an entity's rectangles in one state. */
uint64_t coalesce_state_time(const coalesce *c, uint32_t entity,
    uint32_t state);

/*
 * Adds the time of an entity's rectangles in each state to times[state]
 * (an entry per state): every state at once, in a pass over what the
 * rectangles hold.
 */
void coalesce_add_state_times(const coalesce *c, uint32_t entity,
    uint64_t *times);

#endif
