/*
 * palette_load.h: the colours of --palette NAME, read from the Lua module
 * statemap.palette (palette_option.h says how they are used).
 */
#ifndef SM_PALETTE_LOAD_H
#define SM_PALETTE_LOAD_H

#include "base/error.h"
#include "cli/palette_option.h"

/*
 * Fills *p with palette name's colours, then PALETTE_OPTION_EXTRA of
 * the module's automatic ones; -1 with err set ("--palette: no palette
 * \"x\" (there are greys, okabe_ito, tableau10)") if there is none.
 */
int palette_option_load(const char *name, palette_option *p,
    sm_error *err);

#endif
