/*
 * Tests for src/coalesce/coalesce.c: hand-computed cases for each way a rectangle
 * can be merged, and properties (time is conserved exactly; the budget
 * holds) over random streams checked against the store.
 */
#include <stdlib.h>
#include <string.h>

#include "coalesce/coalesce.h"
#include "store/store.h"
#include "unit.h"

static coalesce_tag *tag_buf;
static size_t tag_cap;

/* coalesce_get, and the rectangle's tags (in tag_buf, freed by main). */
static const coalesce_tag *
get_with_tags(const coalesce *c, uint32_t r, coalesce_rect *x)
{
	coalesce_get(c, r, x);
	if (x->ntags > 0)
		coalesce_tags(c, r, &tag_buf, &tag_cap);
	return (tag_buf);
}

/*
 * A rectangle's time per state, dense (nstates entries); 0 if its states
 * are not ascending, distinct, of some time and below nstates, as
 * coalesce.h promises.
 */
static int
dense_times(const coalesce_rect *x, uint32_t nstates, uint64_t *out)
{
	size_t i;
	int ok = 1;

	memset(out, 0, nstates * sizeof (uint64_t));
	for (i = 0; i < x->nstates; i++) {
		if (x->states[i] >= nstates || x->times[i] == 0 ||
		    (i > 0 && x->states[i - 1] >= x->states[i])) {
			ok = 0;
			continue;
		}
		out[x->states[i]] = x->times[i];
	}
	return (ok);
}

/*
 * How many states a random stream has: mostly a few, now and then more;
 * and in a third of the streams, so few words of them kept densely that
 * they move to logs (coalesce_state.h), at once or on the way.
 */
static uint32_t
random_nstates(uint64_t draw)
{
	return (draw % 4 == 0 ? 9 + (uint32_t)(draw / 4 % 200) :
	    1 + (uint32_t)(draw / 4 % 6));
}

static void
random_dense_words(coalesce *c, uint32_t nstates, uint64_t draw)
{
	/* Room for up to 64 entities and rectangles. */
	if (draw % 3 == 0)
		coalesce_set_dense_words(c, (size_t)nstates *
		    (size_t)(draw / 3 % 64));
}

/* An entity's rectangles as "[start,end) state:ns ... tag#id:ns | ...". */
static const char *
rects(const coalesce *c, uint32_t entity, uint32_t nstates)
{
	static char buf[4096];
	size_t o = 0;
	uint32_t r;

	buf[0] = '\0';
	for (r = coalesce_first(c, entity); r != COALESCE_NONE;
	    r = coalesce_next(c, r)) {
		coalesce_rect x;
		const coalesce_tag *tags;
		size_t s, t;

		tags = get_with_tags(c, r, &x);
		o += (size_t)snprintf(buf + o, sizeof (buf) - o, "%s[%llu,%llu)",
		    o > 0 ? " | " : "", (unsigned long long)x.start,
		    (unsigned long long)(x.start + x.duration));
		for (s = 0; s < x.nstates; s++) {
			if (x.states[s] < nstates)
				o += (size_t)snprintf(buf + o, sizeof (buf) - o,
				    " %u:%llu", x.states[s],
				    (unsigned long long)x.times[s]);
		}
		for (t = 0; t < x.ntags; t++)
			o += (size_t)snprintf(buf + o, sizeof (buf) - o,
			    " #%u:%llu", tags[t].tag,
			    (unsigned long long)tags[t].time);
	}
	return (buf);
}

typedef struct datum {
	uint32_t entity;
	uint64_t time;
	uint32_t state, tag;
} datum;

#define NT	COALESCE_NO_TAG

static coalesce *
run(const datum *d, size_t n, uint32_t nstates, uint64_t budget,
    int64_t begin, int64_t end)
{
	coalesce *c = coalesce_new(nstates, budget, begin, end);
	size_t i;

	for (i = 0; i < n; i++)
		coalesce_datum(c, d[i].entity, d[i].time, d[i].state, d[i].tag);
	coalesce_finish(c, n > 0 ? d[n - 1].time : 0);
	return (c);
}

