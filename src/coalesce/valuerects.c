#include "coalesce/valuerects.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/*
 * The ordered set is a binary heap with one entry per rectangle in the
 * set.  A rectangle's weight only ever grows (it or a neighbour takes in
 * another, or it gains a neighbour), so an entry keeps the weight it
 * entered with, at most its true one, and the top is brought up to date
 * (given its true weight and sunk, until its weight is true) before it
 * is read: then it is the smallest of all.  A merge so costs no sift.
 */
typedef struct vrect {
	uint64_t start, duration, count, numtime;
	sm_value min, max;	/* words: an integer entity's exact (value.h) */
	double integral;
	valuerects_string *strings;
	size_t nstrings, cap;
	uint32_t entity, prev, next;
	uint32_t pos;		/* in the heap, or VALUERECTS_NONE */
	uint8_t used;
} vrect;

typedef struct ventity {
	uint64_t start;		/* of the open value */
	sm_value value;
	uint32_t first, last, nrects;
	uint8_t has_value, seen;
	uint8_t ints;		/* its words are integers (value.h) */
} ventity;

typedef struct ventry {
	uint64_t weight;	/* at most the rectangle's true weight */
	uint32_t rect;
} ventry;

struct valuerects {
	uint64_t budget;
	int64_t begin, end;
	vrect *rects;
	size_t nrects, rects_cap;
	uint32_t free_list;	/* through next */
	ventity *ents;
	size_t nents;
	ventry *heap;
	size_t heap_len, heap_cap;
};

/* Whether number word a is below b, of an entity of integers or not. */
static int
word_less(sm_value a, sm_value b, int ints)
{
	return (ints ? value_to_int(a) < value_to_int(b) :
	    value_to_double(a) < value_to_double(b));
}

/* The set's order: weight, then start, entity and index. */
static int
entry_less(const valuerects *v, const ventry *x, const ventry *y)
{
	const vrect *a = &v->rects[x->rect], *b = &v->rects[y->rect];

	if (x->weight != y->weight)
		return (x->weight < y->weight);
	if (a->start != b->start)
		return (a->start < b->start);
	if (a->entity != b->entity)
		return (a->entity < b->entity);
	return (x->rect < y->rect);
}

static void
heap_set(valuerects *v, size_t pos, ventry e)
{
	v->heap[pos] = e;
	v->rects[e.rect].pos = (uint32_t)pos;
}

static void
heap_up(valuerects *v, size_t pos)
{
	ventry e = v->heap[pos];

	while (pos > 0) {
		size_t parent = (pos - 1) / 2;

		if (!entry_less(v, &e, &v->heap[parent]))
			break;
		heap_set(v, pos, v->heap[parent]);
		pos = parent;
	}
	heap_set(v, pos, e);
}

static void
heap_down(valuerects *v, size_t pos)
{
	ventry e = v->heap[pos];

	for (;;) {
		size_t child = 2 * pos + 1;

		if (child >= v->heap_len)
			break;
		if (child + 1 < v->heap_len &&
		    entry_less(v, &v->heap[child + 1], &v->heap[child]))
			child++;
		if (!entry_less(v, &v->heap[child], &e))
			break;
		heap_set(v, pos, v->heap[child]);
		pos = child;
	}
	heap_set(v, pos, e);
}

static uint64_t
weight_of(const valuerects *v, uint32_t r)
{
	const vrect *x = &v->rects[r];
	uint64_t w = x->duration;

	if (x->prev != VALUERECTS_NONE)
		w += v->rects[x->prev].duration;
	if (x->next != VALUERECTS_NONE)
		w += v->rects[x->next].duration;
	return (w);
}

/*
 * The rectangle's weight may have grown: one not in the set enters it
 * with its weight (an entity's only one that left comes back so); one
 * in it keeps its entry, brought up to date when it reaches the top.
 */
static void
reweigh(valuerects *v, uint32_t r)
{
	ventry e;

	if (v->rects[r].pos != VALUERECTS_NONE)
		return;
	grow_array(&v->heap, &v->heap_cap, v->heap_len + 1, sizeof (ventry));
	e.weight = weight_of(v, r);
	e.rect = r;
	heap_set(v, v->heap_len++, e);
	heap_up(v, v->heap_len - 1);
}

static void
leave_set(valuerects *v, uint32_t r)
{
	uint32_t pos = v->rects[r].pos;

	if (pos == VALUERECTS_NONE)
		return;
	v->rects[r].pos = VALUERECTS_NONE;
	if (pos == --v->heap_len)
		return;
	{
		uint32_t moved = v->heap[v->heap_len].rect;

		/* The last entry fills the hole: down or up from there. */
		heap_set(v, pos, v->heap[v->heap_len]);
		heap_down(v, pos);
		heap_up(v, v->rects[moved].pos);
	}
}

