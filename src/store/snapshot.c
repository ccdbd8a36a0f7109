#include <stdlib.h>
#include <string.h>

#include "base/runlimit.h"
#include "base/util.h"
#include "store/snapshot.h"

/* Times read at once after the last position, before galloping. */
#define NEXT	8

/*
 * The number of times at or before t in times[0..n), searched from
 * position p (< n): the next NEXT times at once, then forward or back
 * by doubling steps, then by halves between the last two probes: about
 * 2 log2(d) probes for an answer d away, all near p when d is small.  Unsorted times (a mapped cache
 * entry written over) give some count in [0, n], as a binary search
 * would.
 */
static size_t
through_from(const uint64_t *times, size_t n, uint64_t t, size_t p)
{
	size_t lo, hi, step = 1;

	if (times[p] <= t) {
		/* The answer is above p.  Most steps move a few transitions:
		 * count the next NEXT times at or before t without a branch
		 * per time (the gallop's branches mispredict about as often
		 * as they are taken); fewer than NEXT is the answer. */
		if (p + 1 + NEXT <= n) {
			size_t i, within = 0;

			for (i = 1; i <= NEXT; i++)
				within += times[p + i] <= t;
			if (within < NEXT)
				return (p + 1 + within);
			p += NEXT;
		}
		/* Find hi with times[hi] > t. */
		lo = p + 1;
		for (;;) {
			hi = p + step;
			if (hi >= n) {
				hi = n;
				break;
			}
			if (times[hi] > t)
				break;
			lo = hi + 1;
			step *= 2;
		}
	} else {
		/* At or below p: find lo with times[lo - 1] <= t. */
		hi = p;
		for (;;) {
			if (step > p) {
				lo = 0;
				break;
			}
			lo = p - step;
			if (times[lo] <= t) {
				lo++;
				break;
			}
			hi = lo;
			step *= 2;
		}
	}
	/* times[lo - 1] <= t < times[hi], where those exist. */
	return (lo + store_count_through(times + lo, hi - lo, t));
}

/*
 * How many entities ahead a column's lines are asked for: enough to keep
 * the core's outstanding misses busy, few enough that none is dropped
 * (asking for every entity's lines first overflows the queue, and the
 * search then waits for most of them again).  A power of two: the
 * columns looked up for the prefetch wait in a ring for the search.
 */
#define AHEAD	16

/*
 * A search starts from the last position when the time moved by fewer
 * than this many of the entity's transitions on average; farther, from
 * the index, or without one from where the time would fall if its
 * transitions were spread evenly over the store's span (a jump across
 * the trace then costs a few probes near the answer instead of a gallop
 * and a binary search of cold lines, each a miss).
 */
#define NEAR	32.0

/*
 * Transitions per entity between two times of the index, on average.  A
 * call reads one bucket's copy: with 100,000 entities, 4 makes t:at 7%
 * faster than 8 (2.4 MB of the copy a call instead of 4.8), for twice
 * the rows (a byte per transition instead of half).
 */
#define PER_BUCKET	4

/*
 * A far search (each a few misses) costs about what reading this many
 * transitions' times in order does when making the index: it is made
 * once far searches add up to the store's transitions over this.
 */
#define FAR_COST	256

/* Times of a bucket's entity counted at once, whatever its number. */
#define SCAN	8

/* Entities whose index entries are filled together: a line of them. */
#define BLOCK	16

