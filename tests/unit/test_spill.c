/*
 * Tests for src/store/spill.c through the store (store.h): a store made to go
 * to disk by a tiny budget (STATEMAP_SPILL_BYTES) holds exactly what the
 * same appends give in memory, and says why when it cannot go to disk.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/spill.h"
#include "store/store.h"
#include "unit.h"

#define NT	STORE_NONE

/* A small deterministic generator (xorshift), for repeatable traces. */
static uint64_t
next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (*x);
}

/*
 * The same appends to a store with the environment's budget: entities
 * interleaved, some tagged from their middle on (a column that gains tags
 * after it went to disk), some appended many at a time.
 */
static store *
build(uint32_t nentities, size_t n, uint32_t seed)
{
	store *s = store_new(5);
	uint64_t x = 88172645463325252ULL ^ seed, *now;
	uint64_t times[64];
	uint16_t states[64];
	size_t i, k;

	now = calloc(nentities, sizeof (*now));
	for (i = 0; i < n; i++) {
		uint32_t e = (uint32_t)(next_random(&x) % nentities);
		uint32_t tag = NT;

		now[e] += next_random(&x) % 100;
		if (e % 3 == 1 && i > n / 2)
			tag = (uint32_t)(next_random(&x) % 40);
		if (e % 7 == 5 && i % 50 == 0) {
			for (k = 0; k < 64; k++) {
				now[e] += k % 3;
				times[k] = now[e];
				states[k] = (uint16_t)((k + e) % 5);
			}
			store_append_many(s, e, times, states, 64);
			continue;
		}
		store_append(s, e, now[e], (uint32_t)(next_random(&x) % 5),
		    tag);
	}
	free(now);
	store_finish(s, 0, UINT64_MAX);
	return (s);
}

/* Whether two stores hold the same columns, byte for byte. */
static int
same_columns(const store *a, const store *b)
{
	uint32_t e;

	if (store_nentities(a) != store_nentities(b) ||
	    store_total(a) != store_total(b))
		return (0);
	for (e = 0; e < store_nentities(a); e++) {
		size_t n = store_count(a, e);

		if (store_count(b, e) != n ||
		    store_has_tags(a, e) != store_has_tags(b, e))
			return (0);
		if (n == 0)
			continue;
		if (memcmp(store_times(a, e), store_times(b, e), n * 8) != 0 ||
		    memcmp(store_states(a, e), store_states(b, e), n * 2) != 0 ||
		    memcmp(store_tags(a, e), store_tags(b, e), n * 4) != 0)
			return (0);
	}
	return (1);
}

static void
test_same_as_memory(const char *name, const char *budget, uint32_t nentities,
    size_t n)
{
	store *mem, *disk;
	uint64_t per[5], per_disk[5];
	const char *why;
	int lost = 1;
	uint32_t seed;

	for (seed = 1; seed <= 3; seed++) {
		unsetenv("STATEMAP_SPILL_BYTES");
		mem = build(nentities, n, seed);
		setenv("STATEMAP_SPILL_BYTES", budget, 1);
		disk = build(nentities, n, seed);
		unsetenv("STATEMAP_SPILL_BYTES");
		why = store_failed(disk, &lost);
		UNIT_REPORT(why == NULL && !lost, name, "failed: %s",
		    why != NULL ? why : "lost");
		CHECK(name, same_columns(mem, disk));
		/* Less memory than the columns: they are mapped, not held. */
		CHECK(name, store_memory(disk) < store_memory(mem));
		memset(per, 0, sizeof (per));
		memset(per_disk, 0, sizeof (per_disk));
		store_time_in(mem, STORE_NONE, 0, 1000000, per);
		store_time_in(disk, STORE_NONE, 0, 1000000, per_disk);
		CHECK(name, memcmp(per, per_disk, sizeof (per)) == 0);
		store_free(mem);
		store_free(disk);
	}
}

/* Whether this process maps the block of none of a store (store.c). */
static int
mapped_none(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	while (f != NULL && fgets(line, sizeof (line), f) != NULL)
		found |= strstr(line, "memfd:statemap-none") != NULL;
	if (f != NULL)
		fclose(f);
	return (found);
}

