/*
 * labels.h: the labels' column, left of the strips (private to render/):
 * each entity's label (label.h) right-aligned against its strip, a
 * description in grey, and the group headers of the path tree
 * (layout.h), indented by depth; all cut to fit the column.
 */
#ifndef SM_RENDER_LABELS_H
#define SM_RENDER_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "render/canvas.h"

/* The size of labels in rows rh pixels tall: 0 for none. */
double labels_size(const render_options *o, unsigned rh);

/*
 * Sets the labels' column (c->label_width) and so where the strips are
 * (c->strip_x, c->strip_width), from the widest label of the panels.
 */
void labels_measure(canvas *c, const render_panel *panels, size_t n);

/*
 * Entity e of p's label, less skip bytes of its name (its group
 * header's), with its baseline at y, on the row from row_y, row_h tall
 * (kept with its ink's box when c->record_labels).
 */
void labels_draw(canvas *c, const render_panel *p, uint32_t e, size_t skip,
    double size, double y, double row_y, double row_h);

/* Panel p's group headers from y0, and the lines above them. */
void labels_draw_headers(canvas *c, const render_panel *p, unsigned y0,
    double size);

#endif
