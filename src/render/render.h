/*
 * render.h: pictures of loaded traces, drawn with Cairo as PNG, SVG or
 * PDF: a title and the span drawn, a time axis labelled with times since
 * the trace's start, one strip per entity with its label (label.h),
 * hatched where there is no data, event markers, and a legend with each
 * state's total time over the panels that share it.
 *
 * PNG strips are pixel-exact, not coalesced: each pixel column of each
 * strip is the time-weighted blend of the states inside that column's
 * span, computed in one pass over the entity's intervals.  Vector output
 * (SVG, PDF) draws the rectangles of the same coalescing as the classic
 * command line, to a rectangle budget, so files stay small.
 *
 * A value entity's strip (RENDER_VALUE_ROWS rows tall) is a step graph
 * of its numbers, scaled to their min and max over the span (from 0
 * when they are all of one sign), each pixel column from the summary
 * (store_value_stats): the band from the column's min to its max in a
 * light shade, filled from 0 (or the scale's nearer end) to its mean in
 * a dark one; the range is written under its name.  String values are
 * runs of generated colours, one per string, written on them where they
 * fit; no value is the hatch.  A
 * nested entity with nested_rows is one sub-row per depth.  These are
 * drawn by pixel column in vector output too, in runs of one colour or
 * one value, so files stay small.
 *
 * Ownership: the caller owns the traces and arrays it passes.
 */
#ifndef SM_RENDER_H
#define SM_RENDER_H

#include <stddef.h>

#include "base/error.h"
#include "render/options.h"

/* Where things landed, for callers that annotate or test a picture. */
typedef struct render_layout {
	unsigned width, height;
	unsigned strip_x, strip_width;	/* the time span's pixels */
	unsigned *panel_y;		/* npanels entries, or NULL */
	/*
	 * Or NULL: per panel, per entity in the order given, the top and
	 * height of its strip (all its sub-rows), in pixels.
	 */
	unsigned **entity_y, **entity_h;
	/* Or NULL: per panel, how its events were drawn (options.h). */
	render_thinning *thinning;
	/*
	 * With want_labels: every row label and group header drawn, its
	 * ink's box by Cairo's text extents and the row it labels, in a
	 * malloc'd array the caller frees (NULL if none).
	 */
	int want_labels;
	render_label_box *labels;
	size_t nlabels;
} render_layout;

/*
 * Draws the panels stacked top to bottom into path, in the format its
 * extension names, atomically (a failure leaves nothing at path).
 * layout may be NULL.  Returns 0, or -1 with err filled.
 */
int render_file(const char *path, const render_options *o,
    const render_panel *panels, size_t npanels, render_layout *layout,
    sm_error *err);

#endif
