/*
 * viewport.h: what a window of loaded traces looks like at a given width:
 * the answer of the live server (server.h) for each view of a statemap.
 *
 * A query names a window [begin, end) in ns since the first trace's
 * metadata start (stacked traces convert it through their own start, as
 * the classic command does), a width in pixel columns and a budget of
 * rectangles.  Everything is read straight from the stores, in time
 * proportional to the transitions inside the window, on all cores.
 *
 * - Exact: when the window holds no more transitions than the budget,
 *   every transition is a rectangle of its own, clipped to the window:
 *   the rectangles of `statemap-lua -T json -b BEGIN -e END -c LARGE`
 *   (tests/unit/test_viewport.c checks them against the coalescer).
 * - Binned: otherwise each entity gets its share of the budget.  An
 *   entity with no more transitions than the largest share that keeps
 *   the total within the budget is still exact; the window of each other
 *   entity is cut into C equal columns (C the budget left over, shared
 *   among them, at most the width): an interval that covers a whole
 *   column stays a rectangle of its own, with its own edges, and the
 *   intervals between such ones are merged column by column into
 *   rectangles holding the time of each state and tag (merged
 *   neighbours in one state become one).  Time per state and per tag is
 *   kept exactly, so an entity's rectangles add up to store_time_in over
 *   the window.  The rectangle count is about the budget, at most about
 *   twice it (a column can hold a merged rectangle and the start of a
 *   long interval), and at least one per entity.
 *
 * Each rectangle knows how many transitions (intervals with time) it
 * stands for: 1 is exact, more is merged.
 *
 * Value entities and nested entities' depth rows (the generic state
 * system, store.h) are coalesced over the window by the classic
 * command's coalescers (valuerects.h, depthrows.h) fed from the store,
 * with a budget of `width` rectangles per value entity and per nested
 * entity's depth rows, and written as kindjson.h writes them (value
 * rectangles with "n" too); they are in the JSON and in the statemaps
 * for the writers, not in viewport_entity_rects, and not counted in
 * viewport_transitions or viewport_rects.
 */
#ifndef SM_VIEWPORT_H
#define SM_VIEWPORT_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "coalesce/depthrows.h"
#include "coalesce/smap.h"
#include "coalesce/valuerects.h"
#include "output/jsonout.h"
#include "trace/trace.h"

/* One trace as shown: its entities, top to bottom. */
typedef struct viewport_panel {
	const trace *t;
	const uint32_t *order;	/* entity ids, in display order */
	uint32_t n;
	int64_t offset;		/* its metadata start minus the first's, ns */
	/* The trace's matched messages (jsonout.h), made once by the
	 * panel's owner; NULL: found again for each answer. */
	const jsonout_received *received;
} viewport_panel;

typedef struct viewport_query {
	uint64_t begin, end;	/* the window, begin < end */
	unsigned width;		/* pixel columns, at least 1 */
	uint64_t budget;	/* rectangles, at least 1 */
	const regex_t *entities; /* only entities whose names match; NULL: all */
} viewport_query;

typedef struct viewport viewport;

/* The answer for panels (n of them, top to bottom); they must outlive it. */
viewport *viewport_compute(const viewport_panel *panels, size_t n,
    const viewport_query *q);
void viewport_free(viewport *v);

/* Transitions (intervals) inside the window, over every entity shown. */
uint64_t viewport_transitions(const viewport *v);
/* Rectangles in the answer. */
uint64_t viewport_rects(const viewport *v);
/* Whether every rectangle is one transition. */
int viewport_exact(const viewport *v);

/*
 * The answer as the -T json document (jsonout.h), each rectangle with
 * "n", the transitions it stands for; members (NULL: none) are written
 * after "statemaps" (jsonout_close).
 */
void viewport_write_json(FILE *out, viewport *v, const char *members);

/*
 * The same document in pieces to be sent one after another, so that the
 * whole is never copied together: *pieces (malloc'd) gets their number
 * of (text, length) pairs, each text malloc'd, all the caller's to free.
 * Call it once, instead of viewport_write_json.
 */
typedef struct viewport_piece {
	char *text;
	size_t len;
} viewport_piece;

size_t viewport_json_pieces(viewport *v, const char *members,
    viewport_piece **pieces);

/*
 * The answer as statemaps for the writers (svg.h): maps has room for one
 * per panel, in panel order, each to be freed with smap_free.
 */
void viewport_to_smaps(const viewport *v, smap *maps);

/* How many entities panel i shows (its order, less the query's regex). */
uint32_t viewport_panel_entities(const viewport *v, size_t panel);

/*
 * Calls fn for each rectangle of the k-th entity shown in panel i, in
 * time order, as the JSON writer sees it (jsonout.h: start in the
 * panel's own time, states, tags and count).  The rectangle's arrays are
 * valid during the call only.
 */
void viewport_entity_rects(const viewport *v, size_t panel, uint32_t k,
    jsonout_rect_fn fn, void *ctx);

/*
 * The k-th entity shown in panel i: its id in the panel's trace, and
 * the value rectangles and depth rows the answer has for the panel's
 * value and nested entities (NULL for a panel of plain entities only),
 * for a writer of its own (detail.h's windows).
 */
uint32_t viewport_entity_id(const viewport *v, size_t panel, uint32_t k);
const valuerects *viewport_values(const viewport *v, size_t panel);
const depthrows *viewport_depths(const viewport *v, size_t panel);

#endif
