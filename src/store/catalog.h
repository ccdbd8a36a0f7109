/*
 * catalog.h: what a trace file says besides its transitions: metadata,
 * states, entities and their descriptions, tags and their definitions,
 * and events.
 *
 * The ingest module fills a catalog while it reads a file; the
 * transitions themselves go to a consumer (the coalescer, or a store) by
 * entity id, state value and tag id, all dense integers defined here.  A
 * loaded trace (trace.h) is a catalog and a store.
 *
 * Ownership: the catalog owns every string and array in it.
 */
#ifndef SM_CATALOG_H
#define SM_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "base/color.h"
#include "base/intern.h"

#define CATALOG_NO_TAG	UINT32_MAX
#define CATALOG_NO_ENTITY	UINT32_MAX

typedef struct catalog_state {
	char *name;
	size_t name_len;
	char *color_text;	/* as written in the input, or NULL */
	color color;		/* parsed, or generated when color_text is NULL */
} catalog_state;

typedef struct catalog_tag {
	uint32_t state;
	uint32_t name;		/* id in catalog.tag_names */
	/*
	 * The definition's other members as JSON object members
	 * ("\"pid\": 12, \"execname\": \"postgres\""), or NULL if the tag was
	 * used but never defined.  A redefinition replaces it.
	 */
	char *members;
} catalog_tag;

#define CATALOG_NO_EXTRA	UINT32_MAX
#define CATALOG_NO_END	UINT64_MAX
#define CATALOG_NO_ID	UINT32_MAX

typedef struct catalog_event {
	uint64_t time;
	uint32_t entity;	/* id in catalog.event_entities */
	uint32_t target;	/* id in catalog.event_entities, or CATALOG_NO_ENTITY */
	uint32_t kind;		/* id in catalog.event_kinds */
	/* Index in catalog.event_extras, or CATALOG_NO_EXTRA: most events
	 * have none, and this fits where the struct had padding. */
	uint32_t extra;
} catalog_event;

/*
 * What a message event says besides the plain event: an "end" time (the
 * message was received then), an "id" (matching a send and a receive,
 * maybe across files) and any other members, kept as JSON object members
 * like a tag definition's, and interned: events of one kind mostly share
 * one set.
 */
typedef struct catalog_event_extra {
	uint64_t end;		/* ns, or CATALOG_NO_END */
	uint32_t id;		/* id in catalog.event_ids, or CATALOG_NO_ID */
	uint32_t members;	/* id in catalog.event_members, or CATALOG_NO_ID */
} catalog_event_extra;

typedef struct catalog {
	char *name;		/* the file as the user named it ("-" is stdin) */

	/* Metadata: NULL / unset until the input provides it. */
	char *title, *host, *entity_kind;
	int have_start;
	uint64_t start_sec, start_nsec;
	catalog_state *states;	/* indexed by state value */
	uint32_t nstates;	/* 0 until "states" has been read */
	intern *state_names;	/* names to values (see catalog_set_states) */

	intern *entities;	/* numbered in order of first appearance */
	char **descriptions;	/* by entity id; NULL where none */
	/* By entity id, as descriptions: what its numbers are (below). */
	uint8_t *value_types;
	size_t descriptions_cap;

	intern *tag_names;
	intern *tag_keys;	/* (state, name id) pairs, numbered as tag ids */
	catalog_tag *tags;	/* by tag id */
	size_t tags_cap;
	/*
	 * Tag ids known by name id and a small state (1 + id, 0 unknown),
	 * CATALOG_FAST_STATES a name: most data find their tag here, with
	 * one lookup (the name) instead of two.
	 */
	uint32_t *tag_by_name;
	size_t tag_by_name_cap;

	intern *event_kinds;
	intern *event_entities;	/* events name entities without creating them */

	/* The strings value entities take, by id (value.h). */
	intern *value_strings;
	/* The attribute tree of the entity names, once asked for. */
	struct tree *tree;
	catalog_event *events;
	size_t nevents, events_cap;
	intern *event_ids;	/* message ids ("id") */
	intern *event_members;	/* member sets, as JSON object members */
	catalog_event_extra *event_extras;
	size_t nevent_extras, event_extras_cap;

	uint64_t nrecords;	/* records after the metadata, of every kind */
	uint64_t ndata;		/* data records (state transitions) */
	int have_data;
	uint64_t last_time;	/* time of the last datum in file order */
} catalog;

