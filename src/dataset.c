#include "dataset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cache.h"
#include "ingest.h"
#include "merge.h"
#include "util.h"

static void
on_datum(void *ctx, trace *tr, uint32_t entity, uint64_t time,
    uint32_t state, const char *tag, size_t tag_len)
{
	dataset *d = ctx;

	if (d->st == NULL)
		d->st = store_new(tr->nstates);
	store_append(d->st, entity, time, state, tag == NULL ? STORE_NONE :
	    trace_tag_id(tr, state, tag, tag_len));
}

static void
on_data(void *ctx, trace *tr, uint32_t entity, const uint64_t *times,
    const uint16_t *states, size_t n, double done)
{
	dataset *d = ctx;

	if (d->st == NULL)
		d->st = store_new(tr->nstates);
	store_progress(d->st, done);
	store_append_many(d->st, entity, times, states, n);
}

dataset *
dataset_load(const char *path, const dataset_options *opts, sm_error *err)
{
	static const dataset_options defaults;
	dataset *d = xcalloc(1, sizeof (*d));
	ingest_options io;
	cache_key key;
	int cached = 0, cacheable;
	uint64_t end;

	if (opts == NULL)
		opts = &defaults;
	io.ignore_tags = opts->ignore_tags;
	io.filter = opts->filter;
	io.data = on_data;
	/* The key is taken first: a file that changes while read is stale. */
	cacheable = !opts->no_cache && !opts->ignore_tags &&
	    opts->filter == NULL && cache_key_of(path, &key) == 0;
	if (cacheable)
		cached = cache_load(&key, path, &d->tr, &d->st, &d->cache_map,
		    &d->cache_len);
	if (!cached) {
		d->tr = trace_new(path);
		if (ingest_file(path, d->tr, &io, on_datum, d, err) != 0) {
			if (cacheable)
				cache_key_free(&key);
			dataset_free(d);
			return (NULL);
		}
		if (d->st == NULL)
			d->st = store_new(d->tr->nstates);
		if (cacheable)
			cache_save(&key, d->tr, d->st);
	}
	if (cacheable)
		cache_key_free(&key);
	end = d->tr->last_time;
	if (opts->end > 0 && (uint64_t)opts->end < end)
		end = (uint64_t)opts->end;
	d->begin = opts->begin > 0 ? (uint64_t)opts->begin : 0;
	d->end = end > d->begin ? end : d->begin;
	store_finish(d->st, d->begin, d->end);
	return (d);
}

/*
 * The shared part of deriving: a copy of src with new states, whose
 * transitions get their state from by_state/by_tag or, if each is not
 * NULL, from each[k] for the k-th transition overall.
 */
static dataset *
derive(const dataset *src, trace_state *states, uint32_t nstates,
    const uint32_t *by_state, const uint32_t *by_tag, const uint32_t *each)
{
	dataset *d = xcalloc(1, sizeof (*d));
	uint32_t e, i;
	size_t index = 0;

	d->tr = trace_copy_without_states(src->tr);
	d->tr->states = states;
	d->tr->nstates = nstates;
	for (i = 0; by_tag != NULL && i < trace_ntags(d->tr); i++)
		d->tr->tags[i].state = by_tag[i];
	d->st = store_new(nstates);
	for (e = 0; e < store_nentities(src->st); e++) {
		const uint64_t *time = store_times(src->st, e);
		const uint16_t *state = store_states(src->st, e);
		const uint32_t *tag = store_tags(src->st, e);
		size_t k, n = store_count(src->st, e);
		uint32_t last_state = STORE_NONE, last_tag = STORE_NONE;

		for (k = 0; k < n; k++, index++) {
			uint32_t s = each != NULL ? each[index] :
			    tag[k] == STORE_NONE ? by_state[state[k]] :
			    by_tag[tag[k]];

			/* A transition that changes nothing is dropped. */
			if (s == last_state && tag[k] == last_tag)
				continue;
			store_append(d->st, e, time[k], s, tag[k]);
			last_state = s;
			last_tag = tag[k];
		}
	}
	d->begin = src->begin;
	d->end = src->end;
	store_finish(d->st, d->begin, d->end);
	return (d);
}

