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

/*
 * How many of a panel's events and messages are in its span on shown
 * rows, and the step they are drawn at (1: every one; N: every Nth, in
 * time order).  A marker takes EVENTS_SPACING pixels of its row: more
 * than a row's width holds, counted over the rows that have any, are
 * thinned to fit; the same for the arrows' ends.
 */
#define EVENTS_SPACING	4

/* Counts panel p's events and messages into *t (with p->events' rule). */
void events_measure(canvas *c, const render_panel *p, render_thinning *t);

/*
 * The note under a panel whose events were thinned, "1 in 4 of 12,345
 * events drawn" (and its messages), into buf; 0 if none is needed.
 */
int events_note(const render_thinning *t, char *buf, size_t size);

/* Panel p's event markers, its strips from y0. */
void events_draw(canvas *c, const render_panel *p, unsigned y0);

/* Panel p's messages between its own entities. */
void events_draw_messages(canvas *c, const render_panel *p, unsigned y0);

/* Messages between the n panels, whose strips start at ys[i]. */
void events_draw_cross_messages(canvas *c, const render_panel *panels,
    size_t n, const unsigned *ys);

#endif
