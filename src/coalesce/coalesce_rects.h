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
 * Compacts an entity's tag log (taglog.h), its rectangles' ranges first
 * to last, with the sorter given.
 */
void coalesce_rects_compact_tags(coalesce *c, uint32_t id,
    taglog_sorter *sorter);

/*
 * At the end: the rectangles renumbered in the order readers walk them,
 * their totals turned into times; then (with tags) every log settled.
 */
void coalesce_rects_renumber(coalesce *c);
void coalesce_rects_settle_logs(coalesce *c);

#endif
