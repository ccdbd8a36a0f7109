#include "coalesce.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct rect {
	uint64_t start, duration;
	uint32_t prev, next;
	uint32_t entity;
	uint32_t count;		/* intervals with time in it (saturating) */
	coalesce_tag *tags;
	uint32_t ntags, tags_cap;
} rect;

typedef struct entity {
	uint32_t first, last;
	uint32_t nrects;
	int seen;		/* had a datum within the end bound */
	int has_state;
	uint64_t start;		/* when the open state began */
	uint32_t state, tag;
} ent_state;

struct coalesce {
	uint32_t nstates;
	uint64_t budget;
	int64_t begin, end;
	uint64_t end_used;

	rect *rects;
	size_t nrects, rects_cap;
	uint64_t *state_time;	/* nstates per rect, parallel to rects */
	/*
	 * Each rectangle's position in the heap, or COALESCE_NONE; apart
	 * from the rectangles because sifting writes it at every level, and
	 * a small dense array stays in cache where the rectangles do not.
	 */
	uint32_t *heap_pos;
	uint32_t free_list;	/* through rect.next */

	ent_state *ents;
	size_t nents, ents_cap;

	struct heap_entry *heap; /* a binary min-heap */
	size_t heap_len, heap_cap;

	coalesce_tag *scratch;	/* for merging tag lists */
	uint32_t scratch_cap;
};

/* ---- the ordered set: a min-heap on (weight, start, entity) ---- */

/*
 * Heap entries carry their keys, so sifting compares without touching
 * the rectangles (which would be a cache miss per comparison).
 */
typedef struct heap_entry {
	uint64_t weight, start;
	uint32_t entity, rect;
} heap_entry;

static int
entry_less(const heap_entry *x, const heap_entry *y)
{
	if (x->weight != y->weight)
		return (x->weight < y->weight);
	if (x->start != y->start)
		return (x->start < y->start);
	if (x->entity != y->entity)
		return (x->entity < y->entity);
	/*
	 * Only zero-length rectangles can tie this far (the reference then
	 * corrupts its own state); the index keeps us deterministic.
	 */
	return (x->rect < y->rect);
}

static void
heap_place(coalesce *c, size_t pos, const heap_entry *e)
{
	c->heap[pos] = *e;
	c->heap_pos[e->rect] = (uint32_t)pos;
}

/*
 * A 4-ary heap: half the depth of a binary one, and a node's four
 * children share a cache line or two, so sifting down (what merging
 * mostly does, as merged rectangles grow heavier) touches fewer lines.
 */
#define HEAP_ARITY	4

static void
heap_up(coalesce *c, size_t pos)
{
	heap_entry e = c->heap[pos];

	while (pos > 0) {
		size_t parent = (pos - 1) / HEAP_ARITY;

		if (!entry_less(&e, &c->heap[parent]))
			break;
		heap_place(c, pos, &c->heap[parent]);
		pos = parent;
	}
	heap_place(c, pos, &e);
}

static void
heap_down(coalesce *c, size_t pos)
{
	heap_entry e = c->heap[pos];
	size_t len = c->heap_len;

	for (;;) {
		size_t first = HEAP_ARITY * pos + 1, child, k, last;

		if (first >= len)
			break;
		last = first + HEAP_ARITY < len ? first + HEAP_ARITY : len;
		child = first;
		for (k = first + 1; k < last; k++) {
			if (entry_less(&c->heap[k], &c->heap[child]))
				child = k;
		}
		if (!entry_less(&c->heap[child], &e))
			break;
		heap_place(c, pos, &c->heap[child]);
		pos = child;
	}
	heap_place(c, pos, &e);
}

static void
heap_remove(coalesce *c, uint32_t r)
{
	size_t pos = c->heap_pos[r];

	if (pos == COALESCE_NONE)
		return;
	c->heap_pos[r] = COALESCE_NONE;
	if (pos == --c->heap_len)
		return;
	/* The last entry fills the hole and moves up or down from it. */
	heap_place(c, pos, &c->heap[c->heap_len]);
	if (pos > 0 && entry_less(&c->heap[pos],
	    &c->heap[(pos - 1) / HEAP_ARITY]))
		heap_up(c, pos);
	else
		heap_down(c, pos);
}

