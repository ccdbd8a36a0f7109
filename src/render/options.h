/*
 * options.h: what a picture (render.h) is made of and how it is drawn:
 * its panels (a trace, the entities shown and in what order, how each is
 * drawn), its options (size, span, fonts, colours) and their defaults,
 * and the formats a file name may ask for.  The parts of render/ share
 * these; render.h draws them.
 */
#ifndef SM_RENDER_OPTIONS_H
#define SM_RENDER_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "base/color.h"
#include "output/label.h"
#include "trace/trace.h"

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
	int events;			/* RENDER_EVENTS_*: the trace's events */
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
	/*
	 * Left out of the shared legend's times and shares (a summary of
	 * other panels' entities, such as t:group's, would count their time
	 * twice); drawn all the same.
	 */
	int legend_skip;
} render_panel;

#define RENDER_GROUP_ALL	(-1)

/*
 * A panel's events and message arrows: none; thinned (the default):
 * every Nth where more are in the span than its pixels can show apart,
 * with a note under the panel saying so; or all of them.
 */
#define RENDER_EVENTS_NONE	0
#define RENDER_EVENTS_THINNED	1
#define RENDER_EVENTS_ALL	2

/*
 * How a panel's events and message arrows were drawn: how many are in
 * the span on shown rows, and the step (1: every one; N: every Nth in
 * time order, as render_panel's events thins them).
 */
/* A label's ink (x, y, width, height) and its row's top and height. */
typedef struct render_label_box {
	double x, y, width, height;
	double row_y, row_height;
	int header;		/* a group header's, not an entity's */
} render_label_box;

typedef struct render_thinning {
	uint64_t events, event_step;
	uint64_t messages, message_step;
} render_thinning;

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

#endif
