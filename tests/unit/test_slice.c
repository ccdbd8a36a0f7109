/*
 * Tests for transform_slice (src/trace/transform.c) and store_view
 * (src/store/store_view.c): a slice is a view of its source's columns, and must
 * answer every question exactly as the copying slice it replaced did.
 *
 * The copy is made here the old way (every transition of every entity
 * into a new store, the window narrowed: copy_slice), and the two are
 * compared on random traces (a fixed seed) with tags, zero-length
 * intervals, entities that start after the window and windows at
 * transition times: states at times, time per state, intervals,
 * counts, the count trace, coalesced statemaps (the interactive SVG's
 * rectangles) with budgets reached and not, the live server's answers
 * and page, groups, and slices of slices.  The source is then freed
 * before its slices, which must go on working (ASan and valgrind see
 * any read of freed memory).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coalesce/smap.h"
#include "output/jsonout.h"
#include "output/smap_json.h"
#include "output/viewport.h"
#include "serve/page.h"
#include "serve/served_traces.h"
#include "store/count_series.h"
#include "trace/trace.h"
#include "trace/transform.h"
#include "unit.h"
#define RANDTRACE_SEED 0x9e3779b97f4a7c15ULL
#define RANDTRACE_WITH_TRACE
#include "randtrace.h"


/*
 * A trace in time order over about n data: nent entities, some data at
 * the time of the one before (zero-length intervals), tags on a third
 * when tagged, a description, events, and an entity "late" whose only
 * data come at the very end.
 */
static trace *
random_trace(uint32_t nent, uint32_t n, int tagged)
{
	char path[] = "/tmp/test_slice_XXXXXX";
	FILE *f = randtrace_create(path, "test_slice");
	uint64_t t = 0;
	uint32_t i;

	fprintf(f, "{\"start\": [1, 5], \"title\": \"rand\", \"states\": {"
	    "\"idle\": {\"value\": 0}, \"run\": {\"value\": 1}, "
	    "\"io\": {\"value\": 2}, \"wait\": {\"value\": 3}}}\n");
	fprintf(f, "{\"entity\": \"e1\", \"description\": \"first\"}\n");
	for (i = 0; i < n; i++) {
		uint32_t e, state;

		t += below(8) == 0 ? 0 : 1 + below(below(4) == 0 ? 3000 : 40);
		/* One draw a statement: arguments come in no set order. */
		e = (uint32_t)below(nent);
		state = (uint32_t)below(4);
		fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": \"e%u\", "
		    "\"state\": %u", t, e, state);
		if (tagged && below(3) == 0)
			fprintf(f, ", \"tag\": \"g%u\"", (uint32_t)below(5));
		fputs("}\n", f);
		if (below(40) == 0)
			fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": "
			    "\"e0\", \"event\": \"ping\"}\n", t);
	}
	fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": \"late\", "
	    "\"state\": 1}\n", t);
	fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": \"e0\", "
	    "\"state\": 2}\n", t + 7);
	return (randtrace_load(f, path));
}

/* The slice as it used to be made: a copy of everything, a new window. */
static trace *
copy_slice(const trace *src, uint64_t from, uint64_t to)
{
	uint32_t n = catalog_nentities(src->cat), i;
	uint32_t *ids = calloc((size_t)n + 1, sizeof (uint32_t));
	const char *why;
	trace *d;

	for (i = 0; i < n; i++)
		ids[i] = i;
	d = transform_select(src, ids, n, NULL, NULL, &why);
	free(ids);
	d->begin = from;
	d->end = to;
	store_finish(d->st, from, to);
	return (d);
}

/* Times worth asking about in [from, to): its edges, transitions, any. */
static uint64_t
some_time(const trace *d, uint64_t from, uint64_t to)
{
	uint32_t e = (uint32_t)below(store_nentities(d->st));
	size_t n = store_count(d->st, e);

	switch (below(5)) {
	case 0:
		return (from);
	case 1:
		return (to - 1);
	case 2:
		return (below(2) ? to : from - (from > 0));
	case 3:
		if (n > 0)
			return (store_times(d->st, e)[below(n)]);
		/* FALLTHROUGH */
	default:
		return (from + below(to - from));
	}
}

