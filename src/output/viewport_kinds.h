/*
 * viewport_kinds.h: a panel's value entities and depth rows (private to the viewport's files; viewport_state.h
 * says which does what).
 */
#ifndef SM_VIEWPORT_KINDS_H
#define SM_VIEWPORT_KINDS_H

#include "coalesce/depthrows.h"
#include "coalesce/valuerects.h"
#include "output/viewport_state.h"

/*
 * The panel's value entities and depth rows over the window, as the
 * classic command coalesces them, about `width` rectangles for each
 * value entity and for each nested entity's depth rows (NULL if none).
 */
void viewport_kinds_panel(const vpanel *vp, unsigned width,
    valuerects **values, depthrows **depths);

#endif
