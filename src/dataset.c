#include "dataset.h"

#include <stdlib.h>

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

void
dataset_free(dataset *d)
{
	if (d == NULL)
		return;
	trace_free(d->tr);
	store_free(d->st);
	free(d);
}
