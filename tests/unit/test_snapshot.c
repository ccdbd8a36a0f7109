/*
 * Tests for snapshot_states (src/snapshot.c): whatever positions and
 * last time it starts from, it must give what store_states_at gives, on
 * columns of every shape (even, bunched at one end, runs of equal times,
 * one transition, none) and views of them (store_view), for times
 * stepping forward and back, jumping across the trace, at transition
 * times exactly, and outside the bounds.
 */
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "store.h"
#include "unit.h"
#define RANDTRACE_SEED 0x2545f4914f6cdd1dULL
#include "randtrace.h"

#define NENT	7


/*
 * Entities over [100, 1000100): 0 even, 1 bunched in the first
 * hundredth then one late, 2 runs of equal times, 3 one transition, 4
 * none, 5 starting late, 6 dense.
 */
static store *
make_store(void)
{
	store *s = store_new(4);
	uint64_t t;
	int i;

	for (t = 100; t < 1000100; t += 1000)
		store_append(s, 0, t, (uint32_t)below(4), STORE_NONE);
	for (t = 100; t < 10100; t += 1 + below(20))
		store_append(s, 1, t, (uint32_t)below(4), STORE_NONE);
	store_append(s, 1, 900000, 2, STORE_NONE);
	for (t = 100; t < 1000100; t += 5000)
		for (i = 0; i < 3; i++)
			store_append(s, 2, t, (uint32_t)below(4), STORE_NONE);
	store_append(s, 3, 500000, 1, STORE_NONE);
	for (t = 700000; t < 1000100; t += 1 + below(3000))
		store_append(s, 5, t, (uint32_t)below(4), STORE_NONE);
	for (t = 100; t < 1000100; t += 1 + below(60))
		store_append(s, 6, t, (uint32_t)below(4), STORE_NONE);
	/* Entity 4 exists, with nothing: a transition of 7 makes room. */
	store_append(s, 7, 1000000, 0, STORE_NONE);
	store_finish(s, 100, 1000100);
	return (s);
}

/* A time to ask about: a step from the last, a jump, or an edge. */
static uint64_t
pick(uint64_t last, uint64_t begin, uint64_t end)
{
	switch (below(6)) {
	case 0:
		return (begin + below(end - begin));	/* a jump */
	case 1:
		return (last + below(2000));		/* a step on */
	case 2:
		return (last > begin + 2000 ? last - below(2000) : begin);
	case 3:
		return (100 + 1000 * below(1000));	/* at a time of 0 */
	case 4:
		return (below(4) == 0 ? begin - (begin > 0) : end + below(3));
	default:
		return (last + below(40));
	}
}

static void
check_store(const char *name, const store *s, uint64_t begin, uint64_t end)
{
	uint32_t n = store_nentities(s), want[NENT + 1], got[NENT + 1], e;
	size_t pos[NENT + 1];
	uint64_t last = UINT64_MAX, t = begin;
	int i, bad = 0, haves = 1;
	char label[128];

	memset(pos, 0, sizeof (pos));
	for (i = 0; i < 20000 && !bad; i++) {
		uint32_t have, count = 0;

		t = pick(t, begin, end);
		/* Now and then, positions left anywhere (as by another
		 * trace's calls): the answer must not depend on them. */
		if (below(50) == 0)
			for (e = 0; e < n; e++)
				pos[e] = (size_t)below(1u << 20);
		store_states_at(s, t, want);
		have = snapshot_states(s, t, &last, pos, got);
		for (e = 0; e < n; e++) {
			if (got[e] != want[e]) {
				bad = 1;
				UNIT_REPORT(0, name, "entity %u at %" PRIu64
				    ": %u, want %u", e, t, got[e], want[e]);
			}
			count += want[e] != STORE_NONE;
		}
		haves &= have == count;
	}
	snprintf(label, sizeof (label), "%s: states as store_states_at",
	    name);
	CHECK(label, !bad);
	snprintf(label, sizeof (label), "%s: the count of entities with one",
	    name);
	CHECK(label, haves);
}

int
main(void)
{
	store *s = make_store(), *v, *vv;

	CHECK("snapshot: the store has its entities",
	    store_nentities(s) == NENT + 1);
	check_store("snapshot: whole store", s, 100, 1000100);
	v = store_view(s, 250000, 800000);
	check_store("snapshot: a view", v, 250000, 800000);
	vv = store_view(v, 500000, 500001);
	check_store("snapshot: a view of a view, 1 ns", vv, 500000, 500001);
	store_free(vv);
	store_free(v);
	v = store_view(s, 100000, 100000 + 1000);
	check_store("snapshot: a view between transitions", v, 100000,
	    101000);
	store_free(v);
	store_free(s);
	return (unit_exit());
}
