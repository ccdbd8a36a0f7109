/*
 * libFuzzer harness for cache entries, in two modes.
 *
 * Bytes that start as an entry does ("SMLCACHE") are taken as the cache
 * entry of a small trace file, sealed first (cache_seal: the key of that
 * file and a right checksum), so that the checks behind the checksum,
 * which only a made-up or hostile entry reaches, are what is fuzzed.  An
 * entry must be rejected, or else give a catalog and store that every
 * query can walk without leaving its arrays: all intervals, time per
 * state, the state of every entity at several times, counts.  The
 * invariants the checks promise (states below nstates, tags below the
 * tag count, times in order) are asserted, so a breach aborts even where
 * no access strays.
 *
 * Any other bytes are read as a trace (nested states and values too);
 * if it loads, it is saved as an entry and loaded back, which must give
 * the same catalog and store, to the byte (or be rejected: never cached
 * is slow, not wrong).  The walk reads stacks, values and summaries as
 * well, so a made-up entry's depths and values are fuzzed too.
 *
 * Inputs of odd size take, in both modes, the paths of traces larger
 * than memory: a memory budget of one byte (STATEMAP_SPILL_BYTES), so a
 * store goes to disk at once and is used from its mapped merge, and an
 * entry's checked states and tags go to a mapped temporary file.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/ingest.h"
#include "store/cache.h"
#include "store/catalog.h"
#include "store/store.h"

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

static char dir[] = "/tmp/fuzz_cache.XXXXXX";

/* What setup made, removed at exit (libFuzzer leaves by exit()). */
static void
cleanup(void)
{
	char path[64];

	(void) unlink(entry_path);
	snprintf(path, sizeof (path), "%s/t.out", dir);
	(void) unlink(path);
	snprintf(path, sizeof (path), "%s/xdg/statemap-lua", dir);
	(void) rmdir(path);
	snprintf(path, sizeof (path), "%s/xdg", dir);
	(void) rmdir(path);
	(void) rmdir(dir);
}

/* A scratch cache directory and a trace file whose entry is fuzzed. */
static void
setup(void)
{
	char path[64];
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
	atexit(cleanup);
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

		for (e = 0; e < store_nentities(st); e++) {
			store_frame fr[4];
			value_stats vs;
			uint32_t depth, j;

			if (store_state_at(st, e, t, &iv))
				ASSERT(iv.state < ns && iv.start <= t);
			depth = store_stack_at(st, e, t, fr, 4);
			for (j = 0; j < depth && j < 4; j++)
				ASSERT(fr[j].state < ns);
			if (store_value_at(st, e, t, &iv) &&
			    value_is_string(iv.value))
				ASSERT(value_string_id(iv.value) <
				    intern_count(cat->value_strings));
			value_stats_init(&vs, catalog_value_ints(cat, e));
			store_value_stats(st, e, 0, t, &vs);
		}
		store_count_at(st, t, per);
	}
	free(per);
}

static void
on_datum(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag_name)
{
	store **st = ctx;

	if (*st == NULL)
		*st = store_new(cat->nstates);
	store_append(*st, entity, time, state, tag_name == CATALOG_NO_TAG ?
	    STORE_NONE : catalog_tag_id_named(cat, state, tag_name));
}

static void
on_nested(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    ingest_op op, uint32_t state, const char *tag, size_t tag_len)
{
	store **st = ctx;
	uint32_t t = tag == NULL ? STORE_NONE :
	    catalog_tag_id(cat, state, tag, tag_len);

	if (*st == NULL)
		*st = store_new(cat->nstates);
	if (op == INGEST_PUSH)
		store_push(*st, entity, time, state, t);
	else if (op == INGEST_POP)
		store_pop(*st, entity, time);
	else
		store_append(*st, entity, time, state, t);
}

static void
on_value(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    sm_value value)
{
	store **st = ctx;

	if (*st == NULL)
		*st = store_new(cat->nstates);
	store_append_value(*st, entity, time, value);
}

static int
same_str(const char *a, const char *b)
{
	return (a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0);
}

static int
same_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	return (alen == blen && memcmp(a, b, alen) == 0);
}

