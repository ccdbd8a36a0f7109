/*
 * writer.h: a trace written back out in the statemap format (t:write),
 * so that reading the file (statemap.load, the classic statemap) gives
 * the same trace, whether it was loaded, built (builder.h) or derived.
 *
 * The file is one record per line: the metadata (start, title, host,
 * entityKind, every state with its colour), the tags that must come
 * before the data in id order, then entity by entity in id order its
 * description and its data, then the events in their order.  A nested
 * entity's transitions become the data that make them ("state" for
 * depth 1, "push" one deeper, "pop" one shallower); a value entity's are
 * "value" data, numbers written so that they read back to the same
 * double.
 *
 * Reading numbers entities and tags where they first come, so the file
 * keeps them in their order: every defined tag is written before the
 * data with its definition, and so is every undefined one but for the
 * last ids when the data name them first in id order, which number them
 * as they are; those written before the data are declared
 * ({"state": S, "tag": T, "description": null}).  An entity with
 * neither a description nor a datum is declared in its place
 * ({"entity": E, "description": null}).  Declarations are extensions
 * of the format (statemap-lua-format(5)), written only where they must.
 *
 * A file ends at its last datum in file order: a datum at the trace's
 * end is held back and written last (the first entity's whose last datum
 * is there and whose place holding it back does not change: it has a
 * line before, or it is the last entity).  With no such datum, the data
 * end with an end record ({"time": "END"}, an extension too), which
 * changes no entity.  Data after the end are left out; data before the
 * trace's window are written, so the file reads back with the same
 * answers to every query in the window, though its window begins at 0.
 * A trace that begins at 0 and holds no data after its end reads back
 * as the same trace, and writing that gives the same bytes.
 *
 * Ownership: reads the trace; writes to out.
 */
#ifndef SM_WRITER_H
#define SM_WRITER_H

#include <stdio.h>

#include "base/error.h"
#include "trace/trace.h"

/* Writes d to out.  Returns 0, or -1 if stopped (runlimit.h) with *why. */
int writer_write(FILE *out, const trace *d, const char **why);

/*
 * Writes d to path ("-": standard output), all or nothing (outfile.h).
 * Returns 0, or -1 with err filled.
 */
int writer_save(const trace *d, const char *path, sm_error *err);

#endif
