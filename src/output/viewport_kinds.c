/*
 * viewport_kinds.c: a viewport panel's value entities and nested
 * entities' depth rows over the window, fed from the store to the
 * classic command's coalescers (valuerects.h, depthrows.h).
 */
#include <stdlib.h>

#include "base/util.h"
#include "output/viewport_kinds.h"

/* Entity e's values over the window, from the one in effect at lo. */
static void
feed_values(valuerects *v, const vpanel *vp, uint32_t e)
{
	const store *st = vp->t->st;
	const uint64_t *times = store_value_times(st, e);
	const sm_value *values = store_values(st, e);
	size_t n = store_value_count(st, e), i;

	if (n == 0 || vp->lo >= vp->hi)
		return;
	i = store_count_through(times, n, vp->lo);
	for (i = i > 0 ? i - 1 : 0; i < n && times[i] < vp->hi; i++)
		valuerects_datum(v, e, times[i], values[i]);
}

/* Transition i's stack as the transitions that pushed each frame. */
static uint32_t
chain(const store *st, uint32_t e, size_t i, size_t **nodes, size_t *cap)
{
	const uint16_t *depths = store_depths(st, e);
	const uint32_t *below = store_below(st, e);
	uint32_t d = depths[i], k;
	size_t at = i;

	grow_array(nodes, cap, (size_t)d + 1, sizeof (size_t));
	for (k = d; k > 0; k--) {
		(*nodes)[k - 1] = at;
		if (k > 1)
			at = below[at];
	}
	return (d);
}

static uint32_t
tag_or_none(const uint32_t *tags, size_t i)
{
	return (tags != NULL && tags[i] != STORE_NONE ? tags[i] :
	    COALESCE_NO_TAG);
}

/*
 * A nested entity's depth rows over the window: each transition's stack
 * against the one before, the frames they share kept, the rest popped
 * and pushed (a pop resumes the frame beneath: the same state, a new
 * transition).
 */
static void
feed_depths(depthrows *dr, const vpanel *vp, uint32_t e, size_t **cur,
    size_t *cur_cap, size_t **prev, size_t *prev_cap)
{
	const store *st = vp->t->st;
	const uint64_t *times = store_times(st, e);
	const uint16_t *states = store_states(st, e);
	const uint32_t *tags = store_has_tags(st, e) ? store_tags(st, e) : NULL;
	size_t count = store_count(st, e), i, first, *swap, swap_cap;
	uint32_t d, old, k, keep;

	if (store_depths(st, e) == NULL || window_count(st, e, vp->lo, vp->hi,
	    &first) == 0)
		return;
	old = chain(st, e, first, prev, prev_cap);
	depthrows_begin(dr, e, times[first], states[(*prev)[0]],
	    tag_or_none(tags, (*prev)[0]));
	for (k = 1; k < old; k++)
		depthrows_push(dr, e, times[first], states[(*prev)[k]],
		    tag_or_none(tags, (*prev)[k]));
	for (i = first + 1; i < count && times[i] < vp->hi; i++) {
		d = chain(st, e, i, cur, cur_cap);
		for (keep = 0; keep < d && keep < old &&
		    (*cur)[keep] == (*prev)[keep]; keep++)
			continue;
		if (keep < d && keep < old && keep + 1 == d &&
		    states[(*cur)[keep]] == states[(*prev)[keep]] &&
		    tag_or_none(tags, (*cur)[keep]) ==
		    tag_or_none(tags, (*prev)[keep]))
			keep++;		/* a pop back to this frame */
		if (keep == 0) {
			depthrows_set(dr, e, times[i], states[(*cur)[0]],
			    tag_or_none(tags, (*cur)[0]));
			keep = 1;
		} else {
			for (k = old; k > keep; k--)
				depthrows_pop(dr, e, times[i]);
		}
		for (k = keep; k < d; k++)
			depthrows_push(dr, e, times[i], states[(*cur)[k]],
			    tag_or_none(tags, (*cur)[k]));
		old = d;
		swap = *cur, *cur = *prev, *prev = swap;
		swap_cap = *cur_cap, *cur_cap = *prev_cap, *prev_cap = swap_cap;
	}
}

void
viewport_kinds_panel(const vpanel *vp, unsigned width, valuerects **values,
    depthrows **depths)
{
	const store *st = vp->t->st;
	uint32_t k, nvalues = 0, nnested = 0;
	size_t *cur = NULL, *prev = NULL, cur_cap = 0, prev_cap = 0;

	*values = NULL;
	*depths = NULL;
	for (k = 0; k < vp->n; k++) {
		store_kind kind = store_kind_of(st, vp->ids[k]);

		nvalues += kind == STORE_VALUES;
		nnested += kind == STORE_NESTED;
	}
	if (nvalues > 0) {
		*values = valuerects_new((uint64_t)width * nvalues,
		    (int64_t)vp->lo, (int64_t)vp->hi);
		for (k = 0; k < vp->n; k++)
			if (store_kind_of(st, vp->ids[k]) == STORE_VALUES)
				feed_values(*values, vp, vp->ids[k]);
		valuerects_finish(*values, store_end(st));
	}
	if (nnested > 0) {
		*depths = depthrows_new(vp->t->cat->nstates,
		    (uint64_t)width * nnested, (int64_t)vp->lo,
		    (int64_t)vp->hi);
		for (k = 0; k < vp->n; k++)
			if (store_kind_of(st, vp->ids[k]) == STORE_NESTED)
				feed_depths(*depths, vp, vp->ids[k], &cur,
				    &cur_cap, &prev, &prev_cap);
		depthrows_finish(*depths, store_end(st));
	}
	free(cur);
	free(prev);
}
