/*
 * libFuzzer harness for t:write's round trip (src/trace/writer.c): any
 * bytes as a trace file, loaded as statemap.load loads it (trace_load,
 * no cache), written, the file loaded, and that written again.
 *
 * writer.h promises that the file reads back as the same trace: so the
 * second load must have the first's metadata, states (by name and
 * colour), entities in their order with their descriptions, tags with
 * their ids, states and definitions, events with their ends, ids and
 * members, window, and every entity's data up to the end (times, states,
 * tags, depths and the frames under them; values to the bit, strings by
 * their text).  Data after the end are left out of a file, so they are
 * not compared, nor is the kind (states, nested, values) of an entity
 * that has some.  And the two writes must be the same bytes.
 *
 * A difference is a bug: the harness prints what differs, with both
 * files when they differ, and aborts, and libFuzzer keeps the input.
 *
 * Inputs take the paths of large files by their size: when it is odd,
 * the threaded parse with chunks of 64 bytes (chunks.h) reads each file;
 * when its half is odd, stores go to disk at once (a budget of one byte,
 * STATEMAP_SPILL_BYTES), where loading a nested or value entity then
 * fails (store.h) once plain data have gone to disk, which ends that
 * input.  Whether they have depends on the order of the lines, which the
 * writer does not keep (it writes entity by entity): a trace with such
 * an entity that loaded so may be written as a file that does not, and
 * that ends the input too.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/intern.h"
#include "store/catalog.h"
#include "store/store.h"
#include "store/value.h"
#include "trace/trace.h"
#include "trace/writer.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static char dir[] = "/tmp/fuzz_roundtrip.XXXXXX";
static char in_path[64], w1_path[64];

static void
cleanup(void)
{
	(void) unlink(in_path);
	(void) unlink(w1_path);
	(void) rmdir(dir);
}

static void
setup(void)
{
	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(in_path, sizeof (in_path), "%s/in.out", dir);
	snprintf(w1_path, sizeof (w1_path), "%s/w1.out", dir);
	/* Spilled stores' temporary files go there too (cache.h). */
	setenv("XDG_CACHE_HOME", dir, 1);
	setenv("STATEMAP_THREADS", "2", 1);
	atexit(cleanup);
}

static void
save(const char *path, const void *bytes, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || (len > 0 && fwrite(bytes, 1, len, f) != len) ||
	    fclose(f) != 0)
		abort();
}

/* Writes d into a malloc'd buffer; aborts if the writer stops. */
static char *
write_trace(const trace *d, size_t *len)
{
	char *buf = NULL;
	const char *why = NULL;
	FILE *f = open_memstream(&buf, len);

	if (f == NULL || writer_write(f, d, &why) != 0 || fclose(f) != 0)
		abort();
	return (buf);
}

static const char *problem;
static char where[256];

/* Records the first difference: why, and of what (printf-style). */
static int
differ(const char *why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
differ(const char *why, const char *fmt, ...)
{
	va_list ap;

	if (problem != NULL)
		return (1);
	problem = why;
	va_start(ap, fmt);
	vsnprintf(where, sizeof (where), fmt, ap);
	va_end(ap);
	return (1);
}

static int
same_str(const char *a, const char *b)
{
	return (a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0);
}

static int
same_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	return (alen == blen && (alen == 0 || memcmp(a, b, alen) == 0));
}

static int
same_name(const intern *a, uint32_t ia, const intern *b, uint32_t ib)
{
	size_t alen, blen;
	const char *sa = intern_name(a, ia, &alen);
	const char *sb = intern_name(b, ib, &blen);

	return (same_bytes(sa, alen, sb, blen));
}

