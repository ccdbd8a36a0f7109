#include "render.h"

#include <cairo.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "outfile.h"
#include "util.h"

#define MARGIN		10
#define LABEL_WIDTH	120
#define LEGEND_HEIGHT	24
#define TITLE_HEIGHT	28
#define AXIS_HEIGHT	18
#define PANEL_GAP	10
static const color background = { 0xf0, 0xf0, 0xf0 };

/*
 * One pass over the entity's intervals: each adds its time to the
 * columns it covers (partly at its ends, wholly between them).
 */
void
render_strip(const dataset *d, uint32_t entity, uint64_t t0, uint64_t t1,
    unsigned width, color *out, double *covered, double *work)
{
	uint32_t ns = d->tr->nstates, s;
	double span = (double)(t1 - t0), per = span / width;
	store_iter it;
	store_interval iv;
	unsigned x;

	memset(work, 0, (size_t)width * ns * sizeof (double));
	store_iter_init(&it, d->st, &entity, 1, t0, t1);
	while (store_iter_next(&it, &iv)) {
		double a = (double)(iv.start - t0) / per;
		double b = (double)(iv.end - t0) / per;
		unsigned xa = (unsigned)a, xb = (unsigned)b;

		if (xb >= width)
			xb = width - 1;
		if (xa == xb) {
			work[(size_t)xa * ns + iv.state] += b - a;
			continue;
		}
		work[(size_t)xa * ns + iv.state] += (xa + 1) - a;
		for (x = xa + 1; x < xb; x++)
			work[(size_t)x * ns + iv.state] += 1;
		work[(size_t)xb * ns + iv.state] += b - xb;
	}
	for (x = 0; x < width; x++) {
		double r = 0, g = 0, bl = 0, total = 0;

		for (s = 0; s < ns; s++) {
			double w = work[(size_t)x * ns + s];

			r += w * d->tr->states[s].color.r;
			g += w * d->tr->states[s].color.g;
			bl += w * d->tr->states[s].color.b;
			total += w;
		}
		covered[x] = total > 1 ? 1 : total;
		if (total <= 0) {
			out[x] = background;
			continue;
		}
		out[x].r = (uint8_t)(r / total + 0.5);
		out[x].g = (uint8_t)(g / total + 0.5);
		out[x].b = (uint8_t)(bl / total + 0.5);
	}
}

static void
set_color(cairo_t *cr, color c)
{
	cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

static void
draw_text(cairo_t *cr, double x, double y, double size, const char *text,
    int align_right)
{
	cairo_text_extents_t ext;

	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, text, &ext);
	cairo_move_to(cr, align_right ? x - ext.x_advance : x, y);
	cairo_show_text(cr, text);
}

/* Strips written straight into the image: exact pixels, no antialiasing. */
static void
draw_panel(cairo_surface_t *surface, const render_panel *p,
    const render_options *o, unsigned x0, unsigned y0, unsigned width)
{
	unsigned char *data = cairo_image_surface_get_data(surface);
	int stride = cairo_image_surface_get_stride(surface);
	color *px = xcalloc(width, sizeof (color));
	double *covered = xcalloc(width, sizeof (double));
	double *work = xcalloc((size_t)width * p->d->tr->nstates,
	    sizeof (double));
	uint32_t k;

	cairo_surface_flush(surface);
	for (k = 0; k < p->nentities; k++) {
		unsigned x, row;

		render_strip(p->d, p->entities[k], o->t0, o->t1, width, px,
		    covered, work);
		for (row = 0; row < o->row_height; row++) {
			uint32_t *line = (uint32_t *)(void *)(data + (size_t)(y0 +
			    k * o->row_height + row) * stride) + x0;

			for (x = 0; x < width; x++) {
				/* Partly covered columns fade to background. */
				double c = covered[x];
				unsigned r = (unsigned)(px[x].r * c +
				    background.r * (1 - c) + 0.5);
				unsigned g = (unsigned)(px[x].g * c +
				    background.g * (1 - c) + 0.5);
				unsigned b = (unsigned)(px[x].b * c +
				    background.b * (1 - c) + 0.5);

				line[x] = 0xff000000u | r << 16 | g << 8 | b;
			}
		}
	}
	cairo_surface_mark_dirty(surface);
	free(px);
	free(covered);
	free(work);
}