/* Whether two catalogs say the same (names compared byte for byte). */
static void
assert_same_catalog(const catalog *a, const catalog *b)
{
	size_t alen, blen, k;
	uint32_t i;

	ASSERT(same_str(a->title, b->title) && same_str(a->host, b->host) &&
	    same_str(a->entity_kind, b->entity_kind));
	ASSERT(a->have_start == b->have_start &&
	    a->start_sec == b->start_sec && a->start_nsec == b->start_nsec);
	ASSERT(a->nstates == b->nstates);
	for (i = 0; i < a->nstates; i++) {
		ASSERT(same_bytes(a->states[i].name, a->states[i].name_len,
		    b->states[i].name, b->states[i].name_len));
		ASSERT(same_str(a->states[i].color_text,
		    b->states[i].color_text));
		ASSERT(memcmp(&a->states[i].color, &b->states[i].color,
		    sizeof (color)) == 0);
	}
	ASSERT(catalog_nentities(a) == catalog_nentities(b));
	for (i = 0; i < catalog_nentities(a); i++) {
		const char *na = catalog_entity_name(a, i, &alen);
		const char *nb = catalog_entity_name(b, i, &blen);

		ASSERT(same_bytes(na, alen, nb, blen));
		ASSERT(same_str(a->descriptions[i], b->descriptions[i]));
	}
	ASSERT(catalog_ntags(a) == catalog_ntags(b));
	for (i = 0; i < catalog_ntags(a); i++) {
		const char *na = intern_name(a->tag_names, a->tags[i].name,
		    &alen);
		const char *nb = intern_name(b->tag_names, b->tags[i].name,
		    &blen);

		ASSERT(a->tags[i].state == b->tags[i].state);
		ASSERT(same_bytes(na, alen, nb, blen));
		ASSERT(same_str(a->tags[i].members, b->tags[i].members));
	}
	ASSERT(a->nevents == b->nevents);
	for (k = 0; k < a->nevents; k++) {
		const catalog_event *x = &a->events[k], *y = &b->events[k];
		const char *sa, *sb;

		ASSERT(x->time == y->time);
		sa = intern_name(a->event_entities, x->entity, &alen);
		sb = intern_name(b->event_entities, y->entity, &blen);
		ASSERT(same_bytes(sa, alen, sb, blen));
		sa = intern_name(a->event_kinds, x->kind, &alen);
		sb = intern_name(b->event_kinds, y->kind, &blen);
		ASSERT(same_bytes(sa, alen, sb, blen));
		ASSERT((x->target == CATALOG_NO_ENTITY) ==
		    (y->target == CATALOG_NO_ENTITY));
		if (x->target != CATALOG_NO_ENTITY) {
			sa = intern_name(a->event_entities, x->target, &alen);
			sb = intern_name(b->event_entities, y->target, &blen);
			ASSERT(same_bytes(sa, alen, sb, blen));
		}
	}
	ASSERT(intern_count(a->value_strings) == intern_count(b->value_strings));
	for (i = 0; i < intern_count(a->value_strings); i++) {
		const char *sa = intern_name(a->value_strings, i, &alen);
		const char *sb = intern_name(b->value_strings, i, &blen);

		ASSERT(same_bytes(sa, alen, sb, blen));
	}
	ASSERT(a->nrecords == b->nrecords && a->ndata == b->ndata &&
	    a->have_data == b->have_data && a->last_time == b->last_time);
}

/* Whether two finished stores hold the same transitions. */
static void
assert_same_store(const store *a, const store *b)
{
	uint32_t e;

	ASSERT(store_nentities(a) == store_nentities(b));
	for (e = 0; e < store_nentities(a); e++) {
		size_t n = store_count(a, e);

		ASSERT(store_count(b, e) == n);
		ASSERT(store_has_tags(a, e) == store_has_tags(b, e));
		ASSERT(store_kind_of(a, e) == store_kind_of(b, e));
		ASSERT(store_value_count(a, e) == store_value_count(b, e));
		if (store_value_count(a, e) > 0) {
			size_t m = store_value_count(a, e);

			ASSERT(memcmp(store_value_times(a, e),
			    store_value_times(b, e), m * 8) == 0);
			ASSERT(memcmp(store_values(a, e), store_values(b, e),
			    m * 8) == 0);
		}
		if (n == 0)
			continue;
		ASSERT((store_depths(a, e) == NULL) ==
		    (store_depths(b, e) == NULL));
		if (store_depths(a, e) != NULL) {
			ASSERT(memcmp(store_depths(a, e), store_depths(b, e),
			    n * 2) == 0);
			ASSERT(memcmp(store_below(a, e), store_below(b, e),
			    n * 4) == 0);
		}
		ASSERT(memcmp(store_times(a, e), store_times(b, e), n * 8) == 0);
		ASSERT(memcmp(store_states(a, e), store_states(b, e),
		    n * 2) == 0);
		ASSERT(memcmp(store_tags(a, e), store_tags(b, e), n * 4) == 0);
	}
}

/* A trace read, saved as an entry and loaded back: the same, or rejected. */
static void
round_trip(const unsigned char *data, size_t size)
{
	catalog *cat = catalog_new("fuzz.out"), *cat2;
	store *st = NULL, *st2;
	cache_entry *entry;
	sm_error err;

	ingest_options io;
	int lost = 0;

	memset(&io, 0, sizeof (io));
	io.nested = on_nested;
	io.value = on_value;
	if (ingest_buffer("fuzz.out", (const char *)data, size, cat, &io,
	    on_datum, &st, &err) != 0) {
		store_free(st);
		catalog_free(cat);
		return;
	}
	if (st == NULL)
		st = store_new(cat->nstates);
	/* Values or pushes after the store went to disk are lost, which
	 * fails a load (trace.c's keep_loading): nothing to save. */
	if (store_failed(st, &lost) != NULL && lost) {
		store_free(st);
		catalog_free(cat);
		return;
	}
	(void) unlink(entry_path);
	/* A store on disk is merged and mapped first, as trace_load does. */
	if (store_spilled(st))
		store_finish(st, 0, UINT64_MAX);
	cache_save(&key, cat, st);
	store_finish(st, 0, cat->last_time);
	if (cache_load(&key, "fuzz.out", &cat2, &st2, &entry)) {
		store_finish(st2, 0, cat2->last_time);
		assert_same_catalog(cat, cat2);
		assert_same_store(st, st2);
		walk(cat2, st2);
		store_free(st2);
		catalog_free(cat2);
		cache_release(entry);
	}
	store_free(st);
	catalog_free(cat);
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
	if (size % 2 == 1)
		setenv("STATEMAP_SPILL_BYTES", "1", 1);
	else
		unsetenv("STATEMAP_SPILL_BYTES");
	if (size < 8 || memcmp(data, "SMLCACHE", 8) != 0) {
		round_trip(data, size);
		return (0);
	}
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
