#include "store/value_summary.h"

#include <math.h>
#include <stdlib.h>

#include "base/util.h"

/* Each node sums up this many of the level below (a power of two). */
#define FANOUT_BITS	4
#define FANOUT		((size_t)1 << FANOUT_BITS)

typedef struct level {
	value_stats *node;
	size_t n;
} level;

struct summary {
	level *levels;		/* levels[0] is level 1: blocks of intervals */
	int nlevels;
	size_t memory;
};

void
value_stats_init(value_stats *st)
{
	st->min = INFINITY;
	st->max = -INFINITY;
	st->integral = 0;
	st->covered = 0;
}

void
value_stats_add(value_stats *st, sm_value v, uint64_t ns)
{
	double d;

	if (ns == 0 || !value_is_number(v))
		return;
	d = value_to_double(v);
	if (d < st->min)
		st->min = d;
	if (d > st->max)
		st->max = d;
	st->integral += d * (double)ns;
	st->covered += ns;
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
	st->integral += more->integral;
	st->covered += more->covered;
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
		memory += count * sizeof (value_stats);
		nlevels++;
		below = count;
	}
	return (memory + (size_t)cap * sizeof (level));
}

summary *
summary_build(const uint64_t *time, const sm_value *value, size_t n)
{
	summary *sm = xcalloc(1, sizeof (*sm));
	size_t below = n > 0 ? n - 1 : 0;	/* intervals with an end */
	size_t i;
	int cap = 0;

	sm->memory = sizeof (*sm);
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
		lv->node = xmalloc(count * sizeof (value_stats));
		sm->memory += count * sizeof (value_stats);
		for (i = 0; i < count; i++)
			value_stats_init(&lv->node[i]);
		if (sm->nlevels == 0) {
			for (i = 0; i < below; i++)
				value_stats_add(&lv->node[i >> FANOUT_BITS],
				    value[i], time[i + 1] - time[i]);
		} else {
			const level *from = &sm->levels[sm->nlevels - 1];

			for (i = 0; i < from->n; i++)
				value_stats_merge(&lv->node[i >> FANOUT_BITS],
				    &from->node[i]);
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
		value_stats_merge(st, &sm->levels[lv - 1].node[i]);
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
