#include "output/viewport.h"

#include <stdlib.h>
#include <string.h>

#include "coalesce/depthrows.h"
#include "output/jsonout.h"
#include "output/kindjson.h"
#include "base/threads.h"
#include "coalesce/valuerects.h"
#include "base/util.h"

#define NO_TAG		UINT32_MAX

/* A rectangle of the answer; its states and tags are in its job's pools. */
typedef struct vrect {
	uint64_t start, duration, count;
	size_t states;		/* first entry of the state pool */
	size_t tags;		/* first entry of the tag pool */
	uint32_t nstates, ntags;
} vrect;

/* A panel as this query sees it. */
typedef struct vpanel {
	const viewport_panel *p;
	int64_t begin, end;	/* the window in this trace's own time */
	uint64_t lo, hi;	/* clipped to the trace's window; empty if lo >= hi */
	uint64_t end_field;	/* "end" in the document */
	uint32_t *ids;		/* the entities shown (the query's regex) */
	uint64_t *counts;	/* transitions of each inside the window */
	size_t *first;		/* index of the first of each */
	uint32_t n;
	uint64_t *edges;	/* columns + 1 column edges, for binning */
	unsigned columns;
	valuerects *values;	/* its value entities over the window */
	depthrows *depths;	/* its nested entities' depth rows */
} vpanel;

/* A run of one panel's entities, answered on one thread. */
typedef struct job {
	const struct viewport *v;
	const vpanel *vp;
	uint32_t from, to;	/* entities [from, to) of the panel */
	vrect *rects;
	size_t nrects, rects_cap;
	size_t *entity_rects;	/* rects of entity from + k start at [k] */
	uint32_t *pool_state;
	uint64_t *pool_time;
	size_t npool, pool_cap;
	coalesce_tag *pool_tag;
	size_t ntag, tag_cap;
	char *json;		/* viewport_write_json's text for these */
	size_t json_len;
} job;

struct viewport {
	vpanel *panels;
	size_t n;
	uint64_t transitions, rects;
	uint64_t cap;		/* entities with at most this many are exact */
	int exact;
	unsigned width;		/* the query's */
	job *jobs;
	size_t njobs;
};

/* ---- finding transitions ---- */

/*
 * The intervals of an entity that overlap [lo, hi): from *first (the one
 * holding lo, or the first) for the returned count.
 */
static uint64_t
window_count(const store *st, uint32_t e, uint64_t lo, uint64_t hi,
    size_t *first)
{
	const uint64_t *times = store_times(st, e);
	size_t count = store_count(st, e), a, b;

	*first = 0;
	if (count == 0 || lo >= hi)
		return (0);
	a = store_count_through(times, count, lo);
	a = a > 0 ? a - 1 : 0;
	b = store_count_before(times, count, hi);
	*first = a;
	return (b > a ? b - a : 0);
}

/* ---- a job's output ---- */

static vrect *
new_rect(job *j, uint64_t start, uint64_t duration, uint64_t count)
{
	vrect *r;

	grow_array(&j->rects, &j->rects_cap, j->nrects + 1, sizeof (vrect));
	r = &j->rects[j->nrects++];
	r->start = start;
	r->duration = duration;
	r->count = count;
	r->states = j->npool;
	r->nstates = 0;
	r->tags = j->ntag;
	r->ntags = 0;
	return (r);
}

static void
add_state(job *j, vrect *r, uint32_t state, uint64_t time)
{
	if (j->npool == j->pool_cap) {
		size_t cap = j->pool_cap;

		grow_array(&j->pool_state, &cap, j->npool + 1,
		    sizeof (uint32_t));
		grow_array(&j->pool_time, &j->pool_cap, j->npool + 1,
		    sizeof (uint64_t));
	}
	j->pool_state[j->npool] = state;
	j->pool_time[j->npool++] = time;
	r->nstates++;
}

static void
add_tag(job *j, vrect *r, uint32_t tag, uint64_t time)
{
	grow_array(&j->pool_tag, &j->tag_cap, j->ntag + 1,
	    sizeof (coalesce_tag));
	j->pool_tag[j->ntag].tag = tag;
	j->pool_tag[j->ntag++].time = time;
	r->ntags++;
}

