/*
 * value_strips.h: a value entity's strip (render.h), private to render/.
 * Numbers are a band from each pixel column's min to its max and a fill
 * from the scale's base to its mean, all from the summaries
 * (store_value_stats), scaled to the numbers over the span; strings are
 * runs of generated colours, written on where they fit; no value is the
 * hatch.  Images get them pixel by pixel, vector output as rectangles
 * over runs of columns alike.
 */
#ifndef SM_RENDER_VALUE_STRIPS_H
#define SM_RENDER_VALUE_STRIPS_H

#include <stddef.h>
#include <stdint.h>

#include "render/canvas.h"

/*
 * A value entity's pixel column: its numbers' min, max and mean there,
 * and the share of the column that had a number; for a string entity,
 * the string at the column's middle (mean holds its id, covered 1), or
 * none (covered 0).
 */
typedef struct value_column {
	double min, max, mean, covered;
} value_column;

/*
 * Paints d's value entity e, h pixels tall from y, into image data (rows
 * stride bytes apart); col is scratch for c->strip_width columns.
 */
void value_strips_paint(const canvas *c, unsigned char *data, int stride,
    const trace *d, uint32_t e, unsigned y, unsigned h, value_column *col);

/*
 * Draws p's value entity e at y, h pixels tall, on a vector surface;
 * col, px and covered are scratch for c->strip_width columns.
 */
void value_strips_draw_vector(canvas *c, const render_panel *p, uint32_t e,
    double y, unsigned h, value_column *col, color *px, double *covered);

/*
 * The range over the span, written under a value entity's name: "min
 * -2.5, max 300", "strings" or "no value", into buf of size bytes.
 */
void value_strips_range_text(const render_options *o,
    const render_panel *p, uint32_t e, char *buf, size_t size);

/*
 * For panel p drawn from y0 with labels at size (0: none): each value
 * strip's range under its label; the strings on their runs.
 */
void value_strips_draw_ranges(canvas *c, const render_panel *p,
    unsigned y0, double size);
void value_strips_draw_strings(canvas *c, const render_panel *p,
    unsigned y0, double size);

#endif
