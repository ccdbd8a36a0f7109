#include "render/value_strips.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/intern.h"

/* Whether a value entity holds strings (its first value not null). */
static int
values_are_strings(const trace *d, uint32_t e)
{
	const sm_value *v = store_values(d->st, e);
	size_t n = store_value_count(d->st, e), i;

	if (catalog_value_ints(d->cat, e))
		return (0);
	for (i = 0; i < n; i++)
		if (!value_is_none(v[i]))
			return (value_is_string(v[i]));
	return (0);
}

/* The start of pixel column x of width over [t0, t1). */
static uint64_t
column_start(uint64_t t0, uint64_t t1, unsigned width, unsigned x)
{
	return (t0 + (uint64_t)((double)(t1 - t0) * x / width));
}

/*
 * Fills col[0..width-1] for a value entity over [t0, t1), each column
 * searched for from the last and added up from the summary; *lo and *hi
 * are the scale: the numbers' min and max over the span, from 0 when
 * they are all of one sign.
 * Returns 1 for numbers, 0 for strings.
 */
static int
value_columns(const trace *d, uint32_t e, uint64_t t0, uint64_t t1,
    unsigned width, value_column *col, double *lo, double *hi)
{
	const store *st = d->st;
	int strings = values_are_strings(d, e);
	value_stats all;
	size_t from = 0;
	unsigned x;

	for (x = 0; x < width; x++) {
		uint64_t a = column_start(t0, t1, width, x);
		uint64_t b = x + 1 == width ? t1 :
		    column_start(t0, t1, width, x + 1);
		value_stats vs;
		store_interval iv;

		memset(&col[x], 0, sizeof (value_column));
		if (b <= a)
			b = a + 1;
		if (strings) {
			if (store_value_at(st, e, a + (b - a) / 2, &iv) &&
			    value_is_string(iv.value)) {
				col[x].mean = value_string_id(iv.value);
				col[x].covered = 1;
			}
			continue;
		}
		value_stats_init(&vs, catalog_value_ints(d->cat, e));
		store_value_stats_from(st, e, a, b, &from, &vs);
		if (vs.covered == 0)
			continue;
		col[x].min = vs.min;
		col[x].max = vs.max;
		col[x].mean = vs.integral / (double)vs.covered;
		col[x].covered = (double)vs.covered / (double)(b - a);
		if (col[x].covered > 1)
			col[x].covered = 1;
	}
	value_stats_init(&all, catalog_value_ints(d->cat, e));
	store_value_stats(st, e, t0, t1, &all);
	if (all.covered == 0) {
		*lo = 0;
		*hi = 1;
	} else {
		*lo = all.min >= 0 ? 0 : all.min;
		*hi = all.max <= 0 ? 0 : all.max;
		if (*hi <= *lo)
			*hi = *lo + 1;
	}
	return (!strings);
}

/* The colour of string value id: a generated one, by its id. */
static color
string_color(double id)
{
	return (color_generated((uint32_t)id));
}

/*
 * A value strip's colours: greys of the text on the page, so that no
 * state's colour is taken for them: the fill to the mean a mid grey
 * (#737373 for black on white), the min-max band a light one (#d9d9d9).
 */
static color
value_fill(const render_options *o)
{
	return (color_mix(o->foreground, o->background, 0.55));
}

static color
value_band(const render_options *o)
{
	return (color_mix(o->foreground, o->background, 0.15));
}

/* The value scale's pixel row for v in a strip h tall (0 at the top). */
static double
value_row(double v, double lo, double hi, unsigned h)
{
	return ((hi - v) / (hi - lo) * h);
}

/*
 * A value strip of d's entity e, h pixels tall from y, into image data
 * (rows stride bytes apart): per column, the band from min to max, the
 * fill from the base (0, or the scale's nearer end) to the mean, the
 * page elsewhere; strings their colour; all fading to the hatch where
 * the column is partly without a value.
 */