struct snapshot_index {
	uint64_t begin, width;	/* time b is begin + b * width */
	uint32_t ntimes, nentities;
	/* first[b * nentities + e]: how many of e's times are before time
	 * b: where e's search starts for a time in [time b, time b + 1).
	 * Row ntimes holds every entity's count. */
	uint32_t *first;
	/*
	 * The transitions and values again, bucket by bucket (those of
	 * bucket b, in [time b, time b + 1), entity after entity in their
	 * order), so that the states and values at a time come from one
	 * bucket's bytes in a row instead of a few lines of every entity's
	 * columns: at[b] where bucket b starts, since[k] transition (or
	 * value) k's time less its bucket's start, and before[b * nentities
	 * + e] state entity e's state as bucket b starts (STORE_GAP: none).
	 * A state entity's state is state[k - kv], a value entity's value
	 * value[kv], kv counting the values before k: vat[b] where bucket b
	 * starts among them, and vbefore[b * nvalued + v] the value of the
	 * v-th value entity as bucket b starts (VALUE_NONE: none yet).
	 * valued[e] says which entities hold values.  NULL (all of them)
	 * for buckets too wide for 32 bits of time; the value arrays NULL
	 * for a store of states alone.  6 bytes a transition, 12 a value,
	 * and 2 an entity and 8 a value entity a bucket.
	 */
	uint64_t *at, *vat;
	uint32_t *since;
	uint16_t *state, *before;
	sm_value *value, *vbefore;
	uint8_t *valued;
	uint32_t nvalued;
};

/*
 * Entity e's column of times: its transitions', or a value entity's
 * values'.
 */
static const uint64_t *
entity_times(const store *s, uint32_t e, size_t *n)
{
	if ((*n = store_value_count(s, e)) > 0)
		return (store_value_times(s, e));
	*n = store_count(s, e);
	return (store_times(s, e));
}

/*
 * Bucket b's start among the entities' times, less where the index's
 * first time cuts them (base): for every entity, or only value entities
 * (valued not NULL).
 */
static uint64_t
bucket_start(const snapshot_index *ix, uint32_t b, const uint8_t *valued)
{
	const uint32_t *row = ix->first + (size_t)b * ix->nentities;
	uint64_t sum = 0;
	uint32_t e;

	for (e = 0; e < ix->nentities; e++)
		sum += valued == NULL || valued[e] ? row[e] : 0;
	return (sum);
}

/*
 * Fills the index's copy of the transitions and values bucket by bucket
 * (see struct snapshot_index), from its rows of positions.
 */
