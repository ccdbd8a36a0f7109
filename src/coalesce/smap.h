/*
 * smap.h: a coalesced statemap ready to be written: one trace's metadata,
 * its rectangles, its bounds and the order its entities are shown in.
 *
 * The command line builds one per input file; the writers (svg.h,
 * jsonout.h) take an array of them, stacked top to bottom.
 *
 * Ownership: an smap owns its catalog, coalescer and order array.
 */
#ifndef SM_SMAP_H
#define SM_SMAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "coalesce/coalesce.h"
#include "store/catalog.h"
#include "trace/trace.h"

typedef struct smap {
	catalog *cat;
	coalesce *co;		/* NULL if the file had no data */
	int64_t begin;		/* bounds, ns relative to the metadata start */
	uint64_t end;		/* where the final rectangles end */
	int64_t end_bound;	/* the end asked for (0: none) */
	uint32_t *order;	/* entity ids in display order */
	uint32_t nentities;
	const char *stopped;	/* smap_from_trace gave up: why (runlimit.h) */
	/*
	 * The classic command's value entities and nested entities' depth
	 * rows (valuerects.h, depthrows.h); NULL elsewhere.
	 */
	struct valuerects *values;
	struct depthrows *depths;
} smap;

void smap_free(smap *m);

/*
 * Fills m with a statemap of a loaded trace: the entities in `entities`
 * (n ids, in display order) over [t0, t1), their transitions fed to a
 * coalescer of about `budget` rectangles in time order (ties in display
 * order).  For a file whose records are in time order that is the order
 * the command line reads them in, so the rectangles are the same.
 * Entities without a transition before t1 are left out, as the command
 * line leaves them out.  m gets its own copy of the trace's names.
 * A script's limits (runlimit.h) can stop it early: m->stopped then says
 * why, and m holds only the transitions fed so far.
 */
void smap_from_trace(smap *m, const trace *d, const uint32_t *entities,
    uint32_t n, uint64_t budget, uint64_t t0, uint64_t t1);

/*
 * Orders the entities: by descending time in the named state, ties in
 * natural name order; or (state NULL or "entity") in natural name order.
 * Returns 0, or -1 with err if there is no such state.
 */
int smap_sort(smap *m, const char *state, sm_error *err);

/*
 * The display order smap_sort uses, for any entities: those flagged in
 * shown (catalog_nentities flags) go into order (room for as many),
 * by descending time[e] if time is not NULL, ties (all of them when time
 * is NULL) in natural name order.  Returns how many.
 */
uint32_t smap_order(const catalog *cat, const unsigned char *shown,
    const uint64_t *time, uint32_t *order);

/*
 * Orders stacked statemaps by descending total time in a state; they must
 * all have the same states.  order[] receives indices into maps.
 */
int smap_stack_sort(const smap *maps, size_t n, const char *state,
    size_t *order, sm_error *err);

/*
 * The parts of smap_stack_sort, for stacks kept elsewhere (the server's):
 * the index of state, which every map must have alike (-1 and err if
 * not), and the order of n weights, heaviest first, ties in index order.
 */
int64_t smap_stack_state(const smap *maps, size_t n, const char *state,
    sm_error *err);
void smap_order_by_weight(const uint64_t *weight, size_t n, size_t *order);

/*
 * The overall title, by the reference's rules: a first title containing
 * "statemap" is used as it is; otherwise "Statemap of T activity on H",
 * listing the titles and hosts of stacked files with an Oxford comma.
 * Returns a malloc'd string.
 */
char *smap_title(const smap *maps, size_t n);

/* Total time in a state over all of a statemap's rectangles. */
uint64_t smap_state_time(const smap *m, uint32_t state);

/*
 * The same for every state at once, in times (an entry per state of
 * the catalog), in one pass over the rectangles: for the legend, where
 * a pass per state cost the states times the rectangles.
 */
void smap_state_times(const smap *m, uint64_t *times);

#endif