/* A rectangle's weight: its duration and both neighbours'. */
static uint64_t
weight_of(const coalesce *c, uint32_t r)
{
	const rect *x = &c->rects[r];
	uint64_t w = x->duration;

	if (x->prev != COALESCE_NONE)
		w += c->rects[x->prev].duration;
	if (x->next != COALESCE_NONE)
		w += c->rects[x->next].duration;
	return (w);
}

/*
 * Called when a rectangle's weight may have changed.  One not in the
 * set enters it (one that left the set as its entity's only one comes
 * back this way).  One in the set keeps its entry as it is: a weight
 * changes only by growing (a rectangle or a neighbour absorbs another,
 * or gains a neighbour), so every entry's key is at most its true one,
 * and fresh_top puts the top right before anyone reads it.  A merge so
 * costs no sift (it used to cost two) and touches no neighbour.
 */
static void
reweigh(coalesce *c, uint32_t r)
{
	const rect *x = &c->rects[r];
	heap_entry e;

	if (c->heap_pos[r] != COALESCE_NONE)
		return;
	e.weight = weight_of(c, r);
	e.start = x->start;
	e.entity = x->entity;
	e.rect = r;
	grow_array(&c->heap, &c->heap_cap, c->heap_len + 1,
	    sizeof (heap_entry));
	heap_place(c, c->heap_len++, &e);
	heap_up(c, c->heap_len - 1);
}

/*
 * Makes the top of the set the smallest true key: while the top entry's
 * key is behind its rectangle's weight, it takes that weight and sinks.
 * Every other entry's key is at most its true one, so a top whose key is
 * true is the smallest of all.
 */
static void
fresh_top(coalesce *c)
{
	while (c->heap_len > 0) {
		uint64_t w = weight_of(c, c->heap[0].rect);

		if (c->heap[0].weight == w)
			break;
		c->heap[0].weight = w;
		heap_down(c, 0);
	}
}

/* ---- rectangles ---- */

static uint64_t *
states_of(const coalesce *c, uint32_t r)
{
	return (&c->state_time[(size_t)r * c->nstates]);
}

/* a + b, at most UINT32_MAX: a count that large only says "very many". */
static uint32_t
count_add(uint32_t a, uint32_t b)
{
	return (b > UINT32_MAX - a ? UINT32_MAX : a + b);
}

static uint32_t
rect_alloc(coalesce *c)
{
	uint32_t r;

	if (c->free_list != COALESCE_NONE) {
		r = c->free_list;
		c->free_list = c->rects[r].next;
	} else {
		size_t old = c->rects_cap;

		if (c->nrects >= COALESCE_NONE - 1)
			abort();
		grow_array(&c->rects, &c->rects_cap, c->nrects + 1,
		    sizeof (rect));
		if (c->rects_cap != old) {
			c->state_time = xrealloc(c->state_time,
			    c->rects_cap * c->nstates * sizeof (uint64_t));
			c->heap_pos = xrealloc(c->heap_pos,
			    c->rects_cap * sizeof (uint32_t));
			memset(c->rects + old, 0,
			    (c->rects_cap - old) * sizeof (rect));
		}
		r = (uint32_t)c->nrects++;
	}
	c->rects[r].ntags = 0;
	c->heap_pos[r] = COALESCE_NONE;
	memset(states_of(c, r), 0, c->nstates * sizeof (uint64_t));
	return (r);
}

static void
rect_release(coalesce *c, uint32_t r)
{
	heap_remove(c, r);
	c->rects[r].next = c->free_list;	/* its tag array is kept */
	c->free_list = r;
}

static void
add_tag_time(rect *x, uint32_t tag, uint64_t time)
{
	uint32_t lo = 0, hi = x->ntags;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (x->tags[mid].tag < tag)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < x->ntags && x->tags[lo].tag == tag) {
		x->tags[lo].time += time;
		return;
	}
	if (x->ntags == x->tags_cap) {
		x->tags_cap = x->tags_cap == 0 ? 4 : x->tags_cap * 2;
		x->tags = xrealloc(x->tags, x->tags_cap * sizeof (coalesce_tag));
	}
	memmove(&x->tags[lo + 1], &x->tags[lo],
	    (x->ntags - lo) * sizeof (coalesce_tag));
	x->tags[lo].tag = tag;
	x->tags[lo].time = time;
	x->ntags++;
}

