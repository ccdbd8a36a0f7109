/*
 * Tests for src/output/viewport.c: a window's answer, exact or binned.
 *
 * Exact answers are compared byte for byte (but for each rectangle's "n")
 * with what the reference coalescer gives through smap_from_trace with a
 * budget it never reaches, which is what `-T json -b -e -c LARGE` writes;
 * binned answers are checked for what must hold whatever the binning:
 * each entity's time per state and per tag over the window equals the
 * store's, its rectangles tile the window without gaps, a rectangle of
 * one transition is that transition, and the counts add up.  Traces are
 * random (a fixed seed), written to a temporary file and loaded.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "base/threads.h"
#include "coalesce/smap.h"
#include "output/jsonout.h"
#include "output/smap_json.h"
#include "output/viewport.h"
#include "trace/trace.h"
#include "unit.h"
#define RANDTRACE_SEED 88172645463325252ULL
#define RANDTRACE_WITH_TRACE
#include "randtrace.h"


/*
 * A trace in time order: nent entities, about n data, some at the same
 * time as the one before (zero-length intervals), tags on some, a
 * description and a few events.  Returns the loaded trace.
 */
static trace *
random_trace(uint32_t nent, uint32_t n, int tagged)
{
	char path[] = "/tmp/test_viewport_XXXXXX";
	FILE *f = randtrace_create(path, "test_viewport");
	uint64_t t = 0;
	uint32_t i;

	fprintf(f, "{\"start\": [1, 5], \"title\": \"rand\", \"states\": {"
	    "\"idle\": {\"value\": 0}, \"run\": {\"value\": 1}, "
	    "\"io\": {\"value\": 2}, \"wait\": {\"value\": 3}}}\n");
	fprintf(f, "{\"entity\": \"e1\", \"description\": \"first\"}\n");
	for (i = 0; i < n; i++) {
		uint64_t gap = below(10) == 0 ? 0 : 1 + below(below(4) == 0 ?
		    5000 : 60);
		/*
		 * One draw per statement: the order of a call's arguments is
		 * unspecified, and gcc and clang would draw different traces.
		 */
		uint32_t e = (uint32_t)below(nent);
		uint32_t state = (uint32_t)below(4);

		t += gap;
		fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": \"e%u\", "
		    "\"state\": %u", t, e, state);
		if (tagged && below(3) == 0)
			fprintf(f, ", \"tag\": \"g%u\"", (uint32_t)below(7));
		fputs("}\n", f);
		if (below(50) == 0)
			fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": "
			    "\"e0\", \"event\": \"ping\"}\n", t);
	}
	return (randtrace_load(f, path));
}

static char *
capture_viewport(const viewport_panel *p, size_t n, const viewport_query *q,
    int *exact)
{
	viewport *v = viewport_compute(p, n, q);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	viewport_write_json(out, v, NULL);
	fclose(out);
	if (exact != NULL)
		*exact = viewport_exact(v);
	viewport_free(v);
	return (buf);
}

