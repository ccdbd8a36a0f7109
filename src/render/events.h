/*
 * events.h: a panel's events (private to render/): markers on their
 * entities' strips, an arrow to a target shown, and messages (flows.h)
 * as slanted arrows from sender to receiver, within a panel and across
 * panels stacked (as the viewer joins stacked files).
 */
#ifndef SM_RENDER_EVENTS_H
#define SM_RENDER_EVENTS_H

#include <stddef.h>

#include "render/canvas.h"

/* Panel p's event markers, its strips from y0. */
void events_draw(canvas *c, const render_panel *p, unsigned y0);

/* Panel p's messages between its own entities. */
void events_draw_messages(canvas *c, const render_panel *p, unsigned y0);

/* Messages between the n panels, whose strips start at ys[i]. */
void events_draw_cross_messages(canvas *c, const render_panel *panels,
    size_t n, const unsigned *ys);

#endif
