/*
 * chunks_sort.c: for a consumer that takes data in bulk, each run of a
 * scanned chunk that can be is sorted by entity, stably, on the scanning
 * thread: its data counted per entity, then scattered to their groups,
 * so that whole runs of an entity go into its columns at once.
 */
#include "ingest/chunks_internal.h"

#include <stdint.h>
#include <string.h>

#include "base/util.h"
#include "ingest/consumer.h"
#include "ingest/records_deliver.h"

/*
 * Whether datum k can be taken in bulk in a run of values (a number or
 * null), or else of states: an untagged plain state, or with stacks, an
 * untagged push or pop (whose name's number, if named, fits a state's
 * 16 bits).
 */
static inline int
bulk_datum(const chunk *c, size_t k, int values, int stacks)
{
	const chunk_datum *cd = &c->data[k];

	if (values)
		return (cd->op == SCAN_OP_VALUE && c->vals[k] != VALUE_STRING);
	if ((cd->tag | cd->op) == 0)	/* SCAN_OP_STATE: 0 */
		return (1);
	return (stacks && cd->tag == 0 && cd->op != SCAN_OP_VALUE &&
	    c->specials[k].named <= UINT16_MAX + 1);
}

/* The op and state of datum k of a run of stacks, as ops and states
 * keep them. */
static uint8_t
stack_op(const chunk *c, size_t k, uint16_t *state)
{
	const chunk_datum *cd = &c->data[k];

	*state = cd->state;
	if (cd->op == SCAN_OP_STATE)
		return (INGEST_SET);
	if (c->specials[k].named != 0) {
		*state = (uint16_t)(c->specials[k].named - 1);
		return ((uint8_t)((cd->op == SCAN_OP_PUSH ? INGEST_PUSH :
		    INGEST_POP) | OP_NAMED));
	}
	return (cd->op == SCAN_OP_PUSH ? INGEST_PUSH : INGEST_POP);
}

/*
 * Where an entity's number (chunk_datum) is in the scratch arrays: the
 * chunk's own numbers first, then the ids known to the scan.
 */
static inline size_t
scratch_at(const chunk *c, uint32_t e)
{
	return (e & CHUNK_KNOWN ? c->nlocal + (e & ~CHUNK_KNOWN) : e);
}

/*
 * Counts run i's data per entity (its groups, from c->ngroups on), if
 * every one can be taken in bulk in a run of values or else of states:
 * the run's kind, or -1.  Inline, so that each kind of run gets a loop
 * of its own.
 */
static inline __attribute__((always_inline)) int
count_run(chunk *c, size_t i, int values, int stacks)
{
	const chunk_run *r = &c->runs[i];
	const chunk_datum *data = c->data;
	size_t k;
	int stacked = 0;

	for (k = r->first; k < r->first + r->count; k++) {
		uint32_t e = data[k].entity;
		size_t at = scratch_at(c, e);
		chunk_group *grp;

		if (!bulk_datum(c, k, values, stacks))
			return (-1);
		if (c->seen_in[at] != i + 1) {
			c->seen_in[at] = i + 1;
			c->slot_of[at] = c->ngroups;
			grow_array(&c->groups, &c->groups_cap, c->ngroups + 1,
			    sizeof (chunk_group));
			c->groups[c->ngroups].entity = e;
			c->groups[c->ngroups].count = 0;
			c->groups[c->ngroups].numbers = 0;
			c->groups[c->ngroups].stacked = 0;
			c->ngroups++;
		}
		grp = &c->groups[c->slot_of[at]];
		grp->count++;
		if (values)
			grp->numbers |= value_is_small_int(c->vals[k]) ?
			    RECORDS_INTEGERS : value_is_number(c->vals[k]) ?
			    RECORDS_DOUBLES : 0;
		else if (data[k].op != SCAN_OP_STATE)
			grp->stacked = stacked = 1;
	}
	return (values ? RUN_VALUES : stacked ? RUN_STACKS : RUN_STATES);
}