/* Takes out every `, "n": 1` (an exact answer has no other). */
static void
strip_counts(char *s)
{
	static const char pat[] = ", \"n\": 1}";
	char *w = s, *r = s;

	while (*r != '\0') {
		if (strncmp(r, pat, sizeof (pat) - 1) == 0) {
			*w++ = '}';
			r += sizeof (pat) - 1;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/*
 * The reference: every entity in name order through the coalescer with a
 * budget it never reaches, over [b, e).  Fills the order it shows.
 */
static char *
capture_classic(const trace *d, uint64_t b, uint64_t e, uint32_t **order,
    uint32_t *norder)
{
	uint32_t n = catalog_nentities(d->cat), i;
	uint32_t *all = calloc(n + 1, sizeof (uint32_t));
	smap m;
	sm_error err;
	size_t zero = 0, len = 0;
	char *buf = NULL;
	FILE *out;

	for (i = 0; i < n; i++)
		all[i] = i;
	smap_from_trace(&m, d, all, n, 1000000000, b, e);
	smap_sort(&m, NULL, &err);
	out = open_memstream(&buf, &len);
	smap_json_write(out, &m, 1, &zero);
	fclose(out);
	*order = calloc(m.nentities + 1, sizeof (uint32_t));
	memcpy(*order, m.order, m.nentities * sizeof (uint32_t));
	*norder = m.nentities;
	smap_free(&m);
	free(all);
	return (buf);
}

static void
test_exact(void)
{
	int round, bad = 0, tried = 0, all_exact = 1;

	for (round = 0; round < 12; round++) {
		uint32_t nent = 1 + (uint32_t)below(9);
		trace *d = random_trace(nent, (uint32_t)below(3000), round % 2);
		int w;

		for (w = 0; w < 40; w++) {
			uint64_t span = d->end + 100, b, e;
			uint32_t *order, norder;
			viewport_panel p;
			viewport_query q;
			char *want, *got;
			int exact;

			/* Windows anywhere, at transitions, past the end. */
			b = below(4) == 0 ? 0 : below(span);
			e = b + 1 + below(below(2) ? span : 50);
			if (w == 0) {
				b = 0;
				e = d->end;
			}
			want = capture_classic(d, b, e, &order, &norder);
			memset(&p, 0, sizeof (p));
			p.t = d;
			p.order = order;
			p.n = norder;
			p.offset = 0;
			q.begin = b;
			q.end = e;
			q.width = 1 + (unsigned)below(2000);
			q.budget = 1000000000;
			q.entities = NULL;
			got = capture_viewport(&p, 1, &q, &exact);
			all_exact &= exact;
			strip_counts(got);
			tried++;
			if (strcmp(got, want) != 0 && bad++ == 0)
				printf("first difference: window [%" PRIu64
				    ", %" PRIu64 ") of round %d\n--- want\n%s"
				    "--- got\n%s", b, e, round, want, got);
			free(want);
			free(got);
			free(order);
		}
		trace_free(d);
	}
	CHECK("viewport: an exact answer is the coalescer's rectangles, byte "
	    "for byte", bad == 0 && tried == 480);
	CHECK("viewport: a budget above the transitions is exact", all_exact);
}

/* ---- binned answers ---- */

typedef struct totals {
	uint64_t *state;	/* per state */
	uint64_t *tag;		/* per tag id */
	uint64_t intervals;	/* with time, in the window */
} totals;

static uint64_t
number(const json_value *v)
{
	uint64_t n = 0;

	if (v == NULL || !json_number_u64(v, &n))
		return (UINT64_MAX);
	return (n);
}

/*
 * The transitions viewport counts for an entity: from the one holding lo
 * (or the first) up to the last before hi, empty ones included.
 */
static uint64_t
window_transitions(const trace *d, uint32_t e, uint64_t lo, uint64_t hi)
{
	const uint64_t *t = store_times(d->st, e);
	size_t cnt = store_count(d->st, e), a = 0, z = 0;

	if (lo >= hi)
		return (0);
	while (a < cnt && t[a] <= lo)
		a++;
	a = a > 0 ? a - 1 : 0;
	while (z < cnt && t[z] < hi)
		z++;
	return (z > a ? z - a : 0);
}

/* Whether [a, b) is an interval of the entity, clipped to [lo, hi). */
static int
is_interval(const trace *d, uint32_t e, uint64_t a, uint64_t b,
    uint64_t lo, uint64_t hi, uint32_t state)
{
	store_interval iv;

	if (!store_state_at(d->st, e, a, &iv))
		return (0);
	if (iv.start < lo)
		iv.start = lo;
	if (iv.end > hi)
		iv.end = hi;
	return (iv.start == a && iv.end == b && iv.state == state);
}

/*
 * Checks one entity's rectangles against the store over [lo, hi).
 * Returns NULL or what is wrong.
 */
static const char *
check_entity(const trace *d, uint32_t e, const json_value *rects,
    uint64_t lo, uint64_t hi, uint64_t cap, int *merged)
{
	uint32_t ns = d->cat->nstates, nt = catalog_ntags(d->cat), s;
	uint64_t *want = calloc(ns + 1, sizeof (uint64_t));
	uint64_t *got = calloc(ns + 1, sizeof (uint64_t));
	uint64_t *want_tag = calloc(nt + 1, sizeof (uint64_t));
	uint64_t *got_tag = calloc(nt + 1, sizeof (uint64_t));
	uint64_t intervals = 0, counted = 0, at = 0, transitions = 0;
	const char *why = NULL;
	const json_value *r;
	store_iter it;
	store_interval iv;
	int first = 1;

	store_time_in(d->st, e, lo, hi, want);
	store_iter_init(&it, d->st, &e, 1, lo, hi);
	while (store_iter_next(&it, &iv)) {
		intervals++;
		if (iv.tag != STORE_NONE)
			want_tag[iv.tag] += iv.end - iv.start;
		if (first)
			at = iv.start;
		first = 0;
	}
	transitions = window_transitions(d, e, lo, hi);
	for (r = rects->child; r != NULL && why == NULL; r = r->next) {
		uint64_t start = number(json_object_get(r, "start"));
		uint64_t dur = number(json_object_get(r, "duration"));
		uint64_t n = number(json_object_get(r, "n"));
		const json_value *st = json_object_get(r, "states"), *x;
		uint64_t sum = 0;
		uint32_t only = 0;

		if (start != at || dur == 0 || n == 0 || n == UINT64_MAX)
			why = "rectangles do not tile the window";
		at = start + dur;
		counted += n;
		for (x = st->child; x != NULL; x = x->next) {
			char name[64];
			int64_t v;

			snprintf(name, sizeof (name), "%.*s", (int)x->key_len,
			    x->key);
			v = catalog_state_by_name(d->cat, name, strlen(name));
			got[v] += number(x);
			sum += number(x);
			only = (uint32_t)v;
		}
		for (x = json_object_get(r, "tags")->child; x != NULL;
		    x = x->next)
			got_tag[strtoul(x->key, NULL, 10)] += number(x);
		if (sum != dur)
			why = "a rectangle's states do not fill it";
		if (n == 1 && (st->len != 1 ||
		    !is_interval(d, e, start, start + dur, lo, hi, only)))
			why = "a rectangle of one transition is not one";
		if (n > 1)
			*merged = 1;
		if (n > 1 && transitions <= cap)
			why = "an entity within the cap was merged";
	}
	if (why == NULL && !first && at != hi)
		why = "the rectangles stop before the window's end";
	if (why == NULL && counted != intervals)
		why = "the rectangles' n do not add up to the transitions";
	for (s = 0; why == NULL && s < ns; s++)
		if (got[s] != want[s])
			why = "time in a state differs from store_time_in";
	for (s = 0; why == NULL && s < nt; s++)
		if (got_tag[s] != want_tag[s])
			why = "time in a tag differs from the store's";
	free(want);
	free(got);
	free(want_tag);
	free(got_tag);
	return (why);
}

static void
test_binned(void)
{
	int round, bad = 0, tried = 0, merged = 0, bounded = 1;

	for (round = 0; round < 10; round++) {
		uint32_t nent = 1 + (uint32_t)below(12);
		trace *d = random_trace(nent, 1000 + (uint32_t)below(5000),
		    round % 2);
		uint32_t n = catalog_nentities(d->cat), i;
		uint32_t *order = calloc(n + 1, sizeof (uint32_t));
		int w;

		for (i = 0; i < n; i++)
			order[i] = i;
		for (w = 0; w < 30; w++) {
			uint64_t b = below(d->end), e;
			viewport_panel p = { d, order, n, 0, NULL };
			viewport_query q;
			viewport *v;
			json_arena *arena = json_arena_new();
			json_error jerr;
			const json_value *root, *ents, *x;
			char *buf = NULL;
			size_t len = 0;
			FILE *out;
			uint64_t lo, hi, cap, rects = 0;
			uint32_t k = 0;

			e = b + 1 + below(d->end - b + 10);
			if (w < 3)
				b = 0;
			q.begin = b;
			q.end = e;
			q.width = 1 + (unsigned)below(300);
			q.budget = 1 + below(200);
			q.entities = NULL;
			v = viewport_compute(&p, 1, &q);
			out = open_memstream(&buf, &len);
			viewport_write_json(out, v, "\"x\": 1");
			fclose(out);
			root = json_parse_document(arena, buf, len, &jerr);
			lo = b;
			hi = e < d->end ? e : d->end;
			/* The cap viewport used: recomputed by its rule. */
			cap = UINT64_MAX;
			if (!viewport_exact(v)) {
				uint64_t *cnt = calloc(n + 1, sizeof (uint64_t));
				uint64_t c, most = 0;
				uint32_t j;

				for (j = 0; j < n; j++) {
					cnt[j] = window_transitions(d, j, lo,
					    hi);
					if (cnt[j] > most)
						most = cnt[j];
				}
				for (c = 0; c <= most; c++) {
					uint64_t sum = 0;

					for (j = 0; j < n; j++)
						sum += cnt[j] < c ? cnt[j] : c;
					if (sum > q.budget)
						break;
					cap = c;
				}
				free(cnt);
			}
			tried++;
			if (root == NULL) {
				if (bad++ == 0)
					printf("unparsable answer: %s\n",
					    jerr.message);
			} else {
				ents = json_object_get(json_object_get(root,
				    "statemaps")->child, "entities");
				for (x = ents->child; x != NULL; x = x->next) {
					const json_value *rs =
					    json_object_get(x, "rects");
					const char *why = check_entity(d,
					    order[k++], rs, lo, hi, cap,
					    &merged);

					rects += rs->len;
					if (why != NULL && bad++ == 0)
						printf("round %d window [%"
						    PRIu64 ", %" PRIu64
						    ") budget %" PRIu64
						    " width %u entity %u: %s\n",
						    round, b, e, q.budget,
						    q.width, k - 1, why);
				}
				if (rects != viewport_rects(v) ||
				    rects > 2 * q.budget + 2 * n)
					bounded = 0;
			}
			json_arena_free(arena);
			free(buf);
			viewport_free(v);
		}
		free(order);
		trace_free(d);
	}
	CHECK("viewport: binned answers keep each entity's time per state and "
	    "tag, tile the window and count their transitions",
	    bad == 0 && tried == 300);
	CHECK("viewport: binned answers merge", merged);
	CHECK("viewport: about the budget of rectangles", bounded);
}

/* A pixel-wide budget: every column one rectangle, long states exact. */
static void
test_columns(void)
{
	trace *d = random_trace(1, 20000, 0);
	uint32_t e0 = intern_find(d->cat->entities, "e0", 2);
	viewport_panel p = { d, &e0, 1, 0, NULL };
	viewport_query q = { 0, 0, 100, 100, NULL };
	viewport *v;

	q.end = d->end;
	v = viewport_compute(&p, 1, &q);
	CHECK("viewport: 20000 transitions over 100 columns are binned",
	    !viewport_exact(v) && viewport_transitions(v) > 15000);
	CHECK("viewport: into about 100 rectangles",
	    viewport_rects(v) >= 50 && viewport_rects(v) <= 200);
	viewport_free(v);
	q.budget = 100000;
	v = viewport_compute(&p, 1, &q);
	CHECK("viewport: and exact when the budget allows",
	    viewport_exact(v) && viewport_rects(v) > 15000);
	viewport_free(v);
	trace_free(d);
}

/* Stacked traces: the window moves by the difference of their starts. */
static void
test_stacked(void)
{
	trace *a = random_trace(3, 500, 0), *b = random_trace(3, 500, 1);
	uint32_t ids[3] = { 0, 1, 2 };
	viewport_panel p[2] = { { a, ids, 3, 0, NULL },
	    { b, ids, 3, 100, NULL } };
	viewport_query q = { 150, 400, 50, 1000000, NULL };
	char *got = capture_viewport(p, 2, &q, NULL);

	CHECK("viewport: the second of two stacked traces begins at 50",
	    strstr(got, "\"begin\": 150,") != NULL &&
	    strstr(got, "\"begin\": 50,") != NULL);
	free(got);
	q.begin = 0;
	q.end = 60;
	got = capture_viewport(p, 2, &q, NULL);
	CHECK("viewport: a window before a stacked trace shows none of it",
	    strstr(got, "\"begin\": -100, \"end\": 0,") != NULL);
	free(got);
	trace_free(a);
	trace_free(b);
}

/* Only the entities the regex matches. */
static void
test_filter(void)
{
	trace *d = random_trace(12, 2000, 1);
	uint32_t n = catalog_nentities(d->cat), i;
	uint32_t *order = calloc(n + 1, sizeof (uint32_t));
	viewport_panel p;
	viewport_query q = { 0, 0, 100, 50, NULL };
	regex_t re;
	char *got;

	for (i = 0; i < n; i++)
		order[i] = i;
	memset(&p, 0, sizeof (p));
	p.t = d;
	p.order = order;
	p.n = n;
	p.offset = 0;
	q.end = d->end;
	regcomp(&re, "^e1[01]?$", REG_EXTENDED | REG_NOSUB);
	q.entities = &re;
	got = capture_viewport(&p, 1, &q, NULL);
	CHECK("viewport: entities=REGEX keeps only those",
	    strstr(got, "\"name\": \"e1\"") != NULL &&
	    strstr(got, "\"name\": \"e10\"") != NULL &&
	    strstr(got, "\"name\": \"e2\"") == NULL);
	free(got);
	regfree(&re);
	free(order);
	trace_free(d);
}

/* The same answer on one thread as on many. */
static void
test_to_smaps(void)
{
	trace *d = random_trace(5, 3000, 1);
	uint32_t ids[5] = { 0, 1, 2, 3, 4 };
	viewport_panel p = { d, ids, 5, 0, NULL };
	viewport_query q = { 10, 0, 200, 300, NULL };
	viewport *v;
	smap m;
	size_t zero = 0, len = 0;
	char *buf = NULL, *got;
	FILE *out;

	q.end = d->end - 10;
	v = viewport_compute(&p, 1, &q);
	viewport_to_smaps(v, &m);
	out = open_memstream(&buf, &len);
	smap_json_write(out, &m, 1, &zero);
	fclose(out);
	viewport_free(v);
	smap_free(&m);
	got = capture_viewport(&p, 1, &q, NULL);
	/* Without "n", the smaps write the same document. */
	{
		char *w = got, *r = got;

		while (*r != '\0') {
			if (strncmp(r, ", \"n\": ", 7) == 0) {
				r += 7;
				while (*r >= '0' && *r <= '9')
					r++;
			} else {
				*w++ = *r++;
			}
		}
		*w = '\0';
	}
	CHECK("viewport: the statemaps it makes for the SVG hold the same "
	    "rectangles", strcmp(buf, got) == 0);
	free(buf);
	free(got);
	trace_free(d);
}

/* ---- value and nested entities ---- */

/*
 * What the test wrote: each datum of "v" (numbers) and "w" (strings), at
 * the same times, and each stack of "n" after one.
 */
typedef struct kind_model {
	uint64_t vt[1200];	/* value times */
	int vkind[2][1200];	/* 0 null, 1 number, 2 string */
	double vnum[1200];
	int vstr[1200];		/* "s0".."s3" */
	size_t nv;
	uint64_t st[1200];	/* stack times */
	int depth[1200];
	int frames[1200][8];	/* bottom first: state numbers */
	size_t ns;
	uint64_t end;
} kind_model;

/*
 * A trace of value entities "v" (numbers, nulls) and "w" (strings,
 * nulls), a nested one
 * "n" (pushes, pops, plain states that replace the stack) and a plain "p",
 * n records of each, written and recorded in m; returns it loaded.
 */
static trace *
kinds_trace(kind_model *m, size_t n)
{
	char path[] = "/tmp/test_viewport_XXXXXX";
	FILE *f = randtrace_create(path, "test_viewport");
	uint64_t t = 0;
	int stack[8], depth = 0, k;
	size_t i;

	memset(m, 0, sizeof (*m));
	fprintf(f, "{\"start\": [0, 0], \"title\": \"kinds\", \"states\": {"
	    "\"idle\": {\"value\": 0}, \"run\": {\"value\": 1}, "
	    "\"io\": {\"value\": 2}}}\n");
	for (i = 0; i < n; i++) {
		int op = (int)below(4);

		t += below(5) == 0 ? 0 : 1 + below(40);
		fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": \"p\", "
		    "\"state\": %d}\n", t, (int)below(3));
		m->vt[m->nv] = t;
		m->vkind[0][m->nv] = below(6) == 0 ? 0 : 1;
		m->vkind[1][m->nv] = below(6) == 0 ? 0 : 2;
		m->vnum[m->nv] = (double)below(2000) / 4 - 100;
		m->vstr[m->nv] = (int)below(4);
		if (m->vkind[0][m->nv] == 0)
			fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": "
			    "\"v\", \"value\": null}\n", t);
		else
			fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": "
			    "\"v\", \"value\": %.2f}\n", t, m->vnum[m->nv]);
		if (m->vkind[1][m->nv] == 0)
			fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": "
			    "\"w\", \"value\": null}\n", t);
		else
			fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": "
			    "\"w\", \"value\": \"s%d\"}\n", t, m->vstr[m->nv]);
		m->nv++;
		t += below(3) == 0 ? 0 : 1 + below(20);
		if (depth == 0 || (op == 0 && depth == 1) || below(10) == 0) {
			stack[0] = (int)below(3);
			depth = 1;
			fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": "
			    "\"n\", \"state\": %d}\n", t, stack[0]);
		} else if (op == 0 || depth == 8) {
			depth--;
			fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": "
			    "\"n\", \"pop\": %d}\n", t, stack[depth]);
		} else {
			stack[depth++] = (int)below(3);
			fprintf(f, "{\"time\": \"%" PRIu64 "\", \"entity\": "
			    "\"n\", \"push\": %d}\n", t, stack[depth - 1]);
		}
		m->st[m->ns] = t;
		m->depth[m->ns] = depth;
		for (k = 0; k < depth; k++)
			m->frames[m->ns][k] = stack[k];
		m->ns++;
	}
	m->end = t;
	return (randtrace_load(f, path));
}