static int
same_interval(const store_interval *a, const store_interval *b)
{
	return (a->entity == b->entity && a->state == b->state &&
	    a->tag == b->tag && a->start == b->start && a->end == b->end);
}

/*
 * The store queries of trace.h's users: state at, time in, intervals.
 * The interval holding a time is compared whole (unclipped) for a slice
 * itself; in traces made from slices (derived) it is compared only
 * inside the window, as they hold nothing beyond it.
 */
static int
same_queries(const trace *v, const trace *c, int derived, const char **what)
{
	uint32_t ne = store_nentities(c->st), ns = c->cat->nstates, e, k;
	uint64_t *tv = calloc((size_t)ns + 1, sizeof (uint64_t));
	uint64_t *tc = calloc((size_t)ns + 1, sizeof (uint64_t));
	int ok = 1;

	if (store_begin(v->st) != store_begin(c->st) ||
	    store_end(v->st) != store_end(c->st)) {
		*what = "bounds";
		ok = 0;
	}
	for (k = 0; ok && k < 60; k++) {
		uint64_t t = some_time(c, c->begin, c->end);
		store_interval a, b;

		for (e = 0; ok && e < ne + 1; e++) {
			int ha = store_state_at(v->st, e, t, &a);
			int hb = store_state_at(c->st, e, t, &b);

			if (ha && derived) {
				a.start = b.start = a.end = b.end = 0;
			}
			if (ha != hb || (ha && !same_interval(&a, &b))) {
				*what = "store_state_at";
				ok = 0;
			}
		}
		store_count_at(v->st, t, tv);
		store_count_at(c->st, t, tc);
		if (ok && memcmp(tv, tc, ns * sizeof (uint64_t)) != 0) {
			*what = "store_count_at";
			ok = 0;
		}
	}
	for (k = 0; ok && k < 20; k++) {
		uint64_t a = some_time(c, c->begin, c->end);
		uint64_t b = k == 0 ? c->end : some_time(c, c->begin, c->end);
		uint32_t one = (uint32_t)below(ne + 1);
		uint32_t which = k % 2 ? one : STORE_NONE;
		store_iter iv, ic;
		store_interval x, y;
		int mv, mc;

		if (k == 0)
			a = c->begin;
		memset(tv, 0, ns * sizeof (uint64_t));
		memset(tc, 0, ns * sizeof (uint64_t));
		store_time_in(v->st, which, a, b, tv);
		store_time_in(c->st, which, a, b, tc);
		if (memcmp(tv, tc, ns * sizeof (uint64_t)) != 0) {
			*what = "store_time_in";
			ok = 0;
		}
		store_iter_init(&iv, v->st, k % 3 ? NULL : &one, 1, a, b);
		store_iter_init(&ic, c->st, k % 3 ? NULL : &one, 1, a, b);
		do {
			mv = store_iter_next(&iv, &x);
			mc = store_iter_next(&ic, &y);
			if (mv != mc || (mv && !same_interval(&x, &y))) {
				*what = "store_iter";
				ok = 0;
			}
		} while (ok && mv);
	}
	free(tv);
	free(tc);
	return (ok);
}

static int
same_columns(const store *a, const store *b, uint32_t e)
{
	size_t n = store_count(a, e);

	return (n == store_count(b, e) && (n == 0 ||
	    (memcmp(store_times(a, e), store_times(b, e), n * 8) == 0 &&
	    memcmp(store_states(a, e), store_states(b, e), n * 2) == 0)));
}

/* t:count and t:count_series: the same series, the same count trace. */
static int
same_counts(const trace *v, const trace *c, const char **what)
{
	unsigned char counted[4];
	const char *why;
	series sv, sc;
	trace *a, *b;
	int ok = 1, s;

	for (s = 0; s < 4; s++)
		counted[s] = (unsigned char)below(2);
	counted[below(4)] = 1;
	series_count(v->st, counted, v->begin, v->end, &sv, &why);
	series_count(c->st, counted, c->begin, c->end, &sc, &why);
	if (sv.n != sc.n || memcmp(sv.time, sc.time, sv.n * 8) != 0 ||
	    memcmp(sv.count, sc.count, sv.n * 4) != 0) {
		*what = "series_count";
		ok = 0;
	}
	series_free(&sv);
	series_free(&sc);
	a = transform_count(v, counted, "n", 1, &why);
	b = transform_count(c, counted, "n", 1, &why);
	if (ok && (a == NULL || b == NULL || !same_columns(a->st, b->st, 0))) {
		*what = "transform_count";
		ok = 0;
	}
	trace_free(a);
	trace_free(b);
	return (ok);
}

