#include "coalesce/valuerects.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/*
 * The ordered set is a binary heap with one entry per rectangle in the
 * set.  A rectangle's weight only ever grows (it or a neighbour takes in
 * another, or it gains a neighbour), so an entry's weight may lag its
 * true one, and the top is brought up to date (given its true weight and
 * sunk, until its weight is true) before it is read: then it is the
 * smallest of all.  A value merged on arrival so costs no sift; what a
 * merge or a new rectangle changes is re-keyed where it is (rekey).
 */
/*
 * A rectangle.  What the set reads of it at every step (a weight is a
 * duration and the neighbours', the position is written at every level
 * an entry moves) comes first, in one cache line more often than not;
 * the rest is read as it merges and at the end.
 */
typedef struct vrect {
	uint64_t duration;
	uint32_t prev, next;
	uint32_t pos;		/* in the heap, or VALUERECTS_NONE */
	uint32_t entity;
	uint64_t start, count, numtime;
	sm_value min, max;	/* words: an integer entity's exact (value.h) */
	double integral;
	valuerects_string *strings;
	size_t nstrings, cap;
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

/* The rest of the set's order, for equal weights: start, entity, index. */
static int
key_less(const valuerects *v, uint64_t start, uint32_t entity, uint32_t r,
    uint32_t other)
{
	const vrect *b = &v->rects[other];

	if (start != b->start)
		return (start < b->start);
	if (entity != b->entity)
		return (entity < b->entity);
	return (r < other);
}

/* The set's order: weight, then start, entity and index. */
static int
entry_less(const valuerects *v, const ventry *x, const ventry *y)
{
	const vrect *a = &v->rects[x->rect];

	if (x->weight != y->weight)
		return (x->weight < y->weight);
	return (key_less(v, a->start, a->entity, x->rect, y->rect));
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

/*
 * Brings a rectangle's entry up to its weight where it is, or puts it in
 * the set: what merges and appends change, which left stale would sink
 * from the top through every level when it reached it (coalesce_set.c
 * and coalesce_merge.c say how much that saved there).
 */
static void
rekey(valuerects *v, uint32_t r)
{
	uint32_t pos = v->rects[r].pos;
	uint64_t w;

	if (pos == VALUERECTS_NONE) {
		reweigh(v, r);
		return;
	}
	w = weight_of(v, r);
	if (v->heap[pos].weight == w)
		return;
	v->heap[pos].weight = w;
	heap_down(v, pos);
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

/* Adds time to string id of x's, kept in ascending id. */
static void
add_string_time(vrect *x, uint32_t id, uint64_t time)
{
	size_t lo = 0, hi = x->nstrings;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->strings[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < x->nstrings && x->strings[lo].id == id) {
		x->strings[lo].time += time;
		return;
	}
	grow_array(&x->strings, &x->cap, x->nstrings + 1,
	    sizeof (valuerects_string));
	memmove(&x->strings[lo + 1], &x->strings[lo], (x->nstrings - lo) *
	    sizeof (valuerects_string));
	x->strings[lo].id = id;
	x->strings[lo].time = time;
	x->nstrings++;
}

/*
 * Adds an interval of value lasting duration to x's count and numbers or
 * strings (not to its duration): what absorb gives a survivor of a
 * rectangle of that one value, and a new rectangle its own.  (Its
 * integral starts from zero: the same, as a mean is taken from it only
 * where some value is not zero.)
 */
static void
take_value(vrect *x, sm_value value, int ints, uint64_t duration)
{
	if (duration == 0)
		return;
	if (x->count < UINT32_MAX)
		x->count++;
	if (value_num_is(value, ints)) {
		double d = value_num_double(value, ints);

		if (x->numtime == 0 || word_less(value, x->min, ints))
			x->min = value;
		if (x->numtime == 0 || word_less(x->max, value, ints))
			x->max = value;
		x->integral += d * (double)duration;
		x->numtime += duration;
	} else if (value_is_string(value)) {
		add_string_time(x, value_string_id(value), duration);
	}
}

/*
 * Adds the entity's open value, up to end, to its last rectangle, if a
 * rectangle made of it would enter the set only to be the lightest, and
 * so merged at once into that left neighbour: the set is full, and its
 * key is below the smallest there.  Returns 0, having done nothing, if
 * not.  The same as coalesce_merge.c's merge on arrival (which says why
 * the answer is the same): nearly every datum once the set is full, each
 * of which cost a rectangle, an entry, a sift and a trim.
 */
static int
merge_on_arrival(valuerects *v, uint32_t id, uint64_t end)
{
	ventity *e = &v->ents[id];
	uint64_t duration = end - e->start, weight;
	uint32_t top, index;

	if (e->last == VALUERECTS_NONE || v->heap_len == 0 ||
	    v->heap_len + 1 < v->budget || (e->nrects == 1 &&
	    v->rects[e->last].pos == VALUERECTS_NONE))
		return (0);
	weight = duration + v->rects[e->last].duration;
	top = lightest(v);
	index = v->free_list != VALUERECTS_NONE ? v->free_list :
	    (uint32_t)v->nrects;
	if (weight != v->heap[0].weight ? weight > v->heap[0].weight :
	    !key_less(v, e->start, id, index, top))
		return (0);
	v->rects[e->last].duration += duration;
	take_value(&v->rects[e->last], e->value, e->ints, duration);
	return (1);
}

/* The open value of an entity becomes a rectangle up to end. */
static void
append_rect(valuerects *v, uint32_t id, uint64_t end, int final)
{
	ventity *e = &v->ents[id];
	uint32_t r;
	vrect *x;

	if (!final && merge_on_arrival(v, id, end))
		return;
	r = rect_alloc(v);
	x = &v->rects[r];

	x->start = e->start;
	x->duration = end - e->start;
	x->entity = id;
	x->prev = e->last;
	x->next = VALUERECTS_NONE;
	take_value(x, e->value, e->ints, x->duration);
	if (e->last == VALUERECTS_NONE)
		e->first = r;
	else
		v->rects[e->last].next = r;
	e->last = r;
	e->nrects++;
	if (final)
		return;
	/* Both grew with every value merged on arrival into the last. */
	if (x->prev != VALUERECTS_NONE) {
		uint32_t before = v->rects[x->prev].prev;

		if (before != VALUERECTS_NONE)
			rekey(v, before);
		rekey(v, x->prev);
	}
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
		rekey(v, s->prev);
	rekey(v, survivor);
	if (s->next != VALUERECTS_NONE)
		rekey(v, s->next);
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

/*
 * The rectangles renumbered in entity order, each entity's in a row:
 * the readers (the SVG's strips and ranges, the data) walk them entity
 * by entity, several times, and in the order merging left them each
 * step was a cache miss (at 100,000 rectangles of values, most of the
 * classic command's time after its last datum).  The set is done with.
 */
static void
renumber(valuerects *v)
{
	vrect *out = xmalloc((v->nrects > 0 ? v->nrects : 1) * sizeof (vrect));
	size_t n = 0, id, i;

	for (id = 0; id < v->nents; id++) {
		ventity *e = &v->ents[id];
		uint32_t r, prev = VALUERECTS_NONE;

		for (r = e->first; r != VALUERECTS_NONE;
		    r = v->rects[r].next) {
			out[n] = v->rects[r];
			out[n].prev = prev;
			out[n].next = VALUERECTS_NONE;
			out[n].pos = VALUERECTS_NONE;
			if (prev == VALUERECTS_NONE)
				e->first = (uint32_t)n;
			else
				out[prev].next = (uint32_t)n;
			v->rects[r].strings = NULL;	/* moved */
			prev = (uint32_t)n++;
		}
		e->last = prev;
	}
	for (i = 0; i < v->nrects; i++)
		free(v->rects[i].strings);	/* of the free ones */
	free(v->rects);
	v->rects = out;
	v->rects_cap = v->nrects > 0 ? v->nrects : 1;
	v->nrects = n;
	v->free_list = VALUERECTS_NONE;
	free(v->heap);
	v->heap = NULL;
	v->heap_cap = 0;
}

void
valuerects_finish(valuerects *v, uint64_t last_time)
{
	uint64_t end = last_time;
	size_t id;

	if (v->end < 0) {
		renumber(v);
		return;
	}
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
	renumber(v);
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