/* Overlap of [a, b) and [c, d). */
static uint64_t
overlap(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t lo = a > c ? a : c, hi = b < d ? b : d;

	return (hi > lo ? hi - lo : 0);
}

static int
near(double a, double b)
{
	double d = a > b ? a - b : b - a;

	return (d <= 1e-9 * (1 + (a > 0 ? a : -a)));
}

/* A value rectangle against the values written.  NULL or what is wrong. */
static const char *
check_value_rect(const kind_model *m, int series, const json_value *r)
{
	const int *kind = m->vkind[series];
	uint64_t a = number(json_object_get(r, "start"));
	uint64_t b = a + number(json_object_get(r, "duration"));
	uint64_t numtime = 0, str[4] = { 0 };
	double lo = 0, hi = 0, sum = 0;
	const json_value *x, *ss = json_object_get(r, "strings");
	size_t i;

	for (i = 0; i < m->nv; i++) {
		uint64_t e = i + 1 < m->nv ? m->vt[i + 1] : m->end;
		uint64_t o = overlap(a, b, m->vt[i], e);

		if (o == 0)
			continue;
		if (kind[i] == 2)
			str[m->vstr[i]] += o;
		if (kind[i] != 1)
			continue;
		if (numtime == 0 || m->vnum[i] < lo)
			lo = m->vnum[i];
		if (numtime == 0 || m->vnum[i] > hi)
			hi = m->vnum[i];
		numtime += o;
		sum += m->vnum[i] * (double)o;
	}
	if (numtime == 0 && json_object_get(r, "min") != NULL)
		return ("min with no number");
	if (numtime > 0 && (json_object_get(r, "min") == NULL ||
	    json_number_double(json_object_get(r, "min")) != lo ||
	    json_number_double(json_object_get(r, "max")) != hi ||
	    !near(json_number_double(json_object_get(r, "mean")),
	    sum / (double)numtime)))
		return ("min, max or mean");
	if (json_object_get(r, "n") == NULL)
		return ("no n");
	for (i = 0; i < 4; i++) {
		char name[3] = { 's', (char)('0' + i), '\0' };
		const json_value *got = ss != NULL ? json_object_get(ss, name) :
		    NULL;

		if (str[i] != (got != NULL ? number(got) : 0))
			return ("time per string");
	}
	for (x = ss != NULL ? ss->child : NULL; x != NULL; x = x->next)
		if (number(x) == 0)
			return ("a string with no time");
	return (NULL);
}