/* One interval as a rectangle of its own. */
static void
exact_rect(job *j, uint64_t a, uint64_t b, uint32_t state, uint32_t tag)
{
	vrect *r = new_rect(j, a, b - a, 1);

	add_state(j, r, state, b - a);
	if (tag != NO_TAG)
		add_tag(j, r, tag, b - a);
}

/* ---- merging the intervals between long ones, column by column ---- */

typedef struct bucket {
	uint64_t *acc;		/* ns per state */
	uint32_t *touched;	/* states with time, in arrival order */
	uint32_t ntouched;
	uint32_t *tag_key;	/* open addressing: tag ids, NO_TAG if empty */
	uint64_t *tag_time;
	size_t tag_cap, tag_used;
	size_t *tag_slots;	/* the slots in use */
	uint64_t start, end, count;
	uint32_t state, tag;	/* of the one interval, while count is 1 */
	unsigned col;
} bucket;

static void
bucket_init(bucket *k, uint32_t nstates)
{
	memset(k, 0, sizeof (*k));
	k->acc = xcalloc(nstates + 1, sizeof (uint64_t));
	k->touched = xcalloc(nstates + 1, sizeof (uint32_t));
}

static void
bucket_free(bucket *k)
{
	free(k->acc);
	free(k->touched);
	free(k->tag_key);
	free(k->tag_time);
	free(k->tag_slots);
}

static size_t
tag_slot(const uint32_t *keys, size_t cap, uint32_t tag)
{
	size_t i = (size_t)((tag * 2654435761u) & (cap - 1));

	while (keys[i] != NO_TAG && keys[i] != tag)
		i = (i + 1) & (cap - 1);
	return (i);
}

static void
bucket_add_tag(bucket *k, uint32_t tag, uint64_t time)
{
	size_t i;

	if (2 * (k->tag_used + 1) > k->tag_cap) {
		size_t cap = k->tag_cap == 0 ? 16 : 2 * k->tag_cap, n;
		uint32_t *keys = xmalloc(cap * sizeof (uint32_t));
		uint64_t *times = xmalloc(cap * sizeof (uint64_t));
		size_t *slots = xmalloc(cap / 2 * sizeof (size_t));

		memset(keys, 0xff, cap * sizeof (uint32_t));
		for (n = 0; n < k->tag_used; n++) {
			size_t old = k->tag_slots[n];

			i = tag_slot(keys, cap, k->tag_key[old]);
			keys[i] = k->tag_key[old];
			times[i] = k->tag_time[old];
			slots[n] = i;
		}
		free(k->tag_key);
		free(k->tag_time);
		free(k->tag_slots);
		k->tag_key = keys;
		k->tag_time = times;
		k->tag_slots = slots;
		k->tag_cap = cap;
	}
	i = tag_slot(k->tag_key, k->tag_cap, tag);
	if (k->tag_key[i] == NO_TAG) {
		k->tag_key[i] = tag;
		k->tag_time[i] = 0;
		k->tag_slots[k->tag_used++] = i;
	}
	k->tag_time[i] += time;
}

static void
bucket_add(bucket *k, uint64_t a, uint64_t b, uint32_t state, uint32_t tag)
{
	if (k->count == 0) {
		k->start = a;
		k->state = state;
		k->tag = tag;
	}
	if (k->acc[state] == 0)
		k->touched[k->ntouched++] = state;
	k->acc[state] += b - a;
	if (tag != NO_TAG)
		bucket_add_tag(k, tag, b - a);
	k->end = b;
	k->count++;
}

static int
compare_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return (a < b ? -1 : a > b);
}

/* A few states (the usual case) by insertion, more by qsort. */
static void
sort_states(uint32_t *s, uint32_t n)
{
	uint32_t i, j;

	if (n > 16) {
		qsort(s, n, sizeof (uint32_t), compare_u32);
		return;
	}
	for (i = 1; i < n; i++) {
		uint32_t v = s[i];

		for (j = i; j > 0 && s[j - 1] > v; j--)
			s[j] = s[j - 1];
		s[j] = v;
	}
}

static int
compare_tags(const void *pa, const void *pb)
{
	const coalesce_tag *a = pa, *b = pb;

	return (a->tag < b->tag ? -1 : a->tag > b->tag);
}

