/*
 * viewport_kinds.c: a viewport panel's value entities and nested
 * entities' depth rows over the window, fed from the store to the
 * classic command's coalescers (valuerects.h, depthrows.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "base/util.h"
#include "base/work.h"
#include "output/viewport_kinds.h"

/* Entity e's values over the window, from the one in effect at lo. */
static void
feed_values(valuerects *v, const vpanel *vp, uint32_t e)
{
	const store *st = vp->t->st;
	const uint64_t *times = store_value_times(st, e);
	const sm_value *values = store_values(st, e);
	size_t n = store_value_count(st, e), i;
	int ints = catalog_value_ints(vp->t->cat, e);

	if (n == 0 || vp->lo >= vp->hi)
		return;
	i = store_count_through(times, n, vp->lo);
	for (i = i > 0 ? i - 1 : 0; i < n && times[i] < vp->hi; i++)
		valuerects_datum(v, e, times[i], values[i], ints);
}

static uint32_t
tag_or_none(const uint32_t *tags, size_t i)
{
	return (tags != NULL && tags[i] != STORE_NONE ? tags[i] :
	    COALESCE_NO_TAG);
}

/*
 * A stack as the transitions current at each of its depths, bottom
 * first: for a frame, the one that pushed it or a pop that made it the
 * top again.
 */
typedef struct stack_chain {
	size_t *node;
	size_t cap;
	uint32_t depth;
} stack_chain;

/*
 * Makes ch transition i's stack and returns how many depths at its
 * bottom it shares with the stack ch held; *top gets what ch held at
 * i's top depth if i replaced it there, else SIZE_MAX.
 *
 * The transitions under one follow from it (store_below), so two
 * stacks that meet at a depth are the same beneath it: the walk goes
 * down from i only until it meets ch, and writes only what changed.  A
 * push, a pop or a plain datum changes one depth, so a window costs its
 * transitions and the depth of its first stack, where walking every
 * stack whole cost their depths summed (quadratic in the depth).
 */
static uint32_t
chain_update(stack_chain *ch, const store *st, uint32_t e, size_t i,
    size_t *top)
{
	const uint16_t *depths = store_depths(st, e);
	const uint32_t *below = store_below(st, e);
	uint32_t d = depths[i], k = d, old = ch->depth;
	size_t at = i;

	grow_array(&ch->node, &ch->cap, (size_t)d + 1, sizeof (size_t));
	*top = SIZE_MAX;
	while (k > 0 && !(k <= old && ch->node[k - 1] == at)) {
		if (k == d && k <= old)
			*top = ch->node[k - 1];
		ch->node[k - 1] = at;
		if (--k > 0)
			at = below[at];
	}
	work_steps((uint64_t)(d - k) + 1);
	ch->depth = d;
	return (k);
}

/*
 * A nested entity's depth rows over the window: each transition's stack
 * against the one before, the frames they share kept, the rest popped
 * and pushed (a pop resumes the frame beneath: the same state, a new
 * transition).
 */
static void
feed_depths(depthrows *dr, const vpanel *vp, uint32_t e, stack_chain *ch)
{
	const store *st = vp->t->st;
	const uint64_t *times = store_times(st, e);
	const uint16_t *states = store_states(st, e);
	const uint32_t *tags = store_has_tags(st, e) ? store_tags(st, e) : NULL;
	size_t count = store_count(st, e), i, first, top;
	uint32_t d, old, k, keep;

	if (store_depths(st, e) == NULL || window_count(st, e, vp->lo, vp->hi,
	    &first) == 0)
		return;
	ch->depth = 0;
	(void)chain_update(ch, st, e, first, &top);
	old = ch->depth;
	/* (Depth 0: the window starts where its data had ended.) */
	if (old > 0)
		depthrows_begin(dr, e, times[first], states[ch->node[0]],
		    tag_or_none(tags, ch->node[0]));
	for (k = 1; k < old; k++)
		depthrows_push(dr, e, times[first], states[ch->node[k]],
		    tag_or_none(tags, ch->node[k]));
	for (i = first + 1; i < count && times[i] < vp->hi; i++) {
		keep = chain_update(ch, st, e, i, &top);
		d = ch->depth;
		if (d == 0) {
			/* The end of its data (STORE_GAP): no rows. */
			depthrows_set(dr, e, times[i], COALESCE_GAP,
			    COALESCE_NO_TAG);
			old = 0;
			continue;
		}
		/*
		 * A pop back to this frame: one shallower, the frame under
		 * the top current again with its state and tag.  From depth
		 * 2 a plain datum that gives the bottom back as it was is
		 * the same transition in a store, and depthrows.h reads it
		 * as a pop too; from any other depth a plain datum replaces
		 * the stack, even with the state it had.
		 */
		if (d + 1 == old && keep + 1 == d && top != SIZE_MAX &&
		    states[ch->node[keep]] == states[top] &&
		    tag_or_none(tags, ch->node[keep]) ==
		    tag_or_none(tags, top))
			keep++;
		if (keep == 0) {
			depthrows_set(dr, e, times[i], states[ch->node[0]],
			    tag_or_none(tags, ch->node[0]));
			keep = 1;
		} else {
			for (k = old; k > keep; k--)
				depthrows_pop(dr, e, times[i]);
		}
		for (k = keep; k < d; k++)
			depthrows_push(dr, e, times[i], states[ch->node[k]],
			    tag_or_none(tags, ch->node[k]));
		old = d;
	}
}

void
viewport_kinds_panel(const vpanel *vp, unsigned width, valuerects **values,
    depthrows **depths)
{
	const store *st = vp->t->st;
	uint32_t k, nvalues = 0, nnested = 0;
	stack_chain ch = { NULL, 0, 0 };

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
				feed_depths(*depths, vp, vp->ids[k], &ch);
		depthrows_finish(*depths, store_end(st));
	}
	free(ch.node);
}
