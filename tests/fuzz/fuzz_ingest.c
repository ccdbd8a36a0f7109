/*
 * libFuzzer harness for whole-trace ingest: any bytes as a trace, fed to
 * a small coalescer and a store, then written as JSON and SVG, with the
 * store queried at a few times, answered as the live server answers a
 * window (the viewport, with values and depth rows), and its names
 * matched against a glob pattern.  Values and nested states (the generic
 * state system's data) go to the store, as a script's load takes them.
 * An input may also be a shape (shapes.h): a deep stack, many states
 * times many entities, long paths or many entities, made from its first
 * bytes, the rest its glob pattern.  Errors are fine; crashes, leaks,
 * hangs, undefined behaviour and work or memory out of proportion to the
 * trace (shapes.h's budgets, counted by base/work.h) are not.
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
#include "output/viewport.h"
#include "store/store.h"
#include "store/tree.h"
#include "base/work.h"
#include "shapes.h"

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

/* The live server's answer for a window of the whole store, and a half. */
static void
answer(const catalog *cat, store *st, FILE *null)
{
	trace d;
	uint32_t n = catalog_nentities(cat), k, *order;
	viewport_panel p;
	viewport_query q;
	viewport *v;
	int half;

	memset(&d, 0, sizeof (d));
	d.cat = (catalog *)cat;
	d.st = st;
	d.end = cat->last_time + 1;
	order = calloc(n + 1, sizeof (uint32_t));
	for (k = 0; k < n; k++)
		order[k] = k;
	memset(&p, 0, sizeof (p));
	p.t = &d;
	p.order = order;
	p.n = n;
	p.offset = 0;
	for (half = 0; half < 2; half++) {
		memset(&q, 0, sizeof (q));
		q.begin = half ? d.end / 2 : 0;
		q.end = d.end;
		q.width = 100;
		q.budget = 50;
		if (q.begin >= q.end)
			continue;
		v = viewport_compute(&p, 1, &q);
		viewport_write_json(null, v, NULL);
		viewport_free(v);
	}
	free(order);
}

/* Every entity's name against a pattern from the input. */
static void
globs(const catalog *cat, const unsigned char *pattern, size_t len)
{
	uint32_t n = catalog_nentities(cat), e;

	if (len == 0)
		return;
	for (e = 0; e < n; e++) {
		size_t nlen;
		const char *name = catalog_entity_name(cat, e, &nlen);

		(void) tree_glob_match((const char *)pattern, len, name, nlen);
	}
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	smap m;
	sink s = { &m, NULL };
	sm_error err;
	FILE *null = fopen("/dev/null", "w");
	ingest_options io;
	const unsigned char *pattern = data + size / 2;
	size_t plen = size - size / 2;
	char *shaped = shape_make(data, size, &size, &pattern, &plen);

	if (shaped != NULL)
		data = (const unsigned char *)shaped;
	work_reset(shape_step_budget(size), shape_byte_budget(size),
	    shape_over_budget);
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
		answer(m.cat, s.st, null);
		globs(m.cat, pattern, plen);
	}
	free(shaped);
	fclose(null);
	store_free(s.st);
	smap_free(&m);
	return (0);
}