/* A depth row's rectangle against the stacks written. */
static const char *
check_depth_rect(const kind_model *m, int depth, const json_value *r,
    int exact)
{
	uint64_t a = number(json_object_get(r, "start"));
	uint64_t b = a + number(json_object_get(r, "duration"));
	uint64_t want[3] = { 0 };
	const json_value *ss = json_object_get(r, "states");
	static const char *names[3] = { "idle", "run", "io" };
	size_t i;
	int s, k = 0;

	for (i = 0; i < m->ns; i++) {
		uint64_t e = i + 1 < m->ns ? m->st[i + 1] : m->end;

		if (m->depth[i] >= depth)
			want[m->frames[i][depth - 1]] += overlap(a, b,
			    m->st[i], e);
	}
	for (s = 0; s < 3; s++) {
		const json_value *got = json_object_get(ss, names[s]);

		if (want[s] != (got != NULL ? number(got) : 0))
			return ("time per state");
		k += want[s] > 0;
	}
	if (k == 0)
		return ("all absent");
	if (exact && (k != 1 || want[0] + want[1] + want[2] != b - a))
		return ("not one state throughout");
	return (NULL);
}

/*
 * Value and nested entities in live answers: each value rectangle holds
 * the min, max, mean and time per string of the values it covers, the
 * rectangles cover the window from the first value; each depth row's
 * rectangles hold the time of that depth's frames, and at a width with
 * room for every change each is one frame; the rows are as many as the
 * deepest stack with time in the window (a frame pushed and popped at
 * one time has none).
 */
