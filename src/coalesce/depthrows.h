/*
 * depthrows.h: the depth rows of nested entities for the classic command
 * (-T json "depths", the viewer's flame-chart rows): for each depth d of
 * an entity's stack (bottom = 1), the d-th frame's states coalesced like
 * any entity's (coalesce.h), streamed from the stack operations in file
 * order, with no store.
 *
 * Each (entity, depth) is a row of one coalescer of its own (budget -c,
 * over depth rows only) with one state more than the trace's: "absent",
 * the time the stack is shallower than d.  Writers leave out rectangles
 * that are all absent; a merged rectangle may span absent time, which
 * then counts in its duration and in none of its states.
 *
 * Ownership: depthrows owns its coalescer and rows.
 */
#ifndef SM_DEPTHROWS_H
#define SM_DEPTHROWS_H

#include <stdint.h>

#include "coalesce/coalesce.h"

typedef struct depthrows depthrows;

depthrows *depthrows_new(uint32_t nstates, uint64_t budget, int64_t begin,
    int64_t end);
void depthrows_free(depthrows *d);

/*
 * The entity's first push: its bottom frame, (state, tag) since `since`
 * (its last plain datum), becomes depth 1.  Later calls do nothing.
 */
void depthrows_begin(depthrows *d, uint32_t entity, uint64_t since,
    uint32_t state, uint32_t tag);
/*
 * The stack operations, after depthrows_begin (tag or COALESCE_NO_TAG).
 * depthrows_set replaces the whole stack, its bottom frame a new one,
 * but from depth 2 with the bottom frame's own state and tag it is a
 * pop: a store keeps the two alike (store.h), and the live server's
 * rows are read from stores (viewport.h).  depthrows_set of COALESCE_GAP
 * ends the entity's data: every row absent, the stack not begun again
 * (depth 0) until its next datum or push, which begins it (its state
 * then its bottom, with depthrows_set).  depthrows_pop of the last frame
 * does the same.
 */
void depthrows_push(depthrows *d, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag);
void depthrows_pop(depthrows *d, uint32_t entity, uint64_t time);
void depthrows_set(depthrows *d, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag);

/* Closes the rows as coalesce_finish does. */
void depthrows_finish(depthrows *d, uint64_t last_time);

/*
 * How many depth rows an entity has to write (after depthrows_finish):
 * 0 if it was never nested, else depth 1 to the deepest whose frames
 * held time within the bounds.  A depth reached only by a frame pushed
 * and popped at one time, or only outside the bounds, has no row.
 */
uint32_t depthrows_ndepths(const depthrows *d, uint32_t entity);

/* The coalescer and the row (its entity id) of an entity's depth. */
const coalesce *depthrows_coalescer(const depthrows *d);
uint32_t depthrows_row(const depthrows *d, uint32_t entity, uint32_t depth);

/* The state index that means "absent" in the rows' rectangles. */
uint32_t depthrows_absent(const depthrows *d);

/* Depth rows in the set (the budget counts these). */
uint64_t depthrows_size(const depthrows *d);

#endif