static void
copy_buckets(const store *s, snapshot_index *ix)
{
	uint32_t ne = ix->nentities, nt = ix->ntimes, nv = 0, b, e, v;
	uint64_t n0, v0 = 0, *off, *voff = NULL;

	if (store_values_total(s) > 0) {
		ix->valued = xcalloc(ne, 1);
		for (e = 0; e < ne; e++)
			if (store_value_count(s, e) > 0) {
				ix->valued[e] = 1;
				nv++;
			}
	}
	ix->nvalued = nv;
	n0 = bucket_start(ix, 0, NULL);
	ix->at = xmalloc(((size_t)nt + 1) * sizeof (uint64_t));
	for (b = 0; b <= nt; b++)
		ix->at[b] = bucket_start(ix, b, NULL) - n0;
	if (nv > 0) {
		v0 = bucket_start(ix, 0, ix->valued);
		ix->vat = xmalloc(((size_t)nt + 1) * sizeof (uint64_t));
		for (b = 0; b <= nt; b++)
			ix->vat[b] = bucket_start(ix, b, ix->valued) - v0;
		ix->value = xmalloc((size_t)ix->vat[nt] * sizeof (sm_value) +
		    1);
		ix->vbefore = xmalloc((size_t)nt * nv * sizeof (sm_value));
		voff = xmalloc((size_t)nt * sizeof (uint64_t));
		memcpy(voff, ix->vat, (size_t)nt * sizeof (uint64_t));
	}
	ix->since = xcalloc((size_t)ix->at[nt] + SCAN, sizeof (uint32_t));
	ix->state = xmalloc((size_t)(ix->at[nt] - (nv > 0 ? ix->vat[nt] :
	    0)) * sizeof (uint16_t) + 1);
	ix->before = xmalloc((size_t)nt * ne * sizeof (uint16_t));
	/* Entity by entity, each column read once in order: where the
	 * next entity's part of each bucket goes (off), and of its values
	 * (voff); a state goes to state[off - voff]. */
	off = xmalloc((size_t)nt * sizeof (uint64_t));
	memcpy(off, ix->at, (size_t)nt * sizeof (uint64_t));
	for (e = 0, v = 0; e < ne; e++) {
		int is_value = nv > 0 && ix->valued[e];
		size_t n;
		const uint64_t *times = entity_times(s, e, &n);
		const uint16_t *states = is_value ? NULL : store_states(s, e);
		const sm_value *values = is_value ? store_values(s, e) : NULL;

		for (b = 0; b < nt; b++) {
			uint32_t j = ix->first[(size_t)b * ne + e];
			uint32_t end = ix->first[((size_t)b + 1) * ne + e];
			uint64_t start = ix->begin + b * ix->width, k = off[b];
			uint64_t kv = voff != NULL ? voff[b] : 0;

			if (is_value) {
				ix->vbefore[(size_t)b * nv + v] = j > 0 ?
				    values[j - 1] : VALUE_NONE;
				ix->before[(size_t)b * ne + e] = STORE_GAP;
			} else {
				ix->before[(size_t)b * ne + e] = j > 0 ?
				    states[j - 1] : STORE_GAP;
			}
			for (; j < end; j++, k++) {
				/* In order, times[j] is in the bucket, or
				 * past its end in the last (a view keeps its
				 * data just past its end, and its parent's
				 * values): past any time asked, with 2^32 - 1,
				 * which none is (width < 2^32). */
				uint64_t d = times[j] - start;

				ix->since[k] = d > UINT32_MAX ? UINT32_MAX :
				    (uint32_t)d;
				if (is_value)
					ix->value[kv++] = values[j];
				else
					ix->state[k - kv] = states[j];
			}
			off[b] = k;
			if (voff != NULL)
				voff[b] = kv;
		}
		v += is_value;
	}
	free(off);
	free(voff);
}

snapshot_index *
snapshot_index_make(const store *s, size_t per_bucket)
{
	uint32_t ne = store_nentities(s), e0, e;
	uint64_t begin = store_begin(s), end = store_end(s), span, total = 0;
	uint64_t nt;
	snapshot_index *ix;

	if (end <= begin || ne == 0)
		return (NULL);
	span = end - begin;
	for (e = 0; e < ne; e++) {
		size_t n;

		(void)entity_times(s, e, &n);
		if (n > UINT32_MAX)
			return (NULL);
		total += n;
	}
	nt = total / ((uint64_t)ne * (per_bucket > 0 ? per_bucket : 1));
	if (nt > span)
		nt = span;
	if (nt < 2 || nt > UINT32_MAX || span > UINT64_MAX / 2)
		return (NULL);
	ix = xmalloc(sizeof (*ix));
	ix->begin = begin;
	ix->ntimes = (uint32_t)nt;
	ix->nentities = ne;
	/* One more than span / ntimes, so every time before end has a
	 * bucket below ntimes. */
	ix->width = span / nt + 1;
	ix->first = xmalloc(((size_t)nt + 1) * ne * sizeof (uint32_t));
	ix->at = ix->vat = NULL;
	ix->since = NULL;
	ix->state = ix->before = NULL;
	ix->value = ix->vbefore = NULL;
	ix->valued = NULL;
	ix->nvalued = 0;
	for (e0 = 0; e0 < ne; e0 += BLOCK) {
		uint32_t eend = ne - e0 < BLOCK ? ne : e0 + BLOCK, b;
		size_t at[BLOCK] = { 0 };

		for (e = e0; e < eend; e++) {
			size_t n;

			(void)entity_times(s, e, &n);
			ix->first[(size_t)nt * ne + e] = (uint32_t)n;
		}
		for (b = 0; b < ix->ntimes; b++) {
			uint64_t bound = begin + b * ix->width;
			uint32_t *row = ix->first + (size_t)b * ne;

			for (e = e0; e < eend; e++) {
				size_t n, j = at[e - e0];
				const uint64_t *times = entity_times(s, e, &n);

				while (j < n && times[j] < bound)
					j++;
				at[e - e0] = j;
				row[e] = (uint32_t)j;
			}
		}
	}
	if (ix->width <= UINT32_MAX)
		copy_buckets(s, ix);
	return (ix);
}

