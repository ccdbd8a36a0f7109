/*
 * store_view.c: stores made from others (store.h): an entity's columns
 * copied into another store, and views that read a finished store's columns
 * in place over a slice of its time.
 */
#include "store/store.h"

#include <string.h>

#include "base/util.h"
#include "store/store_internal.h"

/* ---- copies of entities ---- */

void
store_copy_entity(store *s, uint32_t to, const store *src, uint32_t from)
{
	const column *f;
	column *c;
	size_t n, i;

	if (from >= src->ncols)
		return;
	f = &src->cols[from];
	c = store_column_of(s, to);
	if (c->count > 0 || c->vals != NULL)
		store_bug("store_copy_entity to an entity that has data");
	if (f->vals != NULL) {
		values *v = store_values_of(s, c);

		n = f->vals->count;
		v->time = xmalloc((n + 1) * sizeof (uint64_t));
		v->value = xmalloc((n + 1) * sizeof (sm_value));
		if (n > 0) {
			memcpy(v->time, f->vals->time, n * sizeof (uint64_t));
			memcpy(v->value, f->vals->value, n * sizeof (sm_value));
		}
		v->count = n;
		v->cap = v->populated = n + 1;
		s->heap_bytes += v->cap * VALUE_BYTES;
		s->values_total += n;
		return;
	}
	n = f->count;
	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		if (f->state[i] >= s->nstates && f->state[i] != STORE_GAP)
			store_misuse("store_copy_entity of state", f->state[i],
			    s->nstates);
	}
	store_column_reserve(s, c, n);
	store_column_populate(c, n);
	memcpy(c->time, f->time, n * sizeof (uint64_t));
	memcpy(c->state, f->state, n * sizeof (uint16_t));
	if (f->tag != NULL) {
		c->tag = xmalloc(c->cap * sizeof (uint32_t));
		s->heap_bytes += c->cap * sizeof (uint32_t);
		memcpy(c->tag, f->tag, n * sizeof (uint32_t));
	}
	if (f->depth != NULL) {
		store_make_nested(s, c);
		memcpy(c->depth, f->depth, n * sizeof (uint16_t));
		memcpy(c->below, f->below, n * sizeof (uint32_t));
	}
	c->count = n;
	s->total += n;
}

/* ---- views ---- */

/*
 * The first transition past end stays, as it ends the entity's last
 * interval in the window: the interval holding a time (store_state_at)
 * is then the one a copy would give, unclipped.  Those at end stay too,
 * as the classic coalescing closes a rectangle at a datum at its end
 * bound, and a slice must coalesce as a copy would.
 */
store *
store_view(const store *parent, uint64_t begin, uint64_t end)
{
	store *s = store_new(parent->nstates);
	size_t e, longest = 0;

	if (parent->ncols > 0) {
		s->cols = xcalloc(parent->ncols, sizeof (column));
		s->ncols = s->cols_cap = parent->ncols;
	}
	for (e = 0; e < parent->ncols; e++) {
		const column *from = &parent->cols[e];
		column *c = &s->cols[e];
		size_t lo, hi;

		if (from->vals != NULL) {
			/* The parent's values and summary, read in place:
			 * queries clip them to the view's bounds. */
			c->vals = from->vals;
			c->borrowed = 1;
			s->special++;
			s->values_total += from->vals->count;
			continue;
		}
		if (from->count == 0)
			continue;
		lo = store_count_through(from->time, from->count, begin);
		lo = lo > 0 ? lo - 1 : 0;
		/* A stack's links are indexes from the column's first
		 * transition, and may reach back before the view. */
		if (from->depth != NULL)
			lo = 0;
		hi = store_count_through(from->time, from->count, end);
		if (hi < from->count)
			hi++;
		if (hi <= lo)
			hi = lo + 1;
		c->time = from->time + lo;
		c->state = from->state + lo;
		c->tag = from->tag != NULL ? from->tag + lo : NULL;
		if (from->depth != NULL) {
			c->depth = from->depth;
			c->below = from->below;
			s->special++;
		}
		c->count = c->cap = c->populated = hi - lo;
		c->borrowed = 1;
		s->total += hi - lo;
		if (c->tag == NULL && hi - lo > longest)
			longest = hi - lo;
	}
	/*
	 * The parent's columns may be mapped and far larger than memory:
	 * the view's own none is made when first asked for, as long as its
	 * longest column (store_tags).
	 */
	s->mapped = 1;
	s->none_want = longest;
	s->begin = begin;
	s->end = end;
	return (s);
}
