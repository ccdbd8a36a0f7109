/*
 * Tests for src/trace/transform.c that the Lua tests cannot reach: what the
 * transforms do when a store's times break its own rules, as they do when
 * a mapped cache entry is written over after it was checked.
 */
#include <stdlib.h>
#include <string.h>

#include "trace/transform.h"
#include "unit.h"

/*
 * a: busy [0, 5), idle [5, 10), busy [10, 20); b: busy [0, 20).  The
 * trace ends at 20.
 */
static trace *
sample(void)
{
	trace *d = calloc(1, sizeof (*d));
	catalog *cat = catalog_new("sample");
	catalog_state *states = calloc(2, sizeof (catalog_state));

	states[0].name = strdup("busy");
	states[0].name_len = 4;
	states[1].name = strdup("idle");
	states[1].name_len = 4;
	catalog_set_states(cat, states, 2);
	catalog_entity(cat, "a", 1);
	catalog_entity(cat, "b", 1);
	d->cat = cat;
	d->st = store_new(2);
	store_append(d->st, 0, 0, 0, STORE_NONE);
	store_append(d->st, 0, 5, 1, STORE_NONE);
	store_append(d->st, 0, 10, 0, STORE_NONE);
	store_append(d->st, 1, 0, 0, STORE_NONE);
	store_finish(d->st, 0, 20);
	d->begin = 0;
	d->end = 20;
	return (d);
}

static void
test_count_times_out_of_order(void)
{
	trace *d = sample(), *c;
	unsigned char counted[2] = { 1, 0 };
	uint64_t *times = (uint64_t *)store_times(d->st, 0);
	const char *why = NULL;
	uint64_t counts[3] = { 0 };
	int in_range = 1;
	uint32_t s;

	c = transform_count(d, counted, "n", 1, &why);
	CHECK("transform_count: states 0, 1 and 2", c != NULL &&
	    c->cat->nstates == 3);
	if (c != NULL) {
		store_time_in(c->st, 0, 0, 20, counts);
		CHECK("transform_count: 15 ns with both busy, 5 with one",
		    counts[2] == 15 && counts[1] == 5 && counts[0] == 0);
		trace_free(c);
	}
	/*
	 * a's first busy interval now runs to 15, past the start of its
	 * second: over [10, 15) a counts twice, and with b three times.
	 */
	times[1] = 15;
	memset(counts, 0, sizeof (counts));
	c = transform_count(d, counted, "n", 1, &why);
	CHECK("transform_count: times out of order still give a trace",
	    c != NULL);
	if (c != NULL) {
		for (s = 0; s < store_count(c->st, 0); s++)
			in_range &= store_states(c->st, 0)[s] < c->cat->nstates;
		CHECK("transform_count: every count is a state of the trace",
		    in_range);
		trace_free(c);
	}
	trace_free(d);
}

int
main(void)
{
	test_count_times_out_of_order();
	return (unit_exit());
}
