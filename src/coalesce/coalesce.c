#include "coalesce/coalesce.h"

#include <stdlib.h>
#include <string.h>

#include "coalesce/taglog.h"
#include "base/threads.h"
#include "base/util.h"

/*
 * A rectangle is kept in three parallel arrays, by how often each part
 * is read.  Weights are what merging compares, and a weight reads a
 * rectangle's duration and its neighbours', so those (and the links)
 * are together in 16 bytes; the start, the entity and the tags are read
 * once per merge; the time per state (nstates per rectangle) only when
 * the rectangle is made.
 *
 * While data come, a rectangle does not hold its own time per state and
 * count but its entity's running totals when it began (the entity's
 * "totals": time per state and intervals so far).  What a rectangle
 * stands for is then the difference between its totals and the next
 * one's (or the entity's, for the last), whatever merged into it: a
 * merge adds nothing up and reads neither rectangle's times, and a
 * datum merged on arrival adds to its entity's totals alone.
 * coalesce_finish turns the totals into times (renumber_in_entity_order).
 */
typedef struct rect {
	uint64_t duration;
	uint32_t prev, next;
} rect;

typedef struct rect_info {
	uint64_t start;
	uint32_t entity;
	uint32_t tag_lo;	/* its first entry in its entity's tag log */
	/*
	 * The intervals with time it stands for (saturating at UINT32_MAX);
	 * while data come, its entity's count of them when it began.
	 */
	uint64_t count;
} rect_info;

typedef struct entity {
	uint64_t start;		/* when the open state began */
	uint32_t first, last;
	uint32_t nrects;
	uint32_t state, tag;
	uint64_t count;		/* intervals with time so far */
	unsigned char seen;	/* had a datum within the end bound */
	unsigned char has_state;
} ent_state;

struct coalesce {
	uint32_t nstates;
	uint64_t budget;
	int64_t begin, end;
	uint64_t end_used;

	rect *rects;
	rect_info *info;	/* parallel to rects */
	/*
	 * nstates per rect, parallel to rects: the time in each state, or
	 * while data come, its entity's totals when it began.
	 */
	uint64_t *state_time;
	/*
	 * Each rectangle's position in the heap, or COALESCE_NONE; apart
	 * from the rectangles because sifting writes it at every level, and
	 * a small dense array stays in cache where the rectangles do not.
	 */
	uint32_t *heap_pos;
	size_t nrects, rects_cap;
	uint32_t free_list;	/* through rect.next */

	ent_state *ents;
	/* Each entity's time per state so far, nstates per entity. */
	uint64_t *totals;
	size_t nents, ents_cap;
	/*
	 * Each entity's tag log (taglog.h), parallel to ents; NULL until
	 * the first tag, so that a trace without tags pays nothing for it.
	 */
	taglog *logs;

	struct heap_entry *heap; /* heap_mem + HEAP_SKEW: see heap_reserve */
	struct heap_entry *heap_mem;
	size_t heap_len, heap_cap;
	/*
	 * The top of the heap is known to hold its true weight: set by
	 * fresh_top, cleared by anything that may change the heap or a
	 * weight.  A datum merged on arrival changes only its own entity's
	 * weights, so it leaves the flag alone unless the top is in that
	 * entity: the next datum then compares with the top as it is,
	 * without reading the top's rectangles again.
	 */
	int top_fresh;
	uint32_t top_entity;

	taglog_sorter sorter;	/* for settling tag logs */
	/* Filled by coalesce_put: rectangles hold their own times. */
	int from_puts;
};

/* ---- the ordered set: a min-heap on (weight, start, entity) ---- */

/*
 * Heap entries carry the weight, so sifting compares without touching
 * the rectangles (which would be a cache miss per comparison); only
 * equal weights, which are rare, read the rest of the key from them.  A
 * rectangle's start and entity never change while it is in the set.
 */
typedef struct heap_entry {
	uint64_t weight;
	uint32_t rect;
	uint32_t unused;
} heap_entry;

