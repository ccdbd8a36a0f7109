#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cache.h"
#include "ingest.h"
#include "merge.h"
#include "util.h"

static void
on_datum(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    uint32_t state, const char *tag, size_t tag_len)
{
	trace *d = ctx;

	if (d->st == NULL)
		d->st = store_new(cat->nstates);
	store_append(d->st, entity, time, state, tag == NULL ? STORE_NONE :
	    catalog_tag_id(cat, state, tag, tag_len));
}

static void
on_data(void *ctx, catalog *cat, uint32_t entity, const uint64_t *times,
    const uint16_t *states, size_t n, double done)
{
	trace *d = ctx;

	if (d->st == NULL)
		d->st = store_new(cat->nstates);
	store_progress(d->st, done);
	store_append_many(d->st, entity, times, states, n);
}

trace *
trace_load(const char *path, const trace_options *opts, sm_error *err)
{
	static const trace_options defaults;
	trace *d = xcalloc(1, sizeof (*d));
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
		cached = cache_load(&key, path, &d->cat, &d->st, &d->cache_map,
		    &d->cache_len);
	if (!cached) {
		d->cat = catalog_new(path);
		if (ingest_file(path, d->cat, &io, on_datum, d, err) != 0) {
			if (cacheable)
				cache_key_free(&key);
			trace_free(d);
			return (NULL);
		}
		if (d->st == NULL)
			d->st = store_new(d->cat->nstates);
		if (cacheable)
			cache_save(&key, d->cat, d->st);
	}
	if (cacheable)
		cache_key_free(&key);
	end = d->cat->last_time;
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
static trace *
derive(const trace *src, catalog_state *states, uint32_t nstates,
    const uint32_t *by_state, const uint32_t *by_tag, const uint32_t *each)
{
	trace *d = xcalloc(1, sizeof (*d));
	uint32_t e, i;
	size_t index = 0;

	d->cat = catalog_copy_without_states(src->cat);
	d->cat->states = states;
	d->cat->nstates = nstates;
	for (i = 0; by_tag != NULL && i < catalog_ntags(d->cat); i++)
		d->cat->tags[i].state = by_tag[i];
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

trace *
trace_derive(const trace *src, catalog_state *states, uint32_t nstates,
    const uint32_t *by_state, const uint32_t *by_tag)
{
	return (derive(src, states, nstates, by_state, by_tag, NULL));
}

trace *
trace_derive_each(const trace *src, catalog_state *states,
    uint32_t nstates, const uint32_t *each)
{
	return (derive(src, states, nstates, NULL, NULL, each));
}

trace *
trace_select(const trace *src, const uint32_t *ids, uint32_t n,
    const char *const *names, const size_t *name_lens)
{
	const catalog *st = src->cat;
	trace *d = xcalloc(1, sizeof (*d));
	catalog *cat = catalog_copy_header(st);
	uint32_t i;

	cat->nstates = st->nstates;
	cat->states = catalog_copy_states(st);
	d->cat = cat;
	d->st = store_new(st->nstates);
	for (i = 0; i < n; i++) {
		size_t len;
		const char *name = names != NULL ? names[i] :
		    catalog_entity_name(st, ids[i], &len);
		const uint64_t *time = store_times(src->st, ids[i]);
		const uint16_t *state = store_states(src->st, ids[i]);
		const uint32_t *tag = store_tags(src->st, ids[i]);
		size_t c, count = store_count(src->st, ids[i]);

		if (names != NULL)
			len = name_lens[i];
		if (intern_find(cat->entities, name, len) != INTERN_NONE) {
			trace_free(d);
			return (NULL);
		}
		catalog_entity(cat, name, len);
		cat->descriptions[i] = xstrdup_or_null(st->descriptions[ids[i]]);
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

trace *
trace_count(const trace *src, const unsigned char *counted,
    const char *name, size_t name_len)
{
	const catalog *st = src->cat;
	uint32_t n = catalog_nentities(st), i;
	trace *d = xcalloc(1, sizeof (*d));
	catalog *cat = catalog_new(st->name);
	step *steps = NULL;
	size_t nsteps = 0, cap = 0, k;
	store_iter it;
	store_interval iv;
	int64_t count = 0, last = -1;

	cat->title = xstrdup_or_null(st->title);
	cat->host = xstrdup_or_null(st->host);
	cat->entity_kind = xstrdup_or_null(st->entity_kind);
	cat->have_start = st->have_start;
	cat->start_sec = st->start_sec;
	cat->start_nsec = st->start_nsec;
	cat->last_time = st->last_time;
	cat->nstates = n + 1;
	cat->states = xcalloc(n + 1, sizeof (catalog_state));
	for (i = 0; i <= n; i++) {
		/* From near white to deep blue as the count grows. */
		double f = n == 0 ? 1 : (double)i / n;
		char buf[16];

		snprintf(buf, sizeof (buf), "%u", i);
		cat->states[i].name = xstrndup(buf, strlen(buf));
		cat->states[i].name_len = strlen(buf);
		cat->states[i].color.r = (uint8_t)(0xf0 - f * (0xf0 - 0x08));
		cat->states[i].color.g = (uint8_t)(0xf4 - f * (0xf4 - 0x30));
		cat->states[i].color.b = (uint8_t)(0xf8 - f * (0xf8 - 0x6b));
	}
	catalog_entity(cat, name, name_len);
	d->cat = cat;
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

trace *
trace_group(const trace *src, const uint32_t *group_of,
    uint32_t ngroups, const char *const *names, const size_t *name_lens,
    const uint32_t *rank)
{
	uint32_t n = catalog_nentities(src->cat), ns = src->cat->nstates, g, e;
	uint32_t *members = xcalloc(n + 1, sizeof (uint32_t));
	uint32_t *in = xcalloc(n + 1, sizeof (uint32_t));
	uint32_t *counts = xcalloc(ns + 1, sizeof (uint32_t));
	trace *d = xcalloc(1, sizeof (*d));

	d->cat = catalog_copy_header(src->cat);
	d->cat->states = catalog_copy_states(src->cat);
	d->cat->nstates = ns;
	for (g = 0; g < ngroups; g++)
		catalog_entity(d->cat, names[g], name_lens[g]);
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

trace *
trace_retain(trace *d)
{
	atomic_fetch_add_explicit(&d->shared, 1, memory_order_relaxed);
	return (d);
}

void
trace_release(trace *d)
{
	if (d == NULL)
		return;
	/*
	 * The holder that finds no other frees (the count then wraps, on a
	 * trace about to go); acquire-release, so that it sees everything
	 * the others did before they let go.
	 */
	if (atomic_fetch_sub_explicit(&d->shared, 1, memory_order_acq_rel) != 0)
		return;
	catalog_free(d->cat);
	store_free(d->st);
	if (d->cache_map != NULL)
		(void) munmap(d->cache_map, d->cache_len);
	free(d);
}

void
trace_free(trace *d)
{
	trace_release(d);
}
