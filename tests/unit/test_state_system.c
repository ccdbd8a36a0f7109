/*
 * Unit tests for the generic state system's core: the summary (value_summary.h)
 * against a linear scan over random values (fixed seed), a nested
 * entity's stacks in the store against a stack kept by hand, value
 * entities beside state ones in the store's queries, and the attribute
 * tree with its glob patterns (tree.h).
 */
#include <math.h>
#include <stdlib.h>

#include "base/threads.h"
#include "store/store.h"
#include "store/tree.h"
#include "store/value_summary.h"
#include "unit.h"

static uint64_t rng_state = 21;

static uint64_t
rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

static int
same_stats(const value_stats *a, const value_stats *b)
{
	double scale = fabs(b->integral) > 1 ? fabs(b->integral) : 1;

	if (a->covered != b->covered)
		return (0);
	if (a->covered == 0)
		return (1);
	return (a->min == b->min && a->max == b->max &&
	    fabs(a->integral - b->integral) <= 1e-9 * scale);
}

static void
test_summary(void)
{
	enum { N = 20000 };
	uint64_t *time = malloc(N * sizeof (uint64_t));
	sm_value *value = malloc(N * sizeof (sm_value));
	summary *sm;
	size_t i, q, bad = 0;
	uint64_t t = 0;

	for (i = 0; i < N; i++) {
		uint64_t r = rng();

		t += r % 7;	/* zero-length intervals too */
		time[i] = t;
		if (r % 20 == 0)
			value[i] = VALUE_NONE;
		else if (r % 20 == 1)
			value[i] = value_string((uint32_t)(r >> 40));
		else
			value[i] = value_number((double)(int64_t)(r >> 44) -
			    500000.0 + (r % 3 == 0 ? 0.5 : 0));
	}
	sm = summary_build(time, value, N, 0);
	CHECK("summary: built", sm != NULL);
	CHECK("summary: a little memory a value", summary_memory(sm) <
	    N * 4);
	for (q = 0; q < 5000; q++) {
		size_t a = rng() % N, b = rng() % N, k;
		value_stats got, want;

		if (a > b) {
			size_t x = a;

			a = b;
			b = x;
		}
		if (q % 3 == 0 && a + 40 < N)
			b = a + rng() % 40;	/* short ranges too */
		if (b > N - 1)
			b = N - 1;
		value_stats_init(&got, 0);
		value_stats_init(&want, 0);
		summary_add(sm, time, value, a, b, &got);
		for (k = a; k < b; k++)
			value_stats_add(&want, value[k], time[k + 1] - time[k]);
		if (!same_stats(&got, &want))
			bad++;
	}
	CHECK_INT("summary: 5000 random ranges agree with a linear scan", bad,
	    0);
	{
		value_stats all, want;

		value_stats_init(&all, 0);
		value_stats_init(&want, 0);
		summary_add(sm, time, value, 0, N - 1, &all);
		for (i = 0; i + 1 < N; i++)
			value_stats_add(&want, value[i], time[i + 1] -
			    time[i]);
		CHECK("summary: the whole range agrees", same_stats(&all,
		    &want));
	}
	summary_free(sm);
	free(time);
	free(value);
}