/* The rest of the key, for equal weights: start, entity, then index. */
static int
key_less(const coalesce *c, uint64_t start, uint32_t entity, uint32_t r,
    uint32_t other)
{
	const rect_info *o = &c->info[other];

	if (start != o->start)
		return (start < o->start);
	if (entity != o->entity)
		return (entity < o->entity);
	/*
	 * Only zero-length rectangles can tie this far (the reference then
	 * corrupts its own state); the index keeps us deterministic.
	 */
	return (r < other);
}

static int
entry_less(const coalesce *c, const heap_entry *x, const heap_entry *y)
{
	if (x->weight != y->weight)
		return (x->weight < y->weight);
	return (key_less(c, c->info[x->rect].start, c->info[x->rect].entity,
	    x->rect, y->rect));
}

static void
heap_place(coalesce *c, size_t pos, const heap_entry *e)
{
	c->heap[pos] = *e;
	c->heap_pos[e->rect] = (uint32_t)pos;
}

/*
 * A 4-ary heap: half the depth of a binary one.  Entries are 16 bytes
 * and the array starts HEAP_SKEW entries before a 64-byte boundary, so
 * the four children of a node (4i+1 to 4i+4) are exactly one cache
 * line: a level of sifting down reads one line.
 */
#define HEAP_ARITY	4
#define HEAP_SKEW	3
#define HEAP_ALIGN	64

static void
heap_reserve(coalesce *c, size_t need)
{
	heap_entry *mem;
	size_t cap = c->heap_cap == 0 ? 1024 : c->heap_cap;

	if (need <= c->heap_cap)
		return;
	while (cap < need)
		cap *= 2;
	if (cap > ((size_t)-1 - HEAP_ALIGN) / sizeof (heap_entry) - HEAP_SKEW)
		out_of_memory((size_t)-1);
	mem = aligned_alloc(HEAP_ALIGN, (cap + HEAP_SKEW + 1) *
	    sizeof (heap_entry));
	if (mem == NULL)
		out_of_memory((cap + HEAP_SKEW + 1) * sizeof (heap_entry));
	if (c->heap_len > 0)
		memcpy(mem + HEAP_SKEW, c->heap, c->heap_len *
		    sizeof (heap_entry));
	free(c->heap_mem);
	c->heap_mem = mem;
	c->heap = mem + HEAP_SKEW;
	c->heap_cap = cap;
}

