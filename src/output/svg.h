/*
 * svg.h: the classic statemap as one self-contained SVG file.
 *
 * The picture is complete without scripting: title, time axis with
 * human units, legend, and per entity a strip of rectangles coloured by
 * state (or by the time-weighted blend of a coalesced rectangle's
 * states), with the entity's name and description as a tooltip.  The
 * same document as `-T json` is embedded (as inert JSON in a CDATA
 * section, every string escaped) along with the viewer's script and style
 * sheet (viewer.h), so the interactive viewer needs nothing else.  For
 * it, the root element's data-span is the time (ns) the strips' width
 * stands for, and each statemap's <svg> is statemap-I, its strips
 * statemap-I-entity-E, its names statemap-labels-I.
 *
 * Every string from a trace is escaped for where it lands: XML text,
 * attribute, or JSON inside CDATA.
 */
#ifndef SM_SVG_H
#define SM_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "coalesce/smap.h"
#include "output/label.h"

/* The original tool's sizes, which a drop-in keeps. */
#define SVG_STRIP_HEIGHT	10
#define SVG_STRIP_WIDTH		862

typedef struct svg_options {
	unsigned strip_height;	/* pixels per entity (-h) */
	unsigned strip_width;	/* pixels for the time span */
	/*
	 * How entities are labelled (label.h): name, description, or both.
	 * The names column grows (up to 260 pixels) for long labels and
	 * cuts longer ones.
	 */
	label_mode labels;
	/*
	 * The detail block (detail.h), JSON text written after the data
	 * block as id "statemap-detail"; NULL: none.  detail_exact marks the
	 * root element data-detail="exact" (every rectangle is one
	 * transition) instead.
	 */
	const char *detail;
	size_t detail_len;
	int detail_exact;
} svg_options;

/* The defaults: SVG_STRIP_HEIGHT, SVG_STRIP_WIDTH, LABEL_BOTH, no detail. */
void svg_defaults(svg_options *opts);

/*
 * The time span (ns, at least 1) the strips' width stands for, shared by
 * stacked statemaps: maps[0]'s window, to its end bound if that is later
 * than its data (the root element's data-span).
 */
uint64_t svg_span(const smap *m);

/* order[i] is the index in maps of the i-th statemap, top to bottom. */
void svg_write(FILE *out, const smap *maps, size_t n, const size_t *order,
    const svg_options *opts);

#endif
