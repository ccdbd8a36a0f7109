#include "render/labels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "render/value_strips.h"

/* Labels are drawn only where a row is tall enough to read them. */
double
labels_size(const render_options *o, unsigned rh)
{
	return (rh < 7 ? 0 : rh - 2 < o->font_size ? rh - 2 : o->font_size);
}

/*
 * A label (label.h: name, len bytes, and desc in mode) in c->label, cut
 * at a character boundary to fit max pixels at size (a cut label ends in
 * an ellipsis; max < 0: no limit).  Returns its length.  Few characters
 * are narrower than a sixteenth of the size, so bytes past what that
 * many could fill are dropped before any measuring: a name can be
 * megabytes long (one of zero-width characters is then cut sooner than
 * it need be).
 */
static size_t
fit_text(canvas *c, const char *name, size_t len, const char *desc,
    label_mode mode, double size, double max)
{
	size_t full = label_length(name, len, desc, mode), lo, hi, n;

	if (max >= 0 && full > (size_t)(max / size * 16.0) + 16)
		full = (size_t)(max / size * 16.0) + 16;
	if (c->label_cap < full + 1) {
		free(c->label);
		c->label_cap = full + 1;
		c->label = xmalloc(c->label_cap);
	}
	n = label_compose(name, len, desc, mode, full, c->label);
	if (max >= 0 && canvas_text_width_n(c, size, c->label, n) > max) {
		/*
		 * The longest cut that fits, by bisection: a label's width
		 * grows with the bytes it may have.  lo fits (or is 0), hi
		 * does not.
		 */
		for (lo = 0, hi = full; hi - lo > 1;) {
			size_t mid = lo + (hi - lo) / 2;

			n = label_compose(name, len, desc, mode, mid, c->label);
			if (canvas_text_width_n(c, size, c->label, n) <= max)
				lo = mid;
			else
				hi = mid;
		}
		n = label_compose(name, len, desc, mode, lo, c->label);
	}
	return (n);
}

/*
 * The label of entity e of p (label.h) in c->label, less the first skip
 * bytes of its name (a group header's), cut to fit max pixels at size
 * (fit_text).  Returns its length; *name_len is the length of the name
 * it starts with when a description follows it (drawn in grey), else 0.
 */
static size_t
fit_label(canvas *c, const render_panel *p, uint32_t e, size_t skip,
    double size, double max, size_t *name_len)
{
	const catalog *cat = p->d->cat;
	label_mode mode = c->o->labels;
	size_t len, n;
	const char *name = catalog_entity_name(cat, e, &len);
	const char *desc = cat->descriptions[e];

	/* Under a group's header, the rest of the name. */
	if (skip <= len) {
		name += skip;
		len -= skip;
	}
	n = fit_text(c, name, len, desc, mode, size, max);
	/* (Longer than the name and a space: the name is whole.) */
	len = label_name_length(name, len);
	*name_len = mode == LABEL_BOTH && desc != NULL && n > len + 1 &&
	    c->label[len] == ' ' ? len : 0;
	return (n);
}

/*
 * The labels' column: as wide as the widest whole label, but no wider
 * than a quarter of the picture or 24 characters' width (the SVG's 260
 * pixels at the default size), so the strips keep their room; longer
 * labels are cut.
 */
void
labels_measure(canvas *c, const render_panel *panels, size_t n)
{
	double widest = 0, max = c->o->width / 4.0;
	size_t i, name_len, len;
	uint32_t k;

	if (max > c->o->font_size * 24)
		max = c->o->font_size * 24;
	for (i = 0; i < n; i++) {
		const panel_rows *r = canvas_rows(c, &panels[i]);
		double size = labels_size(c->o,
		    layout_row_height(c->o, &panels[i]));
		char range[96];

		for (k = 0; size > 0 && k < panels[i].nentities &&
		    widest < max; k++) {
			double w;

			len = fit_label(c, &panels[i], panels[i].entities[k],
			    r->skip[k], size, -1, &name_len);
			if ((w = canvas_text_width_n(c, size, c->label,
			    len)) > widest)
				widest = w;
			if (store_kind_of(panels[i].d->st,
			    panels[i].entities[k]) != STORE_VALUES)
				continue;
			value_strips_range_text(c->o, &panels[i],
			    panels[i].entities[k], range, sizeof (range));
			if ((w = canvas_text_width(c, size, range)) > widest)
				widest = w;
		}
	}
	c->label_width = (unsigned)ceil(widest < max ? widest : max);
	c->strip_x = c->o->margin + c->label_width + LABEL_GAP;
	c->strip_width = c->o->width - c->strip_x - c->o->margin;
}

/*
 * Keeps the ink box of len bytes of label text at (x, y) for the layout
 * (render_layout's labels), as one box with *box if it holds one (a
 * name's, then its description's); row_y and row_h are its row's.
 */
