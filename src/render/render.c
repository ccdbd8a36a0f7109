/*
 * render.c: render_file (render.h), the whole picture: the title and
 * the span drawn, the axis, the panels (labels, strips, events) and the
 * legend, laid out in a pass that only measures, then drawn on the
 * format's surface and written.
 */
#include "render/render.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/color.h"
#include "base/outfile.h"
#include "base/runlimit.h"
#include "base/util.h"
#include "render/axis.h"
#include "render/canvas.h"
#include "render/events.h"
#include "render/labels.h"
#include "render/layout.h"
#include "render/legend.h"
#include "render/pngout.h"
#include "render/state_strips.h"
#include "render/value_strips.h"

/* Cairo's image surfaces stop at 32767 pixels a side. */
#define MAX_PIXELS	32767
#define PANEL_GAP	10

/* The height of the note under panel p's strips (events.h), or 0. */
static unsigned
note_height(const canvas *c, const render_panel *p)
{
	char note[160];

	if (c->thin == NULL || !events_note(&c->thin[p - c->drawn], note,
	    sizeof (note)))
		return (0);
	return ((unsigned)ceil(c->o->font_size * 1.5));
}

static unsigned
draw_panel(canvas *c, const render_panel *p, unsigned y)
{
	const render_options *o = c->o;
	const panel_rows *r = canvas_rows(c, p);
	unsigned rh = layout_row_height(o, p), h = 0;
	double size = labels_size(o, rh);
	uint32_t k;

	if (p->title != NULL) {
		h = (unsigned)ceil(o->font_size * 1.6);
		canvas_set_color(c->cr, o->foreground);
		canvas_draw_text(c, c->strip_x, y + o->font_size * 1.2,
		    o->font_size, p->title, 0);
	}
	y += h;
	if (c->draw) {
		/* Each label on its strip's first row. */
		for (k = 0; size > 0 && k < p->nentities; k++)
			labels_draw(c, p, p->entities[k], r->skip[k], size,
			    y + r->y[k] + rh - (rh - size) / 2 - size * 0.15,
			    y + r->y[k], r->h[k]);
		labels_draw_headers(c, p, y, size);
		value_strips_draw_ranges(c, p, y, size);
		if (c->pixels)
			state_strips_draw_pixels(c, p, y);
		else
			state_strips_draw_vector(c, p, y);
		value_strips_draw_strings(c, p, y, size);
		if (p->events) {
			events_draw(c, p, y);
			events_draw_messages(c, p, y);
		}
	}
	if (note_height(c, p) > 0) {
		char note[160];

		events_note(&c->thin[p - c->drawn], note, sizeof (note));
		canvas_set_color(c->cr, color_mix(o->foreground,
		    o->background, 0.6));
		canvas_draw_text(c, c->strip_x, y + r->height +
		    o->font_size * 1.2, o->font_size * 0.9, note, 0);
		canvas_set_color(c->cr, o->foreground);
	}
	return (h + r->height + note_height(c, p));
}