void
value_strips_paint(const canvas *c, unsigned char *data, int stride,
    const trace *d, uint32_t e, unsigned y, unsigned h, value_column *col)
{
	const render_options *o = c->o;
	unsigned width = c->strip_width, x, row;
	double lo, hi, base;
	int numbers = value_columns(d, e, o->t0, o->t1, width, col, &lo,
	    &hi);
	color band = value_band(o), fill = value_fill(o);

	base = lo > 0 ? lo : hi < 0 ? hi : 0;
	for (row = 0; row < h; row++) {
		uint32_t *line = (uint32_t *)(void *)(data +
		    (size_t)(y + row) * stride) + c->strip_x;
		unsigned phase = c->strip_x + y + row;
		double top = row, bottom = row + 1.0;

		for (x = 0; x < width; x++) {
			unsigned hp = (phase + x) & (HATCH_PERIOD - 1);
			const value_column *v = &col[x];
			color px = o->background;

			if (v->covered <= 0) {
				line[x] = c->hatch_px[hp];
				continue;
			}
			if (!numbers) {
				px = string_color(v->mean);
			} else {
				double ym = value_row(v->mean, lo, hi, h);
				double yb = value_row(base, lo, hi, h);
				double ya = value_row(v->max, lo, hi, h);
				double yz = value_row(v->min, lo, hi, h);

				/* A pixel row takes what covers its middle;
				 * a band thinner than a pixel still shows. */
				if (yz - ya < 1)
					yz = ya + 1;
				if ((top + bottom) / 2 >= (ym < yb ? ym : yb) &&
				    (top + bottom) / 2 <= (ym < yb ? yb : ym))
					px = fill;
				else if (bottom > ya && top < yz)
					px = band;
			}
			line[x] = v->covered >= 1 ? canvas_pixel(px) :
			    canvas_pixel(color_mix(px, c->hatch[hp],
			    v->covered));
		}
	}
}

/*
 * A value strip in vector output: per run of columns alike, the page,
 * the min-max band and the fill to the mean as rectangles (a step graph
 * of few steps is few rectangles); strings as runs of their colours.
 */
void
value_strips_draw_vector(canvas *c, const render_panel *p, uint32_t e, double y,
    unsigned h, value_column *col, color *px, double *covered)
{
	const render_options *o = c->o;
	unsigned width = c->strip_width, x, end;
	double lo, hi, base;
	int numbers = value_columns(p->d, e, o->t0, o->t1, width, col, &lo,
	    &hi);

	if (!numbers) {
		for (x = 0; x < width; x++) {
			px[x] = string_color(col[x].mean);
			covered[x] = col[x].covered;
		}
		canvas_draw_runs(c, y, h, px, covered);
		return;
	}
	base = lo > 0 ? lo : hi < 0 ? hi : 0;
	for (x = 0; x < width; x = end) {
		const value_column *v = &col[x];
		double ym, yb, ya, yz;

		end = x + 1;
		if (v->covered <= 0)
			continue;
		while (end < width && col[end].covered > 0 &&
		    col[end].min == v->min && col[end].max == v->max &&
		    col[end].mean == v->mean)
			end++;
		ym = value_row(v->mean, lo, hi, h);
		yb = value_row(base, lo, hi, h);
		ya = value_row(v->max, lo, hi, h);
		yz = value_row(v->min, lo, hi, h);
		if (yz - ya < 1)
			yz = ya + 1;
		canvas_set_color(c->cr, o->background);
		cairo_rectangle(c->cr, c->strip_x + x, y, end - x, h);
		cairo_fill(c->cr);
		canvas_set_color(c->cr, value_band(o));
		cairo_rectangle(c->cr, c->strip_x + x, y + ya, end - x,
		    yz - ya);
		cairo_fill(c->cr);
		canvas_set_color(c->cr, value_fill(o));
		cairo_rectangle(c->cr, c->strip_x + x, y + (ym < yb ? ym : yb),
		    end - x, fabs(yb - ym));
		cairo_fill(c->cr);
	}
}

