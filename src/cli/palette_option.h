/*
 * palette_option.h: --palette NAME on the command line: the colours of
 * the palette NAME of the Lua module statemap.palette (their one
 * source), then that module's automatic colours for states beyond them,
 * given to the states of a file in value order as
 * statemap.palette.apply gives them, replacing the file's own.
 * palette_load.h fills one in (with Lua, which this file does without).
 *
 * Ownership: a palette_option owns its colours (palette_option_free).
 */
#ifndef SM_PALETTE_OPTION_H
#define SM_PALETTE_OPTION_H

#include <stddef.h>

#include "base/color.h"
#include "store/catalog.h"

/* Automatic colours kept after the palette's own; more states reuse them. */
#define PALETTE_OPTION_EXTRA	1024

typedef struct palette_option {
	color *colors;		/* named, then PALETTE_OPTION_EXTRA automatic */
	size_t named;		/* the palette's own */
	size_t n;
} palette_option;

/* Gives cat's states p's colours in value order. */
void palette_option_apply(const palette_option *p, catalog *cat);

void palette_option_free(palette_option *p);

#endif
