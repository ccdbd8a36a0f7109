/*
 * progress.h: a one-line progress display on stderr for long loads.
 *
 * Shown only when stderr is a terminal, and only once a load has run for
 * about a second (short loads stay silent): the file's name, a bar and
 * the percentage (when the size is known), records read and MB/s.  The
 * line is erased when the load ends, so what follows prints cleanly.
 * $STATEMAP_PROGRESS=never turns it off; =always shows it at once, even
 * when stderr is not a terminal (for testing the display).
 *
 * Ownership: progress_new returns NULL when nothing is to be shown; every
 * function accepts NULL, so callers need no checks.
 */
#ifndef SM_PROGRESS_H
#define SM_PROGRESS_H

#include <stdint.h>

typedef struct progress progress;

/* total: bytes of the file (0 if unknown, as for a pipe). */
progress *progress_new(const char *name, uint64_t total);

/*
 * done: bytes of the file read so far (compressed bytes for compressed
 * input); text: bytes of text parsed; records: records read.  Cheap to
 * call often: it redraws at most ten times a second.
 */
void progress_update(progress *p, uint64_t done, uint64_t text,
    uint64_t records);

/* Erases the line (if anything was shown) and frees. */
void progress_end(progress *p);

#endif
