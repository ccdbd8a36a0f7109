/*
 * smap_json.h: coalesced statemaps as the -T json document (jsonout.h
 * has its shape), each entity as its kind asks: plain ones by jsonout.h,
 * value and nested ones by kindjson.h.  The SVG's data block is the same
 * document.
 */
#ifndef SM_SMAP_JSON_H
#define SM_SMAP_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "coalesce/smap.h"

/* order[i] is the index in maps of the i-th statemap to write. */
void smap_json_write(FILE *out, const smap *maps, size_t n,
    const size_t *order);

#endif