static void
test_merges(void)
{
	/* The lightest rectangle is last: its left neighbour absorbs it. */
	static const datum last[] = {
		{ 0, 0, 0, NT }, { 0, 10, 1, NT }, { 0, 30, 0, NT },
		{ 0, 35, 1, NT }, { 0, 100, 0, NT }
	};
	/* Middle victim, neighbours of equal length: it absorbs the right. */
	static const datum tie[] = {
		{ 0, 0, 0, NT }, { 0, 50, 1, NT }, { 0, 51, 0, NT },
		{ 0, 52, 1, NT }, { 0, 53, 0, NT }, { 0, 103, 1, NT },
		{ 0, 200, 0, NT }
	};
	/* Middle victim, shorter left neighbour: the left absorbs it. */
	static const datum left[] = {
		{ 0, 0, 0, NT }, { 0, 50, 1, NT }, { 0, 51, 0, NT },
		{ 0, 52, 1, NT }, { 0, 54, 0, NT }, { 0, 104, 1, NT }
	};
	coalesce *c;

	c = run(last, 5, 2, 3, 0, 0);
	CHECK_STR("coalesce last rectangle merges left, first absorbs right",
	    rects(c, 0, 2), "[0,35) 0:15 1:20 | [35,100) 1:65");
	CHECK_U64("coalesce size after merges", coalesce_size(c), 2);
	coalesce_free(c);

	c = run(tie, 7, 2, 5, 0, 0);
	CHECK_STR("coalesce equal neighbours: victim absorbs its right",
	    rects(c, 0, 2),
	    "[0,51) 0:50 1:1 | [51,53) 0:1 1:1 | [53,103) 0:50 | "
	    "[103,200) 1:97");
	coalesce_free(c);

	c = run(left, 6, 2, 5, 0, 0);
	CHECK_STR("coalesce shorter left neighbour absorbs the victim",
	    rects(c, 0, 2),
	    "[0,50) 0:50 | [50,52) 0:1 1:1 | [52,54) 1:2 | [54,104) 0:50");
	coalesce_free(c);
}

static void
test_single_and_ties(void)
{
	/*
	 * A's only rectangle is the lightest: it leaves the set, comes back
	 * when A gets a second one, and ties on weight go by start time.
	 * B's datum at 100 precedes A's at 20 in the file, so the trace
	 * ends at 20 and B gets no final rectangle beyond its [0,100).
	 */
	static const datum d[] = {
		{ 0, 0, 0, NT }, { 1, 0, 0, NT }, { 0, 10, 1, NT },
		{ 1, 100, 1, NT }, { 0, 20, 0, NT }
	};
	coalesce *c = run(d, 5, 2, 2, 0, 0);

	CHECK_STR("coalesce single rectangle entity, weight tie by start",
	    rects(c, 0, 2), "[0,20) 0:10 1:10");
	CHECK_STR("coalesce entity past the trace end gets no final",
	    rects(c, 1, 2), "[0,100) 0:100");
	CHECK_U64("coalesce set size excludes popped singles",
	    coalesce_size(c), 1);
	CHECK_U64("coalesce end is the last datum in file order",
	    coalesce_end(c), 20);
	coalesce_free(c);
}

static void
test_tie_by_start(void)
{
	/* [0,5) and [10,15) both weigh 10: the earlier one goes first. */
	static const datum d[] = {
		{ 0, 0, 0, NT }, { 0, 5, 1, NT }, { 0, 10, 0, NT },
		{ 0, 15, 1, NT }
	};
	coalesce *c = run(d, 4, 2, 3, 0, 0);

	CHECK_STR("coalesce tie on weight: earlier start merges first",
	    rects(c, 0, 2), "[0,10) 0:5 1:5 | [10,15) 0:5");
	coalesce_free(c);
}