catalog *catalog_new(const char *name);
void catalog_free(catalog *cat);

/* The metadata start as ns since the epoch (saturating). */
uint64_t catalog_start_ns(const catalog *cat);

/*
 * The latest time after a start of sec seconds and nsec nanoseconds that
 * still lands below 2^63 ns since the epoch (2^63 - 1 less the start):
 * every time of a trace, counted from its start, is at most this, so
 * that whoever adds the two (stacking, merging) stays within an
 * int64_t.  -1 if the start itself is past 2^63 - 1 ns.
 */
int64_t catalog_time_limit(uint64_t sec, uint64_t nsec);

/* The id of the entity with this name, adding it if new. */
uint32_t catalog_entity(catalog *cat, const char *name, size_t len);
const char *catalog_entity_name(const catalog *cat, uint32_t id, size_t *len);
uint32_t catalog_nentities(const catalog *cat);

/* Sets (replaces) an entity's description. */
/*
 * What a value entity's numbers are (value.h): none yet, doubles,
 * integers (exact int64_t words), or declared numeric ({"entity": E,
 * "type": "number"} in the input, b:declare in a script), whose numbers
 * are doubles and whose integers are made doubles.  An entity takes the
 * kind of its first number; a number of the other kind is an error
 * unless it is declared numeric.
 */
enum {
	CATALOG_VALUES_UNSET,
	CATALOG_VALUES_DOUBLE,
	CATALOG_VALUES_INTEGER,
	CATALOG_VALUES_NUMBER
};

static inline int
catalog_value_type(const catalog *cat, uint32_t entity)
{
	return (entity < cat->descriptions_cap ? cat->value_types[entity] :
	    CATALOG_VALUES_UNSET);
}

/* Whether an entity's value words are integers (value_num_is). */
static inline int
catalog_value_ints(const catalog *cat, uint32_t entity)
{
	return (catalog_value_type(cat, entity) == CATALOG_VALUES_INTEGER);
}

static inline void
catalog_set_value_type(catalog *cat, uint32_t entity, int type)
{
	cat->value_types[entity] = (uint8_t)type;
}

/*
 * The type a number makes an entity of type have (integer: whether it
 * was written as one), or CATALOG_VALUES_UNSET if it cannot take it.
 */
static inline int
catalog_value_type_after(int have, int integer)
{
	int want = integer ? CATALOG_VALUES_INTEGER : CATALOG_VALUES_DOUBLE;

	if (have == CATALOG_VALUES_NUMBER)
		return (have);
	return (have == CATALOG_VALUES_UNSET || have == want ? want :
	    CATALOG_VALUES_UNSET);
}

void catalog_set_description(catalog *cat, uint32_t entity, const char *text,
    size_t len);

/* The id of the (state, tag) pair, numbering new pairs as they come. */
uint32_t catalog_tag_id(catalog *cat, uint32_t state, const char *tag,
    size_t len);

/*
 * The same in two steps, for data that name the same tags again and
 * again: the name's id in tag_names (added if new), then the pair's.
 */
uint32_t catalog_tag_name(catalog *cat, const char *tag, size_t len);
/*
 * For every name of names, by its id there: ids[id] = its id among the
 * entities if it has one, else INTERN_NONE; nothing is added (as
 * catalog_find_tag_names).
 */
void catalog_find_entities(const catalog *cat, const intern *names,
    uint32_t *ids);
/*
 * For every name of names, by its id there: ids[id] = its id in
 * tag_names if it has one (as catalog_tag_name would give it), else
 * INTERN_NONE; nothing is added.  Many lookups at once, their misses
 * overlapped (intern_find_each).
 */
void catalog_find_tag_names(const catalog *cat, const intern *names,
    uint32_t *ids);
uint32_t catalog_tag_id_named(catalog *cat, uint32_t state, uint32_t name);
/*
 * Asks for the memory catalog_tag_id_named(cat, state, name) will read
 * first, a few data ahead: with many tag names, that lookup is a miss
 * at every datum.  Changes nothing.
 */
