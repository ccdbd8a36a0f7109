#include "store/interleave.h"

#include <stdlib.h>

#include "base/util.h"

typedef struct cursor {
	const uint64_t *times;
	const uint16_t *states;
	const uint32_t *tags;
	size_t next, count;
	size_t rank;
	uint32_t entity;
} cursor;

struct interleave {
	cursor *cursors;
	cursor **heap;		/* earliest next transition on top */
	size_t nheap;
};

static int
before(const cursor *a, const cursor *b)
{
	uint64_t ta = a->times[a->next], tb = b->times[b->next];

	return (ta != tb ? ta < tb : a->rank < b->rank);
}

static void
sift_down(interleave *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, top = i;
		cursor *tmp;

		if (l < m->nheap && before(m->heap[l], m->heap[top]))
			top = l;
		if (r < m->nheap && before(m->heap[r], m->heap[top]))
			top = r;
		if (top == i)
			return;
		tmp = m->heap[i];
		m->heap[i] = m->heap[top];
		m->heap[top] = tmp;
		i = top;
	}
}

/* The index of the last time at or before t, or 0 if none is. */
static size_t
last_at_or_before(const uint64_t *times, size_t count, uint64_t t)
{
	size_t n = store_count_through(times, count, t);

	return (n > 0 ? n - 1 : 0);
}

/* From the first transitions (skip 0) or from the state at `from`. */
static interleave *
start(const store *s, const uint32_t *entities, size_t n, int skip,
    uint64_t from)
{
	interleave *m = xcalloc(1, sizeof (*m));
	size_t i;

	m->cursors = xcalloc(n + 1, sizeof (cursor));
	m->heap = xcalloc(n + 1, sizeof (cursor *));
	for (i = 0; i < n; i++) {
		cursor *c = &m->cursors[i];

		c->entity = entities[i];
		c->rank = i;
		c->count = store_count(s, c->entity);
		if (c->count == 0)
			continue;
		c->times = store_times(s, c->entity);
		c->states = store_states(s, c->entity);
		c->tags = store_tags(s, c->entity);
		if (skip)
			c->next = last_at_or_before(c->times, c->count, from);
		m->heap[m->nheap++] = c;
	}
	for (i = m->nheap; i-- > 0;)
		sift_down(m, i);
	return (m);
}

interleave *
interleave_new(const store *s, const uint32_t *entities, size_t n)
{
	return (start(s, entities, n, 0, 0));
}

interleave *
interleave_new_from(const store *s, const uint32_t *entities, size_t n,
    uint64_t from)
{
	return (start(s, entities, n, 1, from));
}

void
interleave_free(interleave *m)
{
	if (m == NULL)
		return;
	free(m->cursors);
	free(m->heap);
	free(m);
}

int
interleave_next(interleave *m, interleave_item *out)
{
	cursor *c;

	if (m->nheap == 0)
		return (0);
	c = m->heap[0];
	out->rank = c->rank;
	out->entity = c->entity;
	out->time = c->times[c->next];
	out->state = c->states[c->next];
	out->tag = c->tags[c->next];
	if (++c->next == c->count)
		m->heap[0] = m->heap[--m->nheap];
	sift_down(m, 0);
	return (1);
}
