/*
 * valuesvg.h: value entities' strips in the classic SVG (svg.h).
 *
 * A value entity's strip is a filled step graph: one <rect> per
 * rectangle of its -T json rects (valuerects.h), in the same order, so
 * the viewer can place them as it places state rectangles.  The strip's
 * bottom is the smallest number of the entity, its top the largest; a
 * rectangle of one number is filled from the bottom up to it, a merged
 * one (several numbers) up to its time-weighted mean, in a lighter blue
 * (its min and max are in the data block and the viewer's panel).  A
 * rectangle of strings fills the strip in a colour of its own per
 * string (a hash of it; for a merged one, the string with the most
 * time); null time draws nothing (the "no data" hatch shows).  The
 * numbers' min and max are written at the right end of the strip.
 */
#ifndef SM_VALUESVG_H
#define SM_VALUESVG_H

#include <stdint.h>
#include <stdio.h>

#include "coalesce/smap.h"

/*
 * Draws entity e's rectangles at strip top y (statemap coordinates) if
 * it is a value entity: returns 1, else 0 having written nothing.
 */
int valuesvg_strip(FILE *out, const smap *m, uint32_t e, unsigned y,
    double span, unsigned width, unsigned height);

/*
 * The min and max labels of m's value entities (in display order), at
 * the right end x of strips whose first is at y (document coordinates).
 */
void valuesvg_ranges(FILE *out, const smap *m, size_t id, unsigned x,
    unsigned y, unsigned height);

#endif
