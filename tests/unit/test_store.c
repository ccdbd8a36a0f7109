/*
 * Tests for src/store/store.h (store_*.c): each query on a small
 * hand-built trace, with equal times (zero-length intervals), bounds and
 * entity sets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "unit.h"

#define NT	STORE_NONE

/*
 * Entity 0: s0 at 0, s1 at 10, s2 at 10 (the later wins), s0 at 30.
 * Entity 1: s1 at 5 (tag 7).  Entity 2: s0 at 0.  The trace ends at 50.
 */
static store *
sample(uint64_t begin)
{
	store *s = store_new(3);

	store_append(s, 0, 0, 0, NT);
	store_append(s, 1, 5, 1, 7);
	store_append(s, 0, 10, 1, NT);
	store_append(s, 0, 10, 2, 4);
	store_append(s, 0, 30, 0, NT);
	store_append(s, 2, 0, 0, NT);
	store_finish(s, begin, 50);
	return (s);
}

static void
test_state_at(void)
{
	store *s = sample(0);
	store_interval iv;

	CHECK("store_state_at finds the interval", store_state_at(s, 0, 9,
	    &iv) && iv.state == 0 && iv.start == 0 && iv.end == 10);
	CHECK("store_state_at: the later of equal times wins",
	    store_state_at(s, 0, 10, &iv) && iv.state == 2 &&
	    iv.tag == 4 && iv.start == 10 && iv.end == 30);
	CHECK("store_state_at: last state runs to the end",
	    store_state_at(s, 0, 49, &iv) && iv.state == 0 &&
	    iv.end == 50);
	CHECK("store_state_at: nothing at the end", !store_state_at(s, 0,
	    50, &iv));
	CHECK("store_state_at: nothing before the first transition",
	    !store_state_at(s, 1, 4, &iv));
	CHECK("store_state_at: tag of the interval",
	    store_state_at(s, 1, 5, &iv) && iv.state == 1 && iv.tag == 7);
	CHECK("store_state_at: unknown entity", !store_state_at(s, 9, 5,
	    &iv));
	store_free(s);
}

/* Against a linear count, on runs of equal times and at every edge. */
static void
test_count_through(void)
{
	static const uint64_t times[] = { 2, 2, 5, 7, 7, 7, 9 };
	size_t n = sizeof (times) / sizeof (times[0]), i;
	uint64_t t;
	int ok = 1;

	for (t = 0; t <= 10; t++) {
		size_t through = 0, before = 0;

		for (i = 0; i < n; i++) {
			through += times[i] <= t;
			before += times[i] < t;
		}
		ok &= store_count_through(times, n, t) == through &&
		    store_count_before(times, n, t) == before;
	}
	CHECK("store_count_through/before agree with counting", ok);
	CHECK("store_count_through of no times", store_count_through(times, 0,
	    5) == 0 && store_count_before(times, 0, 5) == 0);
	CHECK("store_count_through at UINT64_MAX", store_count_through(times,
	    n, UINT64_MAX) == n && store_count_before(times, n,
	    UINT64_MAX) == n);
}

static void
test_all_at(void)
{
	store *s = sample(0);
	uint32_t states[3];
	uint64_t counts[3];

	store_states_at(s, 10, states);
	CHECK("store_states_at", states[0] == 2 && states[1] == 1 &&
	    states[2] == 0);
	store_states_at(s, 3, states);
	CHECK("store_states_at: no state yet", states[0] == 0 &&
	    states[1] == STORE_NONE);
	store_count_at(s, 10, counts);
	CHECK("store_count_at", counts[0] == 1 && counts[1] == 1 &&
	    counts[2] == 1);
	store_free(s);
}

/*
 * store_time_in against the intervals store_iter gives, on random
 * columns with data at one time (empty intervals) and ends of data, for
 * few states (its own tables) and many (straight into the caller's).
 */
