#include "render/canvas.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/runlimit.h"
#include "base/utf8.h"
#include "base/util.h"

/*
 * Each pixel's share of the hatch's line, by (x + y) mod HATCH_PERIOD:
 * the area of the pixel inside the band (canvas.h), so PNG strips need
 * no antialiasing and vector output (the same band, filled) looks the
 * same.
 */
static const double HATCH_INK[HATCH_PERIOD] = { 1, 1, 0.5, 0, 0, 0, 0, 0.5 };

/*
 * Whether to stop drawing: Ctrl-C or a script's limits.  Drawing goes on
 * where it is cheap to stop (between strips and panels), and the picture
 * is then not written.
 */
int
canvas_stopping(canvas *c)
{
	const char *why;

	if (atomic_load(&c->stopped) != NULL)
		return (1);
	if (runlimit_check(0, &why) == 0)
		return (0);
	atomic_store(&c->stopped, why);
	return (1);
}

/*
 * Cairo takes only valid UTF-8 (anything else puts the context in an
 * error state and silently stops drawing), and names are data that a
 * script may have built from anything: invalid bytes, control characters
 * and NULs (a name may hold them) become '?', a byte each.  Cairo refuses
 * noncharacters too (U+FFFE, U+FDD0, U+10FFFF: valid UTF-8, which a file
 * may hold), so they become U+FFFD, as the interactive SVG writes U+FFFE
 * and U+FFFF; three bytes for three or four, so the result still fits.
 */
static const char *
clean_text_n(canvas *c, const char *s, size_t len)
{
	size_t i = 0, o = 0;

	if (c->text_cap < len + 1) {
		free(c->text);
		c->text_cap = len + 1;
		c->text = xmalloc(c->text_cap);
	}
	while (i < len) {
		int n = utf8_char((const unsigned char *)s + i, len - i);

		if (n <= 0 || (unsigned char)s[i] < 0x20) {
			c->text[o++] = '?';
			i++;
			continue;
		}
		if (n >= 3 && utf8_noncharacter((const unsigned char *)s + i,
		    n)) {
			memcpy(c->text + o, "\xef\xbf\xbd", 3);	/* U+FFFD */
			o += 3;
			i += (size_t)n;
			continue;
		}
		memcpy(c->text + o, s + i, (size_t)n);
		o += (size_t)n;
		i += (size_t)n;
	}
	c->text[o] = '\0';
	return (c->text);
}

double
canvas_text_width_n(canvas *c, double size, const char *text, size_t len)
{
	cairo_text_extents_t ext;

	cairo_set_font_size(c->cr, size);
	cairo_text_extents(c->cr, clean_text_n(c, text, len), &ext);
	return (ext.x_advance);
}

double
canvas_text_width(canvas *c, double size, const char *text)
{
	return (canvas_text_width_n(c, size, text, strlen(text)));
}

/* Text with its baseline at y; align 0 left, 1 right, 2 centred. */
void
canvas_draw_text_n(canvas *c, double x, double y, double size, const char *text,
    size_t len, int align)
{
	double w;

	if (!c->draw)
		return;
	w = canvas_text_width_n(c, size, text, len);
	cairo_move_to(c->cr, align == 1 ? x - w : align == 2 ? x - w / 2 : x,
	    y);
	cairo_show_text(c->cr, c->text);
}

void
canvas_ink_box(canvas *c, double x, double y, double size, const char *text,
    size_t len, double box[4])
{
	cairo_text_extents_t ext;

	cairo_set_font_size(c->cr, size);
	cairo_text_extents(c->cr, clean_text_n(c, text, len), &ext);
	box[0] = x + ext.x_bearing;
	box[1] = y + ext.y_bearing;
	box[2] = ext.width;
	box[3] = ext.height;
}

void
canvas_draw_text(canvas *c, double x, double y, double size, const char *text,
    int align)
{
	canvas_draw_text_n(c, x, y, size, text, strlen(text), align);
}

/*
 * The hatch's colours: lines about a fifth darker than the base (the empty
 * colour; white gives the interactive SVG's #c8c8c8 on white), or,
 * on a dark base, lighter, so they show either way.
 */