static void
test_tie_by_entity(void)
{
	/* Equal weight and start: the lower entity number goes first. */
	static const datum d[] = {
		{ 0, 0, 0, NT }, { 1, 0, 0, NT }, { 0, 10, 1, NT },
		{ 1, 10, 1, NT }, { 0, 20, 0, NT }, { 1, 20, 0, NT },
	};
	coalesce *c = run(d, 6, 2, 4, 0, 0);

	/*
	 * After {1,20}: A has [0,10) w20 [10,20) w20, B the same; size 4:
	 * A's [0,10) goes first and absorbs [10,20); then size 3 < 4.
	 */
	CHECK_STR("coalesce tie on weight and start: entity 0 first",
	    rects(c, 0, 2), "[0,20) 0:10 1:10");
	CHECK_STR("coalesce tie: entity 1 untouched", rects(c, 1, 2),
	    "[0,10) 0:10 | [10,20) 1:10");
	coalesce_free(c);
}

static void
test_bounds(void)
{
	static const datum d[] = {
		{ 0, 0, 0, NT }, { 0, 10, 1, NT }, { 0, 20, 0, NT },
		{ 0, 30, 1, NT }, { 0, 40, 0, NT }
	};
	coalesce *c = run(d, 5, 2, 100, 15, 35);

	CHECK_STR("coalesce begin clips, end bounds the final rectangle",
	    rects(c, 0, 2), "[15,20) 1:5 | [20,30) 0:10 | [30,35) 1:5");
	CHECK_U64("coalesce end used is the end bound", coalesce_end(c), 35);
	coalesce_free(c);

	/* Negative end (a stacked file wholly after the window): nothing. */
	c = run(d, 5, 2, 100, -100, -50);
	CHECK_STR("coalesce negative end gives no rectangles", rects(c, 0, 2),
	    "");
	coalesce_free(c);

	/* A state held across the whole window becomes one rectangle. */
	{
		static const datum one[] = {
			{ 0, 0, 1, NT }, { 1, 5, 0, NT }, { 1, 100, 1, NT }
		};

		c = run(one, 3, 2, 100, 20, 60);
		CHECK_STR("coalesce state across the window", rects(c, 0, 2),
		    "[20,60) 1:40");
		coalesce_free(c);
	}
}

static void
test_tags(void)
{
	static const datum d[] = {
		{ 0, 0, 0, 3 }, { 0, 10, 1, NT }, { 0, 20, 0, 1 },
		{ 0, 30, 1, NT }
	};
	coalesce *c = run(d, 4, 2, 2, 0, 0);

	CHECK_STR("coalesce merges tag times, sorted by tag id",
	    rects(c, 0, 2), "[0,30) 0:20 1:10 #1:10 #3:10");
	coalesce_free(c);
}

/* ---- properties ---- */

static uint64_t rng_state = 12345;

static uint64_t
rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