static void
time_in_random(uint32_t nstates)
{
	store *s = store_new(nstates);
	uint64_t seed = 0x9e3779b97f4a7c15ULL * nstates, t = 0;
	uint64_t *got = calloc(nstates, sizeof (uint64_t));
	uint64_t *want = calloc(nstates, sizeof (uint64_t));
	int i, q, bad = 0;
	char label[96];

	for (i = 0; i < 20000; i++) {
		uint32_t e, st;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		t += (seed >> 33) % 3 == 0 ? 0 : (seed >> 40) % 50;
		e = (uint32_t)((seed >> 20) % 3);
		st = (seed >> 50) % 11 == 0 ? STORE_GAP :
		    (uint32_t)((seed >> 8) % nstates);
		store_append(s, e, t, st, STORE_NONE);
	}
	store_finish(s, 0, t + 7);
	for (q = 0; q < 200 && !bad; q++) {
		uint64_t a, b;
		uint32_t k, who;
		store_iter it;
		store_interval iv;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		a = (seed >> 20) % (t + 10);
		b = a + (seed >> 40) % (t / 4 + 1);
		who = q % 4 == 3 ? STORE_NONE : (uint32_t)q % 3;
		memset(got, 0, nstates * sizeof (uint64_t));
		memset(want, 0, nstates * sizeof (uint64_t));
		store_time_in(s, who, a, b, got);
		store_iter_init(&it, s, who == STORE_NONE ? NULL : &who,
		    who == STORE_NONE ? 0 : 1, a, b);
		while (store_iter_next(&it, &iv))
			want[iv.state] += iv.end - iv.start;
		for (k = 0; k < nstates; k++)
			bad |= got[k] != want[k];
	}
	snprintf(label, sizeof (label), "store_time_in as store_iter adds "
	    "up, %u states", nstates);
	CHECK(label, !bad);
	free(got);
	free(want);
	store_free(s);
}

static void
test_time_in(void)
{
	store *s = sample(0);
	uint64_t t[3] = { 0, 0, 0 };

	store_time_in(s, 0, 0, 50, t);
	CHECK("store_time_in one entity, whole trace", t[0] == 30 &&
	    t[1] == 0 && t[2] == 20);
	memset(t, 0, sizeof (t));
	store_time_in(s, 0, 5, 35, t);
	CHECK("store_time_in clipped range", t[0] == 10 && t[1] == 0 &&
	    t[2] == 20);
	memset(t, 0, sizeof (t));
	store_time_in(s, STORE_NONE, 0, 50, t);
	CHECK("store_time_in all entities", t[0] == 80 && t[1] == 45 &&
	    t[2] == 20);
	memset(t, 0, sizeof (t));
	store_time_in(s, 0, 40, 20, t);
	CHECK("store_time_in empty range", t[0] == 0 && t[2] == 0);
	store_free(s);

	s = sample(12);
	memset(t, 0, sizeof (t));
	store_time_in(s, 0, 0, 100, t);
	CHECK("store_time_in honours the store's bounds", t[0] == 20 &&
	    t[2] == 18);
	store_free(s);
}

static void
test_iter(void)
{
	store *s = sample(0);
	static const uint32_t which[] = { 1, 0 };
	store_iter it;
	store_interval iv;
	char buf[512];
	size_t o = 0;

	store_iter_init(&it, s, which, 2, 5, 40);
	while (store_iter_next(&it, &iv))
		o += (size_t)snprintf(buf + o, sizeof (buf) - o,
		    "%u:[%llu,%llu)s%u ", iv.entity,
		    (unsigned long long)iv.start, (unsigned long long)iv.end,
		    iv.state);
	buf[o] = '\0';
	CHECK_STR("store_iter over chosen entities, clipped, skipping "
	    "zero-length", buf,
	    "1:[5,40)s1 0:[5,10)s0 0:[10,30)s2 0:[30,40)s0 ");

	o = 0;
	store_iter_init(&it, s, NULL, 0, 45, 100);
	while (store_iter_next(&it, &iv))
		o += (size_t)snprintf(buf + o, sizeof (buf) - o,
		    "%u:[%llu,%llu) ", iv.entity,
		    (unsigned long long)iv.start, (unsigned long long)iv.end);
	buf[o] = '\0';
	CHECK_STR("store_iter all entities, range past the end", buf,
	    "0:[45,50) 1:[45,50) 2:[45,50) ");
	store_free(s);
}

