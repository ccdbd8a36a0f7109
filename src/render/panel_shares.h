/*
 * panel_shares.h: a panel's entities cut into runs of about equal work,
 * for threads_run (private to render/).  The work of an entity's strip,
 * or of its time per state, follows what it holds, and a trace's busy
 * entities can be side by side: half the entities of bench/shapes'
 * Pareto shape hold 94% of its transitions, so runs of as many entities
 * each left one thread with nearly all of it.
 */
#ifndef SM_RENDER_PANEL_SHARES_H
#define SM_RENDER_PANEL_SHARES_H

#include <stddef.h>
#include <stdint.h>

#include "render/options.h"

/* The most shares a panel is cut into. */
#define PANEL_SHARES_MAX	64

/*
 * How many shares to cut p into: a few for each thread, which take them
 * as they come free (threads_run) and so end close together; fewer for a
 * small panel, at least 16 entities to a share, and at least one.
 */
size_t panel_shares_count(const render_panel *p);

/*
 * Cuts p's entities into n runs (n from panel_shares_count) of about as
 * much work each: run i is entities [bounds[i], bounds[i + 1]) of the
 * panel's order, and bounds holds n + 1.  An entity weighs its
 * transitions and values, and one more.
 */
void panel_shares_cut(const render_panel *p, size_t n, uint32_t *bounds);

#endif