void catalog_tag_prefetch(const catalog *cat, uint32_t state, uint32_t name);
uint32_t catalog_ntags(const catalog *cat);
/* The id of the (state, tag) pair, or CATALOG_NO_TAG if it has none. */
uint32_t catalog_find_tag(const catalog *cat, uint32_t state,
    const char *tag, size_t len);

/* Replaces the definition members of a tag (takes ownership of members). */
void catalog_define_tag(catalog *cat, uint32_t tag, char *members);

/* Forgets every tag and its definition, so that a copy whose states
 * differ can number its tags anew. */
void catalog_drop_tags(catalog *cat);

void catalog_add_event(catalog *cat, uint64_t time, const char *entity,
    size_t entity_len, const char *kind, size_t kind_len,
    const char *target, size_t target_len);

/*
 * Gives the last event added an end (CATALOG_NO_END: none), an id (NULL:
 * none) and other members (NULL: none; JSON object members as in a tag
 * definition, "\"a\": 1, \"b\": \"x\"").
 */
void catalog_set_event_extra(catalog *cat, uint64_t end, const char *id,
    size_t id_len, const char *members, size_t members_len);

/* An event's extra (NULL if it has none). */
const catalog_event_extra *catalog_event_extra_of(const catalog *cat,
    const catalog_event *ev);

/* An event's id, or NULL (*len gets its length). */
const char *catalog_event_id(const catalog *cat, const catalog_event *ev,
    size_t *len);

/* An event's other members as JSON object members, or NULL. */
const char *catalog_event_members(const catalog *cat,
    const catalog_event *ev, size_t *len);

/* An event's end, or CATALOG_NO_END. */
uint64_t catalog_event_end(const catalog *cat, const catalog_event *ev);

/*
 * Adds a copy of event k of src (with its extra) to cat, with its time
 * (and end) moved by delta and its entity and target named anew (target
 * NULL: none).
 */
void catalog_copy_event(catalog *cat, const catalog *src, size_t k,
    int64_t delta, const char *entity, size_t entity_len,
    const char *target, size_t target_len);

/*
 * A new catalog with everything of src but its states (entities in the same
 * order, descriptions, tags with the same ids, events, metadata).  The
 * caller sets the states; tags keep their old state values until the
 * caller maps them.
 */
catalog *catalog_copy_without_states(const catalog *src);

/* The same without entities (nor descriptions). */
catalog *catalog_copy_header(const catalog *src);

/*
 * Takes over states (n of them, indexed by value, with names all
 * different), freeing any before, and indexes their names, so that
 * catalog_state_by_name takes O(1) even for the largest traces.
 */
void catalog_set_states(catalog *cat, catalog_state *states, uint32_t n);

/*
 * Indexes the names of the states already in cat->states, as above.
 * Returns 0, or -1 if two states have one name (the index is then
 * incomplete: the catalog is not to be used).
 */
int catalog_index_states(catalog *cat);

/* A copy of src's states array (src->nstates of them), owned by caller. */
catalog_state *catalog_copy_states(const catalog *src);

/*
 * Whether two catalogs have the same states: the same names with the same
 * values and colours (as drawn: "#ff0000" and "red" are one colour).  So
 * stacked statemaps share a legend, and may be sorted by a state.
 */
int catalog_same_states(const catalog *a, const catalog *b);

/* The state value with this name (len bytes), or -1. */
int64_t catalog_state_by_name(const catalog *cat, const char *name,
    size_t len);

/*
 * Gives a colour to every state without one, counting such states in
 * value order, so the same input always gives the same picture.
 */
void catalog_assign_colors(catalog *cat);

/*
 * The attribute tree of the entity names (tree.h), made on the first
 * call and again if entities were added since (which frees the one
 * before).  Not for two threads at once, and it cannot be called so:
 * its one caller is t:children (lua_tree.c), which runs on the
 * script's thread, the only one that runs Lua (script.c makes one
 * state; the server's threads (server.c) read entity names but call no
 * Lua and never this; the parsing threads (chunks.c) and the watchdog
 * neither).  A caller on another thread would need a lock here.
 */
const struct tree *catalog_tree(catalog *cat);

#endif
