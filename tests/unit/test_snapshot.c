/*
 * Tests for snapshot_states (src/store/snapshot.c): whatever positions and
 * last time it starts from, with or without an index of any spacing, it
 * must give what store_states_at gives, on columns of every shape (even,
 * bunched at one end, runs of equal times, one transition, none) and
 * views of them (store_view), for times stepping forward and back,
 * jumping across the trace, at transition times exactly, and outside
 * the bounds.  The index is made once far jumps add up, and not when
 * the memory limit has no room for it.  With value entities beside
 * states, snapshot_states_values must give what store_value_at gives,
 * from the columns and from the index's copy of the values.
 */
#include <stdlib.h>
#include <string.h>

#include "base/runlimit.h"
#include "store/snapshot.h"
#include "store/store.h"
#include "unit.h"
#define RANDTRACE_SEED 0x2545f4914f6cdd1dULL
#include "randtrace.h"

#define NENT	7


/*
 * Entities over [100, 1000100): 0 even, 1 bunched in the first
 * hundredth then one late, 2 runs of equal times, 3 one transition, 4
 * none, 5 starting late, 6 dense, its data ending now and then
 * (STORE_GAP: no state until its next).
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
	for (t = 100; t < 1000100; t += 1 + below(60)) {
		uint32_t st = (uint32_t)below(5);

		store_append(s, 6, t, st == 4 ? STORE_GAP : st, STORE_NONE);
	}
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

/*
 * per_bucket: 0 for the cursor's own choice of whether to make an
 * index, else one made at once with that spacing.
 */
