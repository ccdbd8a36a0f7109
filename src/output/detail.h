/*
 * detail.h: finer coalescings embedded in the interactive SVG (--detail
 * SIZE), so that zooming into a shared file, which cannot ask a server,
 * shows more than its one coalescing.
 *
 * The SVG's data block (the -T json document, "level 0") is left as it
 * is.  Beside it goes a second block, id "statemap-detail":
 *
 *   {"version": 1, "span": NS, "width": PX, "coalesce": N,
 *    "counts": [[1, [3, 1, 2], ...], ...],
 *    "windows": [{"from": NS, "to": NS, "level": D, "transitions": T,
 *                 "rects": R, "statemaps": [{"entities": [
 *                   {"rects": [{"start", "duration", "states", "tags",
 *                               "n"}, ...]}, ...]}, ...]}, ...]}
 *
 * "counts" gives each level-0 rectangle's transitions (its "n"), per
 * statemap and entity in the data block's order: 1 for an entity whose
 * rectangles are all single transitions, else one number per rectangle.
 * Each window is the live server's answer (viewport.h) for [from, to)
 * (ns from the statemaps' common begin, as the viewer's offsets) at the
 * strips' width with a budget of "coalesce" rectangles: rectangles as in
 * -T json with "n", entities in the data block's order without their
 * names, tag ids those of the data block.  A value entity's entry is
 * {"kind": "values", "rects": [...]} (kindjson.h's value rectangles, with
 * "n"); a nested entity's adds "kind": "nested" and "depths" (its depth
 * rows over the window, without "n").  A window's "transitions" and
 * "rects" are its strips' (value rectangles included, depth rows not),
 * and the counts give value rectangles' n as they do state ones'.
 *
 * Which windows: at level d a window is 1/2^d of the span and starts at
 * a multiple of half that, so that any view at most half as wide lies
 * inside one.  A window has an eighth of level 0's rectangle budget (but
 * two per row at least, and never more than level 0's), and the first
 * level is the one where windows are twice as dense as level 0 (level 4
 * for a budget of 25000).  Candidates are taken greedily,
 * most hidden transitions first (the sum over the finest window above,
 * or level 0, of n - 1 for the rectangles inside the candidate, prorated
 * by overlap); a window taken makes its three windows at the next level
 * candidates.  A window that does not fit what is left of SIZE is
 * skipped, and the next tried, until eight have been skipped or nothing
 * is hidden any more.  The viewer draws the finest window holding its
 * view, and level 0 where none does.
 *
 * When no level-0 rectangle merges anything, there is no block: the root
 * element says data-detail="exact" instead.
 */
#ifndef SM_DETAIL_H
#define SM_DETAIL_H

#include <stddef.h>
#include <stdint.h>

#include "coalesce/smap.h"
#include "trace/trace.h"

/* The default SIZE, in bytes of the detail block. */
#define DETAIL_DEFAULT		(4u << 20)
/*
 * The default applies to traces of at most this many transitions (data,
 * as a store of them holds): a larger trace, where loading it again would
 * cost far more than drawing it, gets only the counts unless --detail is
 * given.
 */
#define DETAIL_AUTO_MAX		2000000
/* The largest SIZE accepted. */
#define DETAIL_MAX		(1u << 30)
/* --detail not given. */
#define DETAIL_AUTO		UINT64_MAX

/*
 * SIZE: digits with an optional K, M or G (powers of 1024), at most
 * DETAIL_MAX; 0 is none.  Returns 0, or -1 if text is not one.
 */
int detail_parse_size(const char *text, uint64_t *bytes);

/* Whether some level-0 rectangle stands for more than one transition. */
int detail_merged(const smap *maps, size_t n);

/*
 * The bytes to spend on windows: asked, or for DETAIL_AUTO the default
 * for traces of this many transitions (data) in all.
 */
uint64_t detail_bytes(uint64_t asked, uint64_t transitions);

/*
 * The detail block (malloc'd JSON text, its length in *len) for the
 * statemaps as svg_write takes them (maps, n, order), drawn width pixels
 * wide from a coalescing of `budget` rectangles: the counts, and windows
 * within `bytes` made from traces[i], a store of the trace maps[i] was
 * drawn from (traces NULL: no windows).  The block is at most `bytes`
 * long, but for the counts, which are always written.  NULL if no
 * level-0 rectangle is merged.
 */
char *detail_json(const smap *maps, size_t n, const size_t *order,
    const trace *const *traces, unsigned width, uint64_t budget,
    uint64_t bytes, size_t *len);

#endif
