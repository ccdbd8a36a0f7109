/*
 * records.h: what each record of a trace means.
 *
 * A record is a JSON object: metadata (start, states, title, host,
 * entityKind, possibly split over several objects, each field once), a
 * datum, a tag definition, an entity description or an event; or one of
 * what t:write adds where it must (writer.h): an entity or a tag declared
 * (a "description" of null), and an end record (a "time" alone).  A datum
 * has a "state", or (the generic state system) a "value", a "push" or a
 * "pop": what an entity's data have made it (states, nested states,
 * numbers or strings) is kept per entity, and data that do not fit it
 * are errors.  Each is
 * checked, what it says goes into the catalog, and each datum goes to the
 * consumer in file order, with times checked per entity.  Data the
 * scanner read (scan.h) come in through records_deliver.h, with the same
 * meaning.  Every problem is one error at FILE:LINE:COLUMN (positions
 * from the reader) naming what was expected and what was found.
 *
 * Ownership: records borrows the catalog, reader, options and error,
 * which must outlive it; it owns its per-entity bookkeeping.
 */
#ifndef SM_RECORDS_H
#define SM_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/json.h"
#include "ingest/consumer.h"
#include "ingest/reader.h"
#include "store/catalog.h"

typedef struct records {
	const char *name;	/* the input, in errors */
	catalog *cat;
	const reader *rd;	/* for error positions */
	const ingest_options *opts;
	ingest_datum_fn datum;
	void *ctx;		/* the datum function's (and opts') context */
	sm_error *err;
	unsigned meta_seen;	/* the metadata fields given so far */
	/*
	 * The latest time a datum or event may have: 2^63 - 1 ns since the
	 * epoch less the start (catalog_time_limit), so that the start
	 * plus any time of the trace is a number of ns, as stacking and
	 * merging traces need.
	 */
	uint64_t time_limit;
	int any_record;
	uint64_t *last_time;	/* per entity, for the ordering check */
	size_t last_time_cap;	/* also of kind and stacks */
	/*
	 * Per entity, what its data have made it (RECORDS_NEW...): the fast
	 * path takes plain data of new and plain entities only, and leaves
	 * the others to records_take, which knows the rules.
	 */
	uint8_t *kind;
	struct records_stack *stacks;	/* per entity, once one is nested */
	uint16_t *pushed;	/* scratch: records_takes_stacked's */
	size_t pushed_cap;
	intern *rejected;	/* entity names the filter dropped */
} records;

enum {
	RECORDS_NEW,		/* no datum yet */
	RECORDS_PLAIN,		/* states, never pushed */
	RECORDS_NESTED,		/* states, pushed at least once */
	RECORDS_VALUES,		/* values, all null so far */
	RECORDS_NUMBERS,	/* values: numbers (and nulls) */
	RECORDS_STRINGS		/* values: strings (and nulls) */
};

void records_init(records *r, const char *name, catalog *cat,
    const reader *rd, const ingest_options *opts, ingest_datum_fn datum,
    void *ctx, sm_error *err);
void records_fini(records *r);

/* Takes one parsed record (at its offset in the reader): 0, or -1. */
int records_take(records *r, const json_value *obj);

/* Whether "start" and "states" have been read: data may come. */
int records_metadata_complete(const records *r);

/*
 * The id of the entity named name, adding it if new; CATALOG_NO_ENTITY
 * if the filter leaves it out.
 */
uint32_t records_entity(records *r, const char *name, size_t len);

/* Counts n data taken in bulk, the last of them in file order at last. */
static inline void
records_count(records *r, uint64_t n, uint64_t last)
{
	r->any_record = 1;
	r->cat->nrecords += n;
	r->cat->ndata += n;
	r->cat->have_data = 1;
	r->cat->last_time = last;
}

/* An error at buf[offset]: always returns -1. */
int records_fail(records *r, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The checks at the end of the input, at pos: 0, or -1. */
int records_finish(records *r, size_t pos);

#endif