/* The lightest rectangle in the set, its entry made true first. */
static uint32_t
lightest(valuerects *v)
{
	for (;;) {
		uint64_t w = weight_of(v, v->heap[0].rect);

		if (v->heap[0].weight == w)
			break;
		v->heap[0].weight = w;
		heap_down(v, 0);
	}
	return (v->heap[0].rect);
}

static uint32_t
rect_alloc(valuerects *v)
{
	uint32_t r;

	if (v->free_list != VALUERECTS_NONE) {
		r = v->free_list;
		v->free_list = v->rects[r].next;
	} else {
		grow_array(&v->rects, &v->rects_cap, v->nrects + 1,
		    sizeof (vrect));
		r = (uint32_t)v->nrects++;
		memset(&v->rects[r], 0, sizeof (vrect));
	}
	{
		vrect *x = &v->rects[r];
		valuerects_string *keep = x->strings;
		size_t cap = x->cap;

		memset(x, 0, sizeof (*x));
		x->strings = keep;
		x->cap = cap;
		x->pos = VALUERECTS_NONE;
		x->used = 1;
	}
	return (r);
}

static void
rect_release(valuerects *v, uint32_t r)
{
	vrect *x = &v->rects[r];

	leave_set(v, r);
	x->used = 0;
	x->nstrings = 0;
	x->next = v->free_list;
	v->free_list = r;
}

static ventity *
entity_get(valuerects *v, uint32_t id)
{
	if (id >= v->nents) {
		size_t old = v->nents;
		size_t i;

		grow_array(&v->ents, &v->nents, (size_t)id + 1,
		    sizeof (ventity));
		for (i = old; i < v->nents; i++) {
			memset(&v->ents[i], 0, sizeof (ventity));
			v->ents[i].first = VALUERECTS_NONE;
			v->ents[i].last = VALUERECTS_NONE;
		}
	}
	return (&v->ents[id]);
}

/* The open value of an entity becomes a rectangle up to end. */
static void
append_rect(valuerects *v, uint32_t id, uint64_t end, int final)
{
	ventity *e = &v->ents[id];
	uint32_t r = rect_alloc(v);
	vrect *x = &v->rects[r];

	x->start = e->start;
	x->duration = end - e->start;
	x->entity = id;
	x->count = x->duration > 0;
	x->prev = e->last;
	x->next = VALUERECTS_NONE;
	if (x->duration > 0 && value_num_is(e->value, e->ints)) {
		double d = value_num_double(e->value, e->ints);

		x->min = x->max = e->value;
		x->integral = d * (double)x->duration;
		x->numtime = x->duration;
	} else if (x->duration > 0 && value_is_string(e->value)) {
		grow_array(&x->strings, &x->cap, 1,
		    sizeof (valuerects_string));
		x->strings[0].id = value_string_id(e->value);
		x->strings[0].time = x->duration;
		x->nstrings = 1;
	}
	if (e->last == VALUERECTS_NONE)
		e->first = r;
	else
		v->rects[e->last].next = r;
	e->last = r;
	e->nrects++;
	if (final)
		return;
	if (x->prev != VALUERECTS_NONE)
		reweigh(v, x->prev);
	reweigh(v, r);
}

/* The time per string of both, in ascending id, into s. */
static void
merge_strings(vrect *s, const vrect *o)
{
	valuerects_string *out;
	size_t i = 0, j = 0, n = 0;

	if (o->nstrings == 0)
		return;
	out = xcalloc(s->nstrings + o->nstrings, sizeof (*out));
	while (i < s->nstrings || j < o->nstrings) {
		if (j == o->nstrings || (i < s->nstrings &&
		    s->strings[i].id < o->strings[j].id)) {
			out[n++] = s->strings[i++];
		} else if (i == s->nstrings ||
		    o->strings[j].id < s->strings[i].id) {
			out[n++] = o->strings[j++];
		} else {
			out[n] = s->strings[i++];
			out[n++].time += o->strings[j++].time;
		}
	}
	free(s->strings);
	s->strings = out;
	s->nstrings = n;
	s->cap = n;
}

/* The victim (the survivor's right neighbour) goes into the survivor. */
static void
absorb(valuerects *v, uint32_t survivor, uint32_t victim)
{
	vrect *s = &v->rects[survivor], *x = &v->rects[victim];
	ventity *e = &v->ents[s->entity];

	s->duration += x->duration;
	s->count = s->count + x->count > UINT32_MAX ? UINT32_MAX :
	    s->count + x->count;
	if (x->numtime > 0) {
		if (s->numtime == 0 || word_less(x->min, s->min, e->ints))
			s->min = x->min;
		if (s->numtime == 0 || word_less(s->max, x->max, e->ints))
			s->max = x->max;
		s->integral += x->integral;
		s->numtime += x->numtime;
	}
	merge_strings(s, x);
	s->next = x->next;
	if (x->next != VALUERECTS_NONE)
		v->rects[x->next].prev = survivor;
	else
		e->last = survivor;
	e->nrects--;
	rect_release(v, victim);
	if (s->prev != VALUERECTS_NONE)
		reweigh(v, s->prev);
	reweigh(v, survivor);
	if (s->next != VALUERECTS_NONE)
		reweigh(v, s->next);
}

