/*
 * axis.h: the time axis (private to render/): ticks at round times since
 * the trace's start, labelled as the viewer's axis labels them, with
 * faint grid lines down over the panels; and the span drawn, as the
 * viewer's span label says it.
 */
#ifndef SM_RENDER_AXIS_H
#define SM_RENDER_AXIS_H

#include <stddef.h>

#include "render/canvas.h"

/* The axis's height, in pixels. */
unsigned axis_height(const render_options *o);

/*
 * Draws the axis at y, its grid lines down to bottom (only in the
 * drawing pass); returns its height.
 */
unsigned axis_draw(canvas *c, unsigned y, unsigned bottom);

/* "from 1.000s, span 500.000ms", into buf of size bytes. */
void axis_span_text(const render_options *o, char *buf, size_t size);

#endif
