/*
 * ingest.c: the reader's loop.  Records are parsed one after another
 * (plain data by the scanner, anything else by the JSON parser) and
 * handed to records (records.h) for their meaning; a large mapped file
 * is parsed on several threads by chunks.c, which falls back on this
 * loop for everything its threads could not propose.
 */
#include "ingest/ingest.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/debug.h"
#include "base/json.h"
#include "base/progress.h"
#include "base/threads.h"
#include "ingest/chunks.h"
#include "ingest/reader.h"
#include "ingest/records_deliver.h"
#include "ingest/scan.h"

typedef struct ingest {
	const char *name;
	reader rd;
	records rec;
	const ingest_options *opts;
	void *ctx;
	sm_error *err;
	json_arena *arena;
	progress *progress;	/* NULL unless a display is wanted */
	uint32_t tick;		/* records since the last checkpoint */
	scan_shapes shapes;	/* the layouts of the data read here */
	uint64_t threaded;	/* data taken as the scanning threads read them */
	uint64_t bulk;		/* of which a run of an entity at once */
	uint64_t nchunks;	/* chunks they read */
	uint64_t definitions;	/* tag definitions they read whole */
	uint64_t known_entities, known_tags;	/* chunks.h */
} ingest;

/* The progress display, and whether the consumer wants to go on. */
static int
checkpoint(void *arg, size_t pos)
{
	ingest *in = arg;
	const char *why = NULL;

	if (in->progress != NULL)
		progress_update(in->progress, reader_consumed(&in->rd, pos),
		    in->rd.base + pos, in->rec.cat->nrecords);
	if (in->opts->keep_going != NULL &&
	    in->opts->keep_going(in->ctx, &why) != 0) {
		error_at(in->err, in->name, 0, 0, "%s", why);
		return (-1);
	}
	return (0);
}

/* Every 64 K records: cheap enough to leave on for every load. */
static int
tick_checkpoint(ingest *in, size_t pos)
{
	if ((++in->tick & 0xffff) != 0)
		return (0);
	return (checkpoint(in, pos));
}

/*
 * Takes a datum the scanner read (of any op) for entity: 1, or 0 for
 * the record to be parsed as JSON.
 */
static int
ingest_scanned(records *rec, uint32_t entity, const scanned *d)
{
	switch (d->op) {
	case SCAN_OP_STATE:
		return (records_deliver(rec, entity, d->time, d->state,
		    d->tag, d->tag_len, CATALOG_NO_TAG));
	case SCAN_OP_VALUE:
		return (records_deliver_value(rec, entity, d->time, d->value,
		    d->str, d->str_len));
	default:
		return (records_deliver_stack(rec, entity, d->time,
		    d->op == SCAN_OP_PUSH ? INGEST_PUSH : INGEST_POP,
		    d->state, d->str, d->str_len, d->tag, d->tag_len));
	}
}

/*
 * Tries the record at pos as a datum the scanner reads.  Returns 1 with *next past
 * its closing brace if it was consumed, 0 to leave it to the general
 * parser.
 */
static int
fast_datum(ingest *in, size_t pos, size_t *next)
{
	scanned d;

	if (!records_metadata_complete(&in->rec) ||
	    !scan_record_shaped(&in->shapes, in->rd.buf, in->rd.len, pos,
	    in->rec.cat->nstates, &d) ||
	    !ingest_scanned(&in->rec, records_entity(&in->rec, d.entity,
	    d.entity_len), &d))
		return (0);
	*next = d.next;
	return (1);
}

/*
 * Parses the records that start before limit (or all of them), leaving
 * *pos at the next record, past any spaces.  Returns 0, or -1 on error.
 */
static int
parse_records(void *arg, size_t *pos, size_t limit)
{
	ingest *in = arg;
	reader *rd = &in->rd;
	json_error jerr;

	for (;;) {
		json_value *v;
		size_t next;

		*pos = json_skip_space(rd->buf, rd->len, *pos);
		if (*pos == rd->len) {
			int r = reader_refill(rd, pos, in->err);

			if (r < 0)
				return (-1);
			if (r == 0)
				return (0);
			continue;
		}
		if (*pos >= limit)
			return (0);
		if (fast_datum(in, *pos, &next)) {
			*pos = next;
			reader_release(rd, *pos);
			if (tick_checkpoint(in, *pos) != 0)
				return (-1);
			continue;
		}
		json_arena_reset(in->arena);
		next = *pos;
		v = json_parse_value(in->arena, rd->buf, rd->len, &next,
		    &jerr);
		if (v == NULL) {
			if (jerr.incomplete && !rd->eof) {
				if (reader_refill(rd, pos, in->err) < 0)
					return (-1);
				continue;
			}
			return (records_fail(&in->rec, jerr.offset, "%s",
			    jerr.message));
		}
		if (records_take(&in->rec, v) != 0)
			return (-1);
		*pos = next;
		reader_release(rd, *pos);
		if (tick_checkpoint(in, *pos) != 0)
			return (-1);
	}
}

