/*
 * jsonout.h: coalesced statemaps as JSON, for other programs (-T json).
 *
 *   {"statemaps": [ {"title", "host", "entityKind", "start": [s, ns],
 *     "begin", "end", "states": [...], "tags": [...],
 *     "entities": [ {"name", "description", "rects": [
 *       {"start", "duration", "states": {name: ns}, "tags": {id: ns}} ]} ],
 *     "events": [ {"time", "entity", "event", "target"} ],
 *     "events_omitted"} ]}
 *
 * Statemaps in the given order, entities in display order, rectangles in
 * time order; times in ns relative to each file's metadata start; a
 * rectangle lists only the states and tags it has time in.  Zero-length
 * rectangles (two data at one time) are left out.  The README documents
 * every field.  At most JSONOUT_MAX_EVENTS events inside the window are
 * written per statemap (in file order); "events_omitted" counts the rest.
 */
#ifndef SM_JSONOUT_H
#define SM_JSONOUT_H

#include <stddef.h>
#include <stdio.h>

#include "smap.h"

#define JSONOUT_MAX_EVENTS	5000

/* order[i] is the index in maps of the i-th statemap to write. */
void jsonout_write(FILE *out, const smap *maps, size_t n,
    const size_t *order);

#endif
