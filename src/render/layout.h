/*
 * layout.h: where each row of a panel goes, from its first row's top,
 * with no Cairo (private to render/).  Entities come in the order given
 * or, with the panel's group, in the order of the path tree that groups
 * them by name prefix (render.h), a header row before each level shown;
 * an entity's strip is one row, RENDER_VALUE_ROWS for a value entity,
 * and a row per depth of its stack for a nested one with nested_rows.
 *
 * Ownership: panel_rows owns its arrays (layout_rows_free) and keeps no
 * pointer to the panel.
 */
#ifndef SM_RENDER_LAYOUT_H
#define SM_RENDER_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "render/options.h"

/*
 * Where a panel's rows are, from its first row's top: each entity's
 * strip (a value entity's is RENDER_VALUE_ROWS rows, a nested one's with
 * nested_rows a row per depth), and the group headers between them.
 */
typedef struct panel_rows {
	uint32_t *order;	/* entity ids, in drawn order */
	uint32_t *given;	/* drawn index -> index in the order given */
	unsigned *y, *h;	/* each drawn entity's strip: top, height */
	uint32_t *levels;	/* sub-rows of nested_rows (0: one strip) */
	size_t *skip;		/* bytes of its name that its header says */
	unsigned *head_y;	/* group headers' tops */
	uint32_t *head_first;	/* the drawn index of each one's first */
	/* Each header's text: bytes off to off + len of its first's name. */
	size_t *head_off, *head_len;
	uint32_t *head_depth;	/* shown levels above it: its indent */
	size_t nheads;
	unsigned height;
} panel_rows;

/* Lays out panel p's rows, rh pixels each, into r. */
void layout_rows(panel_rows *r, const render_panel *p, unsigned rh);
void layout_rows_free(panel_rows *r);

/* A panel's row height: its own, or the options'. */
unsigned layout_row_height(const render_options *o, const render_panel *p);

#endif