/*
 * Parses the whole input: the metadata first, on this thread (scanning
 * needs the number of states), then the rest in parallel when the input
 * is a mapped file large enough for it to pay.
 */
static int
parse_all(ingest *in, size_t *pos)
{
	int nthreads = threads_count(), rv;
	size_t bytes = chunks_bytes();
	chunks_host h;

	if (!in->rd.mapped || nthreads < 2)
		return (parse_records(in, pos, SIZE_MAX));
	while (!records_metadata_complete(&in->rec)) {
		*pos = json_skip_space(in->rd.buf, in->rd.len, *pos);
		if (*pos == in->rd.len)
			break;
		if (parse_records(in, pos, *pos + 1) != 0)
			return (-1);
	}
	if (!records_metadata_complete(&in->rec) ||
	    in->rd.len - *pos < 2 * bytes)
		return (parse_records(in, pos, SIZE_MAX));
	memset(&h, 0, sizeof (h));
	h.rd = &in->rd;
	h.rec = &in->rec;
	h.serial = parse_records;
	h.checkpoint = checkpoint;
	h.ctx = in;
	rv = chunks_parse(&h, pos, nthreads);
	in->threaded = h.threaded;
	in->bulk = h.bulk;
	in->nchunks = h.nchunks;
	in->definitions = h.definitions;
	in->known_entities = h.known_entities;
	in->known_tags = h.known_tags;
	return (rv);
}

static int
run(ingest *in)
{
	size_t pos = 0;

	if (parse_all(in, &pos) != 0)
		return (-1);
	/*
	 * For tests: that the threads do the work, not just get it right.
	 * Which names a chunk's scan knows depends on the chunk alone
	 * (chunks_internal.h), so these counts are the same on every run.
	 */
	if (debug_on("scan"))
		fprintf(stderr, "%s: %" PRIu64 " of %" PRIu64 " data taken "
		    "from %" PRIu64 " chunks read by threads, %" PRIu64
		    " in bulk; %" PRIu64 " tag definitions; names known to "
		    "them: %" PRIu64 " entities, %" PRIu64 " tags\n",
		    in->name, in->threaded, in->rec.cat->ndata, in->nchunks,
		    in->bulk, in->definitions, in->known_entities,
		    in->known_tags);
	return (records_finish(&in->rec, pos));
}

static void
ingest_init(ingest *in, const char *name, catalog *cat,
    const ingest_options *opts, ingest_datum_fn datum, void *ctx,
    sm_error *err)
{
	static const ingest_options defaults;

	memset(in, 0, sizeof (*in));
	in->name = name;
	in->opts = opts != NULL ? opts : &defaults;
	in->ctx = ctx;
	in->err = err;
	in->arena = json_arena_new();
	records_init(&in->rec, name, cat, &in->rd, in->opts, datum, ctx, err);
	scan_shapes_init(&in->shapes);
}

static void
ingest_fini(ingest *in)
{
	json_arena_free(in->arena);
	records_fini(&in->rec);
}

int
ingest_file(const char *path, catalog *cat, const ingest_options *opts,
    ingest_datum_fn datum, void *ctx, sm_error *err)
{
	ingest in;
	int rv = -1;

	ingest_init(&in, strcmp(path, "-") == 0 ? "<stdin>" : path, cat, opts,
	    datum, ctx, err);
	if (reader_open(&in.rd, path, in.name, err) == 0) {
		in.progress = progress_new(in.name, source_size(in.rd.src));
		rv = run(&in);
		progress_end(in.progress);
	}
	reader_close(&in.rd);
	ingest_fini(&in);
	return (rv);
}

int
ingest_buffer(const char *name, const char *buf, size_t len, catalog *cat,
    const ingest_options *opts, ingest_datum_fn datum, void *ctx,
    sm_error *err)
{
	ingest in;
	int rv;

	ingest_init(&in, name, cat, opts, datum, ctx, err);
	in.rd.buf = buf;
	in.rd.len = len;
	in.rd.eof = 1;
	rv = run(&in);
	ingest_fini(&in);
	return (rv);
}