static void
test_values_in_store(void)
{
	store *s = store_new(2);
	store_interval iv;
	store_iter it;
	value_stats st;
	int n = 0, values = 0;

	store_append(s, 0, 0, 1, STORE_NONE);
	store_append_value(s, 1, 0, value_number(10));
	store_append_value(s, 1, 10, value_number(30));
	store_append_value(s, 1, 20, VALUE_NONE);
	store_append(s, 0, 15, 0, STORE_NONE);
	store_finish(s, 0, 40);
	CHECK_INT("store: a value entity's kind", store_kind_of(s, 1),
	    STORE_VALUES);
	CHECK_INT("store: value entities have no transitions",
	    store_count(s, 1), 0);
	CHECK("store: not plain with values", !store_plain(s));
	CHECK("store: no state for a value entity",
	    !store_state_at(s, 1, 5, &iv));
	CHECK("store: the value at a time", store_value_at(s, 1, 12, &iv) &&
	    value_to_double(iv.value) == 30 && iv.start == 10 && iv.end == 20);
	CHECK("store: none after null", store_value_at(s, 1, 25, &iv) &&
	    value_is_none(iv.value) && iv.end == 40);
	value_stats_init(&st, 0);
	store_value_stats(s, 1, 5, 15, &st);
	CHECK("store: stats clipped to the range", st.min == 10 &&
	    st.max == 30 && st.integral == 10 * 5 + 30 * 5 && st.covered == 10);
	store_iter_init(&it, s, NULL, 0, 0, 40);
	while (store_iter_next(&it, &iv))
		n++;
	CHECK_INT("store: state iteration skips value entities", n, 2);
	store_iter_init(&it, s, NULL, 0, 0, 40);
	store_iter_values(&it);
	n = 0;
	while (store_iter_next(&it, &iv)) {
		n++;
		values += iv.depth == 0;
	}
	CHECK("store: with values on, their intervals come too", n == 5 &&
	    values == 3);
	store_free(s);
}

static void
test_nested_in_store(void)
{
	enum { STEPS = 3000, MAXD = 40 };
	store *s = store_new(8);
	uint32_t stack[STEPS][MAXD], depth_at[STEPS], cur[MAXD], d = 0;
	size_t i, bad = 0;

	/* Random pushes, pops and sets, one a ns; the stack kept by hand. */
	for (i = 0; i < STEPS; i++) {
		uint64_t r = rng();
		uint32_t state = (uint32_t)(r % 8);

		if (d == 0 || r % 10 == 0) {
			store_append(s, 0, i, state, STORE_NONE);
			cur[0] = state;
			d = 1;
		} else if (d < MAXD && r % 10 < 6) {
			store_push(s, 0, i, state, (uint32_t)(r >> 50) % 2 ?
			    STORE_NONE : 7);
			cur[d++] = state;
		} else if (d > 1) {
			store_pop(s, 0, i);
			d--;
		} else {
			store_append(s, 0, i, state, STORE_NONE);
			cur[0] = state;
		}
		memcpy(stack[i], cur, sizeof (cur));
		depth_at[i] = d;
	}
	store_finish(s, 0, STEPS);
	CHECK_INT("nested: the kind", store_kind_of(s, 0), STORE_NESTED);
	for (i = 0; i < STEPS; i++) {
		store_frame frames[MAXD];
		store_interval iv;
		uint32_t got = store_stack_at(s, 0, i, frames, MAXD), k;

		if (got != depth_at[i] || !store_state_at(s, 0, i, &iv) ||
		    iv.state != stack[i][got - 1]) {
			bad++;
			continue;
		}
		for (k = 0; k < got; k++)
			if (frames[k].state != stack[i][k])
				bad++;
	}
	CHECK_INT("nested: every stack agrees with one kept by hand", bad, 0);
	store_free(s);
}

/* Whether an entity's columns are the same in both stores. */
static int
same_columns(const store *a, const store *b, uint32_t e)
{
	size_t n = store_count(a, e), i;
	const uint32_t *ta = store_tags(a, e), *tb = store_tags(b, e);

	if (n != store_count(b, e) || (ta == NULL) != (tb == NULL))
		return (0);
	for (i = 0; i < n; i++) {
		if (store_times(a, e)[i] != store_times(b, e)[i] ||
		    store_states(a, e)[i] != store_states(b, e)[i] ||
		    store_depths(a, e)[i] != store_depths(b, e)[i] ||
		    store_below(a, e)[i] != store_below(b, e)[i] ||
		    (ta != NULL && ta[i] != tb[i]))
			return (0);
	}
	return (1);
}

/*
 * store_append_stacked against the same transitions one at a time: four
 * entities, each a random walk of sets, pushes (some tagged, which go
 * one at a time) and pops, handed over in runs of random length.
 */
