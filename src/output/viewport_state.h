/*
 * viewport_state.h: the answer's state, private to the files of the
 * viewport, whose contract is viewport.h (each part's functions are in
 * its own header: viewport_job.h, viewport_kinds.h):
 *
 *   viewport.c        the query: panels placed, transitions counted, the
 *                     budget shared, jobs made and run; the answer read
 *                     and made statemaps
 *   viewport_job.c    what a job answers: its entities' rectangles, each
 *                     interval its own (exact) or merged by column
 *                     (binned)
 *   viewport_kinds.c  a panel's value entities and depth rows, by the
 *                     classic command's coalescers
 *   viewport_json.c   the answer as the -T json document, in pieces
 *
 * The answer's panels, jobs and rectangles, and what several of them
 * read (inline, calling none of the parts).  It does not include viewport.h: a panel keeps its
 * trace beside the viewport_panel it was made from, so the files under
 * viewport.c read it without viewport.h, and viewport.c calls them
 * without a circle.
 */
#ifndef SM_VIEWPORT_STATE_H
#define SM_VIEWPORT_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "coalesce/depthrows.h"
#include "coalesce/valuerects.h"
#include "output/jsonout.h"
#include "trace/trace.h"

/* A rectangle of the answer; its states and tags are in its job's pools. */
typedef struct vrect {
	uint64_t start, duration, count;
	size_t states;		/* first entry of the state pool */
	size_t tags;		/* first entry of the tag pool */
	uint32_t nstates, ntags;
} vrect;

/* A panel as this query sees it. */
typedef struct vpanel {
	const struct viewport_panel *p;
	const trace *t;		/* p->t, for files without viewport.h */
	int64_t begin, end;	/* the window in this trace's own time */
	uint64_t lo, hi;	/* clipped to the trace's window; empty if lo >= hi */
	uint64_t end_field;	/* "end" in the document */
	uint32_t *ids;		/* the entities shown (the query's regex) */
	uint64_t *counts;	/* transitions of each inside the window */
	size_t *first;		/* index of the first of each */
	uint32_t n;
	uint64_t *edges;	/* columns + 1 column edges, for binning */
	unsigned columns;
	valuerects *values;	/* its value entities over the window */
	depthrows *depths;	/* its nested entities' depth rows */
} vpanel;

/* A run of one panel's entities, answered on one thread. */
typedef struct job {
	const struct viewport *v;
	const vpanel *vp;
	uint32_t from, to;	/* entities [from, to) of the panel */
	vrect *rects;
	size_t nrects, rects_cap;
	size_t *entity_rects;	/* rects of entity from + k start at [k] */
	uint32_t *pool_state;
	uint64_t *pool_time;
	size_t npool, pool_cap;
	coalesce_tag *pool_tag;
	size_t ntag, tag_cap;
	char *json;		/* viewport_write_json's text for these */
	size_t json_len;
} job;

struct viewport {
	vpanel *panels;
	size_t n;
	uint64_t transitions, rects;
	uint64_t cap;		/* entities with at most this many are exact */
	int exact;
	unsigned width;		/* the query's */
	job *jobs;
	size_t njobs;
};

/* ---- read by several files ---- */

/*
 * The intervals of an entity that overlap [lo, hi): from *first (the one
 * holding lo, or the first) for the returned count.
 */
static inline uint64_t
window_count(const store *st, uint32_t e, uint64_t lo, uint64_t hi,
    size_t *first)
{
	const uint64_t *times = store_times(st, e);
	size_t count = store_count(st, e), a, b;

	*first = 0;
	if (count == 0 || lo >= hi)
		return (0);
	a = store_count_through(times, count, lo);
	a = a > 0 ? a - 1 : 0;
	b = store_count_before(times, count, hi);
	*first = a;
	return (b > a ? b - a : 0);
}

/* A rectangle's tags (NULL when it has none: the pool may be empty). */
static inline const coalesce_tag *
rect_tags(const job *j, const vrect *x)
{
	return (x->ntags > 0 ? j->pool_tag + x->tags : NULL);
}

/*
 * A rectangle as the -T json writer takes it, its arrays in the job's
 * pools.
 */
static inline jsonout_rect
rect_for_json(const job *j, const vrect *x)
{
	jsonout_rect jr;

	jr.start = x->start;
	jr.duration = x->duration;
	jr.states = j->pool_state + x->states;
	jr.times = j->pool_time + x->states;
	jr.nstates = x->nstates;
	jr.tags = rect_tags(j, x);
	jr.ntags = x->ntags;
	jr.count = x->count;
	return (jr);
}

#endif
