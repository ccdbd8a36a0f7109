/*
 * rowwriter.h: rows of text formatted on two threads, written in order.
 *
 * Once the last datum is coalesced, the classic command writes every
 * strip's rectangles and every entity's JSON on one thread while the
 * other core has nothing left to do: at a hundred thousand rectangles or
 * with tags kept, that is a tenth of the run.  rowwriter_run hands part
 * of the rows to a helper thread, which formats them into memory ahead
 * of time; this thread formats the others straight to the output and
 * copies the helper's text in when its turn comes, so the bytes are the
 * same as writing every row in turn (as with STATEMAP_THREADS=1, or
 * when there are too few rows to share).
 *
 * Rows are cut into blocks of neighbours, and the two threads take
 * every other block.  The helper holds at most ROWWRITER_SLOTS blocks of
 * text, so memory stays bounded whatever the output's size.
 *
 * fn must only read what it shares with other rows: it gets the
 * thread's own scratch (scratch_bytes, zeroed once) for anything it
 * writes, and must write only to the FILE it is given.  If fn cannot
 * run on another thread, or a thread cannot be started, rows are
 * written in turn here.
 */
#ifndef SM_ROWWRITER_H
#define SM_ROWWRITER_H

#include <stddef.h>
#include <stdio.h>

typedef void (*rowwriter_fn)(FILE *out, size_t row, void *scratch,
    void *ctx);

void rowwriter_run(FILE *out, size_t nrows, rowwriter_fn fn, void *ctx,
    size_t scratch_bytes);

#endif
