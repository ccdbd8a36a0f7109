/*
 * any_input.h: reads any input the program takes, by what it is
 * (input.h): a statemap file as ingest_file does, a kernel trace
 * through the analyses of kernel.h.
 */
#ifndef SM_ANY_INPUT_H
#define SM_ANY_INPUT_H

#include <stddef.h>

#include "base/error.h"
#include "ingest/consumer.h"
#include "store/catalog.h"

/*
 * As ingest_file (ingest.h), for any input: analyses is the set of
 * kernel.h's analyses a kernel trace is read through (0: threads), and
 * is not used for a statemap file.
 */
int ingest_any(const char *path, unsigned analyses, catalog *cat,
    const ingest_options *opts, ingest_datum_fn datum, void *ctx,
    sm_error *err);

/*
 * What tells apart the loads of path with these analyses in the cache
 * of loaded traces (cache_key_variant): writes it into buf and returns
 * its length, or returns 0 for a statemap file, which has only one.
 */
size_t ingest_any_variant(const char *path, unsigned analyses, char *buf,
    size_t size);

#endif