static cairo_status_t
write_to_file(void *closure, const unsigned char *data, unsigned int length)
{
	return (fwrite(data, 1, length, closure) == length ?
	    CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR);
}

int
render_png(const char *path, const render_options *o,
    const render_panel *panels, size_t npanels, sm_error *err)
{
	unsigned strip = o->width - 2 * MARGIN - LABEL_WIDTH;
	unsigned height = TITLE_HEIGHT + AXIS_HEIGHT + LEGEND_HEIGHT + MARGIN;
	cairo_surface_t *surface;
	cairo_t *cr;
	unsigned y;
	size_t i;
	outfile of;
	int rv;

	if (o->width < 2 * MARGIN + LABEL_WIDTH + 10) {
		error_set(err, "render: width %u is too small (at least %d)",
		    o->width, 2 * MARGIN + LABEL_WIDTH + 10);
		return (-1);
	}
	for (i = 0; i < npanels; i++)
		height += panels[i].nentities * o->row_height + PANEL_GAP;
	surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
	    (int)o->width, (int)height);
	if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
		error_set(err, "render: cannot make a %ux%u picture", o->width,
		    height);
		cairo_surface_destroy(surface);
		return (-1);
	}
	cr = cairo_create(surface);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	    CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_source_rgb(cr, 0, 0, 0);
	{
		const char *title = o->title != NULL ? o->title :
		    panels[0].d->tr->title != NULL ? panels[0].d->tr->title :
		    "statemap";

		draw_text(cr, MARGIN + LABEL_WIDTH, 20, 15, title, 0);
	}
	/* The axis: the span's ends, in human units. */
	{
		char a[64], b[64];

		draw_text(cr, MARGIN + LABEL_WIDTH, TITLE_HEIGHT + 12, 10,
		    duration_format(0, a, sizeof (a)), 0);
		draw_text(cr, MARGIN + LABEL_WIDTH + strip, TITLE_HEIGHT + 12,
		    10, duration_format(o->t1 - o->t0, b, sizeof (b)), 1);
	}
	y = TITLE_HEIGHT + AXIS_HEIGHT;
	for (i = 0; i < npanels; i++) {
		const render_panel *p = &panels[i];
		uint32_t k;

		cairo_set_source_rgb(cr, 0, 0, 0);
		for (k = 0; o->row_height >= 8 && k < p->nentities; k++)
			draw_text(cr, MARGIN + LABEL_WIDTH - 4, y + (k + 1) *
			    o->row_height - 1, o->row_height > 12 ? 11 :
			    o->row_height - 1, trace_entity_name(p->d->tr,
			    p->entities[k], NULL), 1);
		cairo_surface_flush(surface);
		draw_panel(surface, p, o, MARGIN + LABEL_WIDTH, y, strip);
		y += p->nentities * o->row_height + PANEL_GAP;
	}
	/* The legend: each state of the first panel, with its colour. */
	{
		const trace *tr = panels[0].d->tr;
		double x = MARGIN + LABEL_WIDTH;
		uint32_t s;

		for (s = 0; s < tr->nstates; s++) {
			cairo_text_extents_t ext;

			set_color(cr, tr->states[s].color);
			cairo_rectangle(cr, x, y + 4, 12, 12);
			cairo_fill(cr);
			cairo_set_source_rgb(cr, 0, 0, 0);
			cairo_set_font_size(cr, 11);
			cairo_text_extents(cr, tr->states[s].name, &ext);
			cairo_move_to(cr, x + 16, y + 14);
			cairo_show_text(cr, tr->states[s].name);
			x += 16 + ext.x_advance + 14;
		}
	}
	cairo_destroy(cr);
	if (outfile_open(&of, path, err) != 0) {
		cairo_surface_destroy(surface);
		return (-1);
	}
	if (cairo_surface_write_to_png_stream(surface, write_to_file, of.fp) !=
	    CAIRO_STATUS_SUCCESS) {
		outfile_abort(&of);
		error_at(err, path, 0, 0, "cannot write the PNG");
		cairo_surface_destroy(surface);
		return (-1);
	}
	rv = outfile_commit(&of, err);
	cairo_surface_destroy(surface);
	return (rv);
}
