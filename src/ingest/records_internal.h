/*
 * records_internal.h: private to the files of records (records.h is the
 * contract), split by what each reads:
 *
 *   records.c           errors, entities and their bookkeeping, the end
 *   records_members.c   a record's members, checked; written back as JSON
 *   records_take.c      which kind of record an object is (records_take)
 *   records_metadata.c  start, states, title, host, entityKind
 *   records_data.c      data records: states, values, pushes and pops
 *   records_events.c    events, and what makes them messages
 *   records_tags.c      tag definitions and entity descriptions
 *   records_deliver.c   data the scanner and the parsing threads read
 *
 * records_changes.h has what a checked datum does to its entity.
 *
 * It does not include records.h: records.c, which the others call,
 * includes this, and records.h is records.c's own header, so the layers
 * check would see a circle (records -> records_internal -> records).  The
 * records are named here by their struct, which records.h completes.
 */
#ifndef SM_RECORDS_INTERNAL_H
#define SM_RECORDS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"

typedef struct records records;

/* The metadata fields, each of which may be given once (meta_seen). */
enum {
	META_START = 1 << 0,
	META_STATES = 1 << 1,
	META_TITLE = 1 << 2,
	META_HOST = 1 << 3,
	META_KIND = 1 << 4
};

/*
 * The states pushed on a nested entity, above the one at its bottom (a
 * datum's, or the first push's when it had no state: bottom_pushed, and
 * then that state is bottom).  ended: its data have ended ("state":
 * null, or a pop of the last state), so it has no state, no stack, until
 * its next datum or push.  An entity whose data end is made nested, so
 * that its data all come here after (records_end_data).
 */
typedef struct records_stack {
	uint16_t *states;
	uint32_t n, cap;
	uint16_t bottom;
	uint8_t bottom_pushed;
	uint8_t ended;
} records_stack;

/* The members of a record, by name (records_take.c sorts them out). */
typedef struct records_fields {
	json_value *time, *entity, *state, *tag, *event, *target;
	json_value *description, *start, *states, *title, *host, *kind;
	json_value *value, *push, *pop;	/* the generic state system's */
	json_value *other;	/* the first member of no known name */
	int nother;
} records_fields;

static inline int
records_key_is(const json_value *m, const char *name, size_t len)
{
	return (m->key_len == len && memcmp(m->key, name, len) == 0);
}

/* records.c */

/*
 * Quotes a string from the input for an error message: escaped, and cut
 * short so one huge name cannot drown the message.
 */
const char *records_quoted(char *buf, size_t size, const char *s,
    size_t len);

/* Room for a stack per entity, the new ones (from old) empty. */
void records_grow_stacks(records *r, size_t old);

/* records_members.c: each fails with the error set, returning -1. */

const char *records_type_name(json_type t);
int records_expect_type(records *r, const json_value *v, json_type t,
    const char *what);
/* Fails on the first member that is set but not allowed in this kind. */
int records_only_members(records *r, const records_fields *f,
    const char *kind, const json_value *const *allowed, size_t nallowed);
int records_need_member(records *r, const json_value *obj,
    const json_value *m, const char *name, const char *kind);
int records_need_metadata(records *r, const json_value *obj,
    const char *kind);
/* A time member (what names it in errors: "time", "end"). */
int records_parse_time_of(records *r, const json_value *v, const char *what,
    uint64_t *out);
int records_parse_time(records *r, const json_value *v, uint64_t *out);
int records_parse_state(records *r, const json_value *v, uint32_t *out);

/*
 * For each member of an object, in order, whether it is the last with
 * its key (malloc'd).
 */
unsigned char *records_last_uses(const json_value *obj);

/*
 * Writes a parsed value back out as compact JSON, strings made safe; in
 * an object, a key given twice keeps its last value (records_last_uses).
 */
void records_write_value(FILE *out, const json_value *v);
/*
 * Writes the members of an object that skip(member, ctx) does not leave
 * out, as a tag's definition and an event keep theirs: "key": value,
 * ", " between, no braces; a key given twice keeps its last value.
 * Returns how many it wrote.
 */
int records_write_members(FILE *out, const json_value *obj,
    int (*skip)(const json_value *m, const void *ctx), const void *ctx);
/* A skip for records_write_members: ctx is a records_fields, whose
 * state and tag it leaves out (a tag definition's own). */
int records_skip_state_tag(const json_value *m, const void *ctx);

/*
 * Each kind of record, its members sorted out (records_take): 0, or -1
 * with the error set.
 */
int records_take_metadata(records *r, const records_fields *f);
int records_take_datum(records *r, const json_value *obj,
    const records_fields *f);
int records_take_special(records *r, const json_value *obj,
    const records_fields *f);
int records_take_event(records *r, const json_value *obj,
    const records_fields *f);
/* {"entity": E, "type": "number"} (f->other is "type"). */
int records_take_type_declaration(records *r, const records_fields *f);
int records_take_description(records *r, const json_value *obj,
    const records_fields *f);
int records_take_tag_definition(records *r, const json_value *obj,
    const records_fields *f);
int records_take_tag_declaration(records *r, const json_value *obj,
    const records_fields *f);
int records_take_end(records *r, const json_value *obj,
    const records_fields *f);

#endif
