/*
 * builder.h: a trace built in memory, call by call (the seed's "state
 * provider"): what statemap.new gives scripts.
 *
 * A builder holds a catalog and a store, as a loaded trace does, and
 * checks each call by the rules of the input format (records.h): times
 * never go backwards for an entity; an entity holds states (plain or
 * nested) or values, never both; values of an entity are all numbers or
 * all strings (and nones); a push on an entity with no state starts its
 * stack (depth 1, as Trace Compass's pushAttribute), a pop needs a state
 * under the top (popping the last would leave no state, which a store
 * cannot say after an entity's first state) and the state it names (if
 * any) on top; the start plus any
 * time stays below 2^63 ns (catalog_time_limit).  Every string it takes
 * (names of entities and states, tags and their definitions,
 * descriptions, events, string values, the metadata) must be valid UTF-8
 * (RFC 3629), as a file's are once parsed: the writers put them in XML
 * and JSON, Cairo draws them.  builder_finish makes the trace, whose end
 * is the given time or else the latest time of any datum, like a file's.
 *
 * Every call returns 0, or -1 with builder_error saying why (the caller
 * names the call); a refused call changes nothing.
 *
 * Ownership: the builder owns its catalog and store until builder_finish
 * hands them to the trace it returns; builder_free frees what is left.
 */
#ifndef SM_BUILDER_H
#define SM_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

typedef struct builder builder;

/*
 * A builder for the given states (value order: names all different and
 * valid UTF-8, at least one, at most STORE_MAX_STATES; colour texts
 * optional, NULL: generated).  Takes states (and their strings) over, even on failure.
 * Returns NULL with *why on a bad state.
 */
builder *builder_new(const char *name, catalog_state *states, uint32_t n,
    const char **why);
void builder_free(builder *b);

/* The last error. */
const char *builder_error(const builder *b);

/*
 * The metadata (strings copied; NULL leaves one unset), before any
 * datum: -1, having changed nothing, if the start is past 2^63 - 1 ns
 * since the epoch or a string is not valid UTF-8.
 */
int builder_meta(builder *b, const char *title, const char *host,
    const char *entity_kind, uint64_t start_sec, uint64_t start_nsec);

/* A state's value by name, or -1. */
int64_t builder_state(const builder *b, const char *name, size_t len);
uint32_t builder_nstates(const builder *b);

/*
 * Data.  tag NULL: untagged.  pop's state UINT32_MAX: any top.  A pop
 * of the last state of a stack a push started ends the entity's data
 * (no state, STORE_GAP in store.h) until its next set or push.
 */
int builder_set(builder *b, uint64_t time, const char *entity, size_t len,
    uint32_t state, const char *tag, size_t tag_len);
int builder_push(builder *b, uint64_t time, const char *entity, size_t len,
    uint32_t state, const char *tag, size_t tag_len);
/*
 * builder_set for a caller that keeps ids of names the builder has met:
 * e as builder_entity gives it, tag_name as builder_tag_name gives it
 * (CATALOG_NO_TAG: untagged).  The same checks and errors.
 */
int builder_set_ids(builder *b, uint64_t time, uint32_t e, uint32_t state,
    uint32_t tag_name);
/* The catalog's id of a tag name a datum has used, or CATALOG_NO_TAG. */
uint32_t builder_tag_name(const builder *b, const char *tag, size_t len);
int builder_pop(builder *b, uint64_t time, const char *entity, size_t len,
    uint32_t state);
/* A value: a number (not NaN), a string, or none. */
int builder_number(builder *b, uint64_t time, const char *entity,
    size_t len, double v);
int builder_string(builder *b, uint64_t time, const char *entity,
    size_t len, const char *s, size_t slen);
int builder_none(builder *b, uint64_t time, const char *entity, size_t len);
/*
 * An integer: exact (catalog_value_type), but for VALUE_RESERVED_INT,
 * refused unless the entity is declared numeric.  builder_number's is a
 * double; an entity's numbers are of one kind unless it is declared
 * numeric (builder_declare_numeric, before its first number), when
 * they are doubles, integers made doubles.
 */
int builder_integer(builder *b, uint64_t time, const char *entity,
    size_t len, int64_t v);
int builder_declare_numeric(builder *b, const char *entity, size_t len);

int builder_describe(builder *b, const char *entity, size_t len,
    const char *text, size_t text_len);
/*
 * Defines a tag; members are JSON object members without braces (taken,
 * even when refused).
 */
int builder_tag(builder *b, uint32_t state, const char *tag, size_t len,
    char *members);

/*
 * What makes an event a message event (catalog_set_event_extra): its end
 * (CATALOG_NO_END: none, else not before its time), id (NULL: none) and
 * other members (NULL: none; JSON object members without braces, as a
 * file gives them, none named time, entity, event, target, end or id).
 */
typedef struct builder_message {
	uint64_t end;
	const char *id;
	size_t id_len;
	const char *members;
	size_t members_len;
} builder_message;

/* An event (target NULL: none); msg NULL: not a message event. */
int builder_event(builder *b, uint64_t time, const char *entity,
    size_t len, const char *kind, size_t kind_len, const char *target,
    size_t target_len, const builder_message *msg);

/*
 * TC's incrementAttribute: the value entity's latest value (0 if it has
 * none yet, or null) plus by, as builder_number at time.  An error on a
 * state entity or one holding strings.  integer: by is iby, an integer,
 * added exactly to an integer entity (or a new one): beyond 64 bits is
 * an error.
 */
int builder_increment(builder *b, uint64_t time, const char *entity,
    size_t len, int integer, int64_t iby, double by);

/*
 * Ends an entity's data (TC's removeAttribute): a value entity (or one
 * with no data yet) takes null (no value) at time, as builder_none; a
 * state entity has no state from time on (builder_end).
 */
int builder_end(builder *b, uint64_t time, const char *entity, size_t len);
int builder_remove(builder *b, uint64_t time, const char *entity,
    size_t len);

/* ---- queries while building (TC's state provider may ask them) ---- */

/* The latest time of any datum so far (0 before any): getCurrentEndTime. */
uint64_t builder_current_end(const builder *b);

/* The catalog, whose names the answers below index (read only). */
const catalog *builder_catalog(const builder *b);

/*
 * The entity named so, or UINT32_MAX if the builder has none by that
 * name (no datum, description or event named it); *kind its store kind
 * and *count its data so far (0: none yet).
 */
uint32_t builder_entity(const builder *b, const char *name, size_t len,
    store_kind *kind, size_t *count);

/*
 * What entity e holds at time (at most builder_current_end): 1 with out
 * filled as store_state_at fills it (state, tag and depth of the top of a
 * stack; or depth 0 and the value of a value entity), end the next
 * datum's time or UINT64_MAX while the interval is still open; 0 if it
 * has nothing then.
 */
int builder_at(const builder *b, uint32_t e, uint64_t time,
    store_interval *out);

/* Bytes it holds. */
size_t builder_memory(const builder *b);

/*
 * The trace: its window [0, end), end the given one (has_end) or the
 * latest datum's time.  The builder is then empty: any further call but
 * builder_free is a caller's bug.  NULL, having changed nothing, if end
 * is past what the start allows.
 */
trace *builder_finish(builder *b, int has_end, uint64_t end);

#endif