/* Lays everything out (and draws it, if c->draw): returns the height. */
static unsigned
draw_all(canvas *c, const render_panel *panels, size_t n, unsigned *panel_y)
{
	const render_options *o = c->o;
	const char *title = o->title != NULL ? o->title :
	    panels[0].d->cat->title != NULL ? panels[0].d->cat->title :
	    "statemap";
	double tsize = o->font_size * 1.4;
	unsigned y = o->margin, top, bottom, *strips_y;
	size_t i, end;
	char span[128];

	if (c->draw) {
		canvas_set_color(c->cr, o->background);
		cairo_paint(c->cr);
		canvas_set_color(c->cr, o->foreground);
	}
	canvas_draw_text(c, c->strip_x, y + tsize, tsize, title, 0);
	/* Where the window starts, right of the title, or under it. */
	axis_span_text(o, span, sizeof (span));
	if (c->strip_x + canvas_text_width(c, tsize, title) + 2 * o->font_size +
	    canvas_text_width(c, o->font_size, span) > o->width - o->margin)
		y += (unsigned)ceil(tsize * 1.5);
	canvas_draw_text(c, o->width - o->margin, y + tsize, o->font_size,
	    span, 1);
	y += (unsigned)ceil(tsize * 1.5);
	/* How many events each panel shows: measured once. */
	if (!c->draw && c->thin == NULL) {
		c->thin = xcalloc(n, sizeof (render_thinning));
		for (i = 0; i < n; i++)
			events_measure(c, &panels[i], &c->thin[i]);
	}
	/* The axis's grid lines run down over the panels: measure first. */
	top = y;
	bottom = top + axis_height(o);
	for (i = 0; i < n; i++)
		bottom += (i > 0 ? PANEL_GAP : 0) + (panels[i].title != NULL ?
		    (unsigned)ceil(o->font_size * 1.6) : 0) +
		    canvas_rows(c, &panels[i])->height +
		    note_height(c, &panels[i]);
	y += axis_draw(c, y, bottom);
	strips_y = xcalloc(n + 1, sizeof (unsigned));
	for (i = 0; i < n && !(c->draw && canvas_stopping(c)); i++) {
		if (i > 0)
			y += PANEL_GAP;
		strips_y[i] = y + (panels[i].title != NULL ?
		    (unsigned)ceil(o->font_size * 1.6) : 0);
		if (panel_y != NULL)
			panel_y[i] = strips_y[i];
		y += draw_panel(c, &panels[i], y);
	}
	if (c->draw && i == n)
		events_draw_cross_messages(c, panels, n, strips_y);
	free(strips_y);
	/*
	 * A legend for each run of panels with the same states; the last
	 * keys the hatch, if any strip shows it.
	 */
	if (o->legend && !c->draw)
		for (i = 0; i < n && !c->nodata; i++)
			c->nodata = legend_has_nodata(o, &panels[i]);
	for (i = 0; o->legend && i < n; i = end) {
		for (end = i + 1; end < n && catalog_same_states(
		    panels[end].d->cat, panels[end - 1].d->cat); end++)
			continue;
		y += legend_draw(c, panels, i, end, end == n && c->nodata,
		    y + 4) + 4;
	}
	return (y + o->margin);
}

static cairo_status_t
write_to_file(void *closure, const unsigned char *data, unsigned int length)
{
	return (fwrite(data, 1, length, closure) == length ?
	    CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR);
}

static int
check_args(const render_options *o, const render_panel *panels,
    size_t n, sm_error *err)
{
	size_t i;

	if (n == 0) {
		error_set(err, "render: no panels");
		return (-1);
	}
	if (o->t1 <= o->t0) {
		error_set(err, "render: the time span is empty");
		return (-1);
	}
	if (o->width < 2 * o->margin + 40 || o->width > MAX_PIXELS) {
		error_set(err, "render: width %u is out of range (%u to %d)",
		    o->width, 2 * o->margin + 40, MAX_PIXELS);
		return (-1);
	}
	for (i = 0; i < n; i++)
		if (layout_row_height(o, &panels[i]) == 0) {
			error_set(err, "render: row height must be at least 1");
			return (-1);
		}
	return (0);
}

/* States checked for colours too close, per trace (pairs grow as n^2). */
#define CLOSE_CHECK_STATES	512
/* Warnings remembered so that none is said twice in one process. */
#define WARNED_MAX		64

/*
 * Prints a warning on standard error unless the same text was printed
 * before in this process (the panels of one picture, or several pictures
 * of one trace, say it once).  Pictures are drawn by the thread that runs
 * Lua or the command, one at a time.
 */
static void
warn_once(const char *fmt, ...)
{
	static uint64_t warned[WARNED_MAX];
	static size_t nwarned;
	char text[512];
	uint64_t h = 14695981039346656037ULL;
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(text, sizeof (text), fmt, ap);
	va_end(ap);
	for (i = 0; text[i] != '\0'; i++)
		h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
	for (i = 0; i < nwarned; i++)
		if (warned[i] == h)
			return;
	if (nwarned < WARNED_MAX)
		warned[nwarned++] = h;
	fprintf(stderr, "statemap-lua: warning: %s\n", text);
}

