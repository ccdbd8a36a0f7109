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
#include <stdint.h>

#include "base/color.h"
#include "trace/trace.h"
#include "base/error.h"
#include "output/label.h"

/*
 * The strip of one entity over [t0, t1) at `width` pixels: out[x] is the
 * blend of the states in column x (each state's colour weighted by its
 * time there); covered[x] is the fraction of the column with any state
 * (0 to 1), so callers can blend with a background.  work must hold
 * width * nstates doubles.
 */
void render_strip(const trace *d, uint32_t entity, uint64_t t0,
    uint64_t t1, unsigned width, color *out, double *covered, double *work);

typedef enum render_format {
	RENDER_PNG, RENDER_SVG, RENDER_PDF
} render_format;

/* The format named by a path's extension (.png, .svg, .pdf); -1 if none. */
int render_format_of(const char *path);

typedef struct render_panel {
	const trace *d;
	const uint32_t *entities;	/* in display order */
	uint32_t nentities;
	const char *title;		/* shown above the panel; may be NULL */
	unsigned row_height;		/* 0: the options' row height */
	int events;			/* draw the trace's events */
	/*
	 * Pictures only (the interactive statemap, svg_traces.h, has
	 * neither): nested_rows draws a nested entity as one sub-row per
	 * depth of its stack (a flame chart: the bottom state on top,
	 * deeper frames below, at most RENDER_MAX_DEPTH_ROWS), not its top
	 * state in one strip; group puts entities whose names are paths in a
	 * tree ("proc/12/t1" under "proc/12" under "proc"): each level a
	 * header row naming it (by the rest of its path under the level
	 * above, indented by depth), its entities and inner levels under
	 * it in the order of their first entity, each entity labelled by
	 * the rest of its name; a level with no entity of its own and one
	 * inner level is one header with it.  RENDER_GROUP_ALL groups by
	 * whole parent paths; a number N by the first N levels only
	 * (group 1: "proc" headers, "12/t1" labels); 0 not at all.
	 */
	int nested_rows;
	int group;
} render_panel;

#define RENDER_GROUP_ALL	(-1)

/* A nested entity's sub-rows stop at this depth (nested_rows). */
#define RENDER_MAX_DEPTH_ROWS	32
/* A value entity's strip is this many rows tall: room for its range. */
#define RENDER_VALUE_ROWS	2

/* The defaults, also statemap.defaults for Lua (lua/layout.lua). */
#define RENDER_WIDTH		1600
#define RENDER_ROW_HEIGHT	10
#define RENDER_MARGIN		10
#define RENDER_FONT		"sans-serif"
#define RENDER_FONT_SIZE	11

typedef struct render_options {
	label_mode labels;		/* entity labels (label.h) */
	const char *title;		/* NULL: the first trace's title */
	unsigned width;			/* of the whole picture, pixels */
	unsigned row_height;		/* pixels per entity */
	unsigned margin;		/* around everything, pixels */
	uint64_t t0, t1;		/* the time span: [t0, t1) */
	uint64_t budget;		/* rectangles, for vector output */
	const char *font;		/* a font family, e.g. "sans-serif" */
	double font_size;		/* of labels; titles are larger */
	color background;		/* of the picture */
	color foreground;		/* text, axis and markers */
	color empty;			/* under the no-data hatch */
	int legend;			/* draw the legend */
} render_options;

/*
 * Fills o with the defaults for a picture of d: RENDER_WIDTH wide,
 * RENDER_ROW_HEIGHT rows, all of d's window, COALESCE_BUDGET rectangles,
 * names and descriptions as labels, black on white, the hatch on white.
 */
void render_defaults(render_options *o, const trace *d);

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