static void
test_properties(void)
{
	int round, ok_time = 1, ok_budget = 1, ok_order = 1, ok_tags = 1;
	int ok_count = 1, ok_states = 1;

	for (round = 0; round < 200; round++) {
		uint32_t nent = 1 + rng() % 20, nstates = random_nstates(rng());
		uint64_t budget = 1 + rng() % 60, t = 0;
		size_t n = 1 + rng() % 2000, i, total = 0;
		coalesce *c = coalesce_new(nstates, budget, 0, 0);
		store *s = store_new(nstates);
		uint64_t *want = calloc(nstates, sizeof (uint64_t));
		uint64_t *got = calloc(nstates, sizeof (uint64_t));
		uint64_t *dense = calloc(nstates, sizeof (uint64_t));
		uint32_t e;

		random_dense_words(c, nstates, rng());
		for (i = 0; i < n; i++) {
			uint32_t ent = (uint32_t)(rng() % nent);
			uint32_t st = (uint32_t)(rng() % nstates);

			uint32_t tag = rng() % 3 == 0 ? NT :
			    (uint32_t)(rng() % 7);

			t += rng() % 4 == 0 ? 0 : rng() % 1000;
			coalesce_datum(c, ent, t, st, tag);
			store_append(s, ent, t, st, tag == NT ? STORE_NONE :
			    tag);
		}
		coalesce_finish(c, t);
		store_finish(s, 0, t);
		for (e = 0; e < coalesce_nentities(c); e++) {
			uint64_t prev_end = 0;
			uint32_t r, k;
			int first = 1;

			uint64_t tag_want[7] = { 0 }, tag_got[7] = { 0 };
			uint64_t count_want = 0, count_got = 0;
			store_iter it;
			store_interval iv;

			store_iter_init(&it, s, &e, 1, 0, t);
			while (store_iter_next(&it, &iv)) {
				if (iv.tag != STORE_NONE)
					tag_want[iv.tag] += iv.end - iv.start;
				count_want += iv.end > iv.start;
			}
			memset(want, 0, nstates * sizeof (uint64_t));
			memset(got, 0, nstates * sizeof (uint64_t));
			store_time_in(s, e, 0, t, want);
			for (r = coalesce_first(c, e); r != COALESCE_NONE;
			    r = coalesce_next(c, r)) {
				coalesce_rect x;
				uint64_t sum = 0;

				const coalesce_tag *tags = get_with_tags(c, r,
				    &x);

				count_got += x.count;
				if ((x.duration > 0) != (x.count > 0) ||
				    x.count > x.duration)
					ok_count = 0;
				if (!dense_times(&x, nstates, dense))
					ok_states = 0;
				for (k = 0; k < nstates; k++) {
					got[k] += dense[k];
					sum += dense[k];
				}
				for (k = 0; k < x.ntags; k++) {
					tag_got[tags[k].tag] += tags[k].time;
					if (k > 0 && tags[k - 1].tag >=
					    tags[k].tag)
						ok_tags = 0;
				}
				if (sum != x.duration ||
				    (!first && x.start != prev_end))
					ok_order = 0;
				prev_end = x.start + x.duration;
				first = 0;
				total++;
			}
			if (memcmp(want, got, nstates * sizeof (uint64_t)) != 0)
				ok_time = 0;
			if (memcmp(tag_want, tag_got, sizeof (tag_want)) != 0)
				ok_tags = 0;
			if (count_want != count_got)
				ok_count = 0;
		}
		/* Under budget, plus popped singles and final rectangles. */
		if (coalesce_size(c) >= budget ||
		    total > budget + 2 * (size_t)nent)
			ok_budget = 0;
		free(want);
		free(got);
		free(dense);
		coalesce_free(c);
		store_free(s);
	}
	CHECK("coalesce property: time per state per entity is conserved",
	    ok_time);
	CHECK("coalesce property: a rectangle's states ascend, each with "
	    "time", ok_states);
	CHECK("coalesce property: rectangles tile time, states sum to "
	    "duration", ok_order);
	CHECK("coalesce property: rectangle count within the budget",
	    ok_budget);
	CHECK("coalesce property: time per tag is conserved, tags sorted",
	    ok_tags);
	CHECK("coalesce property: rectangles count the intervals with time "
	    "they stand for, each once", ok_count);
}

/* ---- against a model written from the specification ---- */

/*
 * The algorithm as DESIGN.md states it, with nothing clever: every
 * rectangle is made (none merged on arrival), the set is a flag per
 * rectangle and its smallest is found by looking at every one with its
 * weight computed afresh, tags are a dense array per rectangle.  Slots
 * are reused last freed first, as coalesce.c does, since the slot breaks
 * the ties that only zero-length rectangles can reach.
 */
#define MODEL_TAGS	300

typedef struct model_rect {
	uint64_t start, duration, count;
	uint32_t prev, next, entity;
	int in_set;
	uint64_t *states, *tags;
	unsigned char *has_tag;	/* even zero-length data list their tag */
} model_rect;

typedef struct model_entity {
	uint32_t first, last, nrects;
	int has_state;
	uint64_t start;
	uint32_t state, tag;
} model_entity;

typedef struct model {
	uint32_t nstates;
	uint64_t budget;
	int64_t begin, end;
	model_rect *r;
	uint32_t nr, free_list;
	model_entity *e;
	uint32_t ne;
	uint64_t *dense;	/* scratch: a rectangle's times, nstates */
} model;

