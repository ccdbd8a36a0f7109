#include "store/value_summary.h"

#include <math.h>
#include <stdlib.h>

#include "base/util.h"

/* Each node sums up this many of the level below (a power of two). */
#define FANOUT_BITS	4
#define FANOUT		((size_t)1 << FANOUT_BITS)

/*
 * What a node keeps of the value_stats it sums up, in 32 bytes: min and
 * max as the entity's words (an integer entity's exact).
 */
typedef struct node {
	sm_value min, max;
	double integral;
	uint64_t covered;
} node;

typedef struct level {
	node *node;
	size_t n;
} level;

struct summary {
	level *levels;		/* levels[0] is level 1: blocks of intervals */
	int nlevels;
	int ints;
	size_t memory;
};

void
value_stats_init(value_stats *st, int ints)
{
	st->min = INFINITY;
	st->max = -INFINITY;
	st->integral = 0;
	st->covered = 0;
	st->ints = ints;
	st->imin = INT64_MAX;
	st->imax = INT64_MIN;
}

void
value_stats_merge(value_stats *st, const value_stats *more)
{
	if (more->covered == 0)
		return;
	if (more->min < st->min)
		st->min = more->min;
	if (more->max > st->max)
		st->max = more->max;
	if (more->imin < st->imin)
		st->imin = more->imin;
	if (more->imax > st->imax)
		st->imax = more->imax;
	st->integral += more->integral;
	st->covered += more->covered;
}

/* A node of what st has summed up, and back. */
static void
node_of(node *n, const value_stats *st)
{
	n->min = st->ints ? value_int(st->imin) : value_number(st->min);
	n->max = st->ints ? value_int(st->imax) : value_number(st->max);
	n->integral = st->integral;
	n->covered = st->covered;
}

static void
node_merge(value_stats *st, const node *n)
{
	value_stats more;

	if (n->covered == 0)
		return;
	more.ints = st->ints;
	more.min = value_num_double(n->min, st->ints);
	more.max = value_num_double(n->max, st->ints);
	more.imin = st->ints ? value_to_int(n->min) : INT64_MAX;
	more.imax = st->ints ? value_to_int(n->max) : INT64_MIN;
	more.integral = n->integral;
	more.covered = n->covered;
	value_stats_merge(st, &more);
}

size_t
summary_memory_for(size_t n)
{
	size_t below = n > 0 ? n - 1 : 0, memory = sizeof (summary);
	int nlevels = 0, cap = 0;

	/* summary_build's levels and their array, counted as it grows them. */
	while (below > FANOUT) {
		size_t count = (below + FANOUT - 1) / FANOUT;

		if (nlevels == cap)
			cap = cap == 0 ? 8 : cap * 2;
		memory += count * sizeof (node);
		nlevels++;
		below = count;
	}
	return (memory + (size_t)cap * sizeof (level));
}

summary *
summary_build(const uint64_t *time, const sm_value *value, size_t n,
    int ints)
{
	summary *sm = xcalloc(1, sizeof (*sm));
	size_t below = n > 0 ? n - 1 : 0;	/* intervals with an end */
	size_t i, j;
	int cap = 0;

	sm->memory = sizeof (*sm);
	sm->ints = ints;
	/* Levels until one node would sum up everything. */
	while (below > FANOUT) {
		size_t count = (below + FANOUT - 1) / FANOUT;
		level *lv;

		if (sm->nlevels == cap) {
			cap = cap == 0 ? 8 : cap * 2;
			sm->levels = xrealloc(sm->levels,
			    (size_t)cap * sizeof (level));
		}
		lv = &sm->levels[sm->nlevels];
		lv->n = count;
		lv->node = xmalloc(count * sizeof (node));
		sm->memory += count * sizeof (node);
		for (j = 0; j < count; j++) {
			value_stats st;
			size_t end = (j + 1) << FANOUT_BITS;

			value_stats_init(&st, ints);
			if (end > below)
				end = below;
			for (i = j << FANOUT_BITS; i < end; i++) {
				if (sm->nlevels == 0)
					value_stats_add(&st, value[i],
					    time[i + 1] - time[i]);
				else
					node_merge(&st, &sm->levels[
					    sm->nlevels - 1].node[i]);
			}
			node_of(&lv->node[j], &st);
		}
		sm->nlevels++;
		below = count;
	}
	sm->memory += (size_t)cap * sizeof (level);
	return (sm);
}

void
summary_free(summary *sm)
{
	int i;

	if (sm == NULL)
		return;
	for (i = 0; i < sm->nlevels; i++)
		free(sm->levels[i].node);
	free(sm->levels);
	free(sm);
}

size_t
summary_memory(const summary *sm)
{
	return (sm != NULL ? sm->memory : 0);
}

/* Adds interval i (of level 0) or node i of level lv (1 and up). */
static void
add_one(const summary *sm, const uint64_t *time, const sm_value *value,
    int lv, size_t i, value_stats *st)
{
	if (lv == 0)
		value_stats_add(st, value[i], time[i + 1] - time[i]);
	else
		node_merge(st, &sm->levels[lv - 1].node[i]);
}

void
summary_add(const summary *sm, const uint64_t *time, const sm_value *value,
    size_t a, size_t b, value_stats *st)
{
	int lv = 0;

	/*
	 * [a, b) in units of level lv: the ragged ends at this level, then
	 * what is left is whole nodes of the next.  A node is used only
	 * when all it sums up lies in the range, so the last node of a
	 * level (which may sum up fewer) is never used past b.
	 */
	while (a < b) {
		if (lv == sm->nlevels) {
			for (; a < b; a++)
				add_one(sm, time, value, lv, a, st);
			break;
		}
		while (a < b && (a & (FANOUT - 1)) != 0)
			add_one(sm, time, value, lv, a++, st);
		while (a < b && (b & (FANOUT - 1)) != 0)
			add_one(sm, time, value, lv, --b, st);
		a >>= FANOUT_BITS;
		b >>= FANOUT_BITS;
		lv++;
	}
}