static void
compare_catalogs(const catalog *a, const catalog *b)
{
	uint32_t i;
	size_t k;

	if (!same_str(a->title, b->title) || !same_str(a->host, b->host) ||
	    !same_str(a->entity_kind, b->entity_kind))
		differ("metadata", "title, host or entityKind");
	if (a->start_sec != b->start_sec || a->start_nsec != b->start_nsec)
		differ("metadata", "start");
	if (a->nstates != b->nstates)
		differ("states", "%u vs %u states", a->nstates, b->nstates);
	for (i = 0; i < a->nstates && i < b->nstates; i++) {
		/* A generated colour comes back as its text: compare colours. */
		if (!same_bytes(a->states[i].name, a->states[i].name_len,
		    b->states[i].name, b->states[i].name_len) ||
		    memcmp(&a->states[i].color, &b->states[i].color,
		    sizeof (color)) != 0)
			differ("states", "state %u", i);
	}
	if (catalog_nentities(a) != catalog_nentities(b))
		differ("entities", "%u vs %u entities", catalog_nentities(a),
		    catalog_nentities(b));
	for (i = 0; i < catalog_nentities(a) && i < catalog_nentities(b);
	    i++) {
		if (!same_name(a->entities, i, b->entities, i))
			differ("entities", "the name of entity %u", i);
		if (!same_str(a->descriptions[i], b->descriptions[i]))
			differ("descriptions", "entity %u", i);
	}
	if (catalog_ntags(a) != catalog_ntags(b))
		differ("tags", "%u vs %u tags", catalog_ntags(a),
		    catalog_ntags(b));
	for (i = 0; i < catalog_ntags(a) && i < catalog_ntags(b); i++) {
		if (a->tags[i].state != b->tags[i].state ||
		    !same_name(a->tag_names, a->tags[i].name, b->tag_names,
		    b->tags[i].name) ||
		    !same_str(a->tags[i].members, b->tags[i].members))
			differ("tags", "tag %u", i);
	}
	if (a->nevents != b->nevents)
		differ("events", "%zu vs %zu events", a->nevents, b->nevents);
	for (k = 0; k < a->nevents && k < b->nevents; k++) {
		const catalog_event *x = &a->events[k], *y = &b->events[k];
		size_t alen, blen;
		const char *sa, *sb;

		if (x->time != y->time ||
		    !same_name(a->event_entities, x->entity,
		    b->event_entities, y->entity) ||
		    !same_name(a->event_kinds, x->kind, b->event_kinds,
		    y->kind) ||
		    (x->target == CATALOG_NO_ENTITY) !=
		    (y->target == CATALOG_NO_ENTITY) ||
		    (x->target != CATALOG_NO_ENTITY &&
		    !same_name(a->event_entities, x->target,
		    b->event_entities, y->target)) ||
		    catalog_event_end(a, x) != catalog_event_end(b, y))
			differ("events", "event %zu", k);
		sa = catalog_event_id(a, x, &alen);
		sb = catalog_event_id(b, y, &blen);
		if ((sa == NULL) != (sb == NULL) ||
		    (sa != NULL && !same_bytes(sa, alen, sb, blen)))
			differ("events", "the id of event %zu", k);
		sa = catalog_event_members(a, x, &alen);
		sb = catalog_event_members(b, y, &blen);
		if ((sa == NULL) != (sb == NULL) ||
		    (sa != NULL && !same_bytes(sa, alen, sb, blen)))
			differ("events", "the members of event %zu", k);
	}
}

/* Two values of value entities: numbers to the bit, strings by text. */
static int
same_value(const catalog *a, sm_value x, const catalog *b, sm_value y)
{
	if (value_is_string(x) && value_is_string(y))
		return (same_name(a->value_strings, value_string_id(x),
		    b->value_strings, value_string_id(y)));
	return (x == y);
}

/* Entity e of a (data up to end) and of b (all its data). */
static void
compare_entity(const trace *a, const trace *b, uint32_t e)
{
	const store *sa = a->st, *sb = b->st;
	int va = store_kind_of(sa, e) == STORE_VALUES;
	int vb = store_kind_of(sb, e) == STORE_VALUES;
	size_t all_a = va ? store_value_count(sa, e) : store_count(sa, e);
	size_t nb = vb ? store_value_count(sb, e) : store_count(sb, e);
	size_t na = store_count_through(va ? store_value_times(sa, e) :
	    store_times(sa, e), all_a, a->end), i;

	if (na != nb) {
		differ("data", "entity %u: %zu vs %zu data", e, na, nb);
		return;
	}
	if (na == 0)
		return;
	/* Data left out after the end may have made the kind. */
	if (all_a == na && store_kind_of(sa, e) != store_kind_of(sb, e))
		differ("data", "entity %u: its kind", e);
	if (va != vb) {
		differ("data", "entity %u: values and states", e);
	} else if (va) {
		const uint64_t *ta = store_value_times(sa, e);
		const uint64_t *tb = store_value_times(sb, e);
		const sm_value *xa = store_values(sa, e);
		const sm_value *xb = store_values(sb, e);

		for (i = 0; i < na; i++)
			if (ta[i] != tb[i] || !same_value(a->cat, xa[i],
			    b->cat, xb[i]))
				differ("data", "entity %u, value %zu", e, i);
	} else {
		const uint64_t *ta = store_times(sa, e), *tb = store_times(sb, e);
		const uint16_t *xa = store_states(sa, e);
		const uint16_t *xb = store_states(sb, e);
		const uint32_t *ga = store_tags(sa, e), *gb = store_tags(sb, e);
		const uint16_t *da = store_depths(sa, e);
		const uint16_t *db = store_depths(sb, e);
		const uint32_t *ba = store_below(sa, e);
		const uint32_t *bb = store_below(sb, e);

		for (i = 0; i < na; i++) {
			if (ta[i] != tb[i] || xa[i] != xb[i] || ga[i] != gb[i])
				differ("data", "entity %u, datum %zu", e, i);
			/* (No data, STORE_GAP, is depth 0 in a column of
			 * depths, and in none.) */
			if ((da != NULL ? da[i] : xa[i] != STORE_GAP) !=
			    (db != NULL ? db[i] : xb[i] != STORE_GAP))
				differ("stacks", "entity %u, datum %zu: depth",
				    e, i);
			if (ba != NULL && bb != NULL && ba[i] != bb[i])
				differ("stacks", "entity %u, datum %zu: the "
				    "frame under", e, i);
		}
	}
}

