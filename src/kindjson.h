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

#include "jsonout.h"
#include "smap.h"

/*
 * Writes entity e of m if it is a value or nested entity (returns 1),
 * else writes nothing (returns 0).  ids and times: nstates scratch.
 */
int kindjson_entity(FILE *out, const smap *m, const jsonout_names *names,
    uint32_t e, int first, uint32_t *ids, uint64_t *times);

/* A number as JSON that reads back to the same double. */
void kindjson_number(FILE *out, double d);

#endif