static ent_state *
entity_get(coalesce *c, uint32_t id)
{
	if (id >= c->nents) {
		size_t old = c->ents_cap;

		grow_array(&c->ents, &c->ents_cap, (size_t)id + 1,
		    sizeof (ent_state));
		if (c->ents_cap != old)
			memset(c->ents + old, 0,
			    (c->ents_cap - old) * sizeof (ent_state));
		while (c->nents <= id) {
			c->ents[c->nents].first = COALESCE_NONE;
			c->ents[c->nents].last = COALESCE_NONE;
			c->nents++;
		}
	}
	return (&c->ents[id]);
}

/*
 * Adds the entity's open state, up to end, to its last rectangle if a
 * rectangle made of it would enter the set only to be trimmed at once,
 * into that left neighbour: the set is full and its key is below the
 * smallest there.  Returns 0, having done nothing, if not.
 *
 * This is nearly every datum once the set is full, and skipping the
 * rectangle that would live for an instant saves its allocation, an
 * insertion, a removal and a sift.  The answer is the same: the set's
 * order is total, so what comes out of it later is unchanged; the index
 * the rectangle would have had (it breaks ties) is the one the next
 * rectangle gets either way; and the smallest key is read with the
 * neighbour's old weight, no larger than its new one, so a yes is sure.
 */
static int
merge_on_arrival(coalesce *c, uint32_t id, uint64_t end)
{
	ent_state *e = &c->ents[id];
	uint64_t duration = end - e->start;
	heap_entry arrival;
	rect *last;

	if (e->last == COALESCE_NONE || c->heap_pos[e->last] == COALESCE_NONE ||
	    c->heap_len + 1 < c->budget)
		return (0);
	last = &c->rects[e->last];
	arrival.weight = duration + last->duration;
	arrival.start = e->start;
	arrival.entity = id;
	arrival.rect = c->free_list != COALESCE_NONE ? c->free_list :
	    (uint32_t)c->nrects;
	fresh_top(c);
	if (!entry_less(&arrival, &c->heap[0]))
		return (0);
	last->duration += duration;
	last->count = count_add(last->count, duration > 0);
	states_of(c, e->last)[e->state] += duration;
	if (e->tag != COALESCE_NO_TAG)
		add_tag_time(last, e->tag, duration);
	if (last->prev != COALESCE_NONE)
		reweigh(c, last->prev);
	reweigh(c, e->last);
	return (1);
}

/*
 * Appends the entity's open state, up to end, as a new rectangle.  Its
 * left neighbour's weight changes, so both enter the set unless this is
 * the final rectangle (no merging after the end).
 */
static void
append_rect(coalesce *c, uint32_t id, uint64_t end, int final)
{
	ent_state *e = &c->ents[id];
	uint32_t r;
	rect *x;

	if (!final && merge_on_arrival(c, id, end))
		return;
	r = rect_alloc(c);
	x = &c->rects[r];

	x->start = e->start;
	x->duration = end - e->start;
	x->count = x->duration > 0;
	x->entity = id;
	x->prev = e->last;
	x->next = COALESCE_NONE;
	states_of(c, r)[e->state] = x->duration;
	if (e->tag != COALESCE_NO_TAG)
		add_tag_time(x, e->tag, x->duration);
	if (e->last == COALESCE_NONE)
		e->first = r;
	else
		c->rects[e->last].next = r;
	e->last = r;
	e->nrects++;
	if (final)
		return;
	if (x->prev != COALESCE_NONE)
		reweigh(c, x->prev);
	reweigh(c, r);
}

/*
 * Adds the victim's tag times to the survivor's.  Both lists are sorted
 * by tag id, so long ones merge in one pass into the scratch buffer, which
 * then trades places with the survivor's list: no allocation once warm.
 */