/* Writes the bucket out as a rectangle (if it holds anything), empty. */
static void
bucket_flush(job *j, bucket *k)
{
	vrect *r;
	size_t i;

	if (k->count == 0)
		return;
	if (k->count == 1) {
		exact_rect(j, k->start, k->end, k->state, k->tag);
	} else {
		r = new_rect(j, k->start, k->end - k->start, k->count);
		sort_states(k->touched, k->ntouched);
		for (i = 0; i < k->ntouched; i++)
			add_state(j, r, k->touched[i], k->acc[k->touched[i]]);
		for (i = 0; i < k->tag_used; i++) {
			size_t s = k->tag_slots[i];

			add_tag(j, r, k->tag_key[s], k->tag_time[s]);
		}
		if (r->ntags > 1)
			qsort(j->pool_tag + r->tags, r->ntags,
			    sizeof (coalesce_tag), compare_tags);
	}
	for (i = 0; i < k->ntouched; i++)
		k->acc[k->touched[i]] = 0;
	for (i = 0; i < k->tag_used; i++)
		k->tag_key[k->tag_slots[i]] = NO_TAG;
	k->ntouched = 0;
	k->tag_used = 0;
	k->count = 0;
}

/*
 * Entity e's intervals from index `first` on, clipped to the window:
 * one that covers a whole column is a rectangle of its own; those in
 * between go into buckets, a new one for each interval that starts in a
 * later column than the bucket (unless both are all in one state).
 */
static void
binned(job *j, bucket *k, uint32_t e, size_t first)
{
	const vpanel *vp = j->vp;
	const store *st = vp->p->t->st;
	const uint64_t *times = store_times(st, e), *edges = vp->edges;
	const uint16_t *states = store_states(st, e);
	const uint32_t *tags = store_has_tags(st, e) ? store_tags(st, e) : NULL;
	size_t count = store_count(st, e), i;
	uint64_t end = store_end(st);
	unsigned col = 0, ncol = vp->columns;

	for (i = first; i < count && times[i] < vp->hi; i++) {
		uint64_t a = times[i] > vp->lo ? times[i] : vp->lo;
		uint64_t b = i + 1 < count ? times[i + 1] : end;
		uint32_t state = states[i];
		uint32_t tag = tags != NULL ? tags[i] : NO_TAG;
		unsigned whole;

		if (b > vp->hi)
			b = vp->hi;
		if (b <= a)
			continue;
		while (col + 1 < ncol && edges[col + 1] <= a)
			col++;
		/* The first column starting at or after a. */
		whole = edges[col] == a ? col : col + 1;
		if (whole < ncol && edges[whole + 1] <= b) {
			bucket_flush(j, k);
			exact_rect(j, a, b, state, tag);
			continue;
		}
		if (k->count > 0 && col != k->col &&
		    !(k->ntouched == 1 && k->touched[0] == state))
			bucket_flush(j, k);
		k->col = col;	/* (a bucket all in one state goes on) */
		bucket_add(k, a, b, state, tag);
	}
	bucket_flush(j, k);
}

static void
exact(job *j, uint32_t e, size_t first)
{
	const vpanel *vp = j->vp;
	const store *st = vp->p->t->st;
	const uint64_t *times = store_times(st, e);
	const uint16_t *states = store_states(st, e);
	const uint32_t *tags = store_has_tags(st, e) ? store_tags(st, e) : NULL;
	size_t count = store_count(st, e), i;
	uint64_t end = store_end(st);

	for (i = first; i < count && times[i] < vp->hi; i++) {
		uint64_t a = times[i] > vp->lo ? times[i] : vp->lo;
		uint64_t b = i + 1 < count ? times[i + 1] : end;

		if (b > vp->hi)
			b = vp->hi;
		if (b > a)
			exact_rect(j, a, b, states[i],
			    tags != NULL ? tags[i] : NO_TAG);
	}
}