dataset *
dataset_derive(const dataset *src, trace_state *states, uint32_t nstates,
    const uint32_t *by_state, const uint32_t *by_tag)
{
	return (derive(src, states, nstates, by_state, by_tag, NULL));
}

dataset *
dataset_derive_each(const dataset *src, trace_state *states,
    uint32_t nstates, const uint32_t *each)
{
	return (derive(src, states, nstates, NULL, NULL, each));
}

dataset *
dataset_select(const dataset *src, const uint32_t *ids, uint32_t n,
    const char *const *names, const size_t *name_lens)
{
	const trace *st = src->tr;
	dataset *d = xcalloc(1, sizeof (*d));
	trace *tr = trace_copy_header(st);
	uint32_t i;

	tr->nstates = st->nstates;
	tr->states = trace_copy_states(st);
	d->tr = tr;
	d->st = store_new(st->nstates);
	for (i = 0; i < n; i++) {
		size_t len;
		const char *name = names != NULL ? names[i] :
		    trace_entity_name(st, ids[i], &len);
		const uint64_t *time = store_times(src->st, ids[i]);
		const uint16_t *state = store_states(src->st, ids[i]);
		const uint32_t *tag = store_tags(src->st, ids[i]);
		size_t c, count = store_count(src->st, ids[i]);

		if (names != NULL)
			len = name_lens[i];
		if (intern_find(tr->entities, name, len) != INTERN_NONE) {
			dataset_free(d);
			return (NULL);
		}
		trace_entity(tr, name, len);
		tr->descriptions[i] = xstrdup_or_null(st->descriptions[ids[i]]);
		for (c = 0; c < count; c++)
			store_append(d->st, i, time[c], state[c], tag[c]);
	}
	d->begin = src->begin;
	d->end = src->end;
	store_finish(d->st, d->begin, d->end);
	return (d);
}

typedef struct step {
	uint64_t time;
	int64_t delta;
} step;

static int
compare_steps(const void *pa, const void *pb)
{
	const step *a = pa, *b = pb;

	return (a->time < b->time ? -1 : a->time > b->time);
}

dataset *
dataset_count(const dataset *src, const unsigned char *counted,
    const char *name, size_t name_len)
{
	const trace *st = src->tr;
	uint32_t n = trace_nentities(st), i;
	dataset *d = xcalloc(1, sizeof (*d));
	trace *tr = trace_new(st->name);
	step *steps = NULL;
	size_t nsteps = 0, cap = 0, k;
	store_iter it;
	store_interval iv;
	int64_t count = 0, last = -1;

	tr->title = xstrdup_or_null(st->title);
	tr->host = xstrdup_or_null(st->host);
	tr->entity_kind = xstrdup_or_null(st->entity_kind);
	tr->have_start = st->have_start;
	tr->start_sec = st->start_sec;
	tr->start_nsec = st->start_nsec;
	tr->last_time = st->last_time;
	tr->nstates = n + 1;
	tr->states = xcalloc(n + 1, sizeof (trace_state));
	for (i = 0; i <= n; i++) {
		/* From near white to deep blue as the count grows. */
		double f = n == 0 ? 1 : (double)i / n;
		char buf[16];

		snprintf(buf, sizeof (buf), "%u", i);
		tr->states[i].name = xstrndup(buf, strlen(buf));
		tr->states[i].name_len = strlen(buf);
		tr->states[i].color.r = (uint8_t)(0xf0 - f * (0xf0 - 0x08));
		tr->states[i].color.g = (uint8_t)(0xf4 - f * (0xf4 - 0x30));
		tr->states[i].color.b = (uint8_t)(0xf8 - f * (0xf8 - 0x6b));
	}
	trace_entity(tr, name, name_len);
	d->tr = tr;
	d->st = store_new(n + 1);

	/* Each counted interval is +1 at its start and -1 at its end. */
	store_iter_init(&it, src->st, NULL, 0, src->begin, src->end);
	while (store_iter_next(&it, &iv)) {
		if (!counted[iv.state])
			continue;
		grow_array(&steps, &cap, nsteps + 2, sizeof (step));
		steps[nsteps].time = iv.start;
		steps[nsteps++].delta = 1;
		steps[nsteps].time = iv.end;
		steps[nsteps++].delta = -1;
	}
	qsort(steps, nsteps, sizeof (step), compare_steps);
	store_append(d->st, 0, src->begin, 0, STORE_NONE);
	last = 0;
	for (k = 0; k < nsteps; ) {
		uint64_t t = steps[k].time;

		while (k < nsteps && steps[k].time == t)
			count += steps[k++].delta;
		if (count != last && t < src->end) {
			store_append(d->st, 0, t, (uint32_t)count, STORE_NONE);
			last = count;
		}
	}
	free(steps);
	d->begin = src->begin;
	d->end = src->end;
	store_finish(d->st, d->begin, d->end);
	return (d);
}