static void
record_box(canvas *c, double x, double y, double size, const char *text,
    size_t len, double row_y, double row_h, int header, int join)
{
	render_label_box *b;
	double ink[4];

	if (!c->record_labels || !c->draw || len == 0)
		return;
	canvas_ink_box(c, x, y, size, text, len, ink);
	if (join && c->nlabel_boxes > 0) {
		double x1, y1;

		b = &c->label_boxes[c->nlabel_boxes - 1];
		x1 = fmax(b->x + b->width, ink[0] + ink[2]);
		y1 = fmax(b->y + b->height, ink[1] + ink[3]);
		b->x = fmin(b->x, ink[0]);
		b->y = fmin(b->y, ink[1]);
		b->width = x1 - b->x;
		b->height = y1 - b->y;
		return;
	}
	if (c->nlabel_boxes == c->label_boxes_cap) {
		c->label_boxes_cap = c->label_boxes_cap * 2 + 16;
		c->label_boxes = xrealloc(c->label_boxes,
		    c->label_boxes_cap * sizeof (render_label_box));
	}
	b = &c->label_boxes[c->nlabel_boxes++];
	b->x = ink[0];
	b->y = ink[1];
	b->width = ink[2];
	b->height = ink[3];
	b->row_y = row_y;
	b->row_height = row_h;
	b->header = header;
}

/*
 * An entity's label, right-aligned against its strip: the name in the
 * text colour, a description after it in grey.
 */
void
labels_draw(canvas *c, const render_panel *p, uint32_t e, size_t skip,
    double size, double y, double row_y, double row_h)
{
	const render_options *o = c->o;
	size_t name_len, n = fit_label(c, p, e, skip, size, c->label_width,
	    &name_len);
	double x = c->strip_x - LABEL_GAP - canvas_text_width_n(c, size,
	    c->label, n);

	canvas_set_color(c->cr, o->foreground);
	if (name_len == 0) {
		canvas_draw_text_n(c, x, y, size, c->label, n, 0);
		record_box(c, x, y, size, c->label, n, row_y, row_h, 0, 0);
		return;
	}
	canvas_draw_text_n(c, x, y, size, c->label, name_len, 0);
	record_box(c, x, y, size, c->label, name_len, row_y, row_h, 0, 0);
	x += canvas_text_width_n(c, size, c->label, name_len + 1);
	canvas_set_color(c->cr, color_mix(o->foreground, o->background, 0.6));
	canvas_draw_text_n(c, x, y, size, c->label + name_len + 1,
	    n - name_len - 1, 0);
	record_box(c, x, y, size, c->label + name_len + 1, n - name_len - 1,
	    row_y, row_h, 0, 1);
}

/*
 * Group headers: each level's path (the rest of it under the level
 * above) in the label column, indented by depth and cut to fit, and a
 * thin line across the strips above the level.
 */
void
labels_draw_headers(canvas *c, const render_panel *p, unsigned y0, double size)
{
	const render_options *o = c->o;
	const panel_rows *r = canvas_rows(c, p);
	unsigned rh = layout_row_height(o, p);
	size_t g, n;
	uint32_t k;

	/* A line too where a group ends and entities of none follow. */
	cairo_set_source_rgba(c->cr, o->foreground.r / 255.0,
	    o->foreground.g / 255.0, o->foreground.b / 255.0, 0.3);
	cairo_set_line_width(c->cr, 1);
	for (k = 1; k < p->nentities; k++)
		if (r->skip[k] == 0 && r->skip[k - 1] > 0) {
			cairo_move_to(c->cr, o->margin, y0 + r->y[k] + 0.5);
			cairo_line_to(c->cr, o->width - o->margin,
			    y0 + r->y[k] + 0.5);
			cairo_stroke(c->cr);
		}
	for (g = 0; g < r->nheads; g++) {
		uint32_t first = r->head_first[g];
		const char *name = catalog_entity_name(p->d->cat,
		    p->entities[first], NULL);
		double y = y0 + r->head_y[g], indent;

		cairo_set_source_rgba(c->cr, o->foreground.r / 255.0,
		    o->foreground.g / 255.0, o->foreground.b / 255.0, 0.3);
		cairo_set_line_width(c->cr, 1);
		cairo_move_to(c->cr, o->margin, y + 0.5);
		cairo_line_to(c->cr, o->width - o->margin, y + 0.5);
		cairo_stroke(c->cr);
		if (size <= 0)
			continue;
		canvas_set_color(c->cr, o->foreground);
		/* Inner levels indented under outer ones. */
		indent = r->head_depth[g] * size;
		n = fit_text(c, name + r->head_off[g], r->head_len[g], NULL,
		    LABEL_NAME, size, c->strip_x - LABEL_GAP - o->margin -
		    indent);
		canvas_draw_text_n(c, o->margin + indent,
		    y + rh - (rh - size) / 2 - size * 0.15, size, c->label, n,
		    0);
		record_box(c, o->margin + indent,
		    y + rh - (rh - size) / 2 - size * 0.15, size, c->label, n,
		    y, rh, 1, 0);
	}
}
