/*
 * svg_traces.h: the command line's interactive statemap (svg.h) of
 * loaded traces, as statemap.render{interactive = true} writes it: each
 * trace coalesced over a span (smap.h), in the entities' order given,
 * stacked top to bottom, with the detail block for zooming (detail.h)
 * made from the traces at hand.
 *
 * Ownership: the caller owns the traces and arrays it passes.
 */
#ifndef SM_SVG_TRACES_H
#define SM_SVG_TRACES_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "output/label.h"
#include "trace/trace.h"

/* One statemap of the file: a trace's entities, in display order. */
typedef struct svg_traces_map {
	const trace *d;
	const uint32_t *entities;
	uint32_t nentities;
} svg_traces_map;

typedef struct svg_traces_input {
	const svg_traces_map *maps;	/* top to bottom */
	size_t nmaps;
	uint64_t t0, t1;		/* the span: [t0, t1) */
	uint64_t budget;		/* rectangles per statemap */
	unsigned strip_width;		/* pixels for the span */
	unsigned strip_height;		/* pixels per entity */
	label_mode labels;
	/*
	 * Bytes of finer coalescings embedded for zooming (detail.h): 0 for
	 * none, DETAIL_AUTO as the command line's default.
	 */
	uint64_t detail;
} svg_traces_input;

/*
 * Writes the statemap to path, whatever its name, atomically (a failure
 * leaves nothing at path).  Returns 0, or -1 with err filled: for no
 * maps or an empty span, or if a script's limits stopped the coalescing.
 */
int svg_traces_write(const char *path, const svg_traces_input *in,
    sm_error *err);

#endif