static void
run_job(void *arg)
{
	job *j = arg;
	const vpanel *vp = j->vp;
	bucket k;
	uint32_t i;
	int have_bucket = 0;

	j->entity_rects = xcalloc((size_t)(j->to - j->from) + 1,
	    sizeof (size_t));
	for (i = j->from; i < j->to; i++) {
		j->entity_rects[i - j->from] = j->nrects;
		if (vp->counts[i] == 0)
			continue;
		if (vp->counts[i] <= j->v->cap) {
			exact(j, vp->ids[i], vp->first[i]);
			continue;
		}
		if (!have_bucket) {
			bucket_init(&k, vp->p->t->cat->nstates);
			have_bucket = 1;
		}
		binned(j, &k, vp->ids[i], vp->first[i]);
	}
	j->entity_rects[j->to - j->from] = j->nrects;
	if (have_bucket)
		bucket_free(&k);
}

/* ---- the query ---- */

/* t - offset, within what an int64_t holds. */
static int64_t
shift(uint64_t t, int64_t offset)
{
	__int128 v = (__int128)t - offset;

	if (v > INT64_MAX)
		return (INT64_MAX);
	if (v < INT64_MIN)
		return (INT64_MIN);
	return ((int64_t)v);
}

/* The window in a panel's own time, clipped to its trace's. */
static void
place(vpanel *vp, const viewport_panel *p, const viewport_query *q)
{
	const trace *t = p->t;

	vp->p = p;
	vp->begin = shift(q->begin, p->offset);
	vp->end = shift(q->end, p->offset);
	vp->lo = vp->begin > 0 ? (uint64_t)vp->begin : 0;
	vp->hi = vp->end > 0 ? (uint64_t)vp->end : 0;
	if (vp->lo < t->begin)
		vp->lo = t->begin;
	if (vp->hi > t->end)
		vp->hi = t->end;
	vp->end_field = vp->hi;	/* where the last rectangles end */
}

/* The entities shown and how many transitions each has in the window. */
static void
count_panel(vpanel *vp, const viewport_query *q)
{
	const viewport_panel *p = vp->p;
	uint32_t i;

	vp->ids = xcalloc((size_t)p->n + 1, sizeof (uint32_t));
	vp->counts = xcalloc((size_t)p->n + 1, sizeof (uint64_t));
	vp->first = xcalloc((size_t)p->n + 1, sizeof (size_t));
	for (i = 0; i < p->n; i++) {
		uint32_t e = p->order[i];

		if (q->entities != NULL && regexec(q->entities,
		    catalog_entity_name(p->t->cat, e, NULL), 0, NULL, 0) != 0)
			continue;
		vp->ids[vp->n] = e;
		vp->counts[vp->n] = window_count(p->t->st, e, vp->lo, vp->hi,
		    &vp->first[vp->n]);
		vp->n++;
	}
}

/* The largest cap such that entities' counts, each capped, fit budget. */
static uint64_t
find_cap(const viewport *v, uint64_t budget)
{
	uint64_t lo = 0, hi = 0;
	size_t i;
	uint32_t k;

	for (i = 0; i < v->n; i++)
		for (k = 0; k < v->panels[i].n; k++)
			if (v->panels[i].counts[k] > hi)
				hi = v->panels[i].counts[k];
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2, sum = 0;

		for (i = 0; i < v->n && sum <= budget; i++)
			for (k = 0; k < v->panels[i].n; k++)
				sum += v->panels[i].counts[k] < mid ?
				    v->panels[i].counts[k] : mid;
		if (sum <= budget)
			lo = mid;
		else
			hi = mid - 1;
	}
	return (lo);
}

/* Columns for the binned entities: what the exact ones leave, shared. */
static unsigned
find_columns(const viewport *v, const viewport_query *q)
{
	uint64_t used = 0, nbinned = 0, share;
	size_t i;
	uint32_t k;

	for (i = 0; i < v->n; i++) {
		for (k = 0; k < v->panels[i].n; k++) {
			uint64_t c = v->panels[i].counts[k];

			if (c <= v->cap)
				used += c;
			else
				nbinned++;
		}
	}
	if (nbinned == 0)
		return (1);
	share = used < q->budget ? (q->budget - used) / nbinned : 0;
	if (share < 1)
		share = 1;
	return (share > q->width ? q->width : (unsigned)share);
}