static void
compare_traces(const trace *a, const trace *b)
{
	uint32_t e;

	compare_catalogs(a->cat, b->cat);
	if (a->begin != b->begin || a->end != b->end)
		differ("window", "[%" PRIu64 ", %" PRIu64 ") vs [%" PRIu64
		    ", %" PRIu64 ")", a->begin, a->end, b->begin, b->end);
	if (store_nentities(a->st) > catalog_nentities(a->cat) ||
	    store_nentities(b->st) > catalog_nentities(b->cat))
		differ("store", "more entities than the catalog");
	for (e = 0; e < catalog_nentities(a->cat) &&
	    e < catalog_nentities(b->cat); e++) {
		/* An entity the store never saw has no data. */
		if (e >= store_nentities(a->st) || e >= store_nentities(b->st)) {
			if (e < store_nentities(a->st) &&
			    store_count_through(store_kind_of(a->st, e) ==
			    STORE_VALUES ? store_value_times(a->st, e) :
			    store_times(a->st, e), store_kind_of(a->st, e) ==
			    STORE_VALUES ? store_value_count(a->st, e) :
			    store_count(a->st, e), a->end) > 0)
				differ("data", "entity %u: data lost", e);
			if (e < store_nentities(b->st) &&
			    (store_count(b->st, e) > 0 ||
			    store_value_count(b->st, e) > 0))
				differ("data", "entity %u: data made up", e);
			continue;
		}
		compare_entity(a, b, e);
	}
}

/* Prints the problem, the input and the files, and aborts. */
static void
fail(const char *what, const unsigned char *data, size_t size,
    const char *w1, size_t n1, const char *w2, size_t n2)
{
	fprintf(stderr, "\nfuzz_roundtrip: %s\n--- input (%zu bytes)\n%.*s\n",
	    what, size, (int)(size > 4000 ? 4000 : size), (const char *)data);
	if (w1 != NULL)
		fprintf(stderr, "--- first write\n%.*s\n", (int)n1, w1);
	if (w2 != NULL)
		fprintf(stderr, "--- second write\n%.*s\n", (int)n2, w2);
	abort();
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	trace_options opts = { .no_cache = 1 };
	trace *one, *two;
	char *w1, *w2;
	size_t n1, n2;
	sm_error err;
	char msg[sizeof (err.message) + 64];
	int spilling;

	if (in_path[0] == '\0')
		setup();
	if (size % 2 == 1)
		setenv("STATEMAP_CHUNK_BYTES", "64", 1);
	else
		unsetenv("STATEMAP_CHUNK_BYTES");
	spilling = size / 2 % 2 == 1;
	if (spilling)
		setenv("STATEMAP_SPILL_BYTES", "1", 1);
	else
		unsetenv("STATEMAP_SPILL_BYTES");
	save(in_path, data, size);
	if ((one = trace_load(in_path, &opts, &err)) == NULL)
		return (0);
	w1 = write_trace(one, &n1);
	save(w1_path, w1, n1);
	if ((two = trace_load(w1_path, &opts, &err)) == NULL) {
		/* A nested or value entity: a store on disk cannot hold it. */
		if (spilling && !store_plain(one->st)) {
			free(w1);
			trace_free(one);
			return (0);
		}
		snprintf(msg, sizeof (msg), "the file written does not load: "
		    "%s", err.message);
		fail(msg, data, size, w1, n1, NULL, 0);
	}
	problem = NULL;
	compare_traces(one, two);
	if (problem != NULL) {
		snprintf(msg, sizeof (msg), "loaded back, the trace differs: "
		    "%s (%s)", problem, where);
		fail(msg, data, size, w1, n1, NULL, 0);
	}
	w2 = write_trace(two, &n2);
	if (!same_bytes(w1, n1, w2, n2))
		fail("written again, the file differs", data, size, w1, n1,
		    w2, n2);
	free(w1);
	free(w2);
	trace_free(one);
	trace_free(two);
	return (0);
}