/*
 * An untagged column longer than 2 MiB of tags in a store on disk: its
 * tags (all none) are a block mapped again and again, not memory.
 */
static void
test_long_untagged(void)
{
	const size_t n = 700000;
	const uint32_t *tags;
	store *s;
	size_t i, bad = 0;

	setenv("STATEMAP_SPILL_BYTES", "64K", 1);
	s = store_new(2);
	for (i = 0; i < n; i++)
		store_append(s, 0, i, (uint32_t)(i % 2), NT);
	store_append(s, 1, 5, 1, 3);
	store_finish(s, 0, n);
	unsetenv("STATEMAP_SPILL_BYTES");
	tags = store_tags(s, 0);
	for (i = 0; tags != NULL && i < n; i++)
		bad += tags[i] != NT;
	CHECK("spill: a long untagged column's tags are none", tags != NULL &&
	    bad == 0);
	CHECK("spill: ... asked again, the same column", store_tags(s, 0) ==
	    tags);
	CHECK("spill: ... which is a mapped block of none", mapped_none());
	CHECK_INT("spill: a tagged column's tag", store_tags(s, 1)[0], 3);
	CHECK("spill: ... and the store holds little memory",
	    store_memory(s) < 1000000);
	store_free(s);
}

/* Nothing appended, or every entity's columns empty. */
static void
test_empty(void)
{
	store *s;

	setenv("STATEMAP_SPILL_BYTES", "1", 1);
	s = store_new(2);
	store_finish(s, 0, 10);
	CHECK_INT("spill: empty store", store_total(s), 0);
	store_free(s);
	unsetenv("STATEMAP_SPILL_BYTES");
}

/* No directory for temporary files: the store stays in memory, and says. */
static void
test_no_directory(void)
{
	store *s;
	const char *why;
	int lost = 1;
	uint32_t i;

	setenv("STATEMAP_SPILL_BYTES", "1K", 1);
	setenv("STATEMAP_SPILL_DIR", "/nonexistent/statemap-spill", 1);
	s = store_new(2);
	for (i = 0; i < 5000; i++)
		store_append(s, i % 7, i, i % 2, NT);
	why = store_failed(s, &lost);
	CHECK("spill: no directory, said", why != NULL &&
	    strstr(why, "STATEMAP_SPILL_DIR=/nonexistent") != NULL);
	CHECK_INT("spill: no directory, nothing lost", lost, 0);
	store_finish(s, 0, 10000);
	CHECK_INT("spill: no directory, kept in memory", store_total(s), 5000);
	CHECK_INT("spill: no directory, a column", store_count(s, 3), 714);
	store_free(s);
	unsetenv("STATEMAP_SPILL_DIR");
	unsetenv("STATEMAP_SPILL_BYTES");
}

/* The temporary files leave no names behind in their directory. */
static void
test_no_names_left(const char *dir)
{
	store *s;
	uint32_t i;
	int empty;
	char cmd[512];

	setenv("STATEMAP_SPILL_BYTES", "2K", 1);
	setenv("STATEMAP_SPILL_DIR", dir, 1);
	s = store_new(2);
	for (i = 0; i < 20000; i++)
		store_append(s, i % 11, i, i % 2, NT);
	store_finish(s, 0, 20000);
	CHECK_INT("spill: a spilled column", store_count(s, 4), 1818);
	(void) snprintf(cmd, sizeof (cmd), "test -z \"$(ls -A '%s')\"", dir);
	empty = system(cmd) == 0;
	CHECK("spill: no names left in the directory", empty);
	store_free(s);
	unsetenv("STATEMAP_SPILL_DIR");
	unsetenv("STATEMAP_SPILL_BYTES");
}

int
main(void)
{
	char dir[] = "/tmp/test_spill.XXXXXX";

	test_same_as_memory("spill: same as in memory, runs of 1K", "1K",
	    20, 20000);
	test_same_as_memory("spill: same as in memory, runs of 64K", "64K",
	    300, 100000);
	test_same_as_memory("spill: many entities, runs of 2K", "2K",
	    5000, 30000);
	test_long_untagged();
	test_empty();
	test_no_directory();
	if (mkdtemp(dir) != NULL) {
		test_no_names_left(dir);
		(void) rmdir(dir);
	}
	return (unit_exit());
}