static void
test_nested_stacked(void)
{
	enum { STEPS = 6000, ENTITIES = 4, MAXD = 30, RUN = 40 };
	store *one = store_new(8), *bulk = store_new(8);
	uint64_t times[RUN];
	uint8_t ops[RUN];
	uint16_t states[RUN];
	uint32_t depth[ENTITIES] = { 0 }, e;
	size_t i, n = 0, runs = 0;
	uint32_t run_entity = 0;
	int same = 1;

	for (e = 0; e < ENTITIES; e++) {
		store_append(one, e, 0, e, STORE_NONE);
		store_append(bulk, e, 0, e, STORE_NONE);
		depth[e] = 1;
	}
	for (i = 1; i <= STEPS; i++) {
		uint64_t r = rng();
		uint32_t state = (uint32_t)(r % 8), tag = STORE_NONE;
		uint8_t op;

		e = (uint32_t)(r >> 8) % ENTITIES;
		if (r % 13 == 0)
			op = STORE_SET;
		else if (depth[e] < MAXD && (depth[e] == 1 || r % 10 < 5))
			op = STORE_PUSH;
		else if (depth[e] > 1)
			op = STORE_POP;
		else
			op = STORE_SET;
		if (op == STORE_PUSH && (r >> 40) % 5 == 0)
			tag = (uint32_t)(r >> 44) % 3;
		/* The run so far goes first if it is another entity's. */
		if (n > 0 && (e != run_entity || tag != STORE_NONE ||
		    n == RUN || (r >> 20) % 7 == 0)) {
			store_append_stacked(bulk, run_entity, times, ops,
			    states, n);
			runs++;
			n = 0;
		}
		if (op == STORE_PUSH) {
			store_push(one, e, i, state, tag);
			depth[e]++;
		} else if (op == STORE_POP) {
			store_pop(one, e, i);
			depth[e]--;
		} else {
			store_append(one, e, i, state, STORE_NONE);
			depth[e] = 1;
		}
		if (tag != STORE_NONE) {
			store_push(bulk, e, i, state, tag);
			continue;
		}
		run_entity = e;
		times[n] = i;
		ops[n] = op;
		states[n++] = (uint16_t)state;
	}
	store_append_stacked(bulk, run_entity, times, ops, states, n);
	store_finish(one, 0, STEPS + 1);
	store_finish(bulk, 0, STEPS + 1);
	for (e = 0; e < ENTITIES; e++)
		same &= same_columns(one, bulk, e);
	CHECK("nested: runs taken at once store what one at a time does",
	    same && runs > 500);
	CHECK("nested: and tagged pushes among them keep their tags",
	    store_tags(bulk, 0) != NULL);
	store_free(one);
	store_free(bulk);
}

