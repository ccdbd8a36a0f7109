/*
 * render.h: pixel-exact pictures of loaded traces, drawn with Cairo.
 *
 * No coalescing: each pixel column of each entity's strip shows the
 * time-weighted blend of the states inside that column's time span,
 * computed in one pass over the entity's intervals.
 *
 * Ownership: the caller owns the datasets and arrays it passes.
 */
#ifndef SM_RENDER_H
#define SM_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "color.h"
#include "dataset.h"
#include "error.h"

/*
 * The strip of one entity over [t0, t1) at `width` pixels: out[x] is the
 * blend of the states in column x (each state's colour weighted by its
 * time there); covered[x] is the fraction of the column with any state
 * (0 to 1), so callers can blend with a background.  work must hold
 * width * nstates doubles.
 */
void render_strip(const dataset *d, uint32_t entity, uint64_t t0,
    uint64_t t1, unsigned width, color *out, double *covered, double *work);

typedef struct render_panel {
	const dataset *d;
	const uint32_t *entities;	/* in display order */
	uint32_t nentities;
} render_panel;

typedef struct render_options {
	const char *title;		/* NULL: the first trace's title */
	unsigned width;			/* of the whole picture, pixels */
	unsigned row_height;		/* pixels per entity */
	uint64_t t0, t1;		/* the time span: [t0, t1) */
} render_options;

/* Draws the panels stacked and writes a PNG to path (atomically). */
int render_png(const char *path, const render_options *opts,
    const render_panel *panels, size_t npanels, sm_error *err);

#endif
