/*
 * records.h: what each record of a trace means.
 *
 * A record is a JSON object: metadata (start, states, title, host,
 * entityKind, possibly split over several objects, each field once), a
 * datum, a tag definition, an entity description or an event.  A datum
 * has a "state", or (the generic state system) a "value", a "push" or a
 * "pop": what an entity's data have made it (states, nested states,
 * numbers or strings) is kept per entity, and data that do not fit it
 * are errors.  Each is
 * checked, what it says goes into the catalog, and each datum goes to the
 * consumer in file order, with times checked per entity.  Plain data the
 * scanner read (scan.h) come in through records_deliver, with the same
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

#include "store/catalog.h"
#include "base/error.h"
#include "ingest/consumer.h"
#include "base/json.h"
#include "ingest/reader.h"

typedef struct records {
	const char *name;	/* the input, in errors */
	catalog *cat;
	const reader *rd;	/* for error positions */
	const ingest_options *opts;
	ingest_datum_fn datum;
	void *ctx;		/* the datum function's (and opts') context */
	sm_error *err;
	unsigned meta_seen;	/* the metadata fields given so far */
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

/*
 * Take a datum of the generic state system the scanner read, as
 * records_take would take its record, with the same checks: 1, or 0,
 * having changed nothing, if the record is to be parsed as JSON (to say
 * what is wrong with it).  A value: v (value.h), or a string (str, to be
 * interned) when str is not NULL.  A push or a pop (or, op INGEST_SET, a
 * plain datum of a nested entity) of state, or of the state named name
 * if not NULL; tag as records_deliver's.
 */
int records_deliver_value(records *r, uint32_t entity, uint64_t time,
    sm_value v, const char *str, size_t str_len);
int records_deliver_stack(records *r, uint32_t entity, uint64_t time,
    ingest_op op, uint32_t state, const char *name, size_t name_len,
    const char *tag, size_t tag_len);

/*
 * Takes a plain datum of an entity from records_entity, as a datum record
 * would be taken.  Returns 1, or 0, having changed nothing, if its time
 * goes back before the entity's last: the record is then to be parsed
 * as JSON, whose error says so with its position (a datum of a nested
 * entity goes to records_deliver_stack).  tag_name is the tag's id in
 * the catalog's tag names if the caller knows it, else CATALOG_NO_TAG
 * (then it is looked up by its text).  Inline: it runs for nearly every
 * datum of a large trace.
 */
static inline int
records_deliver(records *r, uint32_t entity, uint64_t time, uint32_t state,
    const char *tag, size_t tag_len, uint32_t tag_name)
{
	if (entity != CATALOG_NO_ENTITY && (time < r->last_time[entity] ||
	    r->kind[entity] > RECORDS_PLAIN))
		return (r->kind[entity] == RECORDS_NESTED &&
		    records_deliver_stack(r, entity, time, INGEST_SET, state,
		    NULL, 0, tag, tag_len));
	records_count(r, 1, time);
	if (entity == CATALOG_NO_ENTITY)
		return (1);
	r->last_time[entity] = time;
	r->kind[entity] = RECORDS_PLAIN;
	if (r->opts->ignore_tags || tag == NULL)
		tag_name = CATALOG_NO_TAG;
	else if (tag_name == CATALOG_NO_TAG)
		tag_name = catalog_tag_name(r->cat, tag, tag_len);
	r->datum(r->ctx, r->cat, entity, time, state, tag_name);
	return (1);
}

/* The time of an entity's last datum (0 before the first). */
uint64_t records_last_time(const records *r, uint32_t entity);

/* Whether plain data of the entity may be taken in bulk (it has only
 * plain states so far: no push, no value). */
static inline int
records_takes_plain(const records *r, uint32_t entity)
{
	return (r->kind[entity] <= RECORDS_PLAIN);
}

/*
 * Takes n untagged data of one entity at once (times not before its last
 * one, in order; records_takes_plain), for the consumer that takes them
 * in bulk (opts->data); records_count must then count them.
 */
void records_deliver_many(records *r, uint32_t entity,
    const uint64_t *times, const uint16_t *states, size_t n, double done);

/*
 * Whether numbers and nulls of the entity may be taken in bulk (it has
 * no states, no strings), and takes n of them at once (times in order,
 * not before its last; numbers says whether any is a number); the
 * consumer takes them (opts->values), and records_count must count them.
 */
static inline int
records_takes_numbers(const records *r, uint32_t entity)
{
	return (r->kind[entity] == RECORDS_NEW ||
	    r->kind[entity] == RECORDS_VALUES ||
	    r->kind[entity] == RECORDS_NUMBERS);
}
void records_deliver_numbers(records *r, uint32_t entity,
    const uint64_t *times, const sm_value *values, size_t n, int numbers,
    double done);

/*
 * Whether n untagged data of a nested entity (ops and states as
 * ingest_stack_fn has them, times in order) may be taken in bulk: the
 * consumer takes them so (opts->stack), its first time is not before its
 * last, and each passes, in turn, the checks records_deliver_stack
 * makes (a pop leaves the state on top, a push stays below
 * STORE_MAX_DEPTH).  Changes nothing.  Then records_deliver_stacked
 * takes them, and records_count must count them.
 */
int records_takes_stacked(records *r, uint32_t entity,
    const uint64_t *times, const uint8_t *ops, const uint16_t *states,
    size_t n);
void records_deliver_stacked(records *r, uint32_t entity,
    const uint64_t *times, const uint8_t *ops, const uint16_t *states,
    size_t n, double done);

/* An error at buf[offset]: always returns -1. */
int records_fail(records *r, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The checks at the end of the input, at pos: 0, or -1. */
int records_finish(records *r, size_t pos);

#endif
