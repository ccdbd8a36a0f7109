/*
 * records_deliver.h: data the scanner (scan.h) and the scanning threads
 * (chunks.h) read straight from the bytes, taken as records_take would
 * take their records, with the same checks: one at a time, or runs of
 * one entity's data in bulk for consumers that take them so.
 */
#ifndef SM_RECORDS_DELIVER_H
#define SM_RECORDS_DELIVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ingest/records.h"
#include "store/value.h"

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
 * Whether obj is a tag definition that records_take would take without
 * error, the metadata complete with nstates states: an object with
 * "state" (an integer below nstates) and "tag" (a string), each once,
 * and no other member whose name records know.  If so, sets *state and
 * *tag and writes its members to members as the definition keeps them
 * (records_write_members).  For the scanning threads, which read
 * definitions whole and hand them over with
 * records_deliver_tag_definition; anything else is the parse's.
 */
int records_scan_tag_definition(const json_value *obj, uint32_t nstates,
    uint32_t *state, const json_value **tag, FILE *members);
/*
 * Takes such a definition, as records_take would take its record: its
 * tag (tag_name as records_deliver's) of state defined by its members
 * (members_len bytes).  Returns 1.
 */
int records_deliver_tag_definition(records *r, uint32_t state,
    const char *tag, size_t tag_len, uint32_t tag_name, const char *members,
    size_t members_len);

/*
 * Takes a plain datum of an entity from records_entity, as a datum record
 * would be taken.  Returns 1, or 0, having changed nothing, if its time
 * goes back before the entity's last or is past the records' time_limit:
 * the record is then to be parsed as JSON, whose error says so with its
 * position (a datum of a nested entity goes to records_deliver_stack).
 * tag_name is the tag's id in the catalog's tag names if the caller
 * knows it, else CATALOG_NO_TAG (then it is looked up by its text).
 * Inline: it runs for nearly every datum of a large trace.
 */
static inline int
records_deliver(records *r, uint32_t entity, uint64_t time, uint32_t state,
    const char *tag, size_t tag_len, uint32_t tag_name)
{
	if (time > r->time_limit)
		return (0);	/* past the start's limit: JSON says so */
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

/*
 * Asks for what records_deliver reads of an entity (its last time and
 * kind), a few data ahead, where entities are too many for the cache.
 */
static inline __attribute__((always_inline)) void
records_prefetch_entity(const records *r, uint32_t entity)
{
	__builtin_prefetch(&r->last_time[entity]);
	__builtin_prefetch(&r->kind[entity]);
}

/*
 * Asks the consumer to ask for what data of the entity in bulk will
 * touch (ingest_options' prefetch, near as there), if it wants to.
 */
static inline void
records_prefetch_bulk(const records *r, uint32_t entity, int near)
{
	if (r->opts->prefetch != NULL)
		r->opts->prefetch(r->ctx, entity, near);
}

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
 * no states, no strings, and its numbers are of the kind of those of
 * the run: numbers says which kinds it has, RECORDS_DOUBLES and
 * RECORDS_INTEGERS, the scanner's value_small_int), and takes n of them
 * at once (times in order, not before its last), making the integers
 * the entity's words; the consumer takes them (opts->values), and
 * records_count must count them.
 */
#define RECORDS_DOUBLES		1
#define RECORDS_INTEGERS	2

static inline int
records_takes_numbers(const records *r, uint32_t entity, int numbers)
{
	int type = catalog_value_type(r->cat, entity);

	if (numbers == (RECORDS_DOUBLES | RECORDS_INTEGERS) &&
	    type != CATALOG_VALUES_NUMBER)
		return (0);
	if (numbers != 0 && catalog_value_type_after(type,
	    numbers == RECORDS_INTEGERS) == CATALOG_VALUES_UNSET)
		return (0);
	return (r->kind[entity] == RECORDS_NEW ||
	    r->kind[entity] == RECORDS_VALUES ||
	    r->kind[entity] == RECORDS_NUMBERS);
}
void records_deliver_numbers(records *r, uint32_t entity,
    const uint64_t *times, sm_value *values, size_t n, int numbers,
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

#endif
