/*
 * libFuzzer harness for the threaded parse: chunks.c, chunks_scan.c and
 * chunks_sort.c, and the quick scanner (scan_quick_run,
 * scan_record_shaped) against the serial parse.
 *
 * Each input is written to a temporary file and read by ingest_file on
 * at least two scanning threads (STATEMAP_THREADS, set once), with chunks
 * and windows so small (STATEMAP_CHUNK_BYTES, STATEMAP_WINDOW_BYTES,
 * chosen from the input's own bytes for each input) that cuts and window
 * slides fall everywhere; the same bytes are then read by ingest_buffer,
 * which is serial.  chunks.h promises the serial result whatever the
 * input and wherever the cuts fall, so the two must agree on:
 *
 * - the return code and the error (file, line, column and message);
 * - the catalog: metadata, states, entities in their order, descriptions,
 *   tag names, tags and their definitions, events, value strings and
 *   the counts;
 * - what the consumer was given: every datum (entity, time, state, tag),
 *   nested op and value.  A consumer without bulk (as the classic
 *   command's) gets them one by one in file order, so the whole sequence
 *   must match; one that takes data, numbers and nested states in bulk
 *   (as trace.c's store loading) gets runs per entity, so each entity's
 *   sequence must.
 *
 * The delivered data are compared after an error too: what was taken
 * before it is part of the result.  Tags may be ignored and entities
 * filtered, as the options allow.  A difference is a bug: the harness
 * says where the two differ and aborts, and libFuzzer keeps the input.
 * Compressed inputs (a gzip or zstd magic) are skipped: the file is then
 * decompressed, not mapped, and the buffer is not.
 */
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "ingest/ingest.h"
#include "store/catalog.h"

/* A growing text: what one parse gave, for comparing with the other. */
typedef struct text {
	char *s;
	size_t len, cap;
} text;