static int
model_after(uint64_t time, int64_t bound)
{
	return (bound < 0 || time > (uint64_t)bound);
}

static uint64_t
model_weight(const model *m, uint32_t i)
{
	const model_rect *x = &m->r[i];

	return (x->duration +
	    (x->prev != COALESCE_NONE ? m->r[x->prev].duration : 0) +
	    (x->next != COALESCE_NONE ? m->r[x->next].duration : 0));
}

static uint32_t
model_smallest(const model *m, uint64_t *size)
{
	uint32_t i, best = COALESCE_NONE;
	uint64_t bw = 0;

	*size = 0;
	for (i = 0; i < m->nr; i++) {
		const model_rect *x = &m->r[i], *b;
		uint64_t w;

		if (!x->in_set)
			continue;
		(*size)++;
		w = model_weight(m, i);
		/* Ascending slots: a full tie keeps the lower one. */
		if (best != COALESCE_NONE) {
			b = &m->r[best];
			if (w != bw ? w > bw : x->start != b->start ?
			    x->start > b->start : x->entity >= b->entity)
				continue;
		}
		best = i;
		bw = w;
	}
	return (best);
}

static uint32_t
model_append(model *m, uint32_t id, uint64_t end)
{
	model_entity *e = &m->e[id];
	model_rect *x;
	uint32_t i;

	if (m->free_list != COALESCE_NONE) {
		i = m->free_list;
		m->free_list = m->r[i].next;
	} else {
		i = m->nr++;
		m->r = realloc(m->r, m->nr * sizeof (model_rect));
		m->r[i].states = malloc(m->nstates * sizeof (uint64_t));
		m->r[i].tags = malloc(MODEL_TAGS * sizeof (uint64_t));
		m->r[i].has_tag = malloc(MODEL_TAGS);
	}
	x = &m->r[i];
	memset(x->states, 0, m->nstates * sizeof (uint64_t));
	memset(x->tags, 0, MODEL_TAGS * sizeof (uint64_t));
	memset(x->has_tag, 0, MODEL_TAGS);
	x->start = e->start;
	x->duration = end - e->start;
	x->count = x->duration > 0;
	x->entity = id;
	x->prev = e->last;
	x->next = COALESCE_NONE;
	x->in_set = 0;
	x->states[e->state] = x->duration;
	if (e->tag != NT) {
		x->tags[e->tag] = x->duration;
		x->has_tag[e->tag] = 1;
	}
	if (e->last == COALESCE_NONE)
		e->first = i;
	else
		m->r[e->last].next = i;
	e->last = i;
	e->nrects++;
	return (i);
}

static void
model_absorb(model *m, uint32_t s, uint32_t v)
{
	model_rect *x = &m->r[s], *y = &m->r[v];
	model_entity *e = &m->e[x->entity];
	uint32_t k;

	x->duration += y->duration;
	x->count += y->count;
	for (k = 0; k < m->nstates; k++)
		x->states[k] += y->states[k];
	for (k = 0; k < MODEL_TAGS; k++) {
		x->tags[k] += y->tags[k];
		x->has_tag[k] |= y->has_tag[k];
	}
	x->next = y->next;
	if (y->next != COALESCE_NONE)
		m->r[y->next].prev = s;
	else
		e->last = s;
	e->nrects--;
	y->in_set = 0;
	y->next = m->free_list;
	m->free_list = v;
	x->in_set = 1;
	if (x->prev != COALESCE_NONE)
		m->r[x->prev].in_set = 1;
	if (x->next != COALESCE_NONE)
		m->r[x->next].in_set = 1;
}