/*
 * The states and values at t (in bucket b of ix, t < end) from the
 * index's copy: states[e], values[e] (when values is not NULL) and
 * pos[e] as snapshot_states_values gives them, for stores whose times
 * are in order.  Returns how many entities have a state or a value.
 */
static uint32_t
states_from_copy(const snapshot_index *ix, uint64_t t, uint32_t *states,
    sm_value *values, size_t *pos)
{
	uint32_t ne = ix->nentities, e, have = 0;
	size_t b = (size_t)((t - ix->begin) / ix->width);
	const uint32_t *row = ix->first + b * ne, *next = row + ne;
	const uint16_t *before = ix->before + b * ne;
	const sm_value *vbefore = ix->vbefore != NULL ? ix->vbefore + b *
	    ix->nvalued : NULL;
	uint32_t since = (uint32_t)(t - (ix->begin + b * ix->width));
	uint64_t k = ix->at[b], kv = ix->vat != NULL ? ix->vat[b] : 0;

	for (e = 0; e < ne; e++) {
		uint32_t len = next[e] - row[e], j, within = 0;
		uint16_t st;

		/* Counted without a branch a time: how many are at or
		 * before t mispredicts about as often as not.  The first
		 * SCAN at once, whatever the length (the copy has SCAN
		 * more after its end), so the loop's end is predicted too. */
		for (j = 0; j < SCAN; j++)
			within += (j < len) & (ix->since[k + j] <= since);
		for (; j < len; j++)
			within += ix->since[k + j] <= since;
		if (row[e] + within > 0)
			pos[e] = row[e] + within - 1;
		states[e] = STORE_NONE;
		if (vbefore != NULL && ix->valued[e]) {
			sm_value val = within > 0 ? ix->value[kv + within -
			    1] : *vbefore;

			vbefore++;
			kv += len;
			k += len;
			if (values != NULL) {
				values[e] = val;
				have += !value_is_none(val);
			}
			continue;
		}
		st = within > 0 ? ix->state[k - kv + within - 1] : before[e];
		k += len;
		if (st != STORE_GAP) {
			states[e] = st;
			have++;
		}
	}
	return (have);
}

/* The index's row for t: its entities' positions at its last time <= t. */
static inline const uint32_t *
index_row(const snapshot_index *ix, uint64_t t)
{
	return (ix->first + (size_t)((t - ix->begin) / ix->width) *
	    ix->nentities);
}

size_t
snapshot_index_start(const snapshot_index *ix, uint32_t e, uint64_t t)
{
	return (index_row(ix, t)[e]);
}

size_t
snapshot_index_bytes(const snapshot_index *ix)
{
	size_t rows;
	uint64_t nvalues;

	if (ix == NULL)
		return (0);
	rows = (size_t)ix->ntimes * ix->nentities;
	if (ix->at == NULL)
		return (sizeof (*ix) + (rows + ix->nentities) *
		    sizeof (uint32_t));
	nvalues = ix->vat != NULL ? ix->vat[ix->ntimes] : 0;
	return (sizeof (*ix) + (rows + ix->nentities) * sizeof (uint32_t) +
	    ((size_t)ix->ntimes + 1) * sizeof (uint64_t) *
	    (ix->vat != NULL ? 2 : 1) + (size_t)ix->at[ix->ntimes] *
	    sizeof (uint32_t) + (size_t)(ix->at[ix->ntimes] - nvalues) *
	    sizeof (uint16_t) + rows * sizeof (uint16_t) +
	    (ix->vat != NULL ? (size_t)nvalues * sizeof (sm_value) +
	    (size_t)ix->ntimes * ix->nvalued * sizeof (sm_value) +
	    ix->nentities : 0));
}

