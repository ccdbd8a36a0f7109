/*
 * dataset.h: a trace read whole into a store, for scripts to query.
 *
 * Where the classic command streams a file through the coalescer, a
 * script wants to ask questions of every transition: the store keeps them
 * all, per entity, and the trace keeps the names.  Bounds clip what the
 * queries see; nothing outside them is dropped from memory.
 *
 * Ownership: a dataset owns its trace and store.
 */
#ifndef SM_DATASET_H
#define SM_DATASET_H

#include <regex.h>
#include <stdint.h>

#include "error.h"
#include "store.h"
#include "trace.h"

typedef struct dataset_options {
	int64_t begin, end;	/* ns since the metadata start; end 0: none */
	int ignore_tags;
	const regex_t *filter;	/* keep only entities whose names match */
	int no_cache;		/* neither use nor write the cache */
} dataset_options;

typedef struct dataset {
	trace *tr;
	store *st;
	uint64_t begin, end;	/* the bounds queries see: [begin, end) */
	void *cache_map;	/* the cache file the store's columns are in */
	size_t cache_len;
} dataset;

/*
 * Reads path ("-" for stdin).  The end is the last datum's time (as for
 * the classic statemap) or the end bound if earlier.  Returns NULL with
 * err filled on error.  A whole load (no filter, tags kept) of a regular
 * file goes through the cache (cache.h) unless no_cache is set.
 */
dataset *dataset_load(const char *path, const dataset_options *opts,
    sm_error *err);
void dataset_free(dataset *d);

/*
 * A new dataset whose states are `states` (nstates of them, the array is
 * taken over) and whose transitions are those of src with each state
 * mapped: by_tag[tag id] for tagged transitions, by_state[state] for the
 * others.  Transitions that no longer change anything (same state and tag
 * as the one before) are dropped.  Tags keep their ids, with their state
 * mapped by by_tag.
 */
dataset *dataset_derive(const dataset *src, trace_state *states,
    uint32_t nstates, const uint32_t *by_state, const uint32_t *by_tag);

/*
 * The same with a new state for every transition: each[k] for the k-th
 * transition counting entity by entity in id order, each in time order
 * (store_total(src->st) entries).  Tags keep their old state values.
 */
dataset *dataset_derive_each(const dataset *src, trace_state *states,
    uint32_t nstates, const uint32_t *each);

/*
 * A new dataset with only the entities in `ids` (n of them, in that
 * order, which becomes their order of appearance), named names[i] (or
 * their old names if names is NULL); states, tags and bounds as in src.
 * Returns NULL if two entities would get the same name.
 */
dataset *dataset_select(const dataset *src, const uint32_t *ids, uint32_t n,
    const char *const *names, const size_t *name_lens);

/*
 * A new dataset with one entity (named name) whose state at any time is
 * how many of src's entities are then in a state flagged in counted
 * (src->tr->nstates flags): its states are "0" to "N", N the number of
 * entities, shaded from light to dark.  Same window and metadata as src.
 */
dataset *dataset_count(const dataset *src, const unsigned char *counted,
    const char *name, size_t name_len);

/*
 * A new dataset with one entity per group: group_of[e] is the group of
 * src's entity e (0 to ngroups - 1), or UINT32_MAX to leave it out; group
 * g is named names[g].  A group's state at any time is, of the states its
 * members are then in, the one of lowest rank[state]: so a process whose
 * threads are running and sleeping is running, with rank putting running
 * first.  States and colours are src's; there are no tags.
 */
dataset *dataset_group(const dataset *src, const uint32_t *group_of,
    uint32_t ngroups, const char *const *names, const size_t *name_lens,
    const uint32_t *rank);

#endif
