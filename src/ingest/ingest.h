/*
 * ingest.h: reads a trace in the statemap instrumentation format.
 *
 * One pass over the input: metadata, descriptions, tag definitions and
 * events go into the catalog; each datum (state transition) is validated and
 * handed to the caller's datum function, which is how the coalescer and
 * the store consume a file without the ingest knowing either (what a
 * consumer gives and takes is consumer.h, included here).
 *
 * Regular files are mapped; pipes and stdin ("-") are read in large
 * chunks, so memory stays bounded by the largest record.  Every problem is
 * reported as one error at FILE:LINE:COLUMN naming what was expected and
 * what was found; the caller prints it.
 */
#ifndef SM_INGEST_H
#define SM_INGEST_H

#include <stddef.h>

#include "base/error.h"
#include "ingest/consumer.h"
#include "store/catalog.h"

/*
 * Reads path ("-" for stdin) into cat, calling datum for each transition.
 * Returns 0, or -1 with err filled.  On error cat holds what was read so
 * far and must still be freed by the caller.
 */
int ingest_file(const char *path, catalog *cat, const ingest_options *opts,
    ingest_datum_fn datum, void *ctx, sm_error *err);

/*
 * The same over a buffer already in memory; name is used in errors.
 */
int ingest_buffer(const char *name, const char *buf, size_t len, catalog *cat,
    const ingest_options *opts, ingest_datum_fn datum, void *ctx,
    sm_error *err);

#endif