void
canvas_hatch_colors(canvas *c)
{
	color base = c->o->empty, ink;
	static const color black = { 0, 0, 0 }, white = { 255, 255, 255 };
	double luma = 0.2126 * base.r + 0.7152 * base.g + 0.0722 * base.b;
	unsigned k;

	ink = luma >= 128 ? color_mix(base, black, 200 / 255.0) :
	    color_mix(base, white, 0.7);
	for (k = 0; k < HATCH_PERIOD; k++) {
		c->hatch[k] = color_mix(ink, base, HATCH_INK[k]);
		c->hatch_px[k] = canvas_pixel(c->hatch[k]);
	}
}

/*
 * Fills a rectangle with the hatch: the base, then the band of the
 * lines, as polygons clipped to the rectangle (vector output keeps them
 * sharp at any zoom; an image gets the same pixels as its strips, near
 * enough: the band's area in each pixel).
 */
void
canvas_fill_hatch(canvas *c, double x, double y, double w, double h)
{
	cairo_t *cr = c->cr;
	double k, start, end;

	if (w <= 0 || h <= 0)
		return;
	cairo_save(cr);
	cairo_rectangle(cr, x, y, w, h);
	cairo_clip(cr);
	canvas_set_color(cr, c->o->empty);
	cairo_paint(cr);
	canvas_set_color(cr, c->hatch[0]);
	/* Bands where x + y is in [k, k + HATCH_LINE), k a multiple of
	 * the period, over the rectangle's range of x + y. */
	start = floor((x + y) / HATCH_PERIOD) * HATCH_PERIOD;
	end = x + w + y + h;
	for (k = start; k < end; k += HATCH_PERIOD) {
		/* The band between the lines u + v = k and k + LINE. */
		cairo_move_to(cr, k - y, y);
		cairo_line_to(cr, k + HATCH_LINE - y, y);
		cairo_line_to(cr, k + HATCH_LINE - (y + h), y + h);
		cairo_line_to(cr, k - (y + h), y + h);
		cairo_close_path(cr);
	}
	cairo_fill(cr);
	cairo_restore(cr);
}

/*
 * Vector output of per-column colours: a rectangle per run of columns
 * of one colour (those with no data keep the hatch under them).
 */
void
canvas_draw_runs(canvas *c, double y, double h, const color *px,
    const double *covered)
{
	unsigned width = c->strip_width, x, end;

	for (x = 0; x < width; x = end) {
		end = x + 1;
		if (covered[x] <= 0)
			continue;
		while (end < width && covered[end] > 0 &&
		    memcmp(&px[end], &px[x], sizeof (color)) == 0)
			end++;
		canvas_set_color(c->cr, px[x]);
		cairo_rectangle(c->cr, c->strip_x + x, y, end - x, h);
		cairo_fill(c->cr);
	}
}

void
canvas_begin(canvas *c, cairo_surface_t *surface, const render_options *o,
    int format)
{
	cairo_font_options_t *fo = cairo_font_options_create();

	c->surface = surface;
	c->cr = cairo_create(surface);
	c->o = o;
	cairo_select_font_face(c->cr, o->font, CAIRO_FONT_SLANT_NORMAL,
	    CAIRO_FONT_WEIGHT_NORMAL);
	/*
	 * Text is measured on a scratch image, then drawn on the real
	 * surface: both must agree on widths, or a label measured to fit
	 * its column is cut when drawn.  Images hint metrics (whole
	 * pixels), vector surfaces neither hint metrics nor outlines: the
	 * scratch image must do as the vector surface will.
	 */
	if (format != RENDER_PNG) {
		cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
		cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	}
	cairo_set_font_options(c->cr, fo);
	cairo_font_options_destroy(fo);
}

/* What a canvas keeps across both passes. */
void
canvas_free(canvas *c, size_t npanels)
{
	size_t i;

	for (i = 0; i < npanels; i++) {
		free(c->legend_times[i]);
		layout_rows_free(&c->rows[i]);
	}
	free(c->legend_times);
	free(c->thin);
	free(c->label_boxes);
	contrast_free(&c->contrast);
	free(c->rows);
	free(c->drawn);
	free(c->text);
	free(c->label);
}
