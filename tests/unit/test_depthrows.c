/*
 * Tests for src/coalesce/depthrows.c: the depth rows of hand-made stacks,
 * and how many of them are written (depthrows_ndepths): a depth that no
 * frame held for any time within the bounds has no row, as the rows'
 * writers would leave it empty.
 */
#include <stdlib.h>

#include "coalesce/coalesce.h"
#include "coalesce/depthrows.h"
#include "unit.h"

#define NSTATES	3
#define NT	COALESCE_NO_TAG

/* The time of a depth's row in a state, as writers see it. */
static uint64_t
row_time(const depthrows *d, uint32_t entity, uint32_t depth, uint32_t state)
{
	return (coalesce_state_time(depthrows_coalescer(d),
	    depthrows_row(d, entity, depth), state));
}

/*
 * Entity 0: state 2 from 10; push 1 at 20; push 0 at 30, popped at 30;
 * pop at 60; state 1 at 100; the trace ends at 110.
 */
static depthrows *
zero_length_push(int64_t begin, int64_t end)
{
	depthrows *d = depthrows_new(NSTATES, 100, begin, end);

	depthrows_begin(d, 0, 10, 2, NT);
	depthrows_push(d, 0, 20, 1, NT);
	depthrows_push(d, 0, 30, 0, NT);
	depthrows_pop(d, 0, 30);
	depthrows_pop(d, 0, 60);
	depthrows_set(d, 0, 100, 1, NT);
	depthrows_finish(d, 110);
	return (d);
}

static void
test_rows_with_time(void)
{
	depthrows *d = zero_length_push(0, 0);

	CHECK_INT("depthrows: a frame pushed and popped at one time makes no "
	    "row", depthrows_ndepths(d, 0), 2);
	CHECK_U64("depthrows: depth 1's time", row_time(d, 0, 1, 2), 90);
	CHECK_U64("depthrows: depth 2's time", row_time(d, 0, 2, 1), 40);
	CHECK_INT("depthrows: an entity never nested has none",
	    depthrows_ndepths(d, 1), 0);
	depthrows_free(d);

	/* Depth 3 held time, before the bounds only. */
	d = depthrows_new(NSTATES, 100, 50, 0);
	depthrows_begin(d, 0, 10, 2, NT);
	depthrows_push(d, 0, 20, 1, NT);
	depthrows_push(d, 0, 30, 0, NT);
	depthrows_pop(d, 0, 40);
	depthrows_finish(d, 110);
	CHECK_INT("depthrows: a depth held before the begin bound only makes "
	    "no row", depthrows_ndepths(d, 0), 2);
	CHECK_U64("depthrows: and depth 2 from the bound on",
	    row_time(d, 0, 2, 1), 60);
	depthrows_free(d);

	/* Bounds [35, 45): depth 3 is open through them. */
	d = depthrows_new(NSTATES, 100, 35, 45);
	depthrows_begin(d, 0, 10, 2, NT);
	depthrows_push(d, 0, 20, 1, NT);
	depthrows_push(d, 0, 30, 0, NT);
	depthrows_pop(d, 0, 50);
	depthrows_finish(d, 110);
	CHECK_INT("depthrows: a depth with time within the bounds has its row",
	    depthrows_ndepths(d, 0), 3);
	CHECK_U64("depthrows: clipped to them", row_time(d, 0, 3, 0), 10);
	depthrows_free(d);

	/* Only zero-length frames: still a nested entity, of one row. */
	d = depthrows_new(NSTATES, 100, 0, 0);
	depthrows_begin(d, 0, 10, 2, NT);
	depthrows_push(d, 0, 10, 1, NT);
	depthrows_pop(d, 0, 10);
	depthrows_finish(d, 10);
	CHECK_INT("depthrows: an entity nested for no time keeps depth 1",
	    depthrows_ndepths(d, 0), 1);
	depthrows_free(d);
}

/* How many rectangles a depth's row has. */
static int
row_rects(const depthrows *d, uint32_t entity, uint32_t depth)
{
	const coalesce *co = depthrows_coalescer(d);
	uint32_t r;
	int n = 0;

	for (r = coalesce_first(co, depthrows_row(d, entity, depth));
	    r != COALESCE_NONE; r = coalesce_next(co, r))
		n++;
	return (n);
}

/*
 * A plain datum from depth 2 that gives the bottom frame back as it was
 * is a pop, as a store reads it (the live server's rows from a store
 * are then the classic command's); with another state or tag, or from
 * deeper, it replaces the stack, and depth 1 gets a new rectangle.
 */
static void
test_set_as_pop(void)
{
	depthrows *d = depthrows_new(NSTATES, 100, 0, 0);

	/* Entity 0: the bottom's own state back; 1: another tag; 2: deeper. */
	depthrows_begin(d, 0, 10, 2, 7);
	depthrows_push(d, 0, 20, 1, NT);
	depthrows_set(d, 0, 30, 2, 7);
	depthrows_begin(d, 1, 10, 2, 7);
	depthrows_push(d, 1, 20, 1, NT);
	depthrows_set(d, 1, 30, 2, NT);
	depthrows_begin(d, 2, 10, 2, 7);
	depthrows_push(d, 2, 20, 1, NT);
	depthrows_push(d, 2, 25, 0, NT);
	depthrows_set(d, 2, 30, 2, 7);
	depthrows_finish(d, 40);
	CHECK_INT("depthrows: a plain datum giving the bottom back from "
	    "depth 2 is a pop", row_rects(d, 0, 1), 1);
	CHECK_U64("depthrows: its depth 1 all one frame", row_time(d, 0, 1, 2),
	    30);
	CHECK_INT("depthrows: with another tag it replaces the stack",
	    row_rects(d, 1, 1), 2);
	CHECK_INT("depthrows: and from depth 3", row_rects(d, 2, 1), 2);
	CHECK_U64("depthrows: the pushed frame ends either way",
	    row_time(d, 0, 2, 1), 10);
	depthrows_free(d);
}

int
main(void)
{
	test_rows_with_time();
	test_set_as_pop();
	return (unit_exit());
}