static char *
capture_smap(const trace *d, uint64_t budget)
{
	uint32_t n = catalog_nentities(d->cat), i;
	uint32_t *all = calloc((size_t)n + 1, sizeof (uint32_t));
	smap m;
	sm_error err;
	size_t zero = 0, len = 0;
	char *buf = NULL;
	FILE *out;

	for (i = 0; i < n; i++)
		all[i] = i;
	smap_from_trace(&m, d, all, n, budget, d->begin, d->end);
	smap_sort(&m, NULL, &err);
	out = open_memstream(&buf, &len);
	smap_json_write(out, &m, 1, &zero);
	fclose(out);
	smap_free(&m);
	free(all);
	return (buf);
}

/* The coalesced statemaps, with a small budget (merging) and a large. */
static int
same_smaps(const trace *v, const trace *c, const char **what)
{
	static const uint64_t budgets[] = { 3, 20, 1000000 };
	size_t i;
	int ok = 1;

	for (i = 0; ok && i < sizeof (budgets) / sizeof (budgets[0]); i++) {
		char *a = capture_smap(v, budgets[i]);
		char *b = capture_smap(c, budgets[i]);

		if (strcmp(a, b) != 0) {
			*what = "smap_from_trace";
			ok = 0;
		}
		free(a);
		free(b);
	}
	return (ok);
}

static char *
capture_viewport(const served *s, uint64_t begin, uint64_t end,
    uint64_t budget)
{
	viewport_query q;
	viewport *vp;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	q.begin = begin;
	q.end = end;
	q.width = 300;
	q.budget = budget;
	q.entities = NULL;
	vp = viewport_compute(s->panels, s->n, &q);
	viewport_write_json(out, vp, NULL);
	fclose(out);
	viewport_free(vp);
	return (buf);
}

/* The live server: the page, then answers exact and binned. */
static int
same_served(trace *v, trace *c, const char **what)
{
	served_options o;
	served *sv, *sc;
	sm_error err;
	char *a, *b;
	size_t la, lb;
	int ok = 1, k;

	memset(&o, 0, sizeof (o));
	o.sortby = below(2) ? "run" : NULL;
	sv = served_new(&v, 1, &o, &err);
	sc = served_new(&c, 1, &o, &err);
	if (sv == NULL || sc == NULL) {
		*what = "served_new";
		served_release(sv);
		served_release(sc);
		return (0);
	}
	a = page_html(sv, "00", 1, &la);
	b = page_html(sc, "00", 1, &lb);
	if (la != lb || memcmp(a, b, la) != 0) {
		*what = "page_html";
		ok = 0;
	}
	free(a);
	free(b);
	for (k = 0; ok && k < 6; k++) {
		uint64_t x = some_time(c, c->begin, c->end);
		uint64_t y = some_time(c, c->begin, c->end);
		uint64_t budget = k % 2 ? 5 : 1000000;

		if (k == 0) {
			x = c->begin;
			y = c->end;
		}
		if (x == y)
			y++;
		if (x > y) {
			uint64_t z = x;

			x = y;
			y = z;
		}
		a = capture_viewport(sv, x, y, budget);
		b = capture_viewport(sc, x, y, budget);
		if (strcmp(a, b) != 0) {
			*what = "viewport";
			ok = 0;
		}
		free(a);
		free(b);
	}
	served_release(sv);
	served_release(sc);
	return (ok);
}

/* Groups (a merge of members' transitions): the same intervals. */
static int
same_groups(const trace *v, const trace *c, const char **what)
{
	uint32_t n = catalog_nentities(c->cat), i;
	uint32_t *group_of = calloc((size_t)n + 1, sizeof (uint32_t));
	uint32_t rank[4] = { 3, 0, 1, 2 };
	const char *names[2] = { "odd", "even" }, *why;
	size_t lens[2] = { 3, 4 };
	trace *a, *b;
	int ok;

	for (i = 0; i < n; i++)
		group_of[i] = below(5) == 0 ? UINT32_MAX : i % 2;
	a = transform_group(v, group_of, 2, names, lens, rank, &why);
	b = transform_group(c, group_of, 2, names, lens, rank, &why);
	ok = a != NULL && b != NULL && same_queries(a, b, 1, what);
	if (!ok)
		*what = "transform_group";
	trace_free(a);
	trace_free(b);
	free(group_of);
	return (ok);
}