void
snapshot_index_free(snapshot_index *ix)
{
	if (ix == NULL)
		return;
	free(ix->first);
	free(ix->at);
	free(ix->since);
	free(ix->state);
	free(ix->before);
	free(ix->vat);
	free(ix->value);
	free(ix->vbefore);
	free(ix->valued);
	free(ix);
}

void
snapshot_cursor_init(snapshot_cursor *c, const store *s)
{
	uint32_t e;

	memset(c, 0, sizeof (*c));
	c->last = UINT64_MAX;
	c->nentities = store_nentities(s);
	c->pos = xcalloc((size_t)c->nentities + 1, sizeof (size_t));
	c->cols = xcalloc((size_t)c->nentities + 1, sizeof (snapshot_column));
	for (e = 0; e < c->nentities; e++) {
		c->cols[e].times = entity_times(s, e, &c->cols[e].count);
		if (store_value_count(s, e) > 0)
			c->cols[e].values = store_values(s, e);
		else
			c->cols[e].states = store_states(s, e);
	}
	c->charged = ((size_t)c->nentities + 1) *
	    (sizeof (size_t) + sizeof (snapshot_column));
	runlimit_charge(c->charged);
}

void
snapshot_cursor_free(snapshot_cursor *c)
{
	free(c->pos);
	free(c->cols);
	snapshot_index_free(c->index);
	runlimit_credit(c->charged);
	memset(c, 0, sizeof (*c));
}

/*
 * Makes the cursor's index, if far searches have added up to its cost
 * and the memory limit has room for it; an estimate of its size is
 * checked first, so a trace too large for the limit never reads its
 * columns for it.
 */
static void
consider_index(const store *s, snapshot_cursor *c)
{
	const char *why;
	uint64_t total = store_total(s) + store_values_total(s);
	size_t bytes;

	if (c->index != NULL || c->no_index ||
	    c->far_work < total / FAR_COST)
		return;
	/* Its rows, and the copy of the transitions (6 bytes each) and
	 * values (12, and 8 a row). */
	bytes = (size_t)(total / PER_BUCKET) * (sizeof (uint32_t) +
	    sizeof (uint16_t)) + (size_t)total * 6 +
	    (size_t)store_values_total(s) * (6 + sizeof (sm_value) /
	    PER_BUCKET);
	if (runlimit_check(bytes, &why) != 0) {
		/* Interrupted or timed out: the caller hears of it.  Out
		 * of memory: far searches go on without it. */
		if (!runlimit_interrupted() && !runlimit_expired())
			c->no_index = 1;
		c->far_work = 0;
		return;
	}
	c->index = snapshot_index_make(s, PER_BUCKET);
	if (c->index == NULL) {
		c->no_index = 1;
		return;
	}
	bytes = snapshot_index_bytes(c->index);
	c->charged += bytes;
	runlimit_charge(bytes);
}

typedef struct column {
	const uint64_t *times;
	const uint16_t *states;
	const sm_value *values;	/* a value entity's, else NULL */
	size_t n, start;
} column;

/* How a call's searches start: the time, and how far it moved. */
typedef struct plan {
	double moved, at;
	const uint32_t *row;	/* the index's row for the time, or NULL */
	uint64_t far;		/* searches that did not start at pos */
	int values;		/* whether value entities are searched */
} plan;

/*
 * Looks up entity e's column, where its search starts, and asks for the
 * lines the search reads first.
 */
