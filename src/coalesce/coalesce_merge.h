/*
 * coalesce_merge.h: a datum's rectangle made or merged, and the lightest merged (private to the coalescer's files; coalesce_state.h
 * says which does what).
 */
#ifndef SM_COALESCE_MERGE_H
#define SM_COALESCE_MERGE_H

#include <stdint.h>

#include "coalesce/coalesce_state.h"

/*
 * Closes the entity's open state, up to end, as its newest rectangle
 * (merged on arrival into the one before it when that changes nothing);
 * a final one (at the end) takes no part in merging.
 */
void coalesce_merge_append(coalesce *c, uint32_t id, uint64_t end, int final);

/*
 * Takes the lightest rectangle out of the set, merged with a neighbour
 * if it has one.
 */
void coalesce_merge_trim(coalesce *c);

#endif