static void
test_large(void)
{
	/* Binary search against a linear scan on a long column. */
	store *s = store_new(4);
	uint64_t i, t = 0;
	int ok = 1;

	for (i = 0; i < 100000; i++) {
		t += 1 + (i * 7919) % 13;
		store_append(s, 0, t, (uint32_t)(i % 4), NT);
	}
	store_finish(s, 0, t + 10);
	for (i = 0; i < 1000; i++) {
		uint64_t q = (i * 104729) % (t + 10);
		store_interval iv;
		const uint64_t *times = store_times(s, 0);
		size_t n = store_count(s, 0), k = 0;
		int found = store_state_at(s, 0, q, &iv);

		while (k < n && times[k] <= q)
			k++;
		if (k == 0 ? found : (!found ||
		    iv.start != times[k - 1] ||
		    iv.state != store_states(s, 0)[k - 1]))
			ok = 0;
	}
	CHECK("store_state_at agrees with a linear scan", ok);
	CHECK_U64("store_total", store_total(s), 100000);
	store_free(s);
}

/* Tags columns are made on the first tag; untagged entities share one. */
static void
test_tags(void)
{
	store *s = sample(0);
	const uint32_t *t0 = store_tags(s, 0), *t2 = store_tags(s, 2);
	size_t i;
	int ok = 1;

	CHECK("store_tags: earlier untagged transitions read as none",
	    t0 != NULL && t0[0] == NT && t0[1] == NT && t0[2] == 4 &&
	    t0[3] == NT);
	CHECK("store_tags: an untagged entity reads as none",
	    t2 != NULL && t2[0] == NT);
	store_free(s);
	s = store_new(2);
	for (i = 0; i < 1000; i++)
		store_append(s, 0, i, i % 2, NT);
	store_append(s, 1, 0, 0, NT);
	store_finish(s, 0, 2000);
	for (i = 0; i < 1000; i++)
		ok &= store_tags(s, 0)[i] == NT;
	CHECK("store_tags: the shared column covers the longest entity",
	    ok && store_tags(s, 1)[0] == NT);
	store_free(s);
}

/* Appends n transitions to entity e at once, times from *t on. */
static void
append_run(store *s, uint32_t e, size_t n, uint64_t *t)
{
	uint64_t *times = malloc(n * sizeof (uint64_t));
	uint16_t *states = malloc(n * sizeof (uint16_t));
	size_t i;

	for (i = 0; i < n; i++) {
		times[i] = (*t)++;
		states[i] = (uint16_t)((*t * 7) % 3);
	}
	store_append_many(s, e, times, states, n);
	free(times);
	free(states);
}

/* Columns are sized by what the share read so far says is to come. */
static void
test_progress(void)
{
	store *s = store_new(3);
	uint64_t t = 0;

	append_run(s, 0, 20, &t);
	CHECK_INT("no progress: capacity grows by half", store_capacity(s, 0),
	    24);
	store_progress(s, 0.25);
	append_run(s, 1, 100, &t);
	/* 100 of an expected 400, an eighth more, and 16. */
	CHECK_INT("a quarter read: sized by estimate", store_capacity(s, 1),
	    466);
	append_run(s, 1, 366, &t);
	CHECK_INT("filled exactly: not grown", store_capacity(s, 1), 466);
	store_progress(s, 0.1);
	append_run(s, 2, 20, &t);
	CHECK_INT("a tenth read: too early to guess", store_capacity(s, 2),
	    24);
	store_free(s);

	/*
	 * Estimates may not take the store past a quarter beyond where the
	 * whole of it is heading: 1000 of an expected 2000 are 22,660 bytes
	 * of the 25,000 allowed; 3000 (of 6000) would be 67,660 more.
	 */
	s = store_new(3);
	t = 0;
	store_progress(s, 0.5);
	append_run(s, 0, 1000, &t);
	CHECK_INT("within the budget: by estimate", store_capacity(s, 0),
	    2266);
	append_run(s, 0, 2000, &t);
	CHECK_INT("past the budget: grown by half instead",
	    store_capacity(s, 0), 3399);
	store_free(s);
}