static void
model_datum(model *m, uint32_t id, uint64_t time, uint32_t state,
    uint32_t tag)
{
	model_entity *e;
	uint64_t size;
	uint32_t i;

	if (m->end != 0 && model_after(time, m->end))
		return;
	while (m->ne <= id) {
		m->e = realloc(m->e, (m->ne + 1) * sizeof (model_entity));
		memset(&m->e[m->ne], 0, sizeof (model_entity));
		m->e[m->ne].first = m->e[m->ne].last = COALESCE_NONE;
		m->ne++;
	}
	e = &m->e[id];
	if (e->has_state && model_after(time, m->begin)) {
		if (m->begin > 0 && e->start < (uint64_t)m->begin)
			e->start = (uint64_t)m->begin;
		i = model_append(m, id, time);
		m->r[i].in_set = 1;
		if (m->r[i].prev != COALESCE_NONE)
			m->r[m->r[i].prev].in_set = 1;
	}
	e->has_state = 1;
	e->start = time;
	e->state = state;
	e->tag = tag;
	for (;;) {
		model_rect *x;

		i = model_smallest(m, &size);
		if (size == 0 || size < m->budget)
			break;
		x = &m->r[i];
		if (m->e[x->entity].nrects == 1)
			x->in_set = 0;
		else if (x->prev == COALESCE_NONE)
			model_absorb(m, i, x->next);
		else if (x->next == COALESCE_NONE)
			model_absorb(m, x->prev, i);
		else if (m->r[x->prev].duration < m->r[x->next].duration)
			model_absorb(m, x->prev, i);
		else
			model_absorb(m, i, x->next);
	}
}

static void
model_finish(model *m, uint64_t last_time)
{
	uint64_t end = last_time;
	uint32_t id;

	if (m->end < 0)
		return;
	if (m->end != 0 && (uint64_t)m->end < end)
		end = (uint64_t)m->end;
	for (id = 0; id < m->ne; id++) {
		model_entity *e = &m->e[id];

		if (!e->has_state || e->start >= end)
			continue;
		if (m->begin > 0 && e->start < (uint64_t)m->begin)
			e->start = (uint64_t)m->begin;
		model_append(m, id, end);
	}
}

static void
model_free(model *m)
{
	uint32_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->r[i].states);
		free(m->r[i].tags);
		free(m->r[i].has_tag);
	}
	free(m->r);
	free(m->e);
	free(m->dense);
}

/* Whether the coalescer's rectangles are the model's, field by field. */
static int
same_as_model(const coalesce *c, const model *m)
{
	uint32_t id;

	for (id = 0; id < m->ne; id++) {
		uint32_t r = coalesce_first(c, id), i = m->e[id].first;

		for (; i != COALESCE_NONE; i = m->r[i].next) {
			coalesce_rect x;
			const coalesce_tag *tags;
			uint32_t k, n = 0;
			int same;

			if (r == COALESCE_NONE)
				return (0);
			tags = get_with_tags(c, r, &x);
			same = dense_times(&x, m->nstates, m->dense) &&
			    memcmp(m->dense, m->r[i].states,
			    m->nstates * sizeof (uint64_t)) == 0;
			if (x.start != m->r[i].start ||
			    x.duration != m->r[i].duration ||
			    x.count != m->r[i].count || !same)
				return (0);
			for (k = 0; k < MODEL_TAGS; k++) {
				if (!m->r[i].has_tag[k])
					continue;
				if (n >= x.ntags || tags[n].tag != k ||
				    tags[n].time != m->r[i].tags[k])
					return (0);
				n++;
			}
			if (n != x.ntags)
				return (0);
			r = coalesce_next(c, r);
		}
		if (r != COALESCE_NONE)
			return (0);
	}
	return (1);
}

/*
 * One random stream of n data over nent entities, coalesced and run
 * through the model side by side: whether the rectangles are the same;
 * *sizes is cleared if the set's size ever differs from the model's
 * (checked every few data, so that an entity's lone rectangle in the
 * set where the model has it out, or the other way, shows at once).
 */
