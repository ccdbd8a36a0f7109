/*
 * coalesce_rects.h: the rectangles' arrays (private to the coalescer's files; coalesce_state.h
 * says which does what).
 */
#ifndef SM_COALESCE_RECTS_H
#define SM_COALESCE_RECTS_H

#include <stdint.h>

#include "coalesce/coalesce_state.h"

/* A new rectangle's index (its links and times to be set), not in the set. */
uint32_t coalesce_rects_alloc(coalesce *c);

/*
 * Moves the times per state from the dense arrays to state logs
 * (coalesce_state.h), when the dense words would pass DENSE_WORDS.
 */
void coalesce_rects_undense(coalesce *c);

/*
 * Compacts an entity's tag log (taglog.h), or with states its state log,
 * its rectangles' ranges first to last, with the sorter given.
 */
void coalesce_rects_compact(coalesce *c, uint32_t id, int states,
    taglog_sorter *sorter);

/*
 * At the end: the rectangles renumbered in the order readers walk them,
 * their totals turned into times and counts; then (with tags, or states
 * in logs) every log settled; then every rectangle's states with time
 * made what readers read (coalesce_state.h's pairs).
 */
void coalesce_rects_renumber(coalesce *c);
void coalesce_rects_settle_logs(coalesce *c);
void coalesce_rects_pairs(coalesce *c);

#endif