static void
heap_up(coalesce *c, size_t pos)
{
	heap_entry e = c->heap[pos];

	while (pos > 0) {
		size_t parent = (pos - 1) / HEAP_ARITY;

		if (!entry_less(c, &e, &c->heap[parent]))
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
		/*
		 * The children's own children are the next lines (up to
		 * HEAP_ARITY of them in a row): asked for now, they arrive
		 * while this level is compared.  A heap of 100,000 entries
		 * is out of the cache, and sinking to the bottom would
		 * otherwise wait for memory at every level.
		 */
		for (k = HEAP_ARITY * first + 1; k < len &&
		    k < HEAP_ARITY * last + 1; k += HEAP_ARITY)
			__builtin_prefetch(&c->heap[k]);
		child = first;
		for (k = first + 1; k < last; k++) {
			if (entry_less(c, &c->heap[k], &c->heap[child]))
				child = k;
		}
		if (!entry_less(c, &c->heap[child], &e))
			break;
		/*
		 * A new top: fresh_top reads its rectangle and entity next,
		 * which can come in while the entry sinks further.
		 */
		if (pos == 0) {
			__builtin_prefetch(&c->rects[c->heap[child].rect]);
			__builtin_prefetch(&c->info[c->heap[child].rect]);
		}
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
	c->top_fresh = 0;
	c->heap_pos[r] = COALESCE_NONE;
	if (pos == --c->heap_len)
		return;
	/* The last entry fills the hole and moves up or down from it. */
	heap_place(c, pos, &c->heap[c->heap_len]);
	if (pos > 0 && entry_less(c, &c->heap[pos],
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
 * and fresh_top puts the top right before anyone reads it.  A datum
 * merged on arrival so costs no sift.
 *
 * So an entity with two rectangles or more has all of them in the set:
 * only an entity's only rectangle ever leaves it, short of a merge.
 */
static void
reweigh(coalesce *c, uint32_t r)
{
	heap_entry e;

	if (c->heap_pos[r] != COALESCE_NONE)
		return;
	c->top_fresh = 0;
	e.weight = weight_of(c, r);
	e.rect = r;
	e.unused = 0;
	heap_reserve(c, c->heap_len + 1);
	heap_place(c, c->heap_len++, &e);
	heap_up(c, c->heap_len - 1);
}

/*
 * Brings a rectangle's key up to its weight where it is, or puts it in
 * the set.  What a merge changes is re-keyed so, not left to fresh_top:
 * most entries are leaves or near them, where a key that grows moves a
 * level or none, while a stale key that reaches the top sinks through
 * every level (on big.out at -c 100000, nearly nine sinks in ten were
 * of rectangles a merge had left stale; re-keying them where they are
 * took 5% off the command's CPU time).
 */
static void
rekey(coalesce *c, uint32_t r)
{
	size_t pos = c->heap_pos[r];
	uint64_t w;

	if (pos == COALESCE_NONE) {
		reweigh(c, r);
		return;
	}
	w = weight_of(c, r);
	if (c->heap[pos].weight == w)
		return;
	c->heap[pos].weight = w;
	heap_down(c, pos);
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
	if (c->top_fresh)
		return;
	while (c->heap_len > 0) {
		uint64_t w = weight_of(c, c->heap[0].rect);

		if (c->heap[0].weight == w)
			break;
		c->heap[0].weight = w;
		heap_down(c, 0);
	}
	if (c->heap_len > 0) {
		c->top_entity = c->info[c->heap[0].rect].entity;
		c->top_fresh = 1;
	}
}

/* ---- rectangles ---- */

static uint64_t *
states_of(const coalesce *c, uint32_t r)
{
	return (&c->state_time[(size_t)r * c->nstates]);
}

static uint64_t *
totals_of(const coalesce *c, uint32_t id)
{
	return (&c->totals[(size_t)id * c->nstates]);
}

/* At most UINT32_MAX: a count that large only says "very many". */
static uint64_t
count_clamp(uint64_t n)
{
	return (n > UINT32_MAX ? UINT32_MAX : n);
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
			c->info = xrealloc(c->info,
			    c->rects_cap * sizeof (rect_info));
			c->state_time = xrealloc(c->state_time,
			    c->rects_cap * c->nstates * sizeof (uint64_t));
			c->heap_pos = xrealloc(c->heap_pos,
			    c->rects_cap * sizeof (uint32_t));
			memset(c->info + old, 0,
			    (c->rects_cap - old) * sizeof (rect_info));
		}
		r = (uint32_t)c->nrects++;
	}
	c->heap_pos[r] = COALESCE_NONE;
	return (r);
}

static void
rect_release(coalesce *c, uint32_t r)
{
	heap_remove(c, r);
	c->rects[r].next = c->free_list;
	c->free_list = r;
}

static ent_state *
entity_get(coalesce *c, uint32_t id)
{
	if (id >= c->nents) {
		size_t old = c->ents_cap;

		grow_array(&c->ents, &c->ents_cap, (size_t)id + 1,
		    sizeof (ent_state));
		if (c->ents_cap != old) {
			memset(c->ents + old, 0,
			    (c->ents_cap - old) * sizeof (ent_state));
			c->totals = xrealloc(c->totals,
			    c->ents_cap * c->nstates * sizeof (uint64_t));
			memset(c->totals + old * c->nstates, 0, (c->ents_cap -
			    old) * c->nstates * sizeof (uint64_t));
			if (c->logs != NULL) {
				c->logs = xrealloc(c->logs,
				    c->ents_cap * sizeof (taglog));
				memset(c->logs + old, 0, (c->ents_cap - old) *
				    sizeof (taglog));
			}
		}
		while (c->nents <= id) {
			c->ents[c->nents].first = COALESCE_NONE;
			c->ents[c->nents].last = COALESCE_NONE;
			c->nents++;
		}
	}
	return (&c->ents[id]);
}

/* The tag logs, made when the first tag comes. */
static void
need_logs(coalesce *c)
{
	if (c->logs == NULL)
		c->logs = xcalloc(c->ents_cap > 0 ? c->ents_cap : 1,
		    sizeof (taglog));
}

/* Where a rectangle's tags end: where the next one's begin. */
static uint32_t
tag_hi(const coalesce *c, uint32_t r)
{
	uint32_t next = c->rects[r].next;

	return (next != COALESCE_NONE ? c->info[next].tag_lo :
	    c->logs[c->info[r].entity].n);
}

/* How many tags a rectangle has in its entity's log. */
static uint32_t
tags_of(const coalesce *c, uint32_t r)
{
	if (c->logs == NULL || c->logs[c->info[r].entity].v == NULL)
		return (0);
	return (tag_hi(c, r) - c->info[r].tag_lo);
}

/*
 * Compacts an entity's tag log: each rectangle's range sorted, summed
 * and moved down, first to last (a range's end is read before the next
 * range moves).  A held entry stays held, the last range's.
 */
static void
compact_tags(coalesce *c, uint32_t id, taglog_sorter *sorter)
{
	taglog *l = &c->logs[id];
	uint32_t r, to = 0;

	for (r = c->ents[id].first; r != COALESCE_NONE; r = c->rects[r].next) {
		uint32_t lo = c->info[r].tag_lo, hi = tag_hi(c, r);

		c->info[r].tag_lo = to;
		to += taglog_settle_range(l, lo, hi, to, sorter);
	}
	taglog_cut(l, to, c->ents[id].last != COALESCE_NONE ?
	    c->info[c->ents[id].last].tag_lo : to);
}

/* Adds time to tag in the entity's last rectangle (the logs are made). */
static void
add_tag_time(coalesce *c, uint32_t id, uint32_t tag, uint64_t time)
{
	taglog *l = &c->logs[id];

	if (taglog_add(l, tag, time))
		return;
	if (taglog_compaction_due(l))
		compact_tags(c, id, &c->sorter);
	taglog_make_room(l);
	(void)taglog_add(l, tag, time);
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
 *
 * It reads the entity, its last rectangle's duration and the (usually
 * unchanged) top of the set, and writes no more: the last rectangle and
 * its left neighbour are in the set already (see reweigh), their stale
 * keys are corrected when they reach the top, and the time goes to the
 * entity's totals.
 */
static int
merge_on_arrival(coalesce *c, uint32_t id, uint64_t end)
{
	ent_state *e = &c->ents[id];
	uint64_t duration = end - e->start, weight;
	uint32_t top;
	rect *last;

	if (e->last == COALESCE_NONE || c->heap_len + 1 < c->budget ||
	    (e->nrects == 1 && c->heap_pos[e->last] == COALESCE_NONE))
		return (0);
	last = &c->rects[e->last];
	weight = duration + last->duration;
	fresh_top(c);
	top = c->heap[0].rect;
	if (weight != c->heap[0].weight ? weight > c->heap[0].weight :
	    !key_less(c, e->start, id, c->free_list != COALESCE_NONE ?
	    c->free_list : (uint32_t)c->nrects, top))
		return (0);
	last->duration += duration;
	totals_of(c, id)[e->state] += duration;
	e->count += duration > 0;
	if (e->tag != COALESCE_NO_TAG)
		add_tag_time(c, id, e->tag, duration);
	/* The last rectangle and its left one weigh more now. */
	if (c->top_entity == id)
		c->top_fresh = 0;
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

	c->info[r].start = e->start;
	c->info[r].entity = id;
	x->duration = end - e->start;
	x->prev = e->last;
	x->next = COALESCE_NONE;
	/* Its totals are the entity's before its own time is added. */
	memcpy(states_of(c, r), totals_of(c, id), c->nstates *
	    sizeof (uint64_t));
	c->info[r].count = e->count;
	totals_of(c, id)[e->state] += x->duration;
	e->count += x->duration > 0;
	c->info[r].tag_lo = c->logs != NULL ?
	    taglog_begin_range(&c->logs[id]) : 0;
	if (e->last == COALESCE_NONE)
		e->first = r;
	else
		c->rects[e->last].next = r;
	e->last = r;
	e->nrects++;
	/* Linked first: adding may compact the log, which walks the list. */
	if (e->tag != COALESCE_NO_TAG)
		add_tag_time(c, id, e->tag, x->duration);
	if (final)
		return;
	c->top_fresh = 0;
	if (x->prev != COALESCE_NONE)
		reweigh(c, x->prev);
	reweigh(c, r);
}

/*
 * The victim's time goes to the survivor, its right neighbour; the victim
 * leaves its list.  Times per state and counts need nothing: the
 * survivor's now run to the victim's right neighbour's totals.
 */
static void
absorb(coalesce *c, uint32_t survivor, uint32_t victim)
{
	rect *s = &c->rects[survivor], *v = &c->rects[victim];
	uint32_t id = c->info[survivor].entity;
	ent_state *e = &c->ents[id];

	c->top_fresh = 0;
	s->duration += v->duration;
	/* The victim's tags follow the survivor's in the log: now its. */
	s->next = v->next;
	if (v->next != COALESCE_NONE) {
		c->rects[v->next].prev = survivor;
	} else {
		e->last = survivor;
		if (c->logs != NULL)
			c->logs[id].open = c->info[survivor].tag_lo;
	}
	e->nrects--;
	rect_release(c, victim);

	if (s->prev != COALESCE_NONE)
		rekey(c, s->prev);
	rekey(c, survivor);
	if (s->next != COALESCE_NONE)
		rekey(c, s->next);
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

	if (c->ents[c->info[r].entity].nrects == 1) {
		heap_remove(c, r);
		return;		/* back in the set when a neighbour comes */
	}
	prev = x->prev;
	next = x->next;
	/*
	 * A survivor keeps its entry, re-keyed where it is (absorb): one
	 * sift instead of a removal and an insertion.  The order of the set
	 * is total, so where an entry sits does not change what comes out
	 * of it.
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
	for (i = 0; c->logs != NULL && i < c->nents; i++)
		taglog_free(&c->logs[i]);
	free(c->logs);
	free(c->rects);
	free(c->info);
	free(c->state_time);
	free(c->ents);
	free(c->totals);
	free(c->heap_mem);
	free(c->heap_pos);
	taglog_sorter_free(&c->sorter);
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
	if (tag != COALESCE_NO_TAG && c->logs == NULL)
		need_logs(c);
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

/* Entities from which their states alone outgrow a core's cache. */
#define PREFETCH_ENTITIES	16384

int
coalesce_worth_prefetching(const coalesce *c)
{
	return (c->logs != NULL || c->nents >= PREFETCH_ENTITIES);
}

void
coalesce_prefetch(const coalesce *c, uint32_t id, int stage)
{
	const ent_state *e;

	if (id >= c->nents)
		return;
	e = &c->ents[id];
	if (stage == 0) {
		__builtin_prefetch(e);
		__builtin_prefetch(totals_of(c, id));
		if (c->logs != NULL)
			__builtin_prefetch(&c->logs[id]);
		return;
	}
	/* Read from lines asked for at stage 0, which have come by now. */
	if (e->last != COALESCE_NONE)
		__builtin_prefetch(&c->rects[e->last]);
	if (c->logs != NULL && c->logs[id].v != NULL)
		__builtin_prefetch(c->logs[id].v + c->logs[id].n, 1);
}

/*
 * Entities' rectangle lists walked side by side when renumbering: a
 * walk is a chain of loads that each wait for the one before, so one
 * list at a time would wait on memory at every rectangle.
 */
#define RENUMBER_LANES	16

/*
 * An entity's rectangles, renumbered in order into info and times: each
 * one's totals taken from the next one's (the entity's, for the last),
 * in ascending order, so a next one's totals are read before they change.
 */
static void
totals_to_times(const coalesce *c, uint32_t id, rect_info *info,
    uint64_t *times)
{
	const ent_state *e = &c->ents[id];
	size_t n, i, k, first = e->first;

	if (e->first == COALESCE_NONE || c->from_puts)
		return;
	n = e->nrects;
	for (i = first; i < first + n; i++) {
		const uint64_t *next = i + 1 < first + n ?
		    &times[(i + 1) * c->nstates] : totals_of(c, id);
		uint64_t next_count = i + 1 < first + n ? info[i + 1].count :
		    e->count;
		uint64_t *t = &times[i * c->nstates];

		for (k = 0; k < c->nstates; k++)
			t[k] = next[k] - t[k];
		info[i].count = count_clamp(next_count - info[i].count);
	}
}

/*
 * Gives the rectangles new numbers in the order readers walk them, each
 * entity's list in time order, entity after entity, and drops the freed
 * ones: after merging, a list hops all over the arrays, and the writers
 * walk every list two or three times.  Sequential, those walks run at
 * the speed of memory instead of waiting for it at each step.  In order,
 * a rectangle's totals are followed by its right neighbour's, and become
 * its times per state and count (see struct rect_info).
 */
static void
renumber_in_entity_order(coalesce *c)
{
	size_t live = 0, cap, id, next_ent = 0, to;
	uint32_t lane_rect[RENUMBER_LANES];
	size_t lane_to[RENUMBER_LANES];
	uint32_t *renum;
	rect *rects;
	rect_info *info;
	uint64_t *times;
	uint32_t *pos;
	int k, active = 0;

	for (id = 0; id < c->nents; id++)
		live += c->ents[id].nrects;
	cap = live > 0 ? live : 1;
	renum = xmalloc(c->nrects * sizeof (uint32_t));
	rects = xmalloc(cap * sizeof (rect));
	info = xmalloc(cap * sizeof (rect_info));
	times = xmalloc(cap * c->nstates * sizeof (uint64_t));
	pos = xmalloc(cap * sizeof (uint32_t));

	/* Each lane copies one entity's list to where that entity begins. */
	for (k = 0; k < RENUMBER_LANES; k++)
		lane_rect[k] = COALESCE_NONE;
	to = 0;
	for (;;) {
		for (k = 0; k < RENUMBER_LANES; k++) {
			uint32_t r = lane_rect[k];
			size_t n;

			while (r == COALESCE_NONE && next_ent < c->nents) {
				r = c->ents[next_ent].first;
				lane_to[k] = to;
				to += c->ents[next_ent++].nrects;
				active += r != COALESCE_NONE;
			}
			if (r == COALESCE_NONE)
				continue;
			n = lane_to[k]++;
			renum[r] = (uint32_t)n;
			rects[n] = c->rects[r];
			info[n] = c->info[r];
			pos[n] = c->heap_pos[r];
			memcpy(&times[n * c->nstates], states_of(c, r),
			    c->nstates * sizeof (uint64_t));
			lane_rect[k] = c->rects[r].next;
			active -= lane_rect[k] == COALESCE_NONE;
		}
		if (active == 0 && next_ent >= c->nents)
			break;
	}

	/* The links, the lists' ends and the set's entries follow. */
	for (to = 0; to < live; to++) {
		if (rects[to].prev != COALESCE_NONE)
			rects[to].prev = renum[rects[to].prev];
		if (rects[to].next != COALESCE_NONE)
			rects[to].next = renum[rects[to].next];
	}
	for (id = 0; id < c->nents; id++) {
		if (c->ents[id].first != COALESCE_NONE) {
			c->ents[id].first = renum[c->ents[id].first];
			c->ents[id].last = renum[c->ents[id].last];
		}
	}
	for (to = 0; to < c->heap_len; to++)
		c->heap[to].rect = renum[c->heap[to].rect];
	for (id = 0; id < c->nents; id++)
		totals_to_times(c, (uint32_t)id, info, times);

	free(renum);
	free(c->rects);
	free(c->info);
	free(c->state_time);
	free(c->heap_pos);
	c->rects = rects;
	c->info = info;
	c->state_time = times;
	c->heap_pos = pos;
	c->nrects = live;
	c->rects_cap = cap;
	c->free_list = COALESCE_NONE;
}

/*
 * Every log compacted, so that readers see each rectangle's tags as one
 * sorted run.  Entities' logs and rectangles are their own, so they are
 * settled on every core, in jobs of neighbouring entities, each with a
 * sorter of its own: with many tags this came after the last datum, on
 * one core while the other had nothing to do.
 */
#define SETTLE_JOBS	16

typedef struct settle_job {
	coalesce *c;
	size_t from, to;	/* entities */
} settle_job;

static void
settle_logs(void *arg)
{
	const settle_job *job = arg;
	taglog_sorter sorter;
	size_t id;

	memset(&sorter, 0, sizeof (sorter));
	for (id = job->from; id < job->to; id++) {
		taglog_flush(&job->c->logs[id]);
		compact_tags(job->c, (uint32_t)id, &sorter);
	}
	taglog_sorter_free(&sorter);
}

static void
settle_all_logs(coalesce *c)
{
	settle_job jobs[SETTLE_JOBS];
	size_t i;

	for (i = 0; i < SETTLE_JOBS; i++) {
		jobs[i].c = c;
		jobs[i].from = c->nents * i / SETTLE_JOBS;
		jobs[i].to = c->nents * (i + 1) / SETTLE_JOBS;
	}
	threads_run(settle_logs, jobs, SETTLE_JOBS, sizeof (settle_job));
}

void
coalesce_finish(coalesce *c, uint64_t last_time)
{
	uint64_t end = last_time;
	size_t id;

	c->end_used = end;
	if (c->end < 0)
		goto settle;
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
settle:
	renumber_in_entity_order(c);
	if (c->logs != NULL)
		settle_all_logs(c);
}

void
coalesce_put(coalesce *c, uint32_t id, uint64_t start, uint64_t duration,
    uint64_t count, const uint64_t *states, const coalesce_tag *tags,
    size_t ntags)
{
	ent_state *e = entity_get(c, id);
	uint32_t r = rect_alloc(c);
	rect *x = &c->rects[r];

	c->from_puts = 1;
	e->seen = 1;
	c->info[r].start = start;
	c->info[r].entity = id;
	x->duration = duration;
	c->info[r].count = count_clamp(count);
	x->prev = e->last;
	x->next = COALESCE_NONE;
	memcpy(states_of(c, r), states, c->nstates * sizeof (uint64_t));
	if (ntags > 0)
		need_logs(c);
	c->info[r].tag_lo = c->logs != NULL ?
	    taglog_begin_range(&c->logs[id]) : 0;
	if (ntags > UINT32_MAX)
		out_of_memory((size_t)-1);
	if (ntags > 0)
		taglog_append_range(&c->logs[id], tags, (uint32_t)ntags);
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
	const rect_info *info = &c->info[r];

	out->start = info->start;
	out->duration = c->rects[r].duration;
	out->count = info->count;
	out->states = states_of(c, r);
	out->ntags = tags_of(c, r);
}

void
coalesce_tags(const coalesce *c, uint32_t r, coalesce_tag **buf,
    size_t *cap)
{
	uint32_t n = tags_of(c, r);

	if (n == 0)
		return;
	grow_array(buf, cap, n, sizeof (coalesce_tag));
	taglog_read(&c->logs[c->info[r].entity], c->info[r].tag_lo,
	    c->info[r].tag_lo + n, *buf);
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

int
coalesce_current_since(const coalesce *c, uint32_t entity, uint64_t *time)
{
	if (entity >= c->nents || !c->ents[entity].has_state)
		return (0);
	*time = c->ents[entity].start;
	return (1);
}
