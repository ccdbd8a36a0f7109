/*
 * Tests for src/output/jsonout.c's rectangles: every number as printf writes it
 * (the digits are formatted in place, eight at a time), at each power of
 * ten and its neighbours, each power of two and random values, with
 * hundreds of tags so that the line buffer fills and is written midway,
 * the catalog's tags (whose keys are written whole) among others.
 */
#include <stdlib.h>
#include <string.h>

#include "output/jsonout.h"
#include "store/catalog.h"
#define RANDTRACE_SEED	0x9e3779b97f4a7c15ULL
#include "randtrace.h"
#include "unit.h"
#include "base/util.h"

#define VALUES	1000

/* The values: 0, UINT64_MAX, 10^k - 1, 10^k, 10^k + 1, 2^k - 1, 2^k... */
static size_t
edge_values(uint64_t *v)
{
	uint64_t p = 1;
	size_t n = 0;
	int k;

	v[n++] = 0;
	v[n++] = UINT64_MAX;
	for (k = 0; k < 20; k++) {
		v[n++] = p - 1;
		v[n++] = p;
		v[n++] = p + 1;
		if (k < 19)
			p *= 10;
	}
	for (k = 0; k < 64; k++) {
		v[n++] = ((uint64_t)1 << k) - 1;
		v[n++] = (uint64_t)1 << k;
	}
	/* Two statements: the operands of >> are evaluated in no set order. */
	while (n < VALUES) {
		uint64_t bits = next();

		v[n++] = bits >> below(64);
	}
	return (n);
}

/* What jsonout_rect_write should write for r: printf's way. */
static char *
expected(const jsonout_rect *r, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	size_t i;

	fprintf(f, "\n    {\"start\": %" PRIu64 ", \"duration\": %" PRIu64
	    ", \"states\": {\"s\": %" PRIu64 "}, \"tags\": {", r->start,
	    r->duration, r->times[0]);
	for (i = 0; i < r->ntags; i++)
		fprintf(f, "%s\"%u\": %" PRIu64, i > 0 ? ", " : "",
		    r->tags[i].tag, r->tags[i].time);
	fprintf(f, "}, \"n\": %" PRIu64 "}", r->count);
	fclose(f);
	return (text);
}

/* with_keys: the catalog's tags' keys written whole, or all formatted. */
static void
test_numbers(int with_keys)
{
	static uint64_t v[VALUES];
	static coalesce_tag tags[VALUES];
	catalog *cat = catalog_new("test");
	jsonout_names *names;
	size_t n = edge_values(v), i, k, got_len, want_len;
	int ok = 1;
	catalog_state *states = xcalloc(1, sizeof (catalog_state));

	states[0].name = xstrndup("s", 1);
	states[0].name_len = 1;
	catalog_set_states(cat, states, 1);
	/* Keys of the catalog's tags are written whole, the others made. */
	for (i = 0; i < 1000; i++) {
		char tag[16];

		snprintf(tag, sizeof (tag), "t%zu", i);
		catalog_tag_id(cat, 0, tag, strlen(tag));
	}
	names = jsonout_names_new(cat, with_keys);
	for (k = 0; k < n && ok; k++) {
		uint32_t state = 0;
		jsonout_rect r;
		char *got = NULL, *want;
		FILE *f = open_memstream(&got, &got_len);

		for (i = 0; i < 300; i++) {
			tags[i].tag = i % 2 == 0 ? (uint32_t)((k + i) % 1003) :
			    (uint32_t)(v[(k + i) % n] & UINT32_MAX);
			tags[i].time = v[(k + 3 * i) % n];
		}
		r.start = v[k];
		r.duration = v[(k + 1) % n];
		r.states = &state;
		r.times = &v[(k + 2) % n];
		r.nstates = 1;
		r.tags = tags;
		r.ntags = k % 301;
		r.count = v[(k + 5) % n] | 1;
		jsonout_rect_write(f, names, &r, 1);
		fclose(f);
		want = expected(&r, &want_len);
		if (got_len != want_len || memcmp(got, want, got_len) != 0) {
			ok = 0;
			printf("# value %zu: %.*s\n# want %.*s\n", k,
			    (int)(got_len < 200 ? got_len : 200), got,
			    (int)(want_len < 200 ? want_len : 200), want);
		}
		free(got);
		free(want);
	}
	CHECK(with_keys ? "jsonout writes every number as printf does, "
	    "edges, long rectangles and tag keys written whole included" :
	    "jsonout writes every number as printf does, tag keys formatted",
	    ok);
	jsonout_names_free(names);
	catalog_free(cat);
}

int
main(void)
{
	test_numbers(1);
	test_numbers(0);
	return (unit_exit());
}
