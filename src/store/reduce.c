#include "store/reduce.h"

#include <string.h>

#include "base/runlimit.h"

/*
 * Where a pass is: the entity being read (its columns) and the next
 * transition.  The same walk as store_iter's, kept here where the
 * compiler can see it whole: a call per interval would cost as much as
 * the rest of the work.
 */
typedef struct walker {
	const store *s;
	const reduce_selection *q;
	uint64_t from, to, end;
	size_t next_entity, nentities;
	uint32_t entity;
	const uint64_t *time;
	const uint16_t *state;
	const uint32_t *tag;
	size_t i, n;
	uint64_t seen;		/* intervals so far, for the limits */
} walker;

static void
walk_init(walker *w, const store *s, const reduce_selection *q)
{
	memset(w, 0, sizeof (*w));
	w->s = s;
	w->q = q;
	w->from = q->from > store_begin(s) ? q->from : store_begin(s);
	w->to = q->to < store_end(s) ? q->to : store_end(s);
	w->end = store_end(s);
	w->nentities = q->entities != NULL ? q->nentities :
	    store_nentities(s);
}

/* Moves to the next entity with transitions; 0 when there is none. */
static int
walk_entity(walker *w)
{
	while (w->next_entity < w->nentities) {
		uint32_t e = w->q->entities != NULL ?
		    w->q->entities[w->next_entity] : (uint32_t)w->next_entity;
		size_t n = store_count(w->s, e), i;

		w->next_entity++;
		if (n == 0)
			continue;
		w->entity = e;
		w->time = store_times(w->s, e);
		w->state = store_states(w->s, e);
		w->tag = store_tags(w->s, e);
		w->n = n;
		i = store_count_through(w->time, n, w->from);
		w->i = i > 0 ? i - 1 : 0;
		return (1);
	}
	return (0);
}

/*
 * The next selected interval: its index in the entity's columns, its
 * clipped bounds in *a and *b.  0 at the end.
 */
static inline int
walk_next(walker *w, size_t *k, uint64_t *a, uint64_t *b)
{
	if (w->to <= w->from)
		return (0);
	for (;;) {
		size_t i;
		uint64_t start, finish;

		if (w->i >= w->n || w->time[w->i] >= w->to) {
			if (!walk_entity(w))
				return (0);
			continue;
		}
		i = w->i++;
		start = w->time[i];
		finish = i + 1 < w->n ? w->time[i + 1] : w->end;
		if (start < w->from)
			start = w->from;
		if (finish > w->to)
			finish = w->to;
		/* No data (STORE_GAP) is no interval. */
		if (finish <= start || w->state[i] == STORE_GAP)
			continue;
		if (w->q->states != NULL && !w->q->states[w->state[i]])
			continue;
		*k = i;
		*a = start;
		*b = finish;
		return (1);
	}
}

/* Every 1 M intervals: whether a script's limits say stop. */
static int
stopping(walker *w, const char **why)
{
	return ((++w->seen & 0xfffff) == 0 && runlimit_check(0, why) != 0);
}

size_t
reduce_bound(const store *s, const reduce_selection *q)
{
	walker w;
	size_t bound = 0;

	walk_init(&w, s, q);
	if (w.to <= w.from)
		return (0);
	while (walk_entity(&w)) {
		size_t end = store_count_before(w.time, w.n, w.to);

		if (end > w.i)
			bound += end - w.i;
	}
	return (bound);
}

/*
 * No counting pass first: the arrays are made as large as the bound, in
 * memory whose pages come in only as they are written (arena.h), so the
 * bound costs address space, not memory.
 */
int
reduce_fill(const store *s, const reduce_selection *q,
    const reduce_columns *out, size_t *n, const char **why)
{
	walker w;
	size_t k, j = 0;
	uint64_t a, b;

	walk_init(&w, s, q);
	while (walk_next(&w, &k, &a, &b)) {
		if (stopping(&w, why)) {
			*n = j;
			return (-1);
		}
		if (out->start != NULL)
			out->start[j] = a;
		if (out->finish != NULL)
			out->finish[j] = b;
		if (out->duration != NULL)
			out->duration[j] = b - a;
		if (out->entity != NULL)
			out->entity[j] = w.entity + 1;
		if (out->state != NULL)
			out->state[j] = (uint32_t)w.state[k] + 1;
		if (out->tag != NULL)
			out->tag[j] = w.tag[k] + 1;	/* STORE_NONE: 0 */
		j++;
	}
	*n = j;
	return (0);
}

int
reduce_sums(const store *s, const reduce_selection *q, reduce_key by,
    const uint32_t *key_of, uint32_t ntags, uint64_t *time, uint64_t *count,
    const char **why)
{
	walker w;
	size_t k;
	uint64_t a, b;

	walk_init(&w, s, q);
	while (walk_next(&w, &k, &a, &b)) {
		uint32_t key;

		if (stopping(&w, why))
			return (-1);
		switch (by) {
		case REDUCE_STATE:
			key = w.state[k];
			break;
		case REDUCE_ENTITY:
			key = w.entity;
			break;
		default:
			if (w.tag[k] >= ntags)
				continue;	/* untagged, or not a tag */
			key = key_of[w.tag[k]];
			break;
		}
		if (key == STORE_NONE)
			continue;
		time[key] += b - a;
		count[key]++;
	}
	return (0);
}
