/*
 * legend.h: the legend (private to render/): each state's swatch, name
 * and time over the span, wrapped to the width, and the hatch of "no
 * data" when some strip shows it.
 */
#ifndef SM_RENDER_LEGEND_H
#define SM_RENDER_LEGEND_H

#include <stddef.h>

#include "render/canvas.h"

/* Whether any of p's strips shows no data over the span. */
int legend_has_nodata(const render_options *o, const render_panel *p);

/*
 * The legend of panels [first, end), which share their states, at y
 * (key: with the hatch's); returns its height.  The time per state is
 * kept in c for the second pass.
 */
unsigned legend_draw(canvas *c, const render_panel *panels, size_t first,
    size_t end, int key, unsigned y);

#endif
