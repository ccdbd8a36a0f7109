/*
 * coalesce_set.c: the ordered set of coalesce.h's step 2, a min-heap on
 * (weight, start, entity) of the rectangles that can merge, lightest
 * first (its entries: coalesce_state.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "coalesce/coalesce_set.h"

static int
entry_less(const coalesce *c, const heap_entry *x, const heap_entry *y)
{
	if (x->weight != y->weight)
		return (x->weight < y->weight);
	return (coalesce_set_key_less(c, c->info[x->rect].start,
	    c->info[x->rect].entity, x->rect, y->rect));
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

/*
 * The child of least key among heap[first..last): by weight alone,
 * chosen without a branch (which child is lightest is a coin's toss, and
 * a branch on it was mispredicted at nearly every level), then by the
 * whole key if another child weighs the same (rare: weights are sums of
 * durations).
 */
static size_t
lightest_child(const coalesce *c, size_t first, size_t last)
{
	const heap_entry *h = c->heap;
	size_t child = first, k;
	uint64_t w = h[first].weight;
	int tie = 0;

	for (k = first + 1; k < last; k++) {
		uint64_t wk = h[k].weight;
		int lt = wk < w;

		tie |= wk == w;
		child = lt ? k : child;
		w = lt ? wk : w;
	}
	if (!tie)
		return (child);
	/* Some child weighs as another: the whole key decides. */
	child = first;
	for (k = first + 1; k < last; k++) {
		if (entry_less(c, &h[k], &h[child]))
			child = k;
	}
	return (child);
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
		child = lightest_child(c, first, last);
		if (!entry_less(c, &c->heap[child], &e))
			break;
		/*
		 * A new top: coalesce_set_refresh_top reads its rectangle
		 * and a trim its entity next, which can come in while the
		 * entry sinks further.
		 */
		if (pos == 0) {
			__builtin_prefetch(&c->rects[c->heap[child].rect]);
			__builtin_prefetch(&c->ents[c->heap[child].entity]);
		}
		heap_place(c, pos, &c->heap[child]);
		pos = child;
	}
	heap_place(c, pos, &e);
}

void
coalesce_set_remove(coalesce *c, uint32_t r)
{
	size_t pos = c->heap_pos[r];

	if (pos == RECT_NONE)
		return;
	c->heap_pos[r] = RECT_NONE;
	c->set_size--;
	if (pos == SET_SHADOW)
		return;
	c->top_fresh = 0;
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

	if (x->prev != RECT_NONE)
		w += c->rects[x->prev].duration;
	if (x->next != RECT_NONE)
		w += c->rects[x->next].duration;
	return (w);
}

/*
 * Called when a rectangle's weight may have changed.  One not in the
 * set enters it (one that left the set as its entity's only one comes
 * back this way).  One in the set keeps its entry as it is: a weight
 * changes only by growing (a rectangle or a neighbour absorbs another,
 * or gains a neighbour), so every entry's key is at most its true one,
 * and coalesce_set_refresh_top puts the top right before anyone reads
 * it.  A datum merged on arrival so costs no sift.
 *
 * So an entity with two rectangles or more has all of them in the set:
 * only an entity's only rectangle ever leaves it, short of a merge.
 */
void
coalesce_set_reweigh(coalesce *c, uint32_t r, uint32_t entity)
{
	heap_entry e;

	if (c->heap_pos[r] != RECT_NONE)
		return;
	c->top_fresh = 0;
	e.weight = weight_of(c, r);
	e.rect = r;
	e.entity = entity;
	c->set_size++;
	heap_reserve(c, c->heap_len + 1);
	heap_place(c, c->heap_len++, &e);
	heap_up(c, c->heap_len - 1);
}

/*
 * Brings a rectangle's key up to its weight where it is, or puts it in
 * the set.  What a merge changes is re-keyed so, not left to
 * coalesce_set_refresh_top: most entries are leaves or near them, where
 * a key that grows moves a level or none, while a stale key that reaches
 * the top sinks through every level (on big.out at -c 100000, nearly
 * nine sinks in ten were of rectangles a merge had left stale; re-keying
 * them where they are took 5% off the command's CPU time).
 */
void
coalesce_set_rekey(coalesce *c, uint32_t r, uint32_t entity)
{
	size_t pos = c->heap_pos[r];
	uint64_t w;

	if (pos == SET_SHADOW) {
		/* Its weight may part from its left neighbour's now. */
		c->heap_pos[r] = RECT_NONE;
		c->set_size--;
		pos = RECT_NONE;
	}
	if (pos == RECT_NONE) {
		coalesce_set_reweigh(c, r, entity);
		return;
	}
	w = weight_of(c, r);
	if (c->heap[pos].weight == w)
		return;
	c->heap[pos].weight = w;
	heap_down(c, pos);
}

/*
 * An entity of two rectangles, a then b, has them weigh the same, both
 * durations.  If a begins first, its key is the smaller, so b is never
 * the smallest of the set while a is in it; when a is taken, having no
 * left neighbour, it absorbs b.  If they begin together (a lasts no
 * time), the two keys differ by the index alone, no other key falls
 * between them, and whichever is taken, a absorbs b: b taken has no
 * right neighbour.  So b need not be in the heap: it counts in the set's
 * size, for the budget, as a shadow, and leaves the set with a's merge.
 * As soon as its weight may differ from a's (a third rectangle comes) it
 * is re-keyed, which gives it an entry.
 *
 * With more entities than the budget, most in the set have two
 * rectangles, and every datum that gives an entity its second rectangle
 * soon takes another's two out: a shadow halves the heap's work (and its
 * size) there.  The set holds the same rectangles either way, so what
 * comes out of it is unchanged.
 */
void
coalesce_set_shadow(coalesce *c, uint32_t r)
{
	c->heap_pos[r] = SET_SHADOW;
	c->set_size++;
}

/*
 * Makes the top of the set the smallest true key: while the top entry's
 * key is behind its rectangle's weight, it takes that weight and sinks.
 * Every other entry's key is at most its true one, so a top whose key is
 * true is the smallest of all.  (coalesce_set_fresh_top calls it when
 * the top is not known to be fresh.)
 */
void
coalesce_set_refresh_top(coalesce *c)
{
	while (c->heap_len > 0) {
		uint64_t w = weight_of(c, c->heap[0].rect);

		if (c->heap[0].weight == w)
			break;
		c->heap[0].weight = w;
		heap_down(c, 0);
	}
	if (c->heap_len > 0) {
		c->top_entity = c->heap[0].entity;
		c->top_fresh = 1;
	}
}