/* The state of lowest rank that any member is in, or STORE_NONE. */
static uint32_t
group_state(const uint32_t *counts, const uint32_t *rank, uint32_t nstates)
{
	uint32_t best = STORE_NONE, s;

	for (s = 0; s < nstates; s++)
		if (counts[s] > 0 && (best == STORE_NONE ||
		    rank[s] < rank[best]))
			best = s;
	return (best);
}

dataset *
dataset_group(const dataset *src, const uint32_t *group_of,
    uint32_t ngroups, const char *const *names, const size_t *name_lens,
    const uint32_t *rank)
{
	uint32_t n = trace_nentities(src->tr), ns = src->tr->nstates, g, e;
	uint32_t *members = xcalloc(n + 1, sizeof (uint32_t));
	uint32_t *in = xcalloc(n + 1, sizeof (uint32_t));
	uint32_t *counts = xcalloc(ns + 1, sizeof (uint32_t));
	dataset *d = xcalloc(1, sizeof (*d));

	d->tr = trace_copy_header(src->tr);
	d->tr->states = trace_copy_states(src->tr);
	d->tr->nstates = ns;
	for (g = 0; g < ngroups; g++)
		trace_entity(d->tr, names[g], name_lens[g]);
	d->st = store_new(ns);
	for (g = 0; g < ngroups; g++) {
		uint32_t nm = 0, cur = STORE_NONE;
		merge *mg;
		merge_item it;
		uint64_t pending = 0;
		int have = 0;

		for (e = 0; e < n; e++)
			if (group_of[e] == g)
				members[nm++] = e;
		memset(counts, 0, (ns + 1) * sizeof (uint32_t));
		for (e = 0; e < nm; e++)
			in[e] = STORE_NONE;
		/* Transitions at one time all land before the group's state
		 * is judged, so a hand-over between members is no blip. */
		mg = merge_new(src->st, members, nm);
		for (;;) {
			int more = merge_next(mg, &it);

			if (have && (!more || it.time != pending)) {
				uint32_t s = group_state(counts, rank, ns);

				if (s != cur && s != STORE_NONE)
					store_append(d->st, g, pending, s,
					    STORE_NONE);
				cur = s;
				have = 0;
			}
			if (!more)
				break;
			if (in[it.rank] != STORE_NONE)
				counts[in[it.rank]]--;
			in[it.rank] = it.state;
			counts[it.state]++;
			pending = it.time;
			have = 1;
		}
		merge_free(mg);
	}
	free(members);
	free(in);
	free(counts);
	d->begin = src->begin;
	d->end = src->end;
	store_finish(d->st, d->begin, d->end);
	return (d);
}

void
dataset_free(dataset *d)
{
	if (d == NULL)
		return;
	trace_free(d->tr);
	store_free(d->st);
	if (d->cache_map != NULL)
		(void) munmap(d->cache_map, d->cache_len);
	free(d);
}
