/*
 * kernel_emit.h: how the kernel analyses (kernel_threads.h,
 * kernel_cpus.h, kernel_block.h) hand what they make to the ingest's
 * consumer (consumer.h), as a statemap file's records would be: entities
 * named as they first get data (and left out when -f's filter does not
 * match the name), states with tags, stacks, values, and the counts and
 * end time the catalog keeps.
 *
 * The analyses make only what the format allows (times that never go
 * backwards for an entity, a push on an entity with a state, a pop of
 * the top), so nothing here is checked again.
 */
#ifndef SM_KERNEL_EMIT_H
#define SM_KERNEL_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "base/intern.h"
#include "ingest/consumer.h"
#include "ingest/kev_comm.h"
#include "ingest/kevent.h"
#include "store/catalog.h"
#include "store/value.h"

/*
 * The states the analyses make, in the order a catalog lists those of
 * the analyses chosen (kernel.c names and colours them).
 */
typedef enum kstate {
	KS_RUNNING,
	KS_RUNNABLE,
	KS_SLEEPING,
	KS_BLOCKED,
	KS_EXITED,
	KS_IDLE,
	KS_IRQ,
	KS_SOFTIRQ,
	KS_READ,
	KS_WRITE,
	KS_OTHER,
	KS_N
} kstate;

typedef struct kemit {
	uint32_t states[KS_N];	/* each one's value in the catalog */
	catalog *cat;
	const ingest_options *opts;
	ingest_datum_fn datum;
	void *ctx;
	intern *rejected;	/* names the filter left out */
	uint8_t *nested;	/* by entity: 1 once it had a push */
	size_t ncap;
	/* the tasks' names as the events give them, kept by the pass,
	 * which has read the event an analysis is handed (seen) */
	const kev_comms *comms;
	/* the running task's name, as kev.comm would say (kernel.c's) */
	const char *(*comm_of)(void *ctx, const kev *e, size_t *len);
	void *comm_ctx;
} kemit;

void kemit_init(kemit *k, catalog *cat, const ingest_options *opts,
    ingest_datum_fn datum, void *ctx);
void kemit_fini(kemit *k);

/*
 * The id of the entity of this name, made if new, or CATALOG_NO_ENTITY
 * if the filter leaves it out.
 */
uint32_t kemit_entity(kemit *k, const char *name, size_t len);

/*
 * The entity enters state at time (replacing its stack, if it has one),
 * with a tag (NULL: none); state STORE_GAP (store.h), untagged, ends its
 * data (no state until its next).
 */
void kemit_state(kemit *k, uint32_t entity, uint64_t time, uint32_t state,
    const char *tag, size_t tag_len);

/*
 * A tag's id for kemit_state_id (made in the catalog if new), or
 * CATALOG_NO_TAG when tags are ignored: for an analysis that gives the
 * same few tags again and again (a CPU's), to look each up once.
 */
uint32_t kemit_tag(kemit *k, const char *tag, size_t len);

/* kemit_state with the tag as kemit_tag's id, and its text. */
void kemit_state_id(kemit *k, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag_id, const char *tag, size_t tag_len);

/* Enters state on top of what the entity is in; leaves the top, state. */
void kemit_push(kemit *k, uint32_t entity, uint64_t time, uint32_t state,
    const char *tag, size_t tag_len);
void kemit_pop(kemit *k, uint32_t entity, uint64_t time, uint32_t state);

/* A value entity takes count: the analyses' values are counts, exact. */
void kemit_value(kemit *k, uint32_t entity, uint64_t time, int64_t count);

/*
 * The name of the task running at e (e->pid), as kev.comm says it
 * (kevent.h): asked for only where an analysis needs it, since the pass
 * leaves kev.comm NULL for the analyses.
 */
const char *kemit_running_comm(kemit *k, const kev *e, size_t *len);

/* A name as one component of an entity's path: '/' as "\/", '\' as
 * "\\"; appended to buf (at *len, within size). */
void kemit_component(char *buf, size_t size, size_t *len, const char *s,
    size_t n);

#endif