static int
model_round(int round, uint32_t nent, uint64_t budget, size_t n,
    uint64_t max_step, int *sizes)
{
	uint32_t nstates = random_nstates(rng());
	uint32_t ntags = rng() % 3 == 0 ? 0 :
	    1 + (uint32_t)(rng() % MODEL_TAGS);
	uint64_t t = 0, step = 1 + rng() % max_step, size;
	int64_t begin = 0, end = 0;
	size_t i;
	coalesce *c;
	model m;
	int same;

	/*
	 * Bounds: none, inside, before or past the data.  One draw per
	 * statement: the operands of - are evaluated in no set order, and
	 * compilers differ.
	 */
	if (rng() % 3 == 0) {
		begin = (int64_t)(rng() % (n * step / 2 + 1));
		begin -= rng() % 5 == 0 ? (int64_t)(n * step) : 0;
	}
	if (rng() % 3 == 0) {
		end = (int64_t)(rng() % (n * step + 1));
		end -= rng() % 8 == 0 ? (int64_t)(n * step) : 0;
	}
	c = coalesce_new(nstates, budget, begin, end);
	random_dense_words(c, nstates, rng());
	memset(&m, 0, sizeof (m));
	m.nstates = nstates;
	m.dense = calloc(nstates, sizeof (uint64_t));
	m.budget = budget;
	m.begin = begin;
	m.end = end;
	m.free_list = COALESCE_NONE;
	for (i = 0; i < n; i++) {
		uint32_t ent = (uint32_t)(rng() % nent);
		uint32_t st = (uint32_t)(rng() % nstates);
		uint32_t tag = ntags == 0 || rng() % 5 == 0 ? NT :
		    (uint32_t)(rng() % ntags);

		/* Often no time passes: zero-length rectangles. */
		t += rng() % 3 == 0 ? 0 : rng() % step;
		coalesce_datum(c, ent, t, st, tag);
		model_datum(&m, ent, t, st, tag);
		if (i % 7 == 0) {
			(void) model_smallest(&m, &size);
			if (size != coalesce_size(c))
				*sizes = 0;
		}
	}
	(void) model_smallest(&m, &size);
	if (size != coalesce_size(c))
		*sizes = 0;
	coalesce_finish(c, t);
	model_finish(&m, t);
	same = same_as_model(c, &m);
	if (!same)
		printf("# round %d: %u entities, %u states, %u tags, "
		    "budget %llu, bounds %lld %lld, %zu data\n", round,
		    nent, nstates, ntags, (unsigned long long)budget,
		    (long long)begin, (long long)end, n);
	coalesce_free(c);
	model_free(&m);
	return (same);
}

static void
test_against_model(void)
{
	int round, same = 1, sizes = 1;

	for (round = 0; round < 400 && same; round++) {
		uint32_t nent = 1 + rng() % 25;
		uint64_t budget = rng() % 4 == 0 ? rng() % 4 : rng() % 80;

		same = model_round(round, nent, budget, 1 + rng() % 3000,
		    1000, &sizes);
	}
	CHECK("coalesce equals the model of the specification on random "
	    "streams (rectangles, counts, states, tags)", same);
	CHECK("coalesce size equals the model's set", sizes);
	/*
	 * Many more entities than the budget: most are down to their one
	 * rectangle, out of the set, and their data merge on arrival into
	 * it when they would only be merged back at once (coalesce_merge.c).
	 */
	for (round = 0; round < 120 && same; round++) {
		uint32_t nent = 30 + rng() % 200;
		uint64_t budget = 1 + rng() % (nent / 3);

		same = model_round(round, nent, budget, 1 + rng() % 4000,
		    1000, &sizes);
	}
	CHECK("coalesce equals the model with more entities than the "
	    "budget", same);
	CHECK("coalesce size equals the model's set as data come, with "
	    "more entities than the budget", sizes);
	/*
	 * Time that hardly moves: rectangles of no length everywhere, and
	 * ties on weight and start that only the index breaks.
	 */
	for (round = 0; round < 6000 && same; round++) {
		uint32_t nent = 1 + rng() % 8;
		uint64_t budget = 1 + rng() % 4;

		same = model_round(round, nent, budget, 1 + rng() % 300,
		    2, &sizes);
	}
	CHECK("coalesce equals the model when time hardly moves", same);
}

int
main(void)
{
	test_merges();
	test_single_and_ties();
	test_tie_by_start();
	test_tie_by_entity();
	test_bounds();
	test_tags();
	test_properties();
	test_against_model();
	free(tag_buf);
	return (unit_exit());
}
