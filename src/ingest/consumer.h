/*
 * consumer.h: the contract between the ingest and its consumer, the code
 * that takes a trace's data (the coalescer, the store): the functions
 * each datum, run of data, value or stack is handed to, and the options
 * with which the consumer says what it takes.
 *
 * A header of its own, below ingest.h and records.h: the files of
 * records call these functions and ingest.c uses records, so neither
 * header can hold them without the two including each other.
 */
#ifndef SM_CONSUMER_H
#define SM_CONSUMER_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "store/catalog.h"
#include "store/value.h"

/*
 * Takes n untagged data of one entity at once, in file order.  A consumer
 * that keeps each entity's data apart (the store) may ask for this: runs
 * of plain data then come per entity rather than interleaved as in the
 * file, which lets parsing threads do the sorting (see ingest_options).
 * done is the share of the input read up to the end of these data, from
 * 0 to 1 (for sizing things by what is still to come).
 */
typedef void (*ingest_data_fn)(void *ctx, catalog *cat, uint32_t entity,
    const uint64_t *times, const uint16_t *states, size_t n, double done);

/*
 * What a datum does to a nested entity (one that had a "push"): a plain
 * datum replaces its whole stack with state; a push enters state on top;
 * a pop leaves the top state, which is `state`, back to the one under it
 * (the consumer keeps the stack: pops carry no tag).
 */
typedef enum ingest_op {
	INGEST_SET,
	INGEST_PUSH,
	INGEST_POP
} ingest_op;

/*
 * Called in file order for each datum of a nested entity, after
 * validation (a push onto an entity with a state and at most
 * STORE_MAX_DEPTH deep, a pop of the top state): plain data of such an
 * entity come here too, not to the datum function.  tag as for it.
 */
typedef void (*ingest_nested_fn)(void *ctx, catalog *cat, uint32_t entity,
    uint64_t time, ingest_op op, uint32_t state, const char *tag,
    size_t tag_len);

/*
 * Takes n untagged data of one nested entity at once, in file order, as
 * n calls of the nested function would (ops[i] and states[i] are each
 * one's op and state; a pop's state is the one it leaves), checked
 * already; done as for ingest_data_fn.
 */
typedef void (*ingest_stack_fn)(void *ctx, catalog *cat, uint32_t entity,
    const uint64_t *times, const uint8_t *ops, const uint16_t *states,
    size_t n, double done);

/*
 * Called in file order for each datum with a "value" (value.h), after
 * validation: the entity has only values, all numbers or all strings
 * (and nulls).
 */
typedef void (*ingest_value_fn)(void *ctx, catalog *cat, uint32_t entity,
    uint64_t time, sm_value value);

/*
 * Takes n values (numbers and nulls: no strings) of one entity at once,
 * in file order, as ingest_data_fn takes states (done likewise): the same
 * as n calls of the value function.
 */
typedef void (*ingest_values_fn)(void *ctx, catalog *cat, uint32_t entity,
    const uint64_t *times, const sm_value *values, size_t n, double done);

typedef struct ingest_options {
	int ignore_tags;	/* drop tags from data; skip definitions */
	const regex_t *filter;	/* keep only entities whose names match */
	/*
	 * NULL, or where untagged data may go in bulk instead of one by one
	 * through the datum function.  Each entity's data still arrive in
	 * file order, and tagged data still come one by one in file order
	 * (tags are numbered as they first appear).
	 */
	ingest_data_fn data;
	/*
	 * NULL, or told, a few entities before data of entity go to the
	 * data function in bulk, to ask for what that will touch: near is 0
	 * farther ahead, 1 just before (so that what the first asked for
	 * can lead it to the rest).  A hint only: it changes nothing.
	 */
	void (*prefetch)(void *ctx, uint32_t entity, int near);
	/*
	 * NULL, or asked every so often (about every 64 K records, and for
	 * each chunk the parsing threads read) whether to go on, with the
	 * datum function's ctx: 0 to go on, or -1 with *why, which ends the
	 * read with that error (Ctrl-C, a script's time or memory limit).
	 */
	int (*keep_going)(void *ctx, const char **why);
	/*
	 * Where nested states and values go; NULL if the consumer takes
	 * none, which makes a push, a pop or a value an error.
	 */
	ingest_nested_fn nested;
	/* NULL, or where they may go in bulk (with nested set too). */
	ingest_stack_fn stack;
	ingest_value_fn value;
	/* NULL, or where values may go in bulk (with value set too). */
	ingest_values_fn values;
	/*
	 * 0, or a time after the start which the consumer adds to the start
	 * besides the trace's own times (the classic command's end bound,
	 * which places the files stacked under the first): a start that
	 * puts it past 2^63 - 1 ns since the epoch is an error at the start,
	 * as a time of the trace would be at that time.
	 */
	uint64_t bound;
} ingest_options;

/*
 * Called for every datum in file order, after validation.  entity is an
 * id in cat; state is a valid state value, or STORE_GAP (store.h: the
 * entity's data end; untagged); tag_name is the id of the
 * datum's tag in cat's tag names (catalog_tag_name), or CATALOG_NO_TAG
 * when it has none or tags are ignored.  The consumer numbers tags with
 * catalog_tag_id_named, so that it can leave out the tags of data it
 * drops (as the reference does for data past the end bound).
 */
typedef void (*ingest_datum_fn)(void *ctx, catalog *cat, uint32_t entity,
    uint64_t time, uint32_t state, uint32_t tag_name);

#endif
