/*
 * trace.h: a trace read whole into memory, for scripts to query: what
 * Lua calls a trace.
 *
 * Where the classic command streams a file through the coalescer, a
 * script wants to ask questions of every transition: the store keeps them
 * all, per entity, and the catalog keeps the names.  Bounds clip what the
 * queries see; nothing outside them is dropped from memory.
 *
 * The traces scripts derive from a loaded one (mapped states, chosen
 * entities, counts, groups) are made by transform.h.
 *
 * Ownership: a trace owns its catalog and store, but for a slice
 * (transform_slice), which holds a reference on the trace it was cut
 * from (parent) and reads that one's catalog and columns in place.  A
 * trace never changes once made, so any number of threads may query it
 * at once; whoever shares it (the Lua object, the live server) holds a
 * reference, and the last release frees it.
 */
#ifndef SM_TRACE_H
#define SM_TRACE_H

#include <regex.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base/error.h"
#include "store/catalog.h"
#include "store/store.h"

typedef struct trace_options {
	int64_t begin, end;	/* ns since the metadata start; end 0: none */
	int ignore_tags;
	const regex_t *filter;	/* keep only entities whose names match */
	int no_cache;		/* neither use nor write the cache */
	/* a kernel trace's analyses (ingest/kernel.h); 0: threads */
	unsigned analyses;
} trace_options;

typedef struct trace {
	catalog *cat;
	store *st;
	uint64_t begin, end;	/* the bounds queries see: [begin, end) */
	struct cache_entry *cache_map;	/* where the store's times are */
	struct trace *parent;	/* a slice's: whose catalog and columns */
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

#endif
