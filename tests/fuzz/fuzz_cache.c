/*
 * libFuzzer harness for cache entries: any bytes as the cache entry of a
 * small trace file, sealed first (cache_seal: the key of that file and a
 * right checksum), so that the checks behind the checksum, which only a
 * made-up or hostile entry reaches, are what is fuzzed.  An entry must be
 * rejected, or else give a catalog and store that every query can walk
 * without leaving its arrays: all intervals, time per state, the state
 * of every entity at several times, counts.  The invariants the checks
 * promise (states below nstates, tags below the tag count, times in
 * order) are asserted, so a breach aborts even where no access strays.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "catalog.h"
#include "store.h"

static cache_key key;
static char *entry_path;
static unsigned char *buf;
static size_t buf_cap;

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static const char trace_text[] =
    "{\"start\": [1, 2], \"title\": \"fuzz\", \"states\": {"
    "\"a\": {\"value\": 0}, \"b\": {\"value\": 1, \"color\": \"red\"}, "
    "\"c\": {\"value\": 2}}}\n"
    "{\"entity\": \"x\", \"description\": \"ex\"}\n"
    "{\"time\": \"10\", \"entity\": \"x\", \"state\": 0}\n"
    "{\"time\": \"20\", \"entity\": \"y\", \"state\": 1, \"tag\": \"t\"}\n"
    "{\"state\": 1, \"tag\": \"t\", \"k\": 3}\n"
    "{\"time\": \"30\", \"entity\": \"x\", \"state\": 2}\n"
    "{\"time\": \"35\", \"entity\": \"x\", \"event\": \"e\", \"target\": \"y\"}\n"
    "{\"time\": \"40\", \"entity\": \"y\", \"state\": 0}\n";

/* A scratch cache directory and a trace file whose entry is fuzzed. */
static void
setup(void)
{
	char dir[] = "/tmp/fuzz_cache.XXXXXX", path[64];
	FILE *f;

	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(path, sizeof (path), "%s/xdg", dir);
	setenv("XDG_CACHE_HOME", path, 1);
	unsetenv("STATEMAP_CACHE_SIZE");
	(void) mkdir(path, 0700);
	snprintf(path, sizeof (path), "%s/xdg/statemap-lua", dir);
	(void) mkdir(path, 0700);
	snprintf(path, sizeof (path), "%s/t.out", dir);
	if ((f = fopen(path, "w")) == NULL)
		abort();
	fputs(trace_text, f);
	fclose(f);
	if (cache_key_of(path, &key) != 0 ||
	    (entry_path = cache_entry_path(&key)) == NULL)
		abort();
}

#define ASSERT(c)	do { if (!(c)) abort(); } while (0)

/* Walks everything a load gives; aborts if a promise is broken. */
static void
walk(const catalog *cat, store *st)
{
	uint32_t ns = cat->nstates, nt = catalog_ntags(cat), e, i;
	uint64_t end = cat->last_time, *per = calloc(ns, sizeof (uint64_t));
	store_iter it;
	store_interval iv;
	size_t k;

	ASSERT(ns > 0 && store_nentities(st) <= catalog_nentities(cat));
	for (i = 0; i < nt; i++)
		ASSERT(cat->tags[i].state < ns);
	store_finish(st, 0, end);
	for (e = 0; e < store_nentities(st); e++) {
		const uint64_t *t = store_times(st, e);
		const uint16_t *s = store_states(st, e);
		const uint32_t *g = store_tags(st, e);

		for (k = 0; k < store_count(st, e); k++) {
			ASSERT(s[k] < ns);
			ASSERT(g[k] < nt || g[k] == STORE_NONE);
			ASSERT(k == 0 || t[k] >= t[k - 1]);
		}
	}
	store_iter_init(&it, st, NULL, 0, 0, end);
	while (store_iter_next(&it, &iv)) {
		ASSERT(iv.state < ns && iv.start < iv.end && iv.end <= end);
		per[iv.state] += iv.end - iv.start;
	}
	store_time_in(st, STORE_NONE, 0, end, per);
	for (k = 0; k <= 8; k++) {
		uint64_t t = end / 8 * k;

		for (e = 0; e < store_nentities(st); e++)
			if (store_state_at(st, e, t, &iv))
				ASSERT(iv.state < ns && iv.start <= t);
		store_count_at(st, t, per);
	}
	free(per);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	catalog *cat;
	store *st;
	cache_entry *entry;
	int fd;

	if (entry_path == NULL)
		setup();
	if (size > buf_cap) {
		free(buf);
		buf_cap = size;
		buf = malloc(buf_cap);
	}
	if (size > 0)
		memcpy(buf, data, size);
	cache_seal(buf, size, &key);
	fd = open(entry_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, buf, size) != (ssize_t)size)
		abort();
	close(fd);
	if (cache_load(&key, "fuzz.out", &cat, &st, &entry)) {
		walk(cat, st);
		store_free(st);
		catalog_free(cat);
		cache_release(entry);
	}
	return (0);
}