static inline void
prefetch_entity(const snapshot_cursor *cur, uint32_t e, plan *pl, column *c)
{
	const snapshot_column *sc = &cur->cols[e];
	size_t p;
	double moved;

	c->n = sc->count;
	if (sc->values != NULL && !pl->values)
		c->n = 0;
	if (c->n == 0)
		return;
	c->times = sc->times;
	c->states = sc->states;
	c->values = sc->values;
	moved = pl->moved * (double)c->n;
	if (moved < (pl->row != NULL ? PER_BUCKET : NEAR)) {
		p = cur->pos[e];
	} else {
		pl->far++;
		p = pl->row != NULL ? pl->row[e] :
		    (size_t)(pl->at * (double)c->n);
	}
	p = p < c->n ? p : c->n - 1;
	c->start = p;
	/*
	 * The search reads the NEXT times after p, and the state it answers
	 * is nearly always among theirs: both ends of each, whose lines
	 * may differ.  Without the states' far end, waiting for the answer's
	 * state was four tenths of snapshot_states when stepping.
	 */
	__builtin_prefetch(c->times + p);
	__builtin_prefetch(c->times + p + NEXT);
	if (c->values != NULL) {
		__builtin_prefetch(c->values + p);
		__builtin_prefetch(c->values + p + NEXT);
	} else {
		__builtin_prefetch(c->states + p);
		__builtin_prefetch(c->states + p + NEXT);
	}
}

uint32_t
snapshot_states(const store *s, snapshot_cursor *c, uint64_t t,
    uint32_t *states)
{
	return (snapshot_states_values(s, c, t, states, NULL));
}

uint32_t
snapshot_states_values(const store *s, snapshot_cursor *c, uint64_t t,
    uint32_t *states, sm_value *values)
{
	uint32_t ne = store_nentities(s), e, have = 0;
	uint64_t begin = store_begin(s), end = store_end(s);
	size_t *pos = c->pos;
	double span;
	column ring[AHEAD];
	plan pl;

	for (e = 0; values != NULL && e < ne; e++)
		values[e] = VALUE_NONE;
	if (t < begin || t >= end) {
		for (e = 0; e < ne; e++)
			states[e] = STORE_NONE;
		return (0);
	}
	/* As fractions of the span: how far t is from the last time asked
	 * (all of it if none was), and where t is. */
	span = (double)(end - begin);
	pl.moved = c->last == UINT64_MAX ? 1.0 :
	    (double)(t > c->last ? t - c->last : c->last - t) / span;
	pl.at = (double)(t - begin) / span;
	pl.far = 0;
	pl.row = NULL;
	pl.values = values != NULL;
	if (c->index != NULL)
		pl.row = index_row(c->index, t);
	c->last = t;
	if (c->index != NULL && c->index->at != NULL) {
		/* States and values from the index's copy, one bucket's
		 * bytes in a row: no entity's columns read. */
		return (states_from_copy(c->index, t, states, values, pos));
	}
	for (e = 0; e < ne && e < AHEAD; e++)
		prefetch_entity(c, e, &pl, &ring[e]);
	for (e = 0; e < ne; e++) {
		column col = ring[e % AHEAD];
		size_t k;

		if (e + AHEAD < ne)
			prefetch_entity(c, e + AHEAD, &pl, &ring[e % AHEAD]);
		states[e] = STORE_NONE;
		if (col.n == 0)
			continue;
		k = through_from(col.times, col.n, t, col.start);
		if (k == 0)
			continue;
		pos[e] = k - 1;
		/* Its interval ends at the next time, or at the end: past t
		 * unless the times are out of order. */
		if (k < col.n && col.times[k] <= t)
			continue;
		if (col.values != NULL) {
			values[e] = col.values[k - 1];
			have += !value_is_none(values[e]);
			continue;
		}
		/* Its data ended (STORE_GAP): no state. */
		if (col.states[k - 1] == STORE_GAP)
			continue;
		states[e] = col.states[k - 1];
		have++;
	}
	c->far_work += pl.far;
	consider_index(s, c);
	return (have);
}