static int
same_everything(trace *v, trace *c, const char **what)
{
	return (same_queries(v, c, 0, what) && same_counts(v, c, what) &&
	    same_smaps(v, c, what) && same_served(v, c, what) &&
	    same_groups(v, c, what));
}

/* A window: random, or with an edge at a transition time. */
static void
some_window(const trace *d, uint64_t *from, uint64_t *to)
{
	uint64_t a = some_time(d, d->begin, d->end);
	uint64_t b = some_time(d, d->begin, d->end);

	if (a > b) {
		uint64_t x = a;

		a = b;
		b = x;
	}
	if (a < d->begin)
		a = d->begin;
	if (b > d->end)
		b = d->end;
	if (b <= a) {
		a = d->begin;
		b = d->end;
	}
	*from = a;
	*to = b;
}

static void
test_view_is_copy(void)
{
	int round, tried = 0, bad = 0;
	const char *what = NULL;

	for (round = 0; round < 16; round++) {
		uint32_t nent = 1 + (uint32_t)below(12);
		trace *d = random_trace(nent, (uint32_t)below(2500), round % 2);
		int w;

		for (w = 0; w < 12; w++) {
			uint64_t a, b, a2, b2;
			const char *why;
			trace *v, *c, *vv, *cc;

			some_window(d, &a, &b);
			if (w == 0) {
				a = d->begin;
				b = d->end;
			}
			v = transform_slice(d, a, b, &why);
			c = copy_slice(d, a, b);
			tried++;
			if (!same_everything(v, c, &what) && bad++ == 0)
				printf("first difference: %s, window [%" PRIu64
				    ", %" PRIu64 ") of round %d\n", what, a, b,
				    round);
			/* A slice of the slice, against a copy of the window. */
			some_window(v, &a2, &b2);
			vv = transform_slice(v, a2, b2, &why);
			cc = copy_slice(d, a2, b2);
			tried++;
			if (!same_everything(vv, cc, &what) && bad++ == 0)
				printf("first difference of a slice of a slice: "
				    "%s, [%" PRIu64 ", %" PRIu64 ")\n", what,
				    a2, b2);
			trace_free(v);
			trace_free(c);
			trace_free(vv);
			trace_free(cc);
		}
		trace_free(d);
	}
	CHECK("slice: a view answers every question as a copy did",
	    bad == 0 && tried == 16 * 24);
}

static void
test_view_memory(void)
{
	trace *d = random_trace(5, 20000, 1), *v, *vv, *c;
	store *empty;
	const char *why, *what = NULL;
	uint64_t mid = d->begin + (d->end - d->begin) / 2, total = 0;
	uint32_t e;

	v = transform_slice(d, mid, mid + 50, &why);
	empty = store_new(store_nstates(d->st));
	/* Beyond what any store is (its struct), a column head per entity. */
	CHECK("slice: a view holds no transitions of its own",
	    store_memory(v->st) < store_memory(empty) + 1024);
	store_free(empty);
	CHECK("slice: a view shares its source's names", v->cat == d->cat);
	for (e = 0; e < store_nentities(v->st); e++)
		total += store_count(v->st, e);
	CHECK("slice: transitions are the window's, not the trace's",
	    store_total(v->st) == total && total < 40);
	vv = transform_slice(v, mid + 10, mid + 20, &why);
	c = copy_slice(d, mid + 10, mid + 20);
	CHECK("slice: a slice of a slice holds the first trace",
	    vv->parent == d && vv->cat == d->cat);
	/* The source goes first: its slices keep what they read alive. */
	trace_free(d);
	trace_free(v);
	CHECK("slice: whole once its sources are freed",
	    same_everything(vv, c, &what));
	trace_free(vv);
	trace_free(c);
}

int
main(void)
{
	test_view_is_copy();
	test_view_memory();
	return (unit_exit());
}
