/*
 * writer.h: a trace written back out in the statemap format (t:write),
 * so that reading the file (statemap.load, the classic statemap) gives
 * the same trace, whether it was loaded, built (builder.h) or derived.
 *
 * The file is one record per line: the metadata (start, title, host,
 * entityKind, every state with its colour), every defined tag in id
 * order, then entity by entity in id order its description and its data,
 * then the events in their order.  A nested entity's transitions become
 * the data that make them ("state" for depth 1, "push" one deeper, "pop"
 * one shallower); a value entity's are "value" data, numbers written so
 * that they read back to the same double.  Entities so keep their order,
 * and tags their ids when every tag used is defined.
 *
 * A file ends at its last datum in file order: the datum with the latest
 * time is held back and written last, and if no datum is at the trace's
 * end, one more is, which changes nothing (the entity's state or value
 * again, a transition of no length at the end).  Data after the end are
 * left out; data before the trace's window are written, so the file reads
 * back with the same answers to every query in the window, though its
 * window begins at 0.
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