static void
test_kinds(void)
{
	int round, bad = 0, tried = 0, merged = 0;

	for (round = 0; round < 6; round++) {
		static kind_model m;
		trace *d = kinds_trace(&m, 200 + (size_t)below(900));
		uint32_t n = catalog_nentities(d->cat), i;
		uint32_t *order = calloc(n + 1, sizeof (uint32_t));
		int w;

		for (i = 0; i < n; i++)
			order[i] = i;
		for (w = 0; w < 20; w++) {
			viewport_panel p = { d, order, n, 0, NULL };
			viewport_query q;
			json_arena *arena = json_arena_new();
			json_error jerr;
			const json_value *root, *x;
			char *buf;
			uint64_t lo = w < 2 ? 0 : below(d->end), hi;
			int exact = w % 2 == 0, maxd = 0;
			const char *why = NULL;
			size_t k;

			hi = lo + 1 + below(d->end - lo + 10);
			q.begin = lo;
			q.end = hi;
			q.width = exact ? 100000 : 1 + (unsigned)below(40);
			q.budget = 1 + below(300);
			q.entities = NULL;
			if (hi > d->end)
				hi = d->end;
			buf = capture_viewport(&p, 1, &q, NULL);
			root = json_parse_document(arena, buf, strlen(buf),
			    &jerr);
			for (k = 0; k < m.ns; k++) {
				uint64_t e = k + 1 < m.ns ? m.st[k + 1] : m.end;

				if (overlap(lo, hi, m.st[k], e) > 0 &&
				    m.depth[k] > maxd)
					maxd = m.depth[k];
			}
			tried++;
			x = root == NULL ? NULL : json_object_get(json_object_get(
			    root, "statemaps")->child, "entities")->child;
			if (root == NULL)
				why = "unparsable";
			for (; x != NULL && why == NULL; x = x->next) {
				const json_value *name = json_object_get(x, "name");
				const json_value *rs = json_object_get(x, "rects");
				const json_value *r, *ds;
				uint64_t at = lo < m.vt[0] ? m.vt[0] : lo;
				int depth = 0;

				/* (None in a window before the first value.) */
				if (at > hi)
					at = hi;

				if (name->str[0] == 'v' || name->str[0] == 'w') {
					if (rs->len > 0 && number(json_object_get(
					    rs->child, "n")) > 1)
						merged++;
					for (r = rs->child; r != NULL && why ==
					    NULL; r = r->next) {
						if (number(json_object_get(r,
						    "start")) != at)
							why = "a gap";
						at += number(json_object_get(r,
						    "duration"));
						if (why == NULL)
							why = check_value_rect(&m,
							    name->str[0] == 'w', r);
					}
					if (why == NULL && at != hi && hi > lo)
						why = "short of the window";
				}
				if (name->str[0] != 'n')
					continue;
				/*
				 * A row per depth with time in the window
				 * (none before the first stack).
				 */
				ds = json_object_get(x, "depths");
				if (maxd == 0 ? ds != NULL : ds == NULL ||
				    (int)ds->len != maxd) {
					why = "depths";
					break;
				}
				for (ds = ds->child; ds != NULL && why == NULL;
				    ds = ds->next) {
					depth++;
					for (r = ds->child; r != NULL &&
					    why == NULL; r = r->next)
						why = check_depth_rect(&m,
						    depth, r, exact);
				}
			}
			if (why != NULL && bad++ == 0)
				printf("round %d window [%" PRIu64 ", %" PRIu64
				    ") width %u: %s\n", round, lo, hi, q.width,
				    why);
			json_arena_free(arena);
			free(buf);
		}
		free(order);
		trace_free(d);
	}
	CHECK("kinds: value rectangles and depth rows as the data say",
	    bad == 0 && tried == 120);
	CHECK("kinds: some value rectangles merged", merged > 0);
}