/*
 * Scatters run r's data, counted, to their groups, each its time and
 * what a run of this kind keeps: 0 if an entity's time goes backwards.
 * Inline, for a loop of each kind.
 */
static inline __attribute__((always_inline)) int
scatter_run(chunk *c, const chunk_run *r, run_kind kind)
{
	const chunk_datum *data = c->data;
	size_t k;

	for (k = r->first; k < r->first + r->count; k++) {
		const chunk_datum *cd = &data[k];
		chunk_group *grp = &c->groups[c->slot_of[scratch_at(c,
		    cd->entity)]];
		size_t at = grp->first + grp->count++;

		if (grp->count > 1 && cd->time < c->times[at - 1])
			return (0);
		c->times[at] = cd->time;
		if (kind == RUN_VALUES)
			c->values[at] = c->vals[k];
		else if (kind == RUN_STACKS)
			c->ops[at] = stack_op(c, k, &c->states[at]);
		else
			c->states[at] = cd->state;
	}
	return (1);
}

/*
 * Sorts run i by entity for bulk delivery, unless it has a tag, a string
 * value or another op, or an entity's time goes backwards in it (the
 * serial code reports that).  Sorting scatters every datum to its
 * entity's group, so each pass writes only what the consumer reads.  A
 * run of states with a push or pop in it is a run of stacks, its ops
 * kept too.
 */
static void
sort_run(const scanner *sc, chunk *c, size_t i)
{
	chunk_run *r = &c->runs[i];
	size_t k, g;
	int kind, scattered;

	if (c->data[r->first].op == SCAN_OP_VALUE && !sc->bulk_values)
		return;
	r->group = c->ngroups;
	kind = c->data[r->first].op == SCAN_OP_VALUE ? count_run(c, i, 1, 0) :
	    count_run(c, i, 0, sc->bulk_stacks);
	if (kind < 0) {
		c->ngroups = r->group;
		return;
	}
	for (g = r->group, k = r->first; g < c->ngroups; g++) {
		c->groups[g].first = k;
		k += c->groups[g].count;
		c->groups[g].count = 0;
	}
	scattered = kind == RUN_VALUES ? scatter_run(c, r, RUN_VALUES) :
	    kind == RUN_STACKS ? scatter_run(c, r, RUN_STACKS) :
	    scatter_run(c, r, RUN_STATES);
	if (!scattered) {
		c->ngroups = r->group;	/* one by one, then */
		return;
	}
	r->kind = (run_kind)kind;
	r->ngroups = c->ngroups - r->group;
}

void
chunks_sort_runs(const scanner *sc, chunk *c)
{
	size_t i, nnames;

	c->ngroups = 0;
	c->nlocal = intern_count(c->names);
	nnames = c->nlocal + (c->known_entities != NULL ?
	    c->known_entities->from : 0);
	if (!sc->bulk)
		return;
	if (c->sorted_cap < c->ndata) {
		c->sorted_cap = c->data_cap;
		c->times = xrealloc(c->times, c->sorted_cap * sizeof (uint64_t));
		c->states = xrealloc(c->states,
		    c->sorted_cap * sizeof (uint16_t));
		if (sc->bulk_values)
			c->values = xrealloc(c->values,
			    c->sorted_cap * sizeof (sm_value));
		if (sc->bulk_stacks)
			c->ops = xrealloc(c->ops, c->sorted_cap);
	}
	if (c->scratch_cap < nnames) {
		c->scratch_cap = nnames;
		c->slot_of = xrealloc(c->slot_of, nnames * sizeof (size_t));
		c->seen_in = xrealloc(c->seen_in, nnames * sizeof (size_t));
	}
	if (nnames > 0)
		memset(c->seen_in, 0, nnames * sizeof (size_t));
	for (i = 0; i < c->nruns; i++)
		sort_run(sc, c, i);
}