static void
trim(valuerects *v)
{
	uint32_t r = lightest(v), prev, next;
	vrect *x = &v->rects[r];

	if (v->ents[x->entity].nrects == 1) {
		leave_set(v, r);
		return;		/* back in the set when a neighbour comes */
	}
	prev = x->prev;
	next = x->next;
	if (prev == VALUERECTS_NONE || (next != VALUERECTS_NONE &&
	    !(v->rects[prev].duration < v->rects[next].duration)))
		absorb(v, r, next);
	else
		absorb(v, prev, r);
}

/* As coalesce.c: times compare with signed bounds. */
static int
after(uint64_t time, int64_t bound)
{
	return (bound < 0 || time > (uint64_t)bound);
}

valuerects *
valuerects_new(uint64_t budget, int64_t begin, int64_t end)
{
	valuerects *v = xcalloc(1, sizeof (*v));

	v->budget = budget;
	v->begin = begin;
	v->end = end;
	v->free_list = VALUERECTS_NONE;
	return (v);
}

void
valuerects_free(valuerects *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->nrects; i++)
		free(v->rects[i].strings);
	free(v->rects);
	free(v->ents);
	free(v->heap);
	free(v);
}

void
valuerects_datum(valuerects *v, uint32_t id, uint64_t time, sm_value value,
    int ints)
{
	ventity *e;

	if (v->end != 0 && after(time, v->end))
		return;
	e = entity_get(v, id);
	e->ints = (uint8_t)ints;
	e->seen = 1;
	if (e->has_value && after(time, v->begin)) {
		if (v->begin > 0 && e->start < (uint64_t)v->begin)
			e->start = (uint64_t)v->begin;
		append_rect(v, id, time, 0);
	}
	e->has_value = 1;
	e->start = time;
	e->value = value;
	while (v->heap_len > 0 && v->heap_len >= v->budget)
		trim(v);
}

void
valuerects_finish(valuerects *v, uint64_t last_time)
{
	uint64_t end = last_time;
	size_t id;

	if (v->end < 0)
		return;
	if (v->end != 0 && (uint64_t)v->end < end)
		end = (uint64_t)v->end;
	for (id = 0; id < v->nents; id++) {
		ventity *e = &v->ents[id];

		if (!e->has_value || e->start >= end)
			continue;
		if (v->begin > 0 && e->start < (uint64_t)v->begin)
			e->start = (uint64_t)v->begin;
		append_rect(v, (uint32_t)id, end, 1);
		e->has_value = 0;
	}
}

uint64_t
valuerects_size(const valuerects *v)
{
	return (v->heap_len);
}

int
valuerects_seen(const valuerects *v, uint32_t entity)
{
	return (v != NULL && entity < v->nents && v->ents[entity].seen);
}

uint32_t
valuerects_first(const valuerects *v, uint32_t entity)
{
	return (entity < v->nents ? v->ents[entity].first : VALUERECTS_NONE);
}

uint32_t
valuerects_next(const valuerects *v, uint32_t rect)
{
	return (v->rects[rect].next);
}

void
valuerects_get(const valuerects *v, uint32_t rect, valuerects_rect *out)
{
	const vrect *x = &v->rects[rect];
	int ints = v->ents[x->entity].ints;

	out->start = x->start;
	out->duration = x->duration;
	out->count = x->count;
	out->numtime = x->numtime;
	out->ints = ints && x->numtime > 0;
	out->imin = out->ints ? value_to_int(x->min) : 0;
	out->imax = out->ints ? value_to_int(x->max) : 0;
	out->min = x->numtime > 0 ? value_num_double(x->min, ints) : 0;
	out->max = x->numtime > 0 ? value_num_double(x->max, ints) : 0;
	/* One number (or equal ones) is its own mean, with no rounding. */
	out->mean = x->numtime == 0 ? 0 : x->min == x->max ? out->min :
	    x->integral / (double)x->numtime;
	/* Rounding (or sums past the doubles' range) stay within bounds. */
	if (!(out->mean >= out->min))
		out->mean = out->min;
	if (!(out->mean <= out->max))
		out->mean = out->max;
	out->strings = x->strings;
	out->nstrings = x->nstrings;
}

int
valuerects_range(const valuerects *v, uint32_t entity, double *min,
    double *max)
{
	uint32_t r;
	int any = 0;

	for (r = valuerects_first(v, entity); r != VALUERECTS_NONE;
	    r = v->rects[r].next) {
		const vrect *x = &v->rects[r];
		int ints = v->ents[entity].ints;

		if (x->numtime == 0)
			continue;
		if (!any || value_num_double(x->min, ints) < *min)
			*min = value_num_double(x->min, ints);
		if (!any || value_num_double(x->max, ints) > *max)
			*max = value_num_double(x->max, ints);
		any = 1;
	}
	return (any);
}