/* How many depth rows entity "n" has in an answer over [b, e); -1: none. */
static int
depth_rows(const trace *d, uint64_t b, uint64_t e)
{
	uint32_t ids[2] = { 0, 1 };
	viewport_panel p = { d, ids, 2, 0, NULL };
	viewport_query q = { 0, 0, 1000, 1000, NULL };
	json_arena *arena = json_arena_new();
	json_error jerr;
	const json_value *root, *x;
	char *buf;
	int rows = -1;

	q.begin = b;
	q.end = e;
	buf = capture_viewport(&p, 1, &q, NULL);
	root = json_parse_document(arena, buf, strlen(buf), &jerr);
	x = root == NULL ? NULL : json_object_get(json_object_get(root,
	    "statemaps")->child, "entities")->child;
	for (; x != NULL; x = x->next) {
		const json_value *name = json_object_get(x, "name");
		const json_value *ds = json_object_get(x, "depths");

		if (name->len == 1 && name->str[0] == 'n' && ds != NULL)
			rows = (int)ds->len;
	}
	json_arena_free(arena);
	free(buf);
	return (rows);
}

/*
 * A frame pushed and popped at one time reaches a depth for no time: no
 * row for it, where there was an empty one (the kinds test found it on
 * random stacks, which often change twice at one time).
 */