static void
merge_tags(coalesce *c, rect *s, rect *v)
{
	uint32_t i = 0, j = 0, n = 0, cap;
	coalesce_tag *swap;

	if (v->ntags == 0)
		return;
	/* The usual case: a long list gains a tag or two; insert in place. */
	if (v->ntags <= 4) {
		for (i = 0; i < v->ntags; i++)
			add_tag_time(s, v->tags[i].tag, v->tags[i].time);
		return;
	}
	if (s->ntags == 0) {
		swap = s->tags;
		cap = s->tags_cap;
		s->tags = v->tags;
		s->tags_cap = v->tags_cap;
		s->ntags = v->ntags;
		v->tags = swap;
		v->tags_cap = cap;
		v->ntags = 0;
		return;
	}
	if (c->scratch_cap < s->ntags + v->ntags) {
		c->scratch_cap = s->ntags + v->ntags;
		c->scratch = xrealloc(c->scratch,
		    c->scratch_cap * sizeof (coalesce_tag));
	}
	while (i < s->ntags || j < v->ntags) {
		if (j == v->ntags || (i < s->ntags &&
		    s->tags[i].tag < v->tags[j].tag)) {
			c->scratch[n++] = s->tags[i++];
		} else if (i == s->ntags || v->tags[j].tag < s->tags[i].tag) {
			c->scratch[n++] = v->tags[j++];
		} else {
			c->scratch[n] = s->tags[i++];
			c->scratch[n++].time += v->tags[j++].time;
		}
	}
	swap = s->tags;
	cap = s->tags_cap;
	s->tags = c->scratch;
	s->tags_cap = c->scratch_cap;
	s->ntags = n;
	c->scratch = swap;
	c->scratch_cap = cap;
}

/* The victim's time goes to the survivor; the victim leaves its list. */
static void
absorb(coalesce *c, uint32_t survivor, uint32_t victim)
{
	rect *s = &c->rects[survivor], *v = &c->rects[victim];
	ent_state *e = &c->ents[s->entity];
	uint64_t *st = states_of(c, survivor), *vt = states_of(c, victim);
	uint32_t i;

	s->duration += v->duration;
	s->count = count_add(s->count, v->count);
	for (i = 0; i < c->nstates; i++)
		st[i] += vt[i];
	merge_tags(c, s, v);
	s->next = v->next;
	if (v->next != COALESCE_NONE)
		c->rects[v->next].prev = survivor;
	else
		e->last = survivor;
	e->nrects--;
	rect_release(c, victim);

	if (s->prev != COALESCE_NONE)
		reweigh(c, s->prev);
	reweigh(c, survivor);
	if (s->next != COALESCE_NONE)
		reweigh(c, s->next);
}

/*
 * Takes the lightest rectangle out of the set and merges it with a
 * neighbour: the shorter neighbour absorbs it if the left one is strictly
 * shorter, otherwise it absorbs its right neighbour.
 */
static void
trim(coalesce *c)
{
	uint32_t r, prev, next;
	rect *x;

	fresh_top(c);
	r = c->heap[0].rect;
	x = &c->rects[r];

	if (c->ents[x->entity].nrects == 1) {
		heap_remove(c, r);
		return;		/* back in the set when a neighbour comes */
	}
	prev = x->prev;
	next = x->next;
	/*
	 * A survivor stays at the top of the heap with its old key, which
	 * fresh_top corrects when the top is next read: one sift instead of
	 * a removal and an insertion.  The order of the set is total, so
	 * where an entry sits does not change what comes out of it.
	 */
	if (prev == COALESCE_NONE || (next != COALESCE_NONE &&
	    !(c->rects[prev].duration < c->rects[next].duration))) {
		absorb(c, r, next);
	} else {
		heap_remove(c, r);
		absorb(c, prev, r);
	}
}

/* The reference compares times with signed bounds: time as i64 > bound. */
static int
after(uint64_t time, int64_t bound)
{
	return (bound < 0 || time > (uint64_t)bound);
}

/* ---- the interface ---- */

coalesce *
coalesce_new(uint32_t nstates, uint64_t budget, int64_t begin, int64_t end)
{
	coalesce *c = xcalloc(1, sizeof (*c));

	c->nstates = nstates;
	c->budget = budget;
	c->begin = begin;
	c->end = end;
	c->free_list = COALESCE_NONE;
	return (c);
}

