#include "trace/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/duration.h"
#include "base/runlimit.h"
#include "base/util.h"
#include "ingest/any_input.h"
#include "store/cache.h"

static void
on_datum(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag_name)
{
	trace *d = ctx;

	if (d->st == NULL)
		d->st = store_new(cat->nstates);
	store_append(d->st, entity, time, state, tag_name == CATALOG_NO_TAG ?
	    STORE_NONE : catalog_tag_id_named(cat, state, tag_name));
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

static void
on_prefetch(void *ctx, uint32_t entity, int near)
{
	trace *d = ctx;

	if (d->st != NULL)
		store_prefetch_column(d->st, entity, near);
}

/* A nested entity's datum: the store keeps its stack. */
static void
on_nested(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    ingest_op op, uint32_t state, const char *tag, size_t tag_len)
{
	trace *d = ctx;
	uint32_t t = tag == NULL ? STORE_NONE :
	    catalog_tag_id(cat, state, tag, tag_len);

	if (d->st == NULL)
		d->st = store_new(cat->nstates);
	if (op == INGEST_PUSH)
		store_push(d->st, entity, time, state, t);
	else if (op == INGEST_POP)
		store_pop(d->st, entity, time);
	else
		store_append(d->st, entity, time, state, t);
}

/* The ingest's ops are the store's. */
_Static_assert((int)INGEST_SET == (int)STORE_SET &&
    (int)INGEST_PUSH == (int)STORE_PUSH &&
    (int)INGEST_POP == (int)STORE_POP, "ingest_op and the store's ops differ");

static void
on_stack(void *ctx, catalog *cat, uint32_t entity, const uint64_t *times,
    const uint8_t *ops, const uint16_t *states, size_t n, double done)
{
	trace *d = ctx;

	(void)cat;
	store_progress(d->st, done);
	store_append_stacked(d->st, entity, times, ops, states, n);
}

static void
on_value(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    sm_value value)
{
	trace *d = ctx;

	if (d->st == NULL)
		d->st = store_new(cat->nstates);
	store_append_value(d->st, entity, time, value);
}

static void
on_values(void *ctx, catalog *cat, uint32_t entity, const uint64_t *times,
    const sm_value *values, size_t n, double done)
{
	trace *d = ctx;

	if (d->st == NULL)
		d->st = store_new(cat->nstates);
	store_progress(d->st, done);
	store_append_values(d->st, entity, times, values, n);
}

/*
 * A load for a script stops at its limits; the store so far counts (a
 * store past its budget goes to disk: store.h).  It stops too when the
 * disk fails the store, and says why a store that could not go to disk
 * ran out of memory.
 */
static int
keep_loading(void *ctx, const char **why)
{
	static _Thread_local char msg[SPILL_WHY + 160];
	trace *d = ctx;
	const char *failed = NULL;
	int lost = 0;

	if (d->st != NULL)
		failed = store_failed(d->st, &lost);
	if (lost) {
		*why = failed;
		return (-1);
	}
	if (runlimit_check(d->st != NULL ? store_memory(d->st) : 0, why) != 0) {
		if (failed != NULL) {
			snprintf(msg, sizeof (msg), "%s, and could not go to "
			    "disk: %s", *why, failed);
			*why = msg;
		}
		return (-1);
	}
	return (0);
}

/*
 * A store that went to disk is merged and mapped back before it is
 * saved or used (the bounds are set again after).  0, or -1 with err.
 */
static int
mapped_back(trace *d, const char *path, sm_error *err)
{
	const char *failed;
	int lost;

	store_finish(d->st, 0, UINT64_MAX);
	failed = store_failed(d->st, &lost);
	if (lost) {
		error_at(err, path, 0, 0, "%s", failed);
		return (-1);
	}
	return (0);
}

trace *
trace_load(const char *path, const trace_options *opts, sm_error *err)
{
	static const trace_options defaults;
	trace *d = xcalloc(1, sizeof (*d));
	ingest_options io;
	cache_key key;
	cache_entry *entry = NULL;
	int cached = 0, cacheable;
	uint64_t end;
	char variant[64];

	if (opts == NULL)
		opts = &defaults;
	memset(&io, 0, sizeof (io));
	io.ignore_tags = opts->ignore_tags;
	io.filter = opts->filter;
	io.data = on_data;
	io.prefetch = on_prefetch;
	io.keep_going = keep_loading;
	io.nested = on_nested;
	io.stack = on_stack;
	io.value = on_value;
	io.values = on_values;
	/* The key is taken first: a file that changes while read is stale. */
	cacheable = !opts->no_cache && !opts->ignore_tags &&
	    opts->filter == NULL && cache_key_of(path, &key) == 0;
	if (cacheable && ingest_any_variant(path, opts->analyses, variant,
	    sizeof (variant)) > 0)
		cache_key_variant(&key, variant);
	if (cacheable)
		cached = cache_load(&key, path, &d->cat, &d->st, &entry);
	d->cache_map = entry;	/* released by trace_free */
	if (!cached) {
		d->cat = catalog_new(path);
		if (ingest_any(path, opts->analyses, d->cat, &io, on_datum, d,
		    err) != 0) {
			if (cacheable)
				cache_key_free(&key);
			trace_free(d);
			return (NULL);
		}
		if (d->st == NULL)
			d->st = store_new(d->cat->nstates);
		if (store_spilled(d->st) && mapped_back(d, path, err) != 0) {
			if (cacheable)
				cache_key_free(&key);
			trace_free(d);
			return (NULL);
		}
		if (cacheable)
			cache_save(&key, d->cat, d->st);
	}
	if (cacheable)
		cache_key_free(&key);
	end = d->cat->last_time;
	if (opts->begin > 0 && opts->end == 0 && end <= (uint64_t)opts->begin) {
		char b[32], e[32];

		error_at(err, path, 0, 0, "begin %s is at or past the end of "
		    "the trace (%s): nothing to load",
		    duration_format((uint64_t)opts->begin, b, sizeof (b)),
		    duration_format(end, e, sizeof (e)));
		trace_free(d);
		return (NULL);
	}
	if (opts->end > 0 && (uint64_t)opts->end < end)
		end = (uint64_t)opts->end;
	d->begin = opts->begin > 0 ? (uint64_t)opts->begin : 0;
	d->end = end > d->begin ? end : d->begin;
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
	if (d->parent == NULL)
		catalog_free(d->cat);
	store_free(d->st);
	cache_release(d->cache_map);
	trace_release(d->parent);
	free(d);
}

void
trace_free(trace *d)
{
	trace_release(d);
}