static void
test_zero_length_frame(void)
{
	char path[] = "/tmp/test_viewport_XXXXXX";
	FILE *f = randtrace_create(path, "test_viewport");
	trace *d;

	fprintf(f, "{\"start\": [0, 0], \"title\": \"frames\", \"states\": {"
	    "\"idle\": {\"value\": 0}, \"run\": {\"value\": 1}, "
	    "\"io\": {\"value\": 2}}}\n"
	    "{\"time\": \"10\", \"entity\": \"n\", \"state\": 2}\n"
	    "{\"time\": \"20\", \"entity\": \"n\", \"push\": 1}\n"
	    "{\"time\": \"30\", \"entity\": \"n\", \"push\": 0}\n"
	    "{\"time\": \"30\", \"entity\": \"n\", \"pop\": 0}\n"
	    "{\"time\": \"60\", \"entity\": \"n\", \"pop\": 1}\n"
	    "{\"time\": \"70\", \"entity\": \"n\", \"push\": 0}\n"
	    "{\"time\": \"80\", \"entity\": \"n\", \"push\": 2}\n"
	    "{\"time\": \"90\", \"entity\": \"n\", \"state\": 1}\n"
	    "{\"time\": \"100\", \"entity\": \"p\", \"state\": 1}\n");
	d = randtrace_load(f, path);
	CHECK_INT("kinds: a frame of no time makes no depth row",
	    depth_rows(d, 25, 35), 2);
	CHECK_INT("kinds: whatever the window around it",
	    depth_rows(d, 15, 65), 2);
	CHECK_INT("kinds: one with time does", depth_rows(d, 0, 100), 3);
	CHECK_INT("kinds: a window before the first stack has none",
	    depth_rows(d, 0, 5), -1);
	trace_free(d);
}

