/*
 * group_slots.h: how many group headers the interactive viewer shows
 * above the rows of a statemap whose entity names are paths, by the
 * viewer's own rule (viewer_rows.js, buildTree): each level of the paths
 * (a prefix ending before a separator not escaped, path_escape.h; a
 * separator first starts no level) is a header, unless it has no entity
 * of its own and a single inner level, when it is one header with it.
 *
 * The SVG gives each header a slot of the strips' height, so that
 * headers do not take the rows' room (the viewer would otherwise squeeze
 * the rows and the headers into the height of the rows alone).
 */
#ifndef SM_GROUP_SLOTS_H
#define SM_GROUP_SLOTS_H

#include <stdint.h>

#include "store/catalog.h"

/* The headers the viewer shows for entities ids[0..n) of cat. */
uint32_t group_slots_count(const catalog *cat, const uint32_t *ids,
    uint32_t n);

#endif
