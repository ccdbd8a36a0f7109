/*
 * source.h: the bytes of an input file, whatever holds them.
 *
 * A regular uncompressed file is mapped whole (source_map), which is the
 * fastest way to read it; anything else is read in pieces (source_read):
 * pipes and stdin, and gzip or zstd compressed data, recognised by their
 * magic numbers (not by name, so "zcat"-less pipes work too) and
 * decompressed on the fly.  Concatenated gzip members and zstd frames are
 * read one after the other, as gzip -d and zstd -d do.
 *
 * Ownership: the source owns its descriptor, mapping and buffers;
 * source_close releases them.  A mapping stays valid until then.
 */
#ifndef SM_SOURCE_H
#define SM_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct source source;

typedef enum source_kind {
	SOURCE_PLAIN,
	SOURCE_GZIP,
	SOURCE_ZSTD
} source_kind;

/*
 * Opens path ("-" for stdin); name is used in errors.  Returns NULL with
 * err filled (at line 0: the file as a whole) if it cannot be read.
 */
source *source_open(const char *path, const char *name, sm_error *err);
void source_close(source *s);

source_kind source_kind_of(const source *s);

/*
 * The whole file, if it is a mapped regular file: returns 1 and sets
 * *buf and *len (len > 0), else 0 (then use source_read).
 */
int source_map(const source *s, const char **buf, size_t *len);

/*
 * Copies up to cap bytes of a mapped file, from offset, into buf: the
 * same bytes as the mapping, read with pread(2), so threads may call it
 * side by side.  For a thread that reads a large part of the file once:
 * each page read through the mapping is a page fault, and on virtual
 * machines that costs several times what copying it into a buffer that
 * stays in the cache does.  Returns the number copied (fewer than cap
 * only at the end of the mapping), or -1 on a read error.
 */
long source_copy(const source *s, uint64_t offset, char *buf, size_t cap);

/*
 * Reads up to cap decompressed bytes into buf.  Returns the number read,
 * 0 at the end of the input, or -1 with err filled (a read error, or
 * compressed data that is corrupt or cut short).
 */
long source_read(source *s, char *buf, size_t cap, sm_error *err);

/*
 * How far reading has got through the file itself (compressed bytes for
 * compressed input), and the file's size (0 if unknown: a pipe): what a
 * progress display shows as a fraction.
 */
uint64_t source_consumed(const source *s);
uint64_t source_size(const source *s);

#endif
