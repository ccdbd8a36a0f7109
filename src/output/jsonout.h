/*
 * jsonout.h: the pieces of the -T json document (smap_json.h writes it
 * whole), for other programs:
 *
 *   {"statemaps": [ {"title", "host", "entityKind", "start": [s, ns],
 *     "begin", "end", "states": [...], "tags": [...],
 *     "entities": [ {"name", "description", "rects": [
 *       {"start", "duration", "states": {name: ns}, "tags": {id: ns}} ]} ],
 *     "events": [ {"time", "entity", "event", "target"
 *                  [, "id"] [, "end"] [, "members": {...}]
 *                  [, "received": [ {"entity", "time"} ]]} ],
 *     "events_omitted"} ]}
 *
 * Statemaps in the given order, entities in display order, rectangles in
 * time order; times in ns relative to each file's metadata start; a
 * rectangle lists only the states and tags it has time in.  Zero-length
 * rectangles (two data at one time) are left out.  statemap-lua(1) documents
 * every field.  At most JSONOUT_MAX_EVENTS events inside the window are
 * written per statemap (in file order); "events_omitted" counts the rest.
 * A send with an "id" has "received" if receives were matched with it
 * (flows.h, as render draws them): each one's entity and time.
 */
#ifndef SM_JSONOUT_H
#define SM_JSONOUT_H

#include <stddef.h>
#include <stdio.h>

#include "coalesce/smap.h"

#define JSONOUT_MAX_EVENTS	5000

/*
 * The document piece by piece: smap_json.h writes coalesced statemaps
 * with these, and writers whose rectangles come from elsewhere
 * (viewport.h, detail.h) use them too, so the same statemap gives the
 * same bytes either way.  `first` says whether the
 * piece is the first of its list (no comma before it).
 *
 *   jsonout_open
 *     jsonout_statemap_open            for each statemap
 *       jsonout_entity_open            for each entity
 *         jsonout_rect                 for each rectangle with time
 *       jsonout_entity_close
 *     jsonout_statemap_close
 *   jsonout_close
 */
typedef struct jsonout_rect {
	uint64_t start, duration;
	const uint32_t *states;	/* the states it has time in, ascending */
	const uint64_t *times;	/* ns in each of them */
	size_t nstates;
	const coalesce_tag *tags; /* ascending tag id */
	size_t ntags;
	uint64_t count;		/* transitions it stands for ("n"); 0: none */
} jsonout_rect;

void jsonout_open(FILE *out);
void jsonout_statemap_open(FILE *out, const catalog *cat, int64_t begin,
    uint64_t end, int first);
/* kind: NULL for a plain entity, else written as its "kind" member. */
void jsonout_entity_open(FILE *out, const catalog *cat, uint32_t entity,
    int first, const char *kind);
/*
 * Rectangles are written many at a time: names holds the catalog's state
 * names, each already written as JSON, so that a rectangle is formatted
 * in memory and written at once.
 */
typedef struct jsonout_names jsonout_names;
/*
 * with_tag_keys: also the key of each of cat's tags, written whole, for a
 * caller that writes many rectangles (a whole statemap, the SVG's detail
 * windows); a live request's window, which may name few of a trace's
 * many tags, formats its own instead of paying for every tag.
 */
jsonout_names *jsonout_names_new(const catalog *cat, int with_tag_keys);
void jsonout_names_free(jsonout_names *names);
void jsonout_rect_write(FILE *out, const jsonout_names *names,
    const jsonout_rect *r, int first);
/*
 * The rectangles of one coalescer row, with their time in states below
 * nstates (ids and times: scratch of one entry per state); those of no
 * duration are left out, and those with no time in any of those states
 * too if skip_stateless (a depth row's absent time).
 * jsonout_row_each gives each to fn instead of writing it (its arrays
 * valid during the call only).
 */
void jsonout_row_rects(FILE *out, const jsonout_names *names,
    const coalesce *co, uint32_t row, uint32_t nstates, uint32_t *ids,
    uint64_t *times, int skip_stateless);
typedef void (*jsonout_rect_fn)(void *ctx, const jsonout_rect *r);
void jsonout_row_each(const coalesce *co, uint32_t row, uint32_t nstates,
    uint32_t *ids, uint64_t *times, int skip_stateless, jsonout_rect_fn fn,
    void *ctx);
void jsonout_entity_close(FILE *out);
/*
 * The receives matched with each send of a catalog's message events
 * (flows.h), which every statemap's "events" give each send: finding
 * them is a match of all of the trace's messages, whatever the window.
 * A caller that writes many windows of a catalog that does not change
 * (the live server) makes them once; jsonout_statemap_close finds them
 * itself given NULL.
 */
typedef struct jsonout_received jsonout_received;
jsonout_received *jsonout_received_new(const catalog *cat);
void jsonout_received_free(jsonout_received *received);
/*
 * Writes the events in the window (see above) and closes the statemap;
 * received: cat's, or NULL.
 */
void jsonout_statemap_close(FILE *out, const catalog *cat, int64_t begin,
    uint64_t end, int64_t end_bound, const jsonout_received *received);
/* members (NULL: none) are more members of the top object, after
 * "statemaps", as JSON text: "\"live\": {...}". */
void jsonout_close(FILE *out, const char *members);

#endif