static void
test_tree(void)
{
	static const char *names[] = { "Threads/10/Status", "CPUs/0/Current",
	    "Threads/2/Status", "Threads/2", "top", "Threads/1/Status",
	    "a//b" };
	intern *in = intern_new();
	tree *t;
	uint32_t node, i;
	const uint32_t *kids;
	size_t len;

	for (i = 0; i < sizeof (names) / sizeof (names[0]); i++)
		intern_add(in, names[i], strlen(names[i]), NULL);
	t = tree_build(in);
	CHECK_INT("tree: top nodes", tree_nchildren(t, TREE_ROOT), 4);
	kids = tree_children(t, TREE_ROOT);
	CHECK_STR("tree: natural order at the top (bytes: capitals first)", tree_path(t, kids[0],
	    &len), "CPUs");
	node = tree_find(t, "Threads", 7);
	CHECK("tree: a prefix is a node, not an entity", node != TREE_NONE &&
	    tree_entity(t, node) == TREE_NONE);
	CHECK_INT("tree: its children", tree_nchildren(t, node), 3);
	kids = tree_children(t, node);
	CHECK("tree: children in natural order",
	    strcmp(tree_path(t, kids[0], &len), "Threads/1") == 0 &&
	    strcmp(tree_path(t, kids[1], &len), "Threads/2") == 0 &&
	    strcmp(tree_path(t, kids[2], &len), "Threads/10") == 0);
	CHECK_INT("tree: a node that is an entity and has children",
	    tree_entity(t, tree_find(t, "Threads/2", 9)), 3);
	CHECK("tree: an empty component is a component",
	    tree_find(t, "a/", 2) != TREE_NONE);
	CHECK("tree: no such path", tree_find(t, "Nope", 4) == TREE_NONE);
	tree_free(t);
	intern_free(in);

#define GLOB(p, n)	tree_glob_match(p, strlen(p), n, strlen(n))
	CHECK("glob: star within a component", GLOB("Threads/*/Status",
	    "Threads/42/Status"));
	CHECK("glob: star never crosses /", !GLOB("Threads/*",
	    "Threads/42/Status"));
	CHECK("glob: ** last is one or more", GLOB("CPUs/**", "CPUs/0") &&
	    GLOB("CPUs/**", "CPUs/0/Current") && !GLOB("CPUs/**", "CPUs"));
	CHECK("glob: ** first is zero or more", GLOB("**/Status", "Status") &&
	    GLOB("**/Status", "a/b/Status") && !GLOB("**/Status", "aStatus"));
	CHECK("glob: ** in the middle", GLOB("a/**/z", "a/z") &&
	    GLOB("a/**/z", "a/b/c/z") && !GLOB("a/**/z", "a/b/c"));
	CHECK("glob: ?", GLOB("cpu?", "cpu1") && !GLOB("cpu?", "cpu10"));
	CHECK("glob: sets", GLOB("cpu[0-3]", "cpu2") &&
	    !GLOB("cpu[!0-3]", "cpu2") && GLOB("cpu[^0-3]", "cpu7"));
	CHECK("glob: a backslash quotes", GLOB("a\\*", "a*") &&
	    !GLOB("a\\*", "ab"));
	CHECK("glob: exact", GLOB("top", "top") && !GLOB("top", "top2"));
#undef GLOB
}

static void
test_value_words(void)
{
	int64_t i;

	CHECK("value: a number is a number",
	    value_is_number(value_number(1.5)) &&
	    value_to_double(value_number(1.5)) == 1.5);
	CHECK("value: infinities are numbers",
	    value_is_number(value_number(INFINITY)));
	CHECK("value: none and strings are not numbers",
	    !value_is_number(VALUE_NONE) &&
	    !value_is_number(value_string(7)) &&
	    value_string_id(value_string(7)) == 7);
	CHECK("value: whole numbers are integers", value_integer(42, &i) &&
	    i == 42 && !value_integer(0.5, &i) && !value_integer(1e300, &i));
}

/* ---- a store's summary, made when first wanted ---- */

enum { LAZY_N = 50000, LAZY_QUERIES = 400 };

typedef struct lazy_job {
	const store *s;
	uint64_t t0[LAZY_QUERIES], t1[LAZY_QUERIES];
	value_stats got[LAZY_QUERIES];
} lazy_job;

static void
lazy_run(void *arg)
{
	lazy_job *j = arg;
	int q;

	for (q = 0; q < LAZY_QUERIES; q++) {
		value_stats_init(&j->got[q], 0);
		store_value_stats(j->s, 0, j->t0[q], j->t1[q], &j->got[q]);
	}
}