/*
 * A value strip's range over the span, written under its name: "min
 * -2.5, max 300" (shortest %g forms), "strings", or "no value".
 */
void
value_strips_range_text(const render_options *o, const render_panel *p,
    uint32_t e, char *buf, size_t size)
{
	value_stats st;

	if (values_are_strings(p->d, e)) {
		snprintf(buf, size, "strings");
		return;
	}
	value_stats_init(&st, catalog_value_ints(p->d->cat, e));
	store_value_stats(p->d->st, e, o->t0, o->t1, &st);
	if (st.covered == 0)
		snprintf(buf, size, "no value");
	else
		snprintf(buf, size, "min %.6g, max %.6g", st.min, st.max);
}

/*
 * Each value strip's range over the span, in grey, right-aligned under
 * its name (its strip is RENDER_VALUE_ROWS rows tall, so it has room).
 */
void
value_strips_draw_ranges(canvas *c, const render_panel *p, unsigned y0,
    double size)
{
	const render_options *o = c->o;
	const panel_rows *r = canvas_rows(c, p);
	unsigned rh = layout_row_height(o, p);
	uint32_t k;
	char range[96];

	if (size <= 0)
		return;
	canvas_set_color(c->cr, color_mix(o->foreground, o->background, 0.6));
	for (k = 0; k < p->nentities; k++) {
		if (store_kind_of(p->d->st, p->entities[k]) != STORE_VALUES)
			continue;
		value_strips_range_text(o, p, p->entities[k], range,
		    sizeof (range));
		canvas_draw_text(c, c->strip_x - LABEL_GAP,
		    y0 + r->y[k] + 2.0 * rh - (rh - size) / 2 - size * 0.15,
		    size, range, 1);
	}
}

/*
 * String values written on their runs where there is room: from the
 * span's start, each string's run, then on from its end (or from the
 * next pixel column, past runs too short to show), so O(width log n)
 * whatever the number of values.  Black or white text, whichever shows
 * on the run's colour.
 */
void
value_strips_draw_strings(canvas *c, const render_panel *p, unsigned y0,
    double size)
{
	const render_options *o = c->o;
	const panel_rows *r = canvas_rows(c, p);
	const catalog *cat = p->d->cat;
	double px = (double)c->strip_width / (double)(o->t1 - o->t0);
	uint32_t k;

	if (size <= 0)
		return;
	for (k = 0; k < p->nentities && !canvas_stopping(c); k++) {
		uint32_t e = p->entities[k];
		uint64_t t = o->t0, column = (o->t1 - o->t0) /
		    c->strip_width + 1;
		store_interval iv;

		if (store_kind_of(p->d->st, e) != STORE_VALUES ||
		    !values_are_strings(p->d, e))
			continue;
		while (t < o->t1) {
			double a, b, w;
			size_t len;
			const char *text;
			color bg;

			if (!store_value_at(p->d->st, e, t, &iv)) {
				t += column;
				continue;
			}
			a = c->strip_x + ((double)(iv.start > o->t0 ?
			    iv.start : o->t0) - (double)o->t0) * px;
			b = c->strip_x + ((double)(iv.end < o->t1 ? iv.end :
			    o->t1) - (double)o->t0) * px;
			t = iv.end > t + column ? iv.end : t + column;
			if (!value_is_string(iv.value))
				continue;
			text = intern_name(cat->value_strings,
			    value_string_id(iv.value), &len);
			w = canvas_text_width_n(c, size, text, len);
			if (w + 4 > b - a)
				continue;
			bg = string_color(value_string_id(iv.value));
			if (0.2126 * bg.r + 0.7152 * bg.g + 0.0722 * bg.b >= 128)
				cairo_set_source_rgb(c->cr, 0, 0, 0);
			else
				cairo_set_source_rgb(c->cr, 1, 1, 1);
			canvas_draw_text_n(c, (a + b) / 2,
			    y0 + r->y[k] + r->h[k] / 2.0 + size * 0.35, size,
			    text, len, 2);
		}
	}
}
