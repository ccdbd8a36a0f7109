/*
 * coalesce_merge.c: coalesce.h's steps 3 and 4, on the arrays of
 * coalesce_state.h: an entity's open state closed as its newest
 * rectangle (or merged on arrival into the one before), and the
 * lightest rectangle of the set merged with a neighbour.
 */
#include <string.h>

#include "coalesce/coalesce_merge.h"

#include "coalesce/coalesce_rects.h"
#include "coalesce/coalesce_set.h"

static void
rect_release(coalesce *c, uint32_t r)
{
	coalesce_set_remove(c, r);
	c->rects[r].next = c->free_list;
	c->free_list = r;
}

static void
add_tag_time(coalesce *c, uint32_t id, uint32_t tag, uint64_t time)
{
	taglog *l = &c->logs[id];

	if (taglog_add(l, tag, time))
		return;
	if (taglog_compaction_due(l))
		coalesce_rects_compact(c, id, 0, &c->sorter);
	taglog_make_room(l);
	(void)taglog_add(l, tag, time);
}

/* The same for a state, in its state log (not dense). */
static void
add_state_time(coalesce *c, uint32_t id, uint32_t state, uint64_t time)
{
	taglog *l = &c->slogs[id];

	if (taglog_add(l, state, time))
		return;
	if (taglog_compaction_due(l))
		coalesce_rects_compact(c, id, 1, &c->sorter);
	taglog_make_room(l);
	(void)taglog_add(l, state, time);
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
 * its left neighbour are in the set already (see coalesce_set_reweigh),
 * their stale keys are corrected when they reach the top, and the time
 * goes to the entity's totals.
 *
 * An entity's only rectangle, out of the set, is merged on arrival too
 * when the new one's weight is strictly below the smallest: the two
 * would enter the set with that weight, the set over full by two; the
 * first trim would merge them (whichever came out first), the second
 * take the one left out again, alone: the set as it was, but for the
 * time.  With more entities than the budget, most are alone (a trace of
 * 100,000 entities at 25,000 rectangles), and every datum paid two
 * insertions, a merge and a removal.  An equal weight is left to the
 * set, whose order between the two and the smallest this does not
 * decide.
 */
static int
merge_on_arrival(coalesce *c, uint32_t id, uint64_t end)
{
	ent_state *e = &c->ents[id];
	uint64_t duration = end - e->start, weight;
	uint32_t top;
	rect *last;
	int alone;

	if (e->last == RECT_NONE || c->heap_len == 0 ||
	    c->set_size + 1 < c->budget)
		return (0);
	alone = e->nrects == 1 && c->heap_pos[e->last] == RECT_NONE;
	last = &c->rects[e->last];
	weight = duration + last->duration;
	coalesce_set_fresh_top(c);
	top = c->heap[0].rect;
	if (weight != c->heap[0].weight ? weight > c->heap[0].weight :
	    alone || !coalesce_set_key_less(c, e->start, id,
	    c->free_list != RECT_NONE ? c->free_list : (uint32_t)c->nrects,
	    top))
		return (0);
	last->duration += duration;
	if (e->state == RECT_GAP)
		;	/* no data: time in no state, no interval */
	else if (c->dense)
		totals_of(c, id)[e->state] += duration;
	else
		add_state_time(c, id, e->state, duration);
	e->count += duration > 0 && e->state != RECT_GAP;
	if (e->tag != RECT_NO_TAG)
		add_tag_time(c, id, e->tag, duration);
	/* The last rectangle and its left one weigh more now. */
	if (c->top_entity == id)
		c->top_fresh = 0;
	return (1);
}

/*
 * Appends the entity's open state, up to end, as a new rectangle, which
 * enters the set unless it is the final one (no merging after the end).
 * Its left neighbour gains it, and both that one and the one before it
 * grew with every datum merged on arrival since their keys were set:
 * they are re-keyed where they are.  Left stale, they sank from the top
 * when they reached it, through every level: on big.out at -c 100000,
 * 3.5 million of the 6 million levels that entries moved down; re-keyed
 * here, the whole is 3.7 million (about 6% of the command's CPU time).
 */
void
coalesce_merge_append(coalesce *c, uint32_t id, uint64_t end, int final)
{
	ent_state *e = &c->ents[id];
	uint32_t r;
	rect *x;

	if (!final && merge_on_arrival(c, id, end))
		return;
	r = coalesce_rects_alloc(c);
	x = &c->rects[r];

	c->info[r].start = e->start;
	c->info[r].entity = id;
	x->duration = end - e->start;
	x->prev = e->last;
	x->next = RECT_NONE;
	/* Its totals are the entity's before its own time is added. */
	if (c->dense) {
		memcpy(states_of(c, r), totals_of(c, id), c->nstates *
		    sizeof (uint64_t));
		if (e->state != RECT_GAP)
			totals_of(c, id)[e->state] += x->duration;
	} else {
		c->info[r].state_lo = taglog_begin_range(&c->slogs[id]);
	}
	c->info[r].count = e->count;
	e->count += x->duration > 0 && e->state != RECT_GAP;
	c->info[r].tag_lo = c->logs != NULL ?
	    taglog_begin_range(&c->logs[id]) : 0;
	if (e->last == RECT_NONE)
		e->first = r;
	else
		c->rects[e->last].next = r;
	e->last = r;
	e->nrects++;
	/* Linked first: adding may compact a log, which walks the list. */
	if (!c->dense && e->state != RECT_GAP)
		add_state_time(c, id, e->state, x->duration);
	if (e->tag != RECT_NO_TAG)
		add_tag_time(c, id, e->tag, x->duration);
	if (final)
		return;
	c->top_fresh = 0;
	if (x->prev != RECT_NONE) {
		uint32_t before = c->rects[x->prev].prev;

		if (before != RECT_NONE)
			coalesce_set_rekey(c, before, id);
		coalesce_set_rekey(c, x->prev, id);
	}
	/* The second of two, after its first: see coalesce_set_shadow. */
	if (e->nrects == 2)
		coalesce_set_shadow(c, r);
	else
		coalesce_set_reweigh(c, r, id);
}

/*
 * The victim, the survivor's right neighbour (both entity id's), gives
 * it its time and leaves its list.  Times per state and counts need
 * nothing: the survivor's now run to the victim's right neighbour's
 * totals, or its range of a log to that neighbour's.
 */
static void
absorb(coalesce *c, uint32_t id, uint32_t survivor, uint32_t victim)
{
	rect *s = &c->rects[survivor], *v = &c->rects[victim];
	ent_state *e = &c->ents[id];

	c->top_fresh = 0;
	s->duration += v->duration;
	/* The victim's tags follow the survivor's in the log: now its. */
	s->next = v->next;
	if (v->next != RECT_NONE) {
		c->rects[v->next].prev = survivor;
	} else {
		e->last = survivor;
		if (c->logs != NULL)
			c->logs[id].open = c->info[survivor].tag_lo;
		if (!c->dense)
			c->slogs[id].open = c->info[survivor].state_lo;
	}
	e->nrects--;
	rect_release(c, victim);

	if (s->prev != RECT_NONE)
		coalesce_set_rekey(c, s->prev, id);
	coalesce_set_rekey(c, survivor, id);
	if (s->next != RECT_NONE)
		coalesce_set_rekey(c, s->next, id);
}

/*
 * Takes the lightest rectangle out of the set and merges it with a
 * neighbour: the shorter neighbour absorbs it if the left one is strictly
 * shorter, otherwise it absorbs its right neighbour.
 */
void
coalesce_merge_trim(coalesce *c)
{
	uint32_t r, id, prev, next;
	rect *x;

	coalesce_set_fresh_top(c);
	r = c->heap[0].rect;
	id = c->heap[0].entity;
	x = &c->rects[r];

	if (c->ents[id].nrects == 1) {
		coalesce_set_remove(c, r);
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
	if (prev == RECT_NONE || (next != RECT_NONE &&
	    !(c->rects[prev].duration < c->rects[next].duration))) {
		absorb(c, id, r, next);
	} else {
		coalesce_set_remove(c, r);
		absorb(c, id, prev, r);
	}
}

