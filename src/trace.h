/*
 * trace.h: a trace read whole into memory, for scripts to query: what
 * Lua calls a trace.
 *
 * Where the classic command streams a file through the coalescer, a
 * script wants to ask questions of every transition: the store keeps them
 * all, per entity, and the catalog keeps the names.  Bounds clip what the
 * queries see; nothing outside them is dropped from memory.
 *
 * Ownership: a trace owns its catalog and store.  A trace never changes
 * once made, so any number of threads may query it at once; whoever
 * shares it (the Lua object, the live server) holds a reference, and the
 * last release frees it.
 */
#ifndef SM_TRACE_H
#define SM_TRACE_H

#include <regex.h>
#include <stdatomic.h>
#include <stdint.h>

#include "catalog.h"
#include "error.h"
#include "store.h"

typedef struct trace_options {
	int64_t begin, end;	/* ns since the metadata start; end 0: none */
	int ignore_tags;
	const regex_t *filter;	/* keep only entities whose names match */
	int no_cache;		/* neither use nor write the cache */
} trace_options;

typedef struct trace {
	catalog *cat;
	store *st;
	uint64_t begin, end;	/* the bounds queries see: [begin, end) */
	void *cache_map;	/* the cache file the store's columns are in */
	size_t cache_len;
	atomic_uint shared;	/* holders besides the first (trace_retain) */
} trace;

/*
 * Reads path ("-" for stdin).  The end is the last datum's time (as for
 * the classic statemap) or the end bound if earlier.  Returns NULL with
 * err filled on error.  A whole load (no filter, tags kept) of a regular
 * file goes through the cache (cache.h) unless no_cache is set.
 */
trace *trace_load(const char *path, const trace_options *opts,
    sm_error *err);

/*
 * References, safe from any thread: a new trace has one holder;
 * trace_retain adds one, trace_release drops one and frees the trace with
 * the last.  trace_free is trace_release, for the many places that never
 * share the trace they made.
 */
trace *trace_retain(trace *d);
void trace_release(trace *d);
void trace_free(trace *d);

/*
 * A new trace whose states are `states` (nstates of them, the array is
 * taken over) and whose transitions are those of src with each state
 * mapped: by_tag[tag id] for tagged transitions, by_state[state] for the
 * others.  Transitions that no longer change anything (same state and tag
 * as the one before) are dropped.  Tags keep their ids, with their state
 * mapped by by_tag.
 */
trace *trace_derive(const trace *src, catalog_state *states,
    uint32_t nstates, const uint32_t *by_state, const uint32_t *by_tag);

/*
 * The same with a new state for every transition: each[k] for the k-th
 * transition counting entity by entity in id order, each in time order
 * (store_total(src->st) entries).  Tags keep their old state values.
 */
trace *trace_derive_each(const trace *src, catalog_state *states,
    uint32_t nstates, const uint32_t *each);

/*
 * A new trace with only the entities in `ids` (n of them, in that
 * order, which becomes their order of appearance), named names[i] (or
 * their old names if names is NULL); states, tags and bounds as in src.
 * Returns NULL if two entities would get the same name.
 */
trace *trace_select(const trace *src, const uint32_t *ids, uint32_t n,
    const char *const *names, const size_t *name_lens);

/*
 * A new trace with one entity (named name) whose state at any time is
 * how many of src's entities are then in a state flagged in counted
 * (src->cat->nstates flags): its states are "0" to "N", N the number of
 * entities, shaded from light to dark.  Same window and metadata as src.
 */
trace *trace_count(const trace *src, const unsigned char *counted,
    const char *name, size_t name_len);

/*
 * A new trace with one entity per group: group_of[e] is the group of
 * src's entity e (0 to ngroups - 1), or UINT32_MAX to leave it out; group
 * g is named names[g].  A group's state at any time is, of the states its
 * members are then in, the one of lowest rank[state]: so a process whose
 * threads are running and sleeping is running, with rank putting running
 * first.  States and colours are src's; there are no tags.
 */
trace *trace_group(const trace *src, const uint32_t *group_of,
    uint32_t ngroups, const char *const *names, const size_t *name_lens,
    const uint32_t *rank);

#endif
