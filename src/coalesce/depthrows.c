#include "coalesce/depthrows.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

typedef struct erows {
	uint32_t *row;		/* row id per depth - 1 */
	size_t nrows, cap;
	uint32_t depth;		/* of the stack now; 0: not begun */
	uint32_t shown;		/* rows to write: see depthrows_finish */
} erows;

struct depthrows {
	coalesce *co;
	uint32_t absent;
	uint32_t next_row;
	erows *ents;
	size_t nents;
};

depthrows *
depthrows_new(uint32_t nstates, uint64_t budget, int64_t begin, int64_t end)
{
	depthrows *d = xcalloc(1, sizeof (*d));

	d->absent = nstates;
	d->co = coalesce_new(nstates + 1, budget, begin, end);
	return (d);
}

void
depthrows_free(depthrows *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->nents; i++)
		free(d->ents[i].row);
	free(d->ents);
	coalesce_free(d->co);
	free(d);
}

static erows *
ent(depthrows *d, uint32_t entity)
{
	if (entity >= d->nents) {
		size_t old = d->nents;

		grow_array(&d->ents, &d->nents, (size_t)entity + 1,
		    sizeof (erows));
		memset(d->ents + old, 0, (d->nents - old) * sizeof (erows));
	}
	return (&d->ents[entity]);
}

/* The row of a depth, made when the stack first reaches it. */
static uint32_t
row_of(depthrows *d, erows *e, uint32_t depth)
{
	while (e->nrows < depth) {
		grow_array(&e->row, &e->cap, e->nrows + 1, sizeof (uint32_t));
		e->row[e->nrows++] = d->next_row++;
	}
	return (e->row[depth - 1]);
}

void
depthrows_begin(depthrows *d, uint32_t entity, uint64_t since,
    uint32_t state, uint32_t tag)
{
	erows *e = ent(d, entity);

	if (e->depth > 0)
		return;
	e->depth = 1;
	coalesce_datum(d->co, row_of(d, e, 1), since, state, tag);
}

void
depthrows_push(depthrows *d, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag)
{
	erows *e = ent(d, entity);

	e->depth++;
	coalesce_datum(d->co, row_of(d, e, e->depth), time, state, tag);
}

void
depthrows_pop(depthrows *d, uint32_t entity, uint64_t time)
{
	erows *e = ent(d, entity);

	if (e->depth == 1) {
		/* The last frame: the entity's data end. */
		depthrows_set(d, entity, time, COALESCE_GAP, COALESCE_NO_TAG);
		return;
	}
	if (e->depth == 0)
		return;		/* never: records checked it */
	coalesce_datum(d->co, row_of(d, e, e->depth), time, d->absent,
	    COALESCE_NO_TAG);
	e->depth--;
}

void
depthrows_set(depthrows *d, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag)
{
	erows *e = ent(d, entity);
	uint32_t k, bottom, bottom_tag;

	if (state == COALESCE_GAP) {
		for (k = e->depth; k >= 1; k--)
			coalesce_datum(d->co, row_of(d, e, k), time,
			    d->absent, COALESCE_NO_TAG);
		e->depth = 0;
		return;
	}

	/*
	 * From depth 2, a plain datum that gives back the bottom frame as
	 * it is (its state and tag) leaves the stack as a pop would, and a
	 * store keeps the two alike: so it is a pop here too, and the rows
	 * are those the live server's answers read from the store.
	 */
	if (e->depth == 2 && coalesce_current(d->co, e->row[0], &bottom,
	    &bottom_tag) && bottom == state && bottom_tag == tag) {
		depthrows_pop(d, entity, time);
		return;
	}
	for (k = e->depth; k > 1; k--)
		coalesce_datum(d->co, row_of(d, e, k), time, d->absent,
		    COALESCE_NO_TAG);
	e->depth = 1;
	coalesce_datum(d->co, row_of(d, e, 1), time, state, tag);
}

/*
 * Whether a row has a rectangle writers write: one with time in a state
 * other than absent (they leave out zero-length and all-absent ones).
 */
static int
row_has_time(const depthrows *d, uint32_t row)
{
	coalesce_rect r;
	uint32_t x;

	for (x = coalesce_first(d->co, row); x != COALESCE_NONE;
	    x = coalesce_next(d->co, x)) {
		coalesce_get(d->co, x, &r);
		/* Its states with time ascend: any before absent will do. */
		if (r.duration > 0 && r.nstates > 0 && r.states[0] < d->absent)
			return (1);
	}
	return (0);
}

/*
 * A row is made when the stack first reaches its depth, but a frame
 * pushed and popped at one time, or only outside the bounds, gives it
 * nothing to write: the rows shown end at the deepest with time (the
 * ones above it have time too, at the same moments).  Depth 1 stays,
 * so that an entity once nested is still written as one.
 */
void
depthrows_finish(depthrows *d, uint64_t last_time)
{
	size_t i;

	coalesce_finish(d->co, last_time);
	for (i = 0; i < d->nents; i++) {
		erows *e = &d->ents[i];

		e->shown = (uint32_t)e->nrows;
		while (e->shown > 1 && !row_has_time(d, e->row[e->shown - 1]))
			e->shown--;
	}
}

uint32_t
depthrows_ndepths(const depthrows *d, uint32_t entity)
{
	if (d == NULL || entity >= d->nents)
		return (0);
	return (d->ents[entity].shown);
}

const coalesce *
depthrows_coalescer(const depthrows *d)
{
	return (d->co);
}

uint32_t
depthrows_row(const depthrows *d, uint32_t entity, uint32_t depth)
{
	return (d->ents[entity].row[depth - 1]);
}

uint32_t
depthrows_absent(const depthrows *d)
{
	return (d->absent);
}

uint64_t
depthrows_size(const depthrows *d)
{
	return (coalesce_size(d->co));
}
