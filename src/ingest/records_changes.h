/*
 * records_changes.h: private to the files of records (records_internal.h
 * lists them): what a datum, once checked, does to its entity's
 * bookkeeping (its kind, last time and stack) and hands the consumer.
 * The data records read as JSON (records_data.c) and those the scanner
 * read (records_deliver.c) both end here.  Inline, as they were when one
 * file held both: they run once a datum.
 */
#ifndef SM_RECORDS_CHANGES_H
#define SM_RECORDS_CHANGES_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "ingest/consumer.h"
#include "ingest/records.h"
#include "ingest/records_internal.h"
#include "store/store.h"
#include "store/value.h"

/*
 * Pops the top state (which is state) of a checked nested entity; the
 * last of a stack a push started ends its data (the consumer's store
 * makes it STORE_GAP).
 */
static inline void
records_pop(records *r, uint32_t entity, uint64_t time, uint32_t state)
{
	records_stack *st = &r->stacks[entity];

	if (st->n == 0) {
		st->bottom_pushed = 0;
		st->ended = 1;
	} else {
		st->n--;
	}
	r->last_time[entity] = time;
	r->opts->nested(r->ctx, r->cat, entity, time, INGEST_POP, state,
	    NULL, 0);
}

/*
 * Pushes state on a checked entity (tag as a datum's).  On one with no
 * state yet it starts the stack: the state is its bottom, as a datum's
 * would be, but pushed.
 */
static inline void
records_push(records *r, uint32_t entity, uint64_t time, uint32_t state,
    const char *tag, size_t tag_len)
{
	records_stack *st = &r->stacks[entity];

	if (r->kind[entity] == RECORDS_NEW || st->ended) {
		st->n = 0;
		st->bottom_pushed = 1;
		st->bottom = (uint16_t)state;
		st->ended = 0;
	} else {
		if (st->n == st->cap) {
			st->cap = st->cap == 0 ? 8 : st->cap * 2;
			st->states = xrealloc(st->states,
			    st->cap * sizeof (uint16_t));
		}
		st->states[st->n++] = (uint16_t)state;
	}
	r->kind[entity] = RECORDS_NESTED;
	r->last_time[entity] = time;
	if (r->opts->ignore_tags)
		tag = NULL;
	r->opts->nested(r->ctx, r->cat, entity, time, INGEST_PUSH, state,
	    tag, tag == NULL ? 0 : tag_len);
}

/*
 * A plain datum of a nested entity: it replaces the whole stack (state
 * STORE_GAP: ends its data).
 */
static inline void
records_set_nested(records *r, uint32_t entity, uint64_t time,
    uint32_t state, const char *tag, size_t tag_len)
{
	r->stacks[entity].n = 0;
	r->stacks[entity].bottom_pushed = 0;
	r->stacks[entity].ended = state == STORE_GAP;
	r->last_time[entity] = time;
	r->opts->nested(r->ctx, r->cat, entity, time, INGEST_SET, state,
	    tag, tag_len);
}

/* What a value is, for records_value_kind. */
enum { RECORDS_NULL_VALUE, RECORDS_NUMBER_VALUE, RECORDS_STRING_VALUE };

/*
 * What a value of class cls (above) of an entity whose data have made it
 * k makes it (RECORDS_VALUES...), or RECORDS_NEW if the value does not
 * fit it.
 */
static inline uint8_t
records_value_kind(uint8_t k, int cls)
{
	uint8_t want;

	if (k != RECORDS_NEW && k < RECORDS_VALUES)
		return (RECORDS_NEW);
	want = cls == RECORDS_NUMBER_VALUE ? RECORDS_NUMBERS :
	    cls == RECORDS_STRING_VALUE ? RECORDS_STRINGS :
	    k == RECORDS_NEW ? RECORDS_VALUES : k;
	return (k > RECORDS_VALUES && want != k ? RECORDS_NEW : want);
}

/*
 * A number of an entity, *v an integer's word (value_int) if integer,
 * else a double's: returns the entity's type after it (catalog.h),
 * with *v made the word that type keeps (a declared numeric entity's
 * integer made a double), or CATALOG_VALUES_UNSET if the entity's
 * numbers are of the other kind.  Changes nothing of the entity.
 */
static inline int
records_number_type(const records *r, uint32_t entity, int integer,
    sm_value *v)
{
	int type = catalog_value_type_after(catalog_value_type(r->cat,
	    entity), integer);

	if (integer && type == CATALOG_VALUES_NUMBER)
		*v = value_number((double)value_to_int(*v));
	return (type);
}

/*
 * A checked value, which makes its entity want (records_value_kind) and,
 * for a number, of type (records_number_type; CATALOG_VALUES_UNSET for
 * a string or null).
 */
static inline void
records_set_value(records *r, uint32_t entity, uint64_t time, sm_value v,
    uint8_t want, int type)
{
	r->kind[entity] = want;
	r->last_time[entity] = time;
	if (type != CATALOG_VALUES_UNSET)
		catalog_set_value_type(r->cat, entity, type);
	r->opts->value(r->ctx, r->cat, entity, time, v);
}

#endif