static void
column_edges(vpanel *vp, unsigned columns)
{
	uint64_t span = vp->hi - vp->lo;
	unsigned k;

	if (vp->hi <= vp->lo)
		return;
	/* Every column at least 1 ns wide. */
	vp->columns = span < columns ? (unsigned)span : columns;
	vp->edges = xcalloc((size_t)vp->columns + 1, sizeof (uint64_t));
	for (k = 0; k <= vp->columns; k++)
		vp->edges[k] = vp->lo + (uint64_t)((unsigned __int128)span *
		    k / vp->columns);
}

/*
 * Jobs of about equal work (transitions), a few per thread so that
 * uneven ones even out, never straddling two panels.
 */
static void
make_jobs(viewport *v)
{
	uint64_t total = 0, per, work;
	size_t i, cap = 0;
	uint32_t k;

	for (i = 0; i < v->n; i++)
		for (k = 0; k < v->panels[i].n; k++)
			total += v->panels[i].counts[k] + 1;
	/* (At least 64 entities' worth: a job has its cost too.) */
	per = total / (4 * (uint64_t)threads_count()) + 64;
	for (i = 0; i < v->n; i++) {
		vpanel *vp = &v->panels[i];
		uint32_t from = 0;

		work = 0;
		for (k = 0; k < vp->n; k++) {
			work += vp->counts[k] + 1;
			if (work >= per || k + 1 == vp->n) {
				job *j;

				grow_array(&v->jobs, &cap, v->njobs + 1,
				    sizeof (job));
				j = &v->jobs[v->njobs++];
				memset(j, 0, sizeof (*j));
				j->v = v;
				j->vp = vp;
				j->from = from;
				j->to = k + 1;
				from = k + 1;
				work = 0;
			}
		}
	}
}

/* ---- value entities and depth rows (the classic command's coalescers) ---- */