/*
 * Whatever the sizing, the store holds what was appended: the same
 * columns with and without progress, through moves in and out of the
 * arena, tags arriving late and adopted columns.
 */
static void
test_progress_same(void)
{
	store *a = store_new(4), *b = store_new(4);
	uint64_t ta[5] = { 0 }, tb[5] = { 0 };
	uint32_t e, k;
	int ok = 1;

	for (k = 0; k < 400; k++) {
		size_t n = 1 + (k * 7919) % 97;

		e = (k * 31) % 5;
		store_progress(b, (double)(k + 1) / 400);
		append_run(a, e, n, &ta[e]);
		append_run(b, e, n, &tb[e]);
		if (k % 50 == 49) {	/* a tag now and then */
			store_append(a, e, ta[e]++, 1, k);
			store_append(b, e, tb[e]++, 1, k);
		}
	}
	store_finish(a, 0, UINT64_MAX);
	store_finish(b, 0, UINT64_MAX);
	for (e = 0; e < 5; e++) {
		size_t n = store_count(a, e);

		ok &= n == store_count(b, e) &&
		    memcmp(store_times(a, e), store_times(b, e),
		    n * sizeof (uint64_t)) == 0 &&
		    memcmp(store_states(a, e), store_states(b, e),
		    n * sizeof (uint16_t)) == 0 &&
		    memcmp(store_tags(a, e), store_tags(b, e),
		    n * sizeof (uint32_t)) == 0;
	}
	CHECK("progress changes nothing stored", ok);
	CHECK_U64("progress: totals agree", store_total(b), store_total(a));
	store_free(a);
	store_free(b);
}

/* n values of entity e from time *t on: whole numbers, nulls, fractions. */
static void
append_values(store *s, uint32_t e, size_t n, uint64_t *t)
{
	uint64_t *times = malloc(n * sizeof (uint64_t));
	sm_value *values = malloc(n * sizeof (sm_value));
	size_t i;

	for (i = 0; i < n; i++) {
		times[i] = (*t)++;
		values[i] = *t % 11 == 0 ? VALUE_NONE :
		    value_number((double)(*t * 7 % 1000) / 4);
	}
	if (n == 1)
		store_append_value(s, e, times[0], values[0]);
	else
		store_append_values(s, e, times, values, n);
	free(times);
	free(values);
}

/*
 * Value columns are sized as columns of states are: by estimate in the
 * arena once an eighth is read, within the same budget (counted in
 * bytes over both kinds), and hold the same whatever the sizing.
 */
