/*
 * contrast.h: states' colours as a picture draws them (private to
 * render/): a state whose colour is too close to the background, or to
 * an earlier state's as drawn (color_distance below COLOR_TOO_CLOSE), is
 * moved toward the foreground (darker on a light page) in small steps
 * until it separates, so its hue stays: #f9f9f9 and #f0f0f0 on white
 * become two greys told apart from each other and from the page, in the
 * strips and the legend alike.  States are taken in value order, up to
 * CONTRAST_STATES of them; the rest are drawn as given.
 *
 * A panel whose colours all separate draws its trace as it is; else a
 * copy of the trace and catalog (sharing everything but the states'
 * array) with the colours changed: the caller's trace is never touched.
 *
 * Ownership: a contrast owns the copies (contrast_free); they refer to
 * the panels' traces, which must outlive it.
 */
#ifndef SM_RENDER_CONTRAST_H
#define SM_RENDER_CONTRAST_H

#include <stddef.h>

#include "render/options.h"

#define CONTRAST_STATES	512

typedef struct contrast {
	trace **traces;		/* the copies made */
	catalog **cats;
	catalog_state **states;
	size_t n;
} contrast;

/* Points each of the n panels at its trace as drawn (o's colours). */
void contrast_apply(const render_options *o, render_panel *panels,
    size_t n, contrast *keep);

void contrast_free(contrast *keep);

#endif
