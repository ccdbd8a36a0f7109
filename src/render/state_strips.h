/*
 * state_strips.h: the strips of a panel's entities (private to render/,
 * but for render_strip, which tests use too).
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

/*
 * The strip of one entity over [t0, t1) at `width` pixels: out[x] is the
 * blend of the states in column x (each state's colour weighted by its
 * time there); covered[x] is the fraction of the column with any state
 * (0 to 1), so callers can blend with a background.  work must hold
 * width * nstates doubles.
 */
void render_strip(const trace *d, uint32_t entity, uint64_t t0,
    uint64_t t1, unsigned width, color *out, double *covered, double *work);

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