static void
test_progress_values(void)
{
	store *s = store_new(3), *a, *b;
	uint64_t t = 0, ta[6] = { 0 }, tb[6] = { 0 };
	uint32_t e, k;
	int ok = 1;

	append_values(s, 0, 20, &t);
	CHECK_INT("values, no progress: capacity grows by half",
	    store_capacity(s, 0), 24);
	store_progress(s, 0.25);
	append_values(s, 1, 100, &t);
	CHECK_INT("values, a quarter read: sized by estimate",
	    store_capacity(s, 1), 466);
	append_values(s, 1, 366, &t);
	CHECK_INT("values filled exactly: not grown", store_capacity(s, 1),
	    466);
	append_values(s, 1, 1, &t);
	CHECK("values one past: grown", store_capacity(s, 1) > 466);
	CHECK_INT("values one past: all kept", store_value_count(s, 1), 467);
	store_free(s);

	/* 1000 of 2000 expected: 36,256 bytes of the 40,000 allowed. */
	s = store_new(3);
	t = 0;
	store_progress(s, 0.5);
	append_values(s, 0, 1000, &t);
	CHECK_INT("values within the budget: by estimate",
	    store_capacity(s, 0), 2266);
	append_values(s, 0, 2000, &t);
	CHECK_INT("values past the budget: grown by half instead",
	    store_capacity(s, 0), 3399);
	store_free(s);

	a = store_new(4);
	b = store_new(4);
	for (k = 0; k < 400; k++) {
		size_t n = k % 13 == 0 ? 1 : 1 + (k * 7919) % 97;

		e = (k * 31) % 6;
		store_progress(b, (double)(k + 1) / 400);
		if (e == 5) {	/* and a column of states among them */
			append_run(a, e, n, &ta[e]);
			append_run(b, e, n, &tb[e]);
		} else {
			append_values(a, e, n, &ta[e]);
			append_values(b, e, n, &tb[e]);
		}
	}
	store_finish(a, 0, UINT64_MAX);
	store_finish(b, 0, UINT64_MAX);
	for (e = 0; e < 5; e++) {
		size_t n = store_value_count(a, e);

		ok &= n > 0 && n == store_value_count(b, e) &&
		    memcmp(store_value_times(a, e), store_value_times(b, e),
		    n * sizeof (uint64_t)) == 0 &&
		    memcmp(store_values(a, e), store_values(b, e),
		    n * sizeof (sm_value)) == 0;
	}
	ok &= store_count(a, 5) == store_count(b, 5) &&
	    memcmp(store_times(a, 5), store_times(b, 5),
	    store_count(a, 5) * sizeof (uint64_t)) == 0;
	CHECK("values: progress changes nothing stored", ok);
	CHECK_U64("values: totals agree", store_values_total(b),
	    store_values_total(a));
	store_free(a);
	store_free(b);
}

/*
 * The end of an entity's data (STORE_GAP).  Entity 0: s1 at 0, no data
 * at 10, s2 at 20, no data at 40 (to the end, 50).  Entity 1 (nested):
 * push s0 at 0, push s1 at 5, pop at 10, pop of the last at 15, push s2
 * at 30.  Entity 2: s0 at 0.  By hand: time in s0 10 + 50, s1 10 + 5,
 * s2 20 + 20; entity 0 has 2 intervals, entity 1 four.
 */
