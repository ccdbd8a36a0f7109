/*
 * valuerects.h: the coalescer of value entities (value.h): their
 * transitions merged into about `budget` rectangles by the rule
 * coalesce.h describes for states (the lightest rectangle, weighed with
 * its neighbours, merges into the shorter neighbour, ties to the right
 * one), each rectangle carrying what the values it covers were instead
 * of time per state:
 *
 *  - min, max and the time-weighted mean of its numbers (the time with
 *    a number: numtime; none when 0);
 *  - the time in each string it covers (ascending string id);
 *  - the rest of its duration had no value (null).
 *
 * The classic command streams (classic.h): this needs no store either,
 * memory is bounded by entities, rectangles and distinct strings per
 * rectangle.  Bounds (begin, end) and the final rectangles behave as
 * coalesce.h says; the budget is its own, counted over value
 * rectangles only.  A zero-length rectangle (two values at one time)
 * takes part in merging and carries nothing.
 *
 * Ownership: the coalescer owns its rectangles; a valuerects_rect's
 * pointers are valid until the next call that changes it.
 */
#ifndef SM_VALUERECTS_H
#define SM_VALUERECTS_H

#include <stddef.h>
#include <stdint.h>

#include "store/value.h"

#define VALUERECTS_NONE	UINT32_MAX

typedef struct valuerects valuerects;

typedef struct valuerects_string {
	uint32_t id;		/* in catalog.value_strings */
	uint64_t time;		/* ns with that string */
} valuerects_string;

typedef struct valuerects_rect {
	uint64_t start, duration;
	uint64_t count;		/* intervals with time it stands for */
	uint64_t numtime;	/* ns with a number */
	double min, max, mean;	/* of those numbers (if numtime > 0) */
	int ints;		/* an integer entity's: min and max exact in */
	int64_t imin, imax;	/* these (value.h) */
	const valuerects_string *strings; /* ascending id */
	size_t nstrings;
} valuerects_rect;

valuerects *valuerects_new(uint64_t budget, int64_t begin, int64_t end);
void valuerects_free(valuerects *v);

/*
 * A value of an entity (ids as the catalog's), in file order; ints: the
 * entity's words are integers (value.h), the same for all its values.
 */
void valuerects_datum(valuerects *v, uint32_t entity, uint64_t time,
    sm_value value, int ints);

/*
 * Closes every open value up to last_time or the end bound (coalesce.h);
 * then no more data, and the rectangles are numbered entity by entity.
 */
void valuerects_finish(valuerects *v, uint64_t last_time);

/*
 * Rectangles in the set (the budget counts these); after the finish, in
 * the set when it came.
 */
uint64_t valuerects_size(const valuerects *v);

/* Whether the entity had a value within the end bound. */
int valuerects_seen(const valuerects *v, uint32_t entity);

/* An entity's rectangles in time order: first, then next. */
uint32_t valuerects_first(const valuerects *v, uint32_t entity);
uint32_t valuerects_next(const valuerects *v, uint32_t rect);
void valuerects_get(const valuerects *v, uint32_t rect,
    valuerects_rect *out);

/* Over every rectangle of an entity: its numbers' min and max; 0 if none. */
int valuerects_range(const valuerects *v, uint32_t entity, double *min,
    double *max);

#endif
