/*
 * kindjson.h: the classic command's value and nested entities in its
 * JSON (-T json, and the SVG's data block), next to jsonout.h's plain
 * ones:
 *
 *   value entity:  {"name", "description", "kind": "values", "rects": [
 *                    {"start", "duration" [, "min", "max", "mean"]
 *                     [, "strings": {string: ns}]} ]}
 *   nested entity: {"name", "description", "kind": "nested", "rects": [
 *                    as a plain entity's (the top of the stack) ],
 *                   "depths": [[rects of depth 1], [depth 2], ...]}
 *
 * A value rectangle has min, max and the time-weighted mean of the
 * numbers it covers (none if it covers no number), and the time per
 * string if it covers strings; time with no value (null) is in neither.
 * Depth rows' rectangles are plain rectangles (valuerects.h and
 * depthrows.h say how they are coalesced); those all in "absent" time
 * are left out.  Plain entities are written by jsonout.h, unchanged.
 */
#ifndef SM_KINDJSON_H
#define SM_KINDJSON_H

#include <stdint.h>
#include <stdio.h>

#include "coalesce/depthrows.h"
#include "coalesce/smap.h"
#include "coalesce/valuerects.h"
#include "output/jsonout.h"

/*
 * Writes entity e of m if it is a value or nested entity (returns 1),
 * else writes nothing (returns 0).  ids and times: nstates scratch.
 */
int kindjson_entity(FILE *out, const smap *m, const jsonout_names *names,
    uint32_t e, int first, uint32_t *ids, uint64_t *times);

/*
 * The same pieces for a writer with its own coalescers (viewport.h):
 * a value entity e of v whole (counts: each rectangle with "n", the
 * values it stands for); a nested entity opened up to its top
 * rectangles (the caller writes them, jsonout_rect_write), then closed
 * with its depth rows from dr.  ids and times: nstates scratch.
 */
void kindjson_values(FILE *out, const catalog *cat, const valuerects *v,
    uint32_t e, int first, int counts);
/*
 * Only the rectangles of kindjson_values (the members of its "rects"
 * array), for a writer that opens the entity itself; returns the values
 * they stand for (their "n"s), and adds how many it wrote to *nrects
 * (if not NULL).
 */
uint64_t kindjson_value_rects(FILE *out, const catalog *cat,
    const valuerects *v, uint32_t e, int counts, uint64_t *nrects);
void kindjson_nested_open(FILE *out, const catalog *cat, uint32_t e,
    int first);
void kindjson_nested_close(FILE *out, const catalog *cat,
    const depthrows *dr, const jsonout_names *names, uint32_t e,
    uint32_t *ids, uint64_t *times);

/* A number as JSON that reads back to the same double. */
void kindjson_number(FILE *out, double d);

#endif