static void
check_store(const char *name, const store *s, uint64_t begin, uint64_t end,
    size_t per_bucket)
{
	uint32_t n = store_nentities(s), want[NENT + 1], got[NENT + 1], e;
	snapshot_cursor c;
	size_t *pos;
	uint64_t t = begin;
	int i, bad = 0, haves = 1;
	char label[160];

	snapshot_cursor_init(&c, s);
	pos = c.pos;
	if (per_bucket > 0) {
		c.index = snapshot_index_make(s, per_bucket);
		snprintf(label, sizeof (label), "%s, index every %zu: made",
		    name, per_bucket);
		CHECK(label, c.index != NULL);
		/* States alone: the index keeps a copy of the transitions
		 * bucket by bucket, 6 bytes each. */
		snprintf(label, sizeof (label), "%s, index every %zu: holds "
		    "the transitions bucket by bucket", name, per_bucket);
		CHECK(label, c.index != NULL &&
		    snapshot_index_bytes(c.index) >= store_total(s) * 6);
	}
	/* The index's starts: at or before the answer, after every time
	 * some index time before t cuts off, and near the answer on
	 * average for the evenly spaced entity 0. */
	if (c.index != NULL) {
		uint64_t dist = 0, probes = 0;
		int starts_ok = 1;

		for (i = 0; i < 2000; i++) {
			uint64_t u = begin + below(end - begin);

			for (e = 0; e < n; e++) {
				const uint64_t *times = store_times(s, e);
				size_t cnt = store_count(s, e), k, st;

				st = snapshot_index_start(c.index, e, u);
				k = store_count_through(times, cnt, u);
				if (st > k || (st > 0 && times[st - 1] > u))
					starts_ok = 0;
				if (e == 0) {
					dist += k - st;
					probes++;
				}
			}
		}
		snprintf(label, sizeof (label), "%s, index every %zu: starts "
		    "at or before the answer", name, per_bucket);
		CHECK(label, starts_ok);
		snprintf(label, sizeof (label), "%s, index every %zu: starts "
		    "near the answer", name, per_bucket);
		UNIT_REPORT(dist <= probes * per_bucket * 2, label,
		    "%.1f transitions from it on average",
		    (double)dist / (double)probes);
	}
	for (i = 0; i < 20000 && !bad; i++) {
		uint32_t have, count = 0;

		t = pick(t, begin, end);
		/* Now and then, positions left anywhere (as by another
		 * trace's calls): the answer must not depend on them. */
		if (below(50) == 0)
			for (e = 0; e < n; e++)
				pos[e] = (size_t)below(1u << 20);
		store_states_at(s, t, want);
		have = snapshot_states(s, &c, t, got);
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
	snprintf(label, sizeof (label), "%s, index every %zu: states as "
	    "store_states_at", name, per_bucket);
	CHECK(label, !bad);
	snprintf(label, sizeof (label), "%s, index every %zu: the count of "
	    "entities with one", name, per_bucket);
	CHECK(label, haves);
	snapshot_cursor_free(&c);
}

static void
check_spacings(const char *name, const store *s, uint64_t begin,
    uint64_t end)
{
	static const size_t spacings[] = { 0, 1, 3, 8, 100 };
	size_t i;

	for (i = 0; i < sizeof (spacings) / sizeof (spacings[0]); i++) {
		/* Fewer than two times for an index: none is made. */
		if (spacings[i] > 0 && (store_total(s) / spacings[i] /
		    store_nentities(s) < 2 || end - begin < 2))
			continue;
		check_store(name, s, begin, end, spacings[i]);
	}
}

/*
 * State entities 0-1 and value entities 2-6 over [100, 1000100): 2
 * even numbers, 3 bunched then nulls now and then (no value until the
 * next), 4 strings in runs of equal times, 5 starting late, 6 one value.
 * State entity 7 has transitions until 780000, and its next (to a state
 * of its own, 4) and a last value of 2 come 2^32 ns after a time near
 * the end of the view of [250000, 800000) that check_values asks about:
 * a view keeps a state entity's first transition past its end and every
 * value, and 32 bits of either's time within its bucket would wrap to a
 * time within the view's last bucket.
 */
#define VALUES_END	((1ULL << 32) + 800000)
static store *
make_values_store(void)
{
	store *s = store_new(5);
	uint64_t t;
	int i;

	for (t = 100; t < 1000100; t += 1000)
		store_append(s, 0, t, (uint32_t)below(4), STORE_NONE);
	for (t = 100; t < 1000100; t += 1 + below(60)) {
		uint32_t st = (uint32_t)below(5);

		store_append(s, 1, t, st == 4 ? STORE_GAP : st, STORE_NONE);
	}
	for (t = 100; t < 1000100; t += 700)
		store_append_value(s, 2, t, value_number((double)below(1000)));
	for (t = 100; t < 1000100; t += 1 + below(90))
		store_append_value(s, 3, t, below(6) == 0 ? VALUE_NONE :
		    value_number((double)t / 3));
	for (t = 100; t < 1000100; t += 4000)
		for (i = 0; i < 3; i++)
			store_append_value(s, 4, t,
			    value_string((uint32_t)below(9)));
	for (t = 650000; t < 1000100; t += 1 + below(2500))
		store_append_value(s, 5, t, value_number(-(double)t));
	store_append_value(s, 6, 400000, value_number(7));
	for (t = 100; t < 780000; t += 5000)
		store_append(s, 7, t, (uint32_t)below(4), STORE_NONE);
	store_append(s, 7, (1ULL << 32) + 790000, 4, STORE_NONE);
	store_append_value(s, 2, (1ULL << 32) + 795000, value_number(-1));
	store_finish(s, 100, VALUES_END);
	return (s);
}

/*
 * snapshot_states_values against store_states_at and store_value_at:
 * per_bucket as for check_store; whole for a store that is not a view.
 */
static void
check_values(const char *name, const store *s, uint64_t begin,
    uint64_t end, size_t per_bucket, int whole)
{
	uint32_t n = store_nentities(s), want[NENT + 1], got[NENT + 1], e;
	sm_value vwant[NENT + 1], vgot[NENT + 1];
	snapshot_cursor c;
	uint64_t t = begin;
	int i, bad = 0, haves = 1;
	char label[160];

	snapshot_cursor_init(&c, s);
	if (per_bucket > 0) {
		c.index = snapshot_index_make(s, per_bucket);
		snprintf(label, sizeof (label), "%s, index every %zu: made",
		    name, per_bucket);
		CHECK(label, c.index != NULL);
	}
	/* A view reads its parent's values in place, all of them: only
	 * the whole store's are counted. */
	if (per_bucket > 0 && whole) {
		snprintf(label, sizeof (label), "%s, index every %zu: holds "
		    "the values bucket by bucket", name, per_bucket);
		UNIT_REPORT(c.index != NULL &&
		    snapshot_index_bytes(c.index) >= store_total(s) * 6 +
		    store_values_total(s) * 12, label, "%zu bytes for %" PRIu64
		    " transitions and %" PRIu64 " values",
		    snapshot_index_bytes(c.index), store_total(s),
		    store_values_total(s));
	}
	for (i = 0; i < 20000 && !bad; i++) {
		uint32_t have, count = 0;

		t = pick(t, begin, end);
		if (below(50) == 0)
			for (e = 0; e < n; e++)
				c.pos[e] = (size_t)below(1u << 20);
		store_states_at(s, t, want);
		for (e = 0; e < n; e++) {
			store_interval iv;

			vwant[e] = store_kind_of(s, e) == STORE_VALUES &&
			    store_value_at(s, e, t, &iv) ? iv.value :
			    VALUE_NONE;
			count += want[e] != STORE_NONE ||
			    !value_is_none(vwant[e]);
		}
		have = snapshot_states_values(s, &c, t, got, vgot);
		for (e = 0; e < n && !bad; e++)
			if (got[e] != want[e] || vgot[e] != vwant[e]) {
				bad = 1;
				UNIT_REPORT(0, name, "entity %u at %" PRIu64
				    ": %u %#" PRIx64 ", want %u %#" PRIx64,
				    e, t, got[e], vgot[e], want[e], vwant[e]);
			}
		haves &= have == count;
	}
	snprintf(label, sizeof (label), "%s, index every %zu: states and "
	    "values as store_states_at and store_value_at", name, per_bucket);
	CHECK(label, !bad);
	snprintf(label, sizeof (label), "%s, index every %zu: the count of "
	    "entities with one", name, per_bucket);
	CHECK(label, haves);
	snapshot_cursor_free(&c);
}

/* Far jumps only: how many calls until the cursor has its index. */
static int
calls_to_index(const store *s)
{
	snapshot_cursor c;
	uint32_t got[NENT + 1];
	int i;

	snapshot_cursor_init(&c, s);
	for (i = 1; i <= 100000 && c.index == NULL && !c.no_index; i++)
		snapshot_states(s, &c, store_begin(s) + (i % 2 ? 10 :
		    (store_end(s) - store_begin(s)) - 10), got);
	i = c.index != NULL ? i - 1 : -1;
	snapshot_cursor_free(&c);
	return (i);
}

int
main(void)
{
	store *s = make_store(), *v, *vv;

	CHECK("snapshot: the store has its entities",
	    store_nentities(s) == NENT + 1);
	check_spacings("snapshot: whole store", s, 100, 1000100);
	v = store_view(s, 250000, 800000);
	check_spacings("snapshot: a view", v, 250000, 800000);
	vv = store_view(v, 500000, 500001);
	check_spacings("snapshot: a view of a view, 1 ns", vv, 500000,
	    500001);
	CHECK("snapshot: no index of a view of 1 ns",
	    snapshot_index_make(vv, 1) == NULL);
	store_free(vv);
	store_free(v);
	v = store_view(s, 100000, 100000 + 1000);
	check_spacings("snapshot: a view between transitions", v, 100000,
	    101000);
	store_free(v);
	{
		int calls = calls_to_index(s), want;
		uint64_t far = 0;
		uint32_t e;

		/* A jump across the trace is far for the entities with 32
		 * transitions or more; the index is made once those far
		 * searches reach a 256th of the transitions. */
		for (e = 0; e < store_nentities(s); e++)
			far += store_count(s, e) >= 32;
		want = (int)((store_total(s) / 256 + far - 1) / far);
		UNIT_REPORT(calls == want,
		    "snapshot: the index is made once far jumps add up",
		    "after %d calls, want %d", calls, want);
		runlimit_set(0, 1024);
		CHECK("snapshot: no index when the memory limit has no room",
		    calls_to_index(s) == -1);
		runlimit_set(0, 0);
	}
	store_free(s);
	s = make_values_store();
	{
		static const size_t spacings[] = { 0, 1, 3, 8, 100 };
		size_t i;

		for (i = 0; i < sizeof (spacings) / sizeof (spacings[0]); i++)
			check_values("snapshot: values", s, 100, VALUES_END,
			    spacings[i], 1);
		v = store_view(s, 250000, 800000);
		for (i = 0; i < sizeof (spacings) / sizeof (spacings[0]); i++)
			check_values("snapshot: values, a view", v, 250000,
			    800000, spacings[i], 0);
		store_free(v);
	}
	store_free(s);
	return (unit_exit());
}