/* Entity e's values over the window, from the one in effect at lo. */
static void
feed_values(valuerects *v, const vpanel *vp, uint32_t e)
{
	const store *st = vp->p->t->st;
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
	const store *st = vp->p->t->st;
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

/*
 * The panel's value entities and depth rows over the window, as the
 * classic command coalesces them, about `width` rectangles for each
 * value entity and for each nested entity's depth rows (NULL if none).
 */
static void
panel_kinds(const vpanel *vp, unsigned width, valuerects **values,
    depthrows **depths)
{
	const store *st = vp->p->t->st;
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
		*depths = depthrows_new(vp->p->t->cat->nstates,
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

viewport *
viewport_compute(const viewport_panel *panels, size_t n,
    const viewport_query *q)
{
	viewport *v = xcalloc(1, sizeof (*v));
	unsigned columns;
	size_t i;
	uint32_t k;

	v->n = n;
	v->panels = xcalloc(n + 1, sizeof (vpanel));
	for (i = 0; i < n; i++) {
		place(&v->panels[i], &panels[i], q);
		count_panel(&v->panels[i], q);
		for (k = 0; k < v->panels[i].n; k++)
			v->transitions += v->panels[i].counts[k];
	}
	v->exact = v->transitions <= q->budget;
	v->cap = v->exact ? UINT64_MAX : find_cap(v, q->budget);
	columns = find_columns(v, q);
	for (i = 0; i < n; i++) {
		column_edges(&v->panels[i], columns);
		if (!store_plain(panels[i].t->st))
			panel_kinds(&v->panels[i], q->width,
			    &v->panels[i].values, &v->panels[i].depths);
	}
	v->width = q->width;
	make_jobs(v);
	threads_run(run_job, v->jobs, v->njobs, sizeof (job));
	for (i = 0; i < v->njobs; i++)
		v->rects += v->jobs[i].nrects;
	return (v);
}

void
viewport_free(viewport *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->njobs; i++) {
		job *j = &v->jobs[i];

		free(j->rects);
		free(j->entity_rects);
		free(j->pool_state);
		free(j->pool_time);
		free(j->pool_tag);
		free(j->json);
	}
	for (i = 0; i < v->n; i++) {
		free(v->panels[i].ids);
		free(v->panels[i].counts);
		free(v->panels[i].first);
		free(v->panels[i].edges);
		valuerects_free(v->panels[i].values);
		depthrows_free(v->panels[i].depths);
	}
	free(v->jobs);
	free(v->panels);
	free(v);
}

uint64_t viewport_transitions(const viewport *v) { return (v->transitions); }
uint64_t viewport_rects(const viewport *v) { return (v->rects); }
int viewport_exact(const viewport *v) { return (v->exact); }

/* ---- writing ---- */

/* A rectangle's tags (NULL when it has none: the pool may be empty). */
static const coalesce_tag *
rect_tags(const job *j, const vrect *x)
{
	return (x->ntags > 0 ? j->pool_tag + x->tags : NULL);
}

/* A rectangle as the -T json writer takes it, its arrays in the job's pools. */
static jsonout_rect
rect_for_json(const job *j, const vrect *x)
{
	jsonout_rect jr;

	jr.start = x->start;
	jr.duration = x->duration;
	jr.states = j->pool_state + x->states;
	jr.times = j->pool_time + x->states;
	jr.nstates = x->nstates;
	jr.tags = rect_tags(j, x);
	jr.ntags = x->ntags;
	jr.count = x->count;
	return (jr);
}

static void
write_job(void *arg)
{
	job *j = arg;
	const catalog *cat = j->vp->p->t->cat;
	FILE *out = open_memstream(&j->json, &j->json_len);
	jsonout_names *names = jsonout_names_new(cat, 0);
	const vpanel *vp = j->vp;
	uint32_t i, *ids = xcalloc(cat->nstates + 1, sizeof (uint32_t));
	uint64_t *times = xcalloc(cat->nstates + 1, sizeof (uint64_t));

	if (out == NULL)
		out_of_memory(0);
	for (i = j->from; i < j->to; i++) {
		size_t r, last = j->entity_rects[i - j->from + 1];
		uint32_t e = vp->ids[i];
		int nested = vp->depths != NULL &&
		    depthrows_ndepths(vp->depths, e) > 0;

		if (vp->values != NULL && valuerects_seen(vp->values, e)) {
			kindjson_values(out, cat, vp->values, e, i == 0, 1);
			continue;
		}
		if (nested)
			kindjson_nested_open(out, cat, e, i == 0);
		else
			jsonout_entity_open(out, cat, e, i == 0, NULL);
		for (r = j->entity_rects[i - j->from]; r < last; r++) {
			jsonout_rect jr = rect_for_json(j, &j->rects[r]);

			jsonout_rect_write(out, names, &jr,
			    r == j->entity_rects[i - j->from]);
		}
		if (nested)
			kindjson_nested_close(out, cat, vp->depths, names, e,
			    ids, times);
		else
			jsonout_entity_close(out);
	}
	free(ids);
	free(times);
	jsonout_names_free(names);
	if (fclose(out) != 0)
		out_of_memory(j->json_len);
}

/* Collects pieces: the glue between the jobs' texts is written here. */
typedef struct pieces {
	viewport_piece *p;
	size_t n, cap;
	FILE *glue;		/* the piece being written, or NULL */
} pieces;

static FILE *
glue(pieces *ps)
{
	if (ps->glue == NULL) {
		grow_array(&ps->p, &ps->cap, ps->n + 1,
		    sizeof (viewport_piece));
		memset(&ps->p[ps->n], 0, sizeof (viewport_piece));
		ps->glue = open_memstream(&ps->p[ps->n].text,
		    &ps->p[ps->n].len);
		if (ps->glue == NULL)
			out_of_memory(0);
		ps->n++;
	}
	return (ps->glue);
}

static void
take(pieces *ps, char *text, size_t len)
{
	if (ps->glue != NULL && fclose(ps->glue) != 0)
		out_of_memory(0);
	ps->glue = NULL;
	grow_array(&ps->p, &ps->cap, ps->n + 1, sizeof (viewport_piece));
	ps->p[ps->n].text = text;
	ps->p[ps->n++].len = len;
}

size_t
viewport_json_pieces(viewport *v, const char *members,
    viewport_piece **out)
{
	pieces ps;
	size_t i, k = 0;

	memset(&ps, 0, sizeof (ps));
	threads_run(write_job, v->jobs, v->njobs, sizeof (job));
	jsonout_open(glue(&ps));
	for (i = 0; i < v->n; i++) {
		const vpanel *vp = &v->panels[i];
		const catalog *cat = vp->p->t->cat;

		jsonout_statemap_open(glue(&ps), cat, vp->begin, vp->end_field,
		    i == 0);
		for (; k < v->njobs && v->jobs[k].vp == vp; k++) {
			take(&ps, v->jobs[k].json, v->jobs[k].json_len);
			v->jobs[k].json = NULL;
		}
		jsonout_statemap_close(glue(&ps), cat, vp->begin,
		    vp->end_field, vp->end);
	}
	jsonout_close(glue(&ps), members);
	if (fclose(ps.glue) != 0)
		out_of_memory(0);
	*out = ps.p;
	return (ps.n);
}

void
viewport_write_json(FILE *out, viewport *v, const char *members)
{
	viewport_piece *p;
	size_t n = viewport_json_pieces(v, members, &p), i;

	for (i = 0; i < n; i++) {
		fwrite(p[i].text, 1, p[i].len, out);
		free(p[i].text);
	}
	free(p);
}

void
viewport_to_smaps(const viewport *v, smap *maps)
{
	size_t i, k = 0;

	for (i = 0; i < v->n; i++) {
		const vpanel *vp = &v->panels[i];
		const catalog *cat = vp->p->t->cat;
		smap *m = &maps[i];
		uint64_t *dense = xcalloc(cat->nstates + 1, sizeof (uint64_t));

		memset(m, 0, sizeof (*m));
		m->cat = catalog_copy_without_states(cat);
		catalog_set_states(m->cat, catalog_copy_states(cat),
		    cat->nstates);
		m->co = coalesce_new(cat->nstates, UINT64_MAX, vp->begin,
		    vp->end);
		m->begin = vp->begin;
		m->end = vp->end_field;
		m->end_bound = vp->end;
		m->order = xcalloc((size_t)vp->n + 1, sizeof (uint32_t));
		memcpy(m->order, vp->ids, vp->n * sizeof (uint32_t));
		m->nentities = vp->n;
		if (vp->values != NULL || vp->depths != NULL)
			panel_kinds(vp, v->width, &m->values, &m->depths);
		for (; k < v->njobs && v->jobs[k].vp == vp; k++) {
			const job *j = &v->jobs[k];
			uint32_t e;

			for (e = j->from; e < j->to; e++) {
				size_t r, last = j->entity_rects[e - j->from + 1];

				for (r = j->entity_rects[e - j->from]; r < last;
				    r++) {
					const vrect *x = &j->rects[r];
					uint32_t s;

					for (s = 0; s < x->nstates; s++)
						dense[j->pool_state[x->states +
						    s]] = j->pool_time[x->states
						    + s];
					coalesce_put(m->co, vp->ids[e],
					    x->start, x->duration, x->count,
					    dense,
					    rect_tags(j, x), x->ntags);
					for (s = 0; s < x->nstates; s++)
						dense[j->pool_state[x->states +
						    s]] = 0;
				}
			}
		}
		free(dense);
	}
}

uint32_t
viewport_panel_entities(const viewport *v, size_t panel)
{
	return (panel < v->n ? v->panels[panel].n : 0);
}

void
viewport_entity_rects(const viewport *v, size_t panel, uint32_t k,
    jsonout_rect_fn fn, void *ctx)
{
	const vpanel *vp;
	size_t i;

	if (panel >= v->n || k >= v->panels[panel].n)
		return;
	vp = &v->panels[panel];
	for (i = 0; i < v->njobs; i++) {
		const job *j = &v->jobs[i];
		size_t r, last;

		if (j->vp != vp || k < j->from || k >= j->to)
			continue;
		last = j->entity_rects[k - j->from + 1];
		for (r = j->entity_rects[k - j->from]; r < last; r++) {
			jsonout_rect jr = rect_for_json(j, &j->rects[r]);

			fn(ctx, &jr);
		}
		return;
	}
}

uint32_t
viewport_entity_id(const viewport *v, size_t panel, uint32_t k)
{
	if (panel >= v->n || k >= v->panels[panel].n)
		return (UINT32_MAX);
	return (v->panels[panel].ids[k]);
}

const valuerects *
viewport_values(const viewport *v, size_t panel)
{
	return (panel < v->n ? v->panels[panel].values : NULL);
}

const depthrows *
viewport_depths(const viewport *v, size_t panel)
{
	return (panel < v->n ? v->panels[panel].depths : NULL);
}