void
coalesce_free(coalesce *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nrects; i++)
		free(c->rects[i].tags);
	free(c->rects);
	free(c->state_time);
	free(c->ents);
	free(c->heap);
	free(c->heap_pos);
	free(c->scratch);
	free(c);
}

int
coalesce_in_bounds(const coalesce *c, uint64_t time)
{
	return (c->end == 0 || !after(time, c->end));
}

void
coalesce_datum(coalesce *c, uint32_t id, uint64_t time, uint32_t state,
    uint32_t tag)
{
	ent_state *e;

	if (!coalesce_in_bounds(c, time))
		return;
	e = entity_get(c, id);
	e->seen = 1;
	if (e->has_state && after(time, c->begin)) {
		if (c->begin > 0 && e->start < (uint64_t)c->begin)
			e->start = (uint64_t)c->begin;
		append_rect(c, id, time, 0);
	}
	e->has_state = 1;
	e->start = time;
	e->state = state;
	e->tag = tag;
	while (c->heap_len > 0 && c->heap_len >= c->budget)
		trim(c);
}

void
coalesce_finish(coalesce *c, uint64_t last_time)
{
	uint64_t end = last_time;
	size_t id;

	c->end_used = end;
	if (c->end < 0)
		return;
	if (c->end != 0 && (uint64_t)c->end < end)
		end = (uint64_t)c->end;
	c->end_used = end;
	for (id = 0; id < c->nents; id++) {
		ent_state *e = &c->ents[id];

		if (!e->has_state || e->start >= end)
			continue;
		if (c->begin > 0 && e->start < (uint64_t)c->begin)
			e->start = (uint64_t)c->begin;
		append_rect(c, (uint32_t)id, end, 1);
		e->has_state = 0;
	}
}

void
coalesce_put(coalesce *c, uint32_t id, uint64_t start, uint64_t duration,
    uint64_t count, const uint64_t *states, const coalesce_tag *tags,
    size_t ntags)
{
	ent_state *e = entity_get(c, id);
	uint32_t r = rect_alloc(c);
	rect *x = &c->rects[r];
	size_t i;

	e->seen = 1;
	x->start = start;
	x->duration = duration;
	x->count = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
	x->entity = id;
	x->prev = e->last;
	x->next = COALESCE_NONE;
	memcpy(states_of(c, r), states, c->nstates * sizeof (uint64_t));
	for (i = 0; i < ntags; i++)
		add_tag_time(x, tags[i].tag, tags[i].time);
	if (e->last == COALESCE_NONE)
		e->first = r;
	else
		c->rects[e->last].next = r;
	e->last = r;
	e->nrects++;
}

uint64_t
coalesce_size(const coalesce *c)
{
	return (c->heap_len);
}

uint64_t
coalesce_end(const coalesce *c)
{
	return (c->end_used);
}

uint32_t
coalesce_nentities(const coalesce *c)
{
	return ((uint32_t)c->nents);
}

uint32_t
coalesce_first(const coalesce *c, uint32_t entity)
{
	return (entity < c->nents ? c->ents[entity].first : COALESCE_NONE);
}

uint32_t
coalesce_next(const coalesce *c, uint32_t r)
{
	return (c->rects[r].next);
}

void
coalesce_get(const coalesce *c, uint32_t r, coalesce_rect *out)
{
	const rect *x = &c->rects[r];

	out->start = x->start;
	out->duration = x->duration;
	out->count = x->count;
	out->states = states_of(c, r);
	out->tags = x->tags;
	out->ntags = x->ntags;
}

int
coalesce_seen(const coalesce *c, uint32_t entity)
{
	return (entity < c->nents && c->ents[entity].seen);
}

int
coalesce_current(const coalesce *c, uint32_t entity, uint32_t *state,
    uint32_t *tag)
{
	if (entity >= c->nents || !c->ents[entity].has_state)
		return (0);
	*state = c->ents[entity].state;
	*tag = c->ents[entity].tag;
	return (1);
}

uint64_t
coalesce_state_time(const coalesce *c, uint32_t entity, uint32_t state)
{
	uint64_t total = 0;
	uint32_t r;

	for (r = coalesce_first(c, entity); r != COALESCE_NONE;
	    r = c->rects[r].next)
		total += states_of(c, r)[state];
	return (total);
}
