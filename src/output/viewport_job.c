/*
 * viewport_job.c: what one job of a viewport answers (viewport.h says
 * what the answer is): its entities' intervals in the window as
 * rectangles, in the job's pools, each interval its own where the
 * entity is exact, else merged column by column.
 */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "output/viewport_job.h"

#define NO_TAG		UINT32_MAX

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
	const store *st = vp->t->st;
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
		/* No data (STORE_GAP): no rectangle covers it. */
		if (state == STORE_GAP) {
			bucket_flush(j, k);
			continue;
		}
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
	const store *st = vp->t->st;
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
		if (b > a && states[i] != STORE_GAP)
			exact_rect(j, a, b, states[i],
			    tags != NULL ? tags[i] : NO_TAG);
	}
}

void
viewport_job_run(void *arg)
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
			bucket_init(&k, vp->t->cat->nstates);
			have_bucket = 1;
		}
		binned(j, &k, vp->ids[i], vp->first[i]);
	}
	j->entity_rects[j->to - j->from] = j->nrects;
	if (have_bucket)
		bucket_free(&k);
}