static void
test_gaps(void)
{
	store *s = store_new(3), *v;
	store_interval iv;
	store_iter it;
	store_frame f[4];
	uint32_t states[3];
	uint64_t t[3] = { 0, 0, 0 }, counts[3];
	int n = 0, gap_seen = 0;
	const uint8_t ops[2] = { STORE_POP, STORE_PUSH };
	const uint16_t sts[2] = { 0, 1 };
	const uint64_t tms[2] = { 3, 4 };

	store_append(s, 0, 0, 1, NT);
	store_append(s, 0, 10, STORE_GAP, NT);
	store_append(s, 0, 20, 2, NT);
	store_append(s, 0, 40, STORE_GAP, NT);
	store_push(s, 1, 0, 0, NT);
	store_push(s, 1, 5, 1, NT);
	store_pop(s, 1, 10);
	CHECK("gap: depth 1 before the last pop", store_depth_now(s, 1) == 1);
	store_pop(s, 1, 15);
	CHECK("gap: a pop of the last state leaves depth 0",
	    store_depth_now(s, 1) == 0 &&
	    store_states(s, 1)[3] == STORE_GAP && store_depths(s, 1)[3] == 0);
	store_push(s, 1, 30, 2, NT);
	CHECK("gap: a push after it starts a new stack",
	    store_depth_now(s, 1) == 1 && store_below(s, 1)[4] == NT);
	store_append(s, 2, 0, 0, NT);
	CHECK("gap: a plain entity's depth is 0 after it",
	    store_depth_now(s, 0) == 0);
	store_finish(s, 0, 50);

	CHECK("gap: no state in it", !store_state_at(s, 0, 10, &iv) &&
	    !store_state_at(s, 0, 19, &iv) && !store_state_at(s, 0, 45, &iv));
	CHECK("gap: the state after it", store_state_at(s, 0, 20, &iv) &&
	    iv.state == 2 && iv.start == 20 && iv.end == 40);
	CHECK("gap: a nested entity's too", !store_state_at(s, 1, 20, &iv) &&
	    store_stack_at(s, 1, 20, f, 4) == 0 &&
	    store_stack_at(s, 1, 30, f, 4) == 1 && f[0].state == 2);
	store_states_at(s, 12, states);
	CHECK("gap: store_states_at", states[0] == NT && states[1] == 0 &&
	    states[2] == 0);
	store_count_at(s, 17, counts);
	CHECK("gap: store_count_at", counts[0] == 1 && counts[1] == 0 &&
	    counts[2] == 0);
	store_time_in(s, STORE_NONE, 0, 50, t);
	CHECK("gap: store_time_in leaves it out", t[0] == 60 && t[1] == 15 &&
	    t[2] == 40);
	store_iter_init(&it, s, NULL, 0, 0, 50);
	while (store_iter_next(&it, &iv)) {
		n++;
		gap_seen |= iv.state == STORE_GAP || iv.depth == 0;
	}
	CHECK("gap: store_iter skips it", n == 2 + 4 + 1 && !gap_seen);

	/* A slice that starts in a gap, and a copy, keep it. */
	v = store_view(s, 12, 35);
	CHECK("gap: a view starting in one", !store_state_at(v, 0, 12, &iv) &&
	    store_state_at(v, 0, 25, &iv) && iv.state == 2 &&
	    !store_state_at(v, 1, 20, &iv));
	store_free(v);
	v = store_new(3);
	store_copy_entity(v, 0, s, 0);
	store_copy_entity(v, 1, s, 1);
	store_finish(v, 0, 50);
	CHECK("gap: copied", !store_state_at(v, 0, 15, &iv) &&
	    !store_state_at(v, 1, 20, &iv) && store_state_at(v, 1, 35, &iv));
	store_free(v);
	store_free(s);

	/* Stacked runs: a pop of the last, then a push, in one run. */
	s = store_new(3);
	store_push(s, 0, 1, 0, NT);
	store_append_stacked(s, 0, tms, ops, sts, 2);
	store_finish(s, 0, 10);
	CHECK("gap: stacked pop of the last", !store_state_at(s, 0, 3, &iv) &&
	    store_state_at(s, 0, 4, &iv) && iv.state == 1 && iv.depth == 1);
	store_free(s);
	/* Replayed by depth (a derived trace): depth 0 is the gap. */
	s = store_new(3);
	store_append_depth(s, 0, 1, 1, NT, 1);
	store_append_depth(s, 0, 2, 2, NT, 2);
	store_append_depth(s, 0, 3, STORE_GAP, NT, 0);
	store_append_depth(s, 0, 4, 0, NT, 1);
	store_finish(s, 0, 10);
	CHECK("gap: replayed by depth", !store_state_at(s, 0, 3, &iv) &&
	    store_state_at(s, 0, 4, &iv) && iv.state == 0 &&
	    store_depths(s, 0)[2] == 0);
	store_free(s);
}

int
main(void)
{
	test_state_at();
	test_count_through();
	test_all_at();
	test_time_in();
	time_in_random(5);
	time_in_random(64);
	time_in_random(300);
	test_iter();
	test_large();
	test_tags();
	test_progress();
	test_progress_values();
	test_progress_same();
	test_gaps();
	return (unit_exit());
}