/*
 * A panel's matched messages made once (as the live server does) give the
 * answer that finding them for the answer gives: each send's "received"
 * names where and when its receives were logged, in every window.
 */
static void
test_received_once(void)
{
	char path[] = "/tmp/test_viewport_XXXXXX";
	FILE *f = randtrace_create(path, "test_viewport");
	uint32_t order[2] = { 0, 1 };
	viewport_panel p;
	viewport_query q;
	trace *d;
	char *want, *got;
	int same = 1, named = 0, k;

	fprintf(f, "{\"start\": [0, 0], \"title\": \"messages\", "
	    "\"states\": {\"idle\": {\"value\": 0}}}\n"
	    "{\"time\": \"0\", \"entity\": \"a\", \"state\": 0}\n"
	    "{\"time\": \"0\", \"entity\": \"b\", \"state\": 0}\n"
	    "{\"time\": \"10\", \"entity\": \"a\", \"event\": "
	    "\"send\", \"target\": \"b\", \"id\": \"m1\"}\n"
	    "{\"time\": \"25\", \"entity\": \"b\", \"event\": "
	    "\"receive\", \"id\": \"m1\"}\n"
	    "{\"time\": \"40\", \"entity\": \"b\", \"event\": "
	    "\"send\", \"target\": \"a\", \"id\": \"m2\"}\n"
	    "{\"time\": \"70\", \"entity\": \"a\", \"event\": "
	    "\"receive\", \"id\": \"m2\"}\n"
	    "{\"time\": \"100\", \"entity\": \"a\", \"state\": 0}\n");
	d = randtrace_load(f, path);
	memset(&p, 0, sizeof (p));
	p.t = d;
	p.order = order;
	p.n = 2;
	memset(&q, 0, sizeof (q));
	q.width = 100;
	q.budget = 1000;
	for (k = 0; k < 3; k++) {
		q.begin = k == 0 ? 0 : k == 1 ? 5 : 30;
		q.end = k == 2 ? 60 : 100;
		p.received = NULL;
		want = capture_viewport(&p, 1, &q, NULL);
		p.received = jsonout_received_new(d->cat);
		got = capture_viewport(&p, 1, &q, NULL);
		same &= want != NULL && got != NULL && strcmp(want, got) == 0;
		named += got != NULL && strstr(got, "\"received\": [{\"entity\": "
		    "\"b\", \"time\": 25}]") != NULL;
		jsonout_received_free((jsonout_received *)p.received);
		free(want);
		free(got);
	}
	CHECK("viewport: messages matched once, the same answers", same);
	CHECK_INT("viewport: a send in the window names its receive", named,
	    2);
	trace_free(d);
}

int
main(void)
{
	test_exact();
	test_binned();
	test_columns();
	test_stacked();
	test_filter();
	test_to_smaps();
	test_kinds();
	test_zero_length_frame();
	test_received_once();
	return (unit_exit());
}
