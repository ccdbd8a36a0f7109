/*
 * canvas.h: what the files of render/ that draw share (private to
 * render/; render.h is the contract): the canvas, a Cairo surface with
 * the options and the panels' rows, measured in a first pass and drawn
 * in a second; text, cleaned for Cairo and measured; colours; the hatch
 * that marks no data; runs of per-column colours in vector output.
 *
 * Ownership: a canvas owns its scratch text, the panels as drawn with
 * their rows, and the legend's times (canvas_free); not its Cairo
 * context, surface or options.
 */
#ifndef SM_RENDER_CANVAS_H
#define SM_RENDER_CANVAS_H

#include <cairo.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/color.h"
#include "render/contrast.h"
#include "render/layout.h"
#include "render/options.h"

/* Between the labels' column and the strips, pixels. */
#define LABEL_GAP	6

/*
 * "No data" (before an entity's first state, outside the trace) is a
 * hatch, as in the interactive SVG: no solid state colour, white or
 * grey, can be taken for it, as the old plain #f0f0f0 could for the
 * converters' "sleeping" (#e8e8e8) and "sleep" (#f2f2f2).  Its lines run
 * up to the right, where (x + y) mod HATCH_PERIOD, in the picture's
 * pixels, is below HATCH_LINE: the same in every strip, so they join
 * across rows.
 */
#define HATCH_PERIOD	8	/* a power of 2: x + y masked, not divided */
#define HATCH_LINE	3

typedef struct canvas {
	cairo_t *cr;
	cairo_surface_t *surface;
	int draw;		/* 0: only measure, for the layout */
	int pixels;		/* strips go straight into image data */
	const render_options *o;
	unsigned label_width, strip_x, strip_width;
	char *text;		/* scratch for sanitized text */
	size_t text_cap;
	char *label;		/* scratch for an entity's label */
	size_t label_cap;
	/* Time in each state per panel, for the legend: both passes use it. */
	uint64_t **legend_times;
	int nodata;		/* some strip shows no data: key it */
	color hatch[HATCH_PERIOD];	/* by (x + y) mod HATCH_PERIOD */
	uint32_t hatch_px[HATCH_PERIOD];	/* the same as image pixels */
	/* Why drawing stopped (runlimit.h), set by any drawing thread. */
	_Atomic(const char *) stopped;
	/* The panels as drawn (grouped), and where their rows are. */
	render_panel *drawn;
	panel_rows *rows;
	size_t npanels;
	/* Per panel: how its events are thinned (events.h), or NULL. */
	render_thinning *thin;
	/* The traces of c->drawn with their colours separated. */
	contrast contrast;
	/* The labels drawn (render_layout's want_labels), or NULL. */
	render_label_box *label_boxes;
	size_t nlabel_boxes, label_boxes_cap;
	int record_labels;
} canvas;

/* The rows of panel p, one of c->drawn. */
static inline const panel_rows *
canvas_rows(const canvas *c, const render_panel *p)
{
	return (&c->rows[p - c->drawn]);
}

/*
 * Whether to stop drawing (Ctrl-C or a script's limits, runlimit.h),
 * from any drawing thread: once it says so, c->stopped says why.
 */
int canvas_stopping(canvas *c);

static inline void
canvas_set_color(cairo_t *cr, color c)
{
	cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

/* An image surface's pixel (CAIRO_FORMAT_RGB24). */
static inline uint32_t
canvas_pixel(color c)
{
	return (0xff000000u | (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b);
}

/*
 * The width of len bytes of text at size (any bytes: those Cairo cannot
 * take are measured as '?', noncharacters as U+FFFD); and of a C string.
 */
double canvas_text_width_n(canvas *c, double size, const char *text,
    size_t len);
double canvas_text_width(canvas *c, double size, const char *text);

/*
 * Text with its baseline at y, align 0 left, 1 right, 2 centred, in the
 * source colour; nothing in the measuring pass.
 */
void canvas_draw_text_n(canvas *c, double x, double y, double size,
    const char *text, size_t len, int align);
void canvas_draw_text(canvas *c, double x, double y, double size,
    const char *text, int align);

/*
 * The box of the ink of len bytes of text at size with its baseline at
 * (x, y), by Cairo's text extents: box[0..3] are x, y, width, height.
 */
void canvas_ink_box(canvas *c, double x, double y, double size,
    const char *text, size_t len, double box[4]);

/* Fills c->hatch and c->hatch_px from the options' empty colour. */
void canvas_hatch_colors(canvas *c);

/* Fills a rectangle with the hatch, its lines joined to its neighbours'. */
void canvas_fill_hatch(canvas *c, double x, double y, double w, double h);

/*
 * Vector output of c->strip_width columns' colours px from y, h tall: a
 * rectangle per run of one colour, none where covered is 0.
 */
void canvas_draw_runs(canvas *c, double y, double h, const color *px,
    const double *covered);

/*
 * Starts drawing on surface (a scratch image to measure on, or the
 * picture): its context, font, and font options as the format's surface
 * has them, so that both passes measure text alike.
 */
void canvas_begin(canvas *c, cairo_surface_t *surface,
    const render_options *o, int format);

/* Frees what the canvas keeps across both passes, for npanels panels. */
void canvas_free(canvas *c, size_t npanels);

#endif
