/*
 * libFuzzer harness for whole-trace ingest: any bytes as a trace, fed to
 * a small coalescer and a store, then written as JSON and SVG, with the
 * store queried at a few times.  Values and nested states (the generic
 * state system's data) go to the store, as a script's load takes them.  Errors are fine; crashes, leaks, hangs
 * and undefined behaviour are not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coalesce/coalesce.h"
#include "coalesce/smap.h"
#include "ingest/ingest.h"
#include "output/jsonout.h"
#include "output/smap_json.h"
#include "output/svg.h"
#include "store/store.h"

typedef struct sink {
	smap *map;
	store *st;
} sink;

static void
on_datum(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag_name)
{
	sink *s = ctx;
	uint32_t id = tag_name == CATALOG_NO_TAG ? COALESCE_NO_TAG :
	    catalog_tag_id_named(cat, state, tag_name);

	if (s->map->co == NULL) {
		s->map->co = coalesce_new(cat->nstates, 4, 0, 0);
		s->st = store_new(cat->nstates);
	}
	coalesce_datum(s->map->co, entity, time, state, id);
	store_append(s->st, entity, time, state, id);
}

/* The store, made for the first datum of any kind. */
static store *
sink_store(sink *s, const catalog *cat)
{
	if (s->map->co == NULL) {
		s->map->co = coalesce_new(cat->nstates, 4, 0, 0);
		s->st = store_new(cat->nstates);
	}
	return (s->st);
}

static void
on_nested(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    ingest_op op, uint32_t state, const char *tag, size_t tag_len)
{
	store *st = sink_store(ctx, cat);
	uint32_t id = tag == NULL ? STORE_NONE :
	    catalog_tag_id(cat, state, tag, tag_len);

	if (op == INGEST_PUSH)
		store_push(st, entity, time, state, id);
	else if (op == INGEST_POP)
		store_pop(st, entity, time);
	else
		store_append(st, entity, time, state, id);
}

static void
on_value(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    sm_value value)
{
	store_append_value(sink_store(ctx, cat), entity, time, value);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	smap m;
	sink s = { &m, NULL };
	sm_error err;
	FILE *null = fopen("/dev/null", "w");
	ingest_options io;

	memset(&m, 0, sizeof (m));
	memset(&io, 0, sizeof (io));
	io.nested = on_nested;
	io.value = on_value;
	m.cat = catalog_new("fuzz.out");
	if (ingest_buffer("fuzz.out", (const char *)data, size, m.cat, &io,
	    on_datum, &s, &err) == 0) {
		size_t order = 0;
		svg_options so = { 10, 862 };
		uint64_t *counts;

		if (m.co == NULL) {
			m.co = coalesce_new(m.cat->nstates, 4, 0, 0);
			s.st = store_new(m.cat->nstates);
		}
		coalesce_finish(m.co, m.cat->last_time);
		store_finish(s.st, 0, m.cat->last_time);
		m.end = coalesce_end(m.co);
		if (smap_sort(&m, size % 2 ? "entity" : NULL, &err) == 0) {
			smap_json_write(null, &m, 1, &order);
			svg_write(null, &m, 1, &order, &so);
		}
		counts = calloc(m.cat->nstates, sizeof (uint64_t));
		store_count_at(s.st, m.cat->last_time / 2, counts);
		store_time_in(s.st, STORE_NONE, 0, m.cat->last_time, counts);
		free(counts);
	}
	fclose(null);
	store_free(s.st);
	smap_free(&m);
	return (0);
}