static void
test_lazy_summary(void)
{
	static const size_t sizes[] = { 0, 1, 2, 16, 17, 18, 255, 256, 257,
	    4096, 4097, 4098, 65537, 70000 };
	uint64_t *time = malloc(LAZY_N * sizeof (uint64_t));
	sm_value *value = malloc(LAZY_N * sizeof (sm_value));
	lazy_job *jobs = calloc(2, sizeof (lazy_job));
	store *s = store_new(1);
	size_t i, before, bad = 0;
	uint64_t t = 0;
	int q, k;

	for (i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
		sm_value *v = calloc(sizes[i] + 1, sizeof (sm_value));
		uint64_t *tt = calloc(sizes[i] + 1, sizeof (uint64_t));
		summary *sm = summary_build(tt, v, sizes[i], 0);

		if (summary_memory(sm) != summary_memory_for(sizes[i]))
			bad++;
		summary_free(sm);
		free(v);
		free(tt);
	}
	CHECK_INT("lazy: summary_memory_for says what a summary holds", (int)bad,
	    0);
	for (i = 0; i < LAZY_N; i++) {
		uint64_t r = rng();

		t += 1 + r % 5;
		time[i] = t;
		value[i] = r % 9 == 0 ? VALUE_NONE :
		    value_number((double)(int64_t)(r >> 45) - 100000.0);
	}
	store_append_values(s, 0, time, value, LAZY_N);
	store_finish(s, 0, t + 10);
	before = store_memory(s);
	/* Two threads ask at once: wide ranges, which want the summary. */
	for (k = 0; k < 2; k++) {
		jobs[k].s = s;
		for (q = 0; q < LAZY_QUERIES; q++) {
			uint64_t a = rng() % (t + 10), b = rng() % (t + 10);

			jobs[k].t0[q] = a < b ? a : b;
			jobs[k].t1[q] = a < b ? b : a;
		}
	}
	threads_run(lazy_run, jobs, 2, sizeof (lazy_job));
	CHECK("lazy: the store's size is the same once the summary is made",
	    store_memory(s) == before);
	bad = 0;
	for (k = 0; k < 2; k++) {
		for (q = 0; q < LAZY_QUERIES; q++) {
			value_stats want;

			value_stats_init(&want, 0);
			for (i = 0; i < LAZY_N; i++) {
				uint64_t lo = time[i], hi = i + 1 < LAZY_N ?
				    time[i + 1] : t + 10;

				if (lo < jobs[k].t0[q])
					lo = jobs[k].t0[q];
				if (hi > jobs[k].t1[q])
					hi = jobs[k].t1[q];
				if (hi > lo)
					value_stats_add(&want, value[i], hi - lo);
			}
			bad += !same_stats(&jobs[k].got[q], &want);
		}
	}
	CHECK_INT("lazy: two threads' statistics, as a linear scan says",
	    (int)bad, 0);
	/* Searched from the last: a picture's columns one after another
	 * (some narrower than a value, some empty), then ranges anywhere,
	 * each the same as searched afresh. */
	{
		size_t from = 0, cols = 3000, c;
		uint64_t span = t + 10;

		bad = 0;
		for (c = 0; c < cols; c++) {
			uint64_t a = span * c / cols, b = span * (c + 1) / cols;
			value_stats got, want;

			value_stats_init(&got, 0);
			value_stats_init(&want, 0);
			store_value_stats_from(s, 0, a, b + (c % 7 == 0), &from,
			    &got);
			store_value_stats(s, 0, a, b + (c % 7 == 0), &want);
			bad += !same_stats(&got, &want) ||
			    got.integral != want.integral;
		}
		for (q = 0; q < LAZY_QUERIES; q++) {
			uint64_t a = rng() % span, b = a + rng() % 50;
			value_stats got, want;

			value_stats_init(&got, 0);
			value_stats_init(&want, 0);
			store_value_stats_from(s, 0, a, b, &from, &got);
			store_value_stats(s, 0, a, b, &want);
			bad += !same_stats(&got, &want) ||
			    got.integral != want.integral;
		}
		CHECK_INT("store: stats searched from the last, as afresh",
		    (int)bad, 0);
	}
	store_free(s);
	free(jobs);
	free(time);
	free(value);
}

int
main(void)
{
	test_summary();
	test_lazy_summary();
	test_values_in_store();
	test_nested_in_store();
	test_nested_stacked();
	test_tree();
	test_value_words();
	return (unit_exit());
}