static void
text_printf(text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
text_printf(text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->cap == 0)	/* vsnprintf at NULL + 0 would be undefined */
		grow_array(&t->s, &t->cap, 256, 1);
	for (;;) {
		size_t room = t->cap - t->len;

		va_start(ap, fmt);
		n = vsnprintf(t->s + t->len, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			abort();
		if ((size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		grow_array(&t->s, &t->cap, t->len + (size_t)n + 1, 1);
	}
}

/* Bytes of any kind (names may hold NULs, newlines), with their length. */
static void
text_bytes(text *t, const char *p, size_t len)
{
	if (p == NULL) {
		text_printf(t, "-");
		return;
	}
	text_printf(t, "%zu:", len);
	grow_array(&t->s, &t->cap, t->len + len + 1, 1);
	memcpy(t->s + t->len, p, len);
	t->len += len;
	t->s[t->len] = '\0';
}

/*
 * One parse's consumer: what it was given, in one text (file order), or
 * with bulk in one text per entity (each in its own order).
 */
typedef struct consumer {
	int bulk;
	text all;
	text *per_entity;
	size_t nentities;
} consumer;

/* Where a datum of entity goes in the consumer's record. */
static text *
consumer_text(consumer *c, const catalog *cat, uint32_t entity)
{
	size_t len;
	const char *name;

	if (entity >= catalog_nentities(cat))
		abort();	/* an id the catalog never gave */
	if (!c->bulk) {
		name = catalog_entity_name(cat, entity, &len);
		text_printf(&c->all, "%u=", entity);
		text_bytes(&c->all, name, len);
		text_printf(&c->all, " ");
		return (&c->all);
	}
	if (entity >= c->nentities) {
		size_t n = c->nentities;

		grow_array(&c->per_entity, &c->nentities, entity + 1,
		    sizeof (text));
		memset(c->per_entity + n, 0,
		    (c->nentities - n) * sizeof (text));
	}
	return (&c->per_entity[entity]);
}

/* As trace.c's: tags are numbered by the consumer, as data come. */
static void
on_datum(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag_name)
{
	text *t = consumer_text(ctx, cat, entity);

	text_printf(t, "datum %llu %u", (unsigned long long)time, state);
	if (tag_name != CATALOG_NO_TAG) {
		size_t len;
		const char *name = intern_name(cat->tag_names, tag_name, &len);

		text_printf(t, " tag %u ", catalog_tag_id_named(cat, state,
		    tag_name));
		text_bytes(t, name, len);
	}
	text_printf(t, "\n");
}

/* A bulk run is never empty, and how much was read is a share. */
static void
bulk_checked(const char *what, size_t n, double done)
{
	if (n == 0 || !(done >= 0 && done <= 1)) {
		fprintf(stderr, "fuzz_chunks: bulk %s: n %zu, done %g\n", what,
		    n, done);
		abort();
	}
}

/* A bulk run reads as the same data one by one would. */
static void
on_data(void *ctx, catalog *cat, uint32_t entity, const uint64_t *times,
    const uint16_t *states, size_t n, double done)
{
	size_t i;

	bulk_checked("data", n, done);
	for (i = 0; i < n; i++)
		on_datum(ctx, cat, entity, times[i], states[i],
		    CATALOG_NO_TAG);
}

static void
on_nested(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    ingest_op op, uint32_t state, const char *tag, size_t tag_len)
{
	text *t = consumer_text(ctx, cat, entity);

	text_printf(t, "%s %llu %u", op == INGEST_PUSH ? "push" :
	    op == INGEST_POP ? "pop" : "set", (unsigned long long)time, state);
	if (tag != NULL) {
		text_printf(t, " tag %u ", catalog_tag_id(cat, state, tag,
		    tag_len));
		text_bytes(t, tag, tag_len);
	}
	text_printf(t, "\n");
}

/* A bulk run of a nested entity: the same ops one by one, untagged. */
static void
on_stack(void *ctx, catalog *cat, uint32_t entity, const uint64_t *times,
    const uint8_t *ops, const uint16_t *states, size_t n, double done)
{
	size_t i;

	bulk_checked("stacks", n, done);
	for (i = 0; i < n; i++) {
		if (ops[i] > INGEST_POP || states[i] >= cat->nstates)
			abort();
		on_nested(ctx, cat, entity, times[i], (ingest_op)ops[i],
		    states[i], NULL, 0);
	}
}

/* A value as its bits: a number's double, none, or a string's id. */
static void
on_value(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    sm_value value)
{
	text *t = consumer_text(ctx, cat, entity);

	text_printf(t, "value %llu %016llx\n", (unsigned long long)time,
	    (unsigned long long)value);
}

static void
on_values(void *ctx, catalog *cat, uint32_t entity, const uint64_t *times,
    const sm_value *values, size_t n, double done)
{
	size_t i;

	bulk_checked("values", n, done);
	for (i = 0; i < n; i++) {
		if (value_is_string(values[i]))
			abort();	/* strings are never taken in bulk */
		on_value(ctx, cat, entity, times[i], values[i]);
	}
}

/* Everything in a catalog a consumer or a writer may use. */
/* Each name of a table, numbered, a line each. */
static void
text_names(text *t, const char *label, const intern *names)
{
	uint32_t i, n = intern_count(names);

	for (i = 0; i < n; i++) {
		size_t len;
		const char *s = intern_name(names, i, &len);

		text_printf(t, "%s %u ", label, i);
		text_bytes(t, s, len);
		text_printf(t, "\n");
	}
}

static void
dump_catalog(text *t, const catalog *cat)
{
	uint32_t i, n;
	size_t len, k;
	const char *s;

	text_printf(t, "title ");
	text_bytes(t, cat->title, cat->title ? strlen(cat->title) : 0);
	text_printf(t, "\nhost ");
	text_bytes(t, cat->host, cat->host ? strlen(cat->host) : 0);
	text_printf(t, "\nkind ");
	text_bytes(t, cat->entity_kind, cat->entity_kind ?
	    strlen(cat->entity_kind) : 0);
	text_printf(t, "\nstart %d %llu %llu\n", cat->have_start,
	    (unsigned long long)cat->start_sec,
	    (unsigned long long)cat->start_nsec);
	for (i = 0; i < cat->nstates; i++) {
		const catalog_state *st = &cat->states[i];

		text_printf(t, "state %u ", i);
		text_bytes(t, st->name, st->name ? st->name_len : 0);
		text_printf(t, " ");
		text_bytes(t, st->color_text, st->color_text ?
		    strlen(st->color_text) : 0);
		text_printf(t, "\n");
	}
	n = catalog_nentities(cat);
	for (i = 0; i < n; i++) {
		s = catalog_entity_name(cat, i, &len);
		text_printf(t, "entity %u ", i);
		text_bytes(t, s, len);
		s = i < cat->descriptions_cap ? cat->descriptions[i] : NULL;
		text_printf(t, " ");
		text_bytes(t, s, s ? strlen(s) : 0);
		text_printf(t, "\n");
	}
	text_names(t, "tag name", cat->tag_names);
	n = catalog_ntags(cat);
	for (i = 0; i < n; i++) {
		s = cat->tags[i].members;
		text_printf(t, "tag %u: state %u name %u ", i,
		    cat->tags[i].state, cat->tags[i].name);
		text_bytes(t, s, s ? strlen(s) : 0);
		text_printf(t, "\n");
	}
	for (k = 0; k < cat->nevents; k++) {
		const catalog_event *ev = &cat->events[k];

		text_printf(t, "event %llu %u %u %u end %llu ",
		    (unsigned long long)ev->time, ev->entity, ev->target,
		    ev->kind, (unsigned long long)catalog_event_end(cat, ev));
		s = catalog_event_id(cat, ev, &len);
		text_bytes(t, s, len);
		text_printf(t, " ");
		s = catalog_event_members(cat, ev, &len);
		text_bytes(t, s, len);
		text_printf(t, "\n");
	}
	text_names(t, "event entity", cat->event_entities);
	text_names(t, "event kind", cat->event_kinds);
	text_names(t, "value string", cat->value_strings);
	text_printf(t, "records %llu data %llu have %d last %llu\n",
	    (unsigned long long)cat->nrecords, (unsigned long long)cat->ndata,
	    cat->have_data, (unsigned long long)cat->last_time);
}

/* One parse's whole result, as text: return code, error, data, catalog. */
static void
result_text(text *t, int rv, const sm_error *err, consumer *c,
    const catalog *cat)
{
	size_t i;

	text_printf(t, "rv %d\n", rv);
	if (rv != 0) {
		text_printf(t, "error ");
		text_bytes(t, err->file, strlen(err->file));
		text_printf(t, ":%llu:%llu: ", (unsigned long long)err->line,
		    (unsigned long long)err->column);
		text_bytes(t, err->message, strlen(err->message));
		text_printf(t, "\n");
	}
	text_printf(t, "-- data\n");
	if (c->all.len > 0)
		text_bytes(t, c->all.s, c->all.len);
	for (i = 0; i < c->nentities; i++) {
		if (c->per_entity[i].len == 0)
			continue;
		text_printf(t, "-- entity %zu\n", i);
		text_bytes(t, c->per_entity[i].s, c->per_entity[i].len);
	}
	/* On error the catalog holds what was read, to be freed only. */
	if (rv == 0) {
		text_printf(t, "\n-- catalog\n");
		dump_catalog(t, cat);
	}
}

static void
consumer_free(consumer *c)
{
	size_t i;

	free(c->all.s);
	for (i = 0; i < c->nentities; i++)
		free(c->per_entity[i].s);
	free(c->per_entity);
}

/* How each side is parsed: options varied from the input's bytes. */
typedef struct setup {
	int bulk;		/* take data (and numbers) in bulk */
	int bulk_values;	/* numbers too */
	int bulk_stacks;	/* nested states too */
	int states_only;	/* no nested or value consumer */
	int ignore_tags;
	int filter;
} setup;

static regex_t entity_filter;	/* compiled once */

/* Parses the input, threaded (from the file) or serially: its result. */
static void
parse(const setup *su, int threaded, const char *path,
    const unsigned char *data, size_t size, text *out)
{
	catalog *cat = catalog_new(path);
	consumer c;
	ingest_options io;
	sm_error err;
	int rv;

	memset(&c, 0, sizeof (c));
	memset(&io, 0, sizeof (io));
	memset(&err, 0, sizeof (err));
	c.bulk = su->bulk;
	io.ignore_tags = su->ignore_tags;
	io.filter = su->filter ? &entity_filter : NULL;
	if (!su->states_only) {
		io.nested = on_nested;
		io.value = on_value;
	}
	if (su->bulk) {
		io.data = on_data;
		if (su->bulk_values)
			io.values = on_values;
		if (su->bulk_stacks)
			io.stack = on_stack;
	}
	if (threaded)
		rv = ingest_file(path, cat, &io, on_datum, &c, &err);
	else
		rv = ingest_buffer(path, (const char *)data, size, cat, &io,
		    on_datum, &c, &err);
	result_text(out, rv, &err, &c, cat);
	consumer_free(&c);
	catalog_free(cat);
}

/* Says where the two results part, with some of each around it. */
static _Noreturn void
differ(const setup *su, const text *threaded, const text *serial)
{
	size_t at = 0, from;

	while (at < threaded->len && at < serial->len &&
	    threaded->s[at] == serial->s[at])
		at++;
	from = at > 400 ? at - 400 : 0;
	fprintf(stderr, "fuzz_chunks: the threaded parse differs from the "
	    "serial one (bulk %d, values %d, stacks %d, states only %d, "
	    "ignore tags %d, filter %d; STATEMAP_CHUNK_BYTES=%s "
	    "STATEMAP_WINDOW_BYTES=%s) at byte %zu of the results:\n"
	    "--- threaded:\n%.*s\n--- serial:\n%.*s\n", su->bulk,
	    su->bulk_values, su->bulk_stacks, su->states_only,
	    su->ignore_tags, su->filter, getenv("STATEMAP_CHUNK_BYTES"),
	    getenv("STATEMAP_WINDOW_BYTES"), at,
	    (int)((threaded->len - from) > 800 ? 800 : threaded->len - from),
	    threaded->s + from,
	    (int)((serial->len - from) > 800 ? 800 : serial->len - from),
	    serial->s + from);
	abort();
}

/* FNV-1a over the input: the same input always gets the same sizes. */
static uint64_t
input_hash(const unsigned char *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ULL;
	return (h);
}

/*
 * A size from lo to hi, its power of two uniform (so that sizes near lo,
 * where every cut falls inside a record, come as often as large ones),
 * from the bits of h.
 */
static size_t
pick_size(uint64_t h, size_t lo, size_t hi)
{
	unsigned low = 0, high = 0, e;
	size_t n;

	if (hi <= lo)
		return (lo);
	while (((size_t)2 << low) <= lo)
		low++;
	while (((size_t)2 << high) <= hi)
		high++;
	e = low + (unsigned)(h % (high - low + 1));
	n = ((size_t)1 << e) + (size_t)((h >> 8) % ((size_t)1 << e));
	return (n < lo ? lo : n > hi ? hi : n);
}

static void
set_size(const char *name, size_t n)
{
	char buf[32];

	snprintf(buf, sizeof (buf), "%zu", n);
	if (setenv(name, buf, 1) != 0)
		abort();
}

/* The input as a file, for ingest_file to map; path gets its name. */
static int
write_input(const unsigned char *data, size_t size, char *path,
    size_t path_size)
{
	const char *dir = getenv("TMPDIR");
	size_t done = 0;
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	snprintf(path, path_size, "%s/fuzz_chunks.XXXXXX", dir);
	if ((fd = mkstemp(path)) < 0)
		return (-1);
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			unlink(path);
			return (-1);
		}
		done += (size_t)n;
	}
	close(fd);
	return (0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	/* Read once, by the first parse: the threaded path needs 2. */
	if (setenv("STATEMAP_THREADS", "2", 1) != 0 ||
	    regcomp(&entity_filter, "[02468]$|^t", REG_EXTENDED | REG_NOSUB)
	    != 0)
		abort();
	return (0);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	uint64_t h = input_hash(data, size);
	char path[4096];
	int pass;

	if ((size >= 2 && data[0] == 0x1f && data[1] == 0x8b) ||
	    (size >= 4 && memcmp(data, "\x28\xb5\x2f\xfd", 4) == 0))
		return (0);
	/*
	 * Chunks are cut only when what follows the metadata is at least
	 * two of them: at most a third of the input, so that most inputs
	 * are cut.  Windows mostly from 64 bytes to 8 K (a record longer
	 * than the window is left to the serial parse), one in four below.
	 */
	set_size("STATEMAP_CHUNK_BYTES", pick_size(h, 1, size / 3 < 4096 ?
	    size / 3 : 4096));
	set_size("STATEMAP_WINDOW_BYTES", ((h >> 20) & 3) == 0 ?
	    pick_size(h >> 24, 8, 64) : pick_size(h >> 24, 64, 8192));
	if (write_input(data, size, path, sizeof (path)) != 0) {
		perror("fuzz_chunks: a temporary file");
		abort();
	}
	/* A consumer as the classic command's, then one as trace.c's. */
	for (pass = 0; pass < 2; pass++) {
		setup su;
		text threaded, serial;

		memset(&su, 0, sizeof (su));
		su.bulk = pass;
		su.bulk_values = pass && ((h >> 40) & 3) != 0;
		su.bulk_stacks = pass && ((h >> 50) & 3) != 0;
		su.states_only = !pass && ((h >> 42) & 7) == 0;
		su.ignore_tags = ((h >> 45) & 7) == 0;
		su.filter = ((h >> 48) & 7) == 0;
		memset(&threaded, 0, sizeof (threaded));
		memset(&serial, 0, sizeof (serial));
		parse(&su, 1, path, data, size, &threaded);
		parse(&su, 0, path, data, size, &serial);
		if (threaded.len != serial.len ||
		    memcmp(threaded.s, serial.s, threaded.len) != 0) {
			unlink(path);
			differ(&su, &threaded, &serial);
		}
		free(threaded.s);
		free(serial.s);
	}
	unlink(path);
	return (0);
}