/*
 * Says once on standard error, for each trace drawn, the first two of
 * its states whose colours are too close to tell apart (color.h), and
 * the first state too close to the background: the trace's colours (or a
 * palette's) may be, and nothing in the picture would show it.
 */
static void
warn_close_colors(const render_options *o, const render_panel *panels,
    size_t npanels)
{
	double (*lab)[3] = xcalloc(CLOSE_CHECK_STATES + 1, sizeof (*lab));
	size_t i, j;

	for (i = 0; i < npanels; i++) {
		const catalog *cat = panels[i].d->cat;
		uint32_t n = cat->nstates, a, b;
		int pair = 0, back = 0;
		char ca[8], cb[8];

		for (j = 0; j < i; j++)
			if (panels[j].d->cat == cat)
				break;
		if (j < i)
			continue;	/* this trace was checked */
		if (n > CLOSE_CHECK_STATES)
			n = CLOSE_CHECK_STATES;
		/* Each colour in OKLab once, not once a pair. */
		for (a = 0; a < n; a++)
			color_oklab(cat->states[a].color, lab[a]);
		color_oklab(o->background, lab[n]);
		for (a = 0; a < n && !(pair && back); a++) {
			const catalog_state *sa = &cat->states[a];

			if (!back && color_lab_distance(lab[a], lab[n]) <
			    COLOR_TOO_CLOSE) {
				color_format(sa->color, ca);
				color_format(o->background, cb);
				warn_once("state \"%.*s\" (%s) is too close in "
				    "colour to the background (%s) to be seen",
				    (int)sa->name_len, sa->name, ca, cb);
				back = 1;
			}
			for (b = a + 1; !pair && b < n; b++) {
				const catalog_state *sb = &cat->states[b];

				if (color_lab_distance(lab[a], lab[b]) >=
				    COLOR_TOO_CLOSE)
					continue;
				color_format(sa->color, ca);
				color_format(sb->color, cb);
				warn_once("states \"%.*s\" (%s) and \"%.*s\" (%s) "
				    "are too close in colour to tell apart",
				    (int)sa->name_len, sa->name, ca,
				    (int)sb->name_len, sb->name, cb);
				pair = 1;
			}
		}
	}
	free(lab);
}

