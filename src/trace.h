/*
 * trace.h: what a trace file says besides its transitions: metadata,
 * states, entities and their descriptions, tags and their definitions,
 * and events.
 *
 * The ingest module fills a trace while it reads a file; the transitions
 * themselves go to a consumer (the coalescer, or a store) by entity id,
 * state value and tag id, all dense integers defined here.
 *
 * Ownership: the trace owns every string and array in it.
 */
#ifndef SM_TRACE_H
#define SM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "color.h"
#include "intern.h"

#define TRACE_NO_TAG	UINT32_MAX
#define TRACE_NO_ENTITY	UINT32_MAX
#define TRACE_MAX_STATES 65535

typedef struct trace_state {
	char *name;
	size_t name_len;
	char *color_text;	/* as written in the input, or NULL */
	color color;		/* parsed, or generated when color_text is NULL */
} trace_state;

typedef struct trace_tag {
	uint32_t state;
	uint32_t name;		/* id in trace.tag_names */
	/*
	 * The definition's other members as JSON object members
	 * ("\"pid\": 12, \"execname\": \"postgres\""), or NULL if the tag was
	 * used but never defined.  A redefinition replaces it.
	 */
	char *members;
} trace_tag;

typedef struct trace_event {
	uint64_t time;
	uint32_t entity;	/* id in trace.event_entities */
	uint32_t target;	/* id in trace.event_entities, or TRACE_NO_ENTITY */
	uint32_t kind;		/* id in trace.event_kinds */
} trace_event;

typedef struct trace {
	char *name;		/* the file as the user named it ("-" is stdin) */

	/* Metadata: NULL / unset until the input provides it. */
	char *title, *host, *entity_kind;
	int have_start;
	uint64_t start_sec, start_nsec;
	trace_state *states;	/* indexed by state value */
	uint32_t nstates;	/* 0 until "states" has been read */

	intern *entities;	/* numbered in order of first appearance */
	char **descriptions;	/* by entity id; NULL where none */
	size_t descriptions_cap;

	intern *tag_names;
	intern *tag_keys;	/* (state, name id) pairs, numbered as tag ids */
	trace_tag *tags;	/* by tag id */
	size_t tags_cap;

	intern *event_kinds;
	intern *event_entities;	/* events name entities without creating them */
	trace_event *events;
	size_t nevents, events_cap;

	uint64_t nrecords;	/* records after the metadata, of every kind */
	uint64_t ndata;		/* data records (state transitions) */
	int have_data;
	uint64_t last_time;	/* time of the last datum in file order */
} trace;

trace *trace_new(const char *name);
void trace_free(trace *tr);

/* The metadata start as ns since the epoch (saturating). */
uint64_t trace_start_ns(const trace *tr);

/* The id of the entity with this name, adding it if new. */
uint32_t trace_entity(trace *tr, const char *name, size_t len);
const char *trace_entity_name(const trace *tr, uint32_t id, size_t *len);
uint32_t trace_nentities(const trace *tr);

/* Sets (replaces) an entity's description. */
void trace_set_description(trace *tr, uint32_t entity, const char *text,
    size_t len);

/* The id of the (state, tag) pair, numbering new pairs as they come. */
uint32_t trace_tag_id(trace *tr, uint32_t state, const char *tag,
    size_t len);
uint32_t trace_ntags(const trace *tr);

/* Replaces the definition members of a tag (takes ownership of members). */
void trace_define_tag(trace *tr, uint32_t tag, char *members);

void trace_add_event(trace *tr, uint64_t time, const char *entity,
    size_t entity_len, const char *kind, size_t kind_len,
    const char *target, size_t target_len);

/*
 * A new trace with everything of src but its states (entities in the same
 * order, descriptions, tags with the same ids, events, metadata).  The
 * caller sets the states; tags keep their old state values until the
 * caller maps them.
 */
trace *trace_copy_without_states(const trace *src);

/* The same without entities (nor descriptions). */
trace *trace_copy_header(const trace *src);

/* A copy of src's states array (src->nstates of them), owned by caller. */
trace_state *trace_copy_states(const trace *src);

/* The state value with this name, or -1. */
int64_t trace_state_by_name(const trace *tr, const char *name);

/*
 * Gives a colour to every state without one, counting such states in
 * value order, so the same input always gives the same picture.
 */
void trace_assign_colors(trace *tr);

#endif
