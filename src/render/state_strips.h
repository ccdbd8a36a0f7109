/*
 * state_strips.h: the strips of a panel's entities (private to render/).
 * An image gets pixel-exact columns, written straight into its data on
 * all cores, each the time-weighted blend of the states in it (as
 * render_strip); vector output gets the coalesced rectangles (smap.h),
 * each its states' blend, over the hatch.  A nested entity drawn with
 * nested_rows is a sub-row per depth of its stack, by pixel column
 * either way; value entities' strips are value_strips.h's.
 */
#ifndef SM_RENDER_STATE_STRIPS_H
#define SM_RENDER_STATE_STRIPS_H

#include "render/canvas.h"

/* Panel p's strips from y0, straight into c's image surface. */
void state_strips_draw_pixels(canvas *c, const render_panel *p,
    unsigned y0);

/*
 * Panel p's strips from y0 on a vector surface; sets c->stopped if the
 * coalescing was stopped.
 */
void state_strips_draw_vector(canvas *c, const render_panel *p,
    unsigned y0);

#endif
