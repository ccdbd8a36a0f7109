/*
 * any_input.c: an input read by its kind.
 */
#include "ingest/any_input.h"

#include <string.h>

#include "ingest/ingest.h"
#include "ingest/input.h"
#include "ingest/kernel.h"

int
ingest_any(const char *path, unsigned analyses, catalog *cat,
    const ingest_options *opts, ingest_datum_fn datum, void *ctx,
    sm_error *err)
{
	if (input_kind_of(path, NULL) == INPUT_STATEMAP)
		return (ingest_file(path, cat, opts, datum, ctx, err));
	return (kernel_ingest(path, analyses != 0 ? analyses :
	    KERNEL_THREADS, cat, opts, datum, ctx, err));
}

size_t
ingest_any_variant(const char *path, unsigned analyses, char *buf,
    size_t size)
{
	static const char prefix[] = "kernel:";

	if (size < sizeof (prefix) + 1 ||
	    input_kind_of(path, NULL) == INPUT_STATEMAP)
		return (0);
	memcpy(buf, prefix, sizeof (prefix));
	return (sizeof (prefix) - 1 + kernel_analyses_text(analyses != 0 ?
	    analyses : KERNEL_THREADS, buf + sizeof (prefix) - 1,
	    size - sizeof (prefix) + 1));
}
