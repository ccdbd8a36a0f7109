#include "dataset.h"

#include <stdlib.h>
#include <string.h>

#include "ingest.h"
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

dataset *
dataset_load(const char *path, const dataset_options *opts, sm_error *err)
{
	static const dataset_options defaults;
	dataset *d = xcalloc(1, sizeof (*d));
	ingest_options io;
	uint64_t end;

	if (opts == NULL)
		opts = &defaults;
	io.ignore_tags = opts->ignore_tags;
	io.filter = opts->filter;
	d->tr = trace_new(path);
	if (ingest_file(path, d->tr, &io, on_datum, d, err) != 0) {
		dataset_free(d);
		return (NULL);
	}
	if (d->st == NULL)
		d->st = store_new(d->tr->nstates);
	end = d->tr->last_time;
	if (opts->end > 0 && (uint64_t)opts->end < end)
		end = (uint64_t)opts->end;
	d->begin = opts->begin > 0 ? (uint64_t)opts->begin : 0;
	d->end = end > d->begin ? end : d->begin;
	store_finish(d->st, d->begin, d->end);
	return (d);
}

dataset *
dataset_derive(const dataset *src, trace_state *states, uint32_t nstates,
    const uint32_t *by_state, const uint32_t *by_tag)
{
	dataset *d = xcalloc(1, sizeof (*d));
	uint32_t e, i;

	d->tr = trace_copy_without_states(src->tr);
	d->tr->states = states;
	d->tr->nstates = nstates;
	for (i = 0; i < trace_ntags(d->tr); i++)
		d->tr->tags[i].state = by_tag[i];
	d->st = store_new(nstates);
	for (e = 0; e < store_nentities(src->st); e++) {
		const uint64_t *time = store_times(src->st, e);
		const uint16_t *state = store_states(src->st, e);
		const uint32_t *tag = store_tags(src->st, e);
		size_t k, n = store_count(src->st, e);
		uint32_t last_state = STORE_NONE, last_tag = STORE_NONE;

		for (k = 0; k < n; k++) {
			uint32_t s = tag[k] == STORE_NONE ? by_state[state[k]] :
			    by_tag[tag[k]];

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

void
dataset_free(dataset *d)
{
	if (d == NULL)
		return;
	trace_free(d->tr);
	store_free(d->st);
	free(d);
}
