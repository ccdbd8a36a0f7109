/*
 * transform.h: new traces made from a loaded one, in C over every
 * transition: what Lua's t:map, t:recolor, t:keep, t:rename, t:slice,
 * t:count and t:group do after asking their questions
 * (lua_transform.c).
 *
 * Each new trace has the window and metadata of its source and its own
 * catalog and store (but a slice, which reads its source's); the source
 * is only read.  Every function may stop
 * for a script's limits (runlimit.h): it then returns NULL with *why,
 * having freed what it made.
 *
 * Ownership: the caller owns what is returned; arrays passed in are
 * borrowed, but for states, which the new trace takes over.
 */
#ifndef SM_TRANSFORM_H
#define SM_TRANSFORM_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

/*
 * The transitions of src with each state mapped: by_tag[tag id] for
 * tagged transitions, by_state[state] for the others, into the states
 * given (nstates of them, taken over).  Transitions that no longer
 * change anything (same state and tag as the one before) are dropped.
 * A tag is a state and a name: tags are numbered anew, in their old
 * order, each under its state mapped by by_tag (so they keep their ids,
 * unless two of one name now share a state and become one).
 */
trace *transform_map(const trace *src, catalog_state *states,
    uint32_t nstates, const uint32_t *by_state, const uint32_t *by_tag,
    const char **why);

/*
 * The same with a new state for every transition: each[k] for the k-th
 * transition counting entity by entity in id order, each in time order
 * (store_total(src->st) entries).  Tags are numbered anew: first each
 * under the new state named as its old one, if any; then each pair of a
 * new state and a tag's name that transitions make.
 */
trace *transform_map_each(const trace *src, catalog_state *states,
    uint32_t nstates, const uint32_t *each, const char **why);

/*
 * Only the entities in ids (n of them, in that order, which becomes their
 * order of appearance), named names[i] (or their old names if names is
 * NULL).  NULL with *why if two entities would get one name.
 */
trace *transform_select(const trace *src, const uint32_t *ids, uint32_t n,
    const char *const *names, const size_t *name_lens, const char **why);

/*
 * src with its window narrowed to [from, to), which must lie in it: a
 * view (store_view) that reads src's catalog and columns in place and
 * holds a reference on the trace that owns them, so it takes O(log n)
 * per entity and memory for the entities only.  Its transitions are, per
 * entity, those that bound its intervals in the window, from the one in
 * effect at from to the first after to (see store_view).  Every query,
 * transform, statemap and picture of it is that of a copy of src with
 * that window (tests/unit/test_slice.c), but for what lies outside the
 * window: its transition counts, and the unclipped bounds of intervals
 * that cross its edges in the traces made from it (a map, a group),
 * which know nothing of src beyond those transitions.  Never fails.
 */
trace *transform_slice(const trace *src, uint64_t from, uint64_t to,
    const char **why);

/*
 * A trace of one entity (named name) whose state is the number of src's
 * entities in a state flagged in counted (src->cat->nstates flags) over
 * the window (count_series.h): states "0" to "N", N the number of entities,
 * shaded light to dark.  N may be at most STORE_MAX_STATES - 1.  Its
 * transitions: "0" at the window's start, then the count there if it is
 * not 0, then the count at each time it changes.
 */
trace *transform_count(const trace *src, const unsigned char *counted,
    const char *name, size_t name_len, const char **why);

/*
 * One entity per group: group_of[e] is the group of src's entity e (0 to
 * ngroups - 1), or UINT32_MAX to leave it out; group g is named names[g].
 * A group's state at any time is, of the states its members are then in,
 * the one of lowest rank[state]: so a process whose threads are running
 * and sleeping is running, with rank putting running first.  States and
 * colours are src's; there are no tags.
 */
trace *transform_group(const trace *src, const uint32_t *group_of,
    uint32_t ngroups, const char *const *names, const size_t *name_lens,
    const uint32_t *rank, const char **why);

#endif