int
render_file(const char *path, const render_options *o,
    const render_panel *panels, size_t npanels, render_layout *layout,
    sm_error *err)
{
	int format = render_format_of(path);
	canvas c;
	cairo_surface_t *surface;
	cairo_status_t st;
	unsigned height;
	outfile of;
	const char *why = NULL;
	size_t i;
	uint32_t k;

	if (format < 0) {
		error_set(err, "render: \"%s\": the name must end in .png, "
		    ".svg or .pdf", path);
		return (-1);
	}
	if (check_args(o, panels, npanels, err) != 0)
		return (-1);
	warn_close_colors(o, panels, npanels);
	/* Measure on a scratch surface to learn the picture's height. */
	memset(&c, 0, sizeof (c));
	c.legend_times = xcalloc(npanels, sizeof (uint64_t *));
	c.drawn = xcalloc(npanels, sizeof (render_panel));
	c.rows = xcalloc(npanels, sizeof (panel_rows));
	for (i = 0; i < npanels; i++) {
		layout_rows(&c.rows[i], &panels[i],
		    layout_row_height(o, &panels[i]));
		c.drawn[i] = panels[i];
		c.drawn[i].entities = c.rows[i].order;
	}
	c.npanels = npanels;
	contrast_apply(o, c.drawn, npanels, &c.contrast);
	panels = c.drawn;
	surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	canvas_begin(&c, surface, o, format);
	canvas_hatch_colors(&c);
	labels_measure(&c, panels, npanels);
	height = draw_all(&c, panels, npanels, NULL);
	cairo_destroy(c.cr);
	cairo_surface_destroy(surface);
	if (c.strip_width < 10) {
		error_set(err, "render: width %u leaves no room for the "
		    "strips", o->width);
		canvas_free(&c, npanels);
		return (-1);
	}
	/* Vector pictures too: a page beyond that is more than any viewer
	 * shows, and drawing it would take a long time. */
	if (height > MAX_PIXELS) {
		error_set(err, "render: the picture would be %u pixels tall "
		    "(at most %d): use fewer entities or lower rows", height,
		    MAX_PIXELS);
		canvas_free(&c, npanels);
		return (-1);
	}
	/* An image is made whole at once: ask before, not after. */
	if (format == RENDER_PNG) {
		size_t bytes = (size_t)o->width * height * 4;

		if (runlimit_check(bytes, &why) != 0) {
			error_set(err, "render: a %ux%u picture needs %zu MB: "
			    "%s", o->width, height, bytes >> 20, why);
			canvas_free(&c, npanels);
			return (-1);
		}
	}
	if (outfile_open(&of, path, err) != 0) {
		canvas_free(&c, npanels);
		return (-1);
	}
	if (format == RENDER_PNG)
		surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
		    (int)o->width, (int)height);
	else if (format == RENDER_SVG)
		surface = cairo_svg_surface_create_for_stream(write_to_file,
		    of.fp, o->width, height);
	else
		surface = cairo_pdf_surface_create_for_stream(write_to_file,
		    of.fp, o->width, height);
	canvas_begin(&c, surface, o, format);
	c.draw = 1;
	c.record_labels = layout != NULL && layout->want_labels;
	c.pixels = (format == RENDER_PNG);
	if (layout != NULL && layout->thinning != NULL)
		memcpy(layout->thinning, c.thin, npanels *
		    sizeof (render_thinning));
	if (layout != NULL) {
		layout->width = o->width;
		layout->height = height;
		layout->strip_x = c.strip_x;
		layout->strip_width = c.strip_width;
	}
	if (layout != NULL && layout->entity_y != NULL)
		for (i = 0; i < npanels; i++)
			for (k = 0; k < panels[i].nentities; k++) {
				uint32_t g = c.rows[i].given[k];

				layout->entity_y[i][g] = c.rows[i].y[k];
				layout->entity_h[i][g] = c.rows[i].h[k];
			}
	draw_all(&c, panels, npanels, layout != NULL ? layout->panel_y : NULL);
	if (layout != NULL && layout->entity_y != NULL)
		for (i = 0; i < npanels; i++)
			for (k = 0; k < panels[i].nentities; k++)
				layout->entity_y[i][k] += layout->panel_y[i];
	if (c.record_labels) {
		layout->labels = c.label_boxes;
		layout->nlabels = c.nlabel_boxes;
		c.label_boxes = NULL;
	}
	st = cairo_status(c.cr);
	cairo_destroy(c.cr);
	if (atomic_load(&c.stopped) != NULL) {
		cairo_surface_destroy(surface);
		canvas_free(&c, npanels);
		outfile_abort(&of);
		error_at(err, path, 0, 0, "%s", atomic_load(&c.stopped));
		return (-1);
	}
	if (st == CAIRO_STATUS_SUCCESS && format == RENDER_PNG) {
		cairo_surface_flush(surface);
		if (pngout_write_rgb24(of.fp,
		    cairo_image_surface_get_data(surface), (int)o->width,
		    (int)height, cairo_image_surface_get_stride(surface),
		    &why) != 0)
			st = CAIRO_STATUS_WRITE_ERROR;
	}
	cairo_surface_finish(surface);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(surface);
	cairo_surface_destroy(surface);
	canvas_free(&c, npanels);
	if (st != CAIRO_STATUS_SUCCESS) {
		outfile_abort(&of);
		if (why != NULL)
			error_at(err, path, 0, 0, "cannot write the picture: "
			    "%s", why);
		else
			error_at(err, path, 0, 0, "cannot draw the picture: "
			    "%s", cairo_status_to_string(st));
		return (-1);
	}
	return (outfile_commit(&of, err));
}
