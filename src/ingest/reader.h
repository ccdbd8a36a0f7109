/*
 * reader.h: the window of input that the ingest parses, and where a byte
 * of it is in lines and columns.
 *
 * A mapped file is one window, the whole file.  A stream (a pipe, stdin,
 * compressed data) keeps the unparsed tail in a buffer that it refills,
 * and remembers the line and column where that buffer starts, so error
 * positions stay right however far the stream has gone.  A caller's
 * buffer is a window too (reader_open is then not called).
 *
 * Ownership: the reader owns its stream buffer and its source; a mapped
 * window borrows the source's mapping.
 */
#ifndef SM_READER_H
#define SM_READER_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "ingest/source.h"

typedef struct reader {
	source *src;		/* NULL for a buffer given by the caller */
	const char *buf;
	size_t len;
	int mapped;		/* buf is the source's mapping */
	char *mem;		/* the stream buffer, if streaming */
	size_t cap;
	uint64_t base;		/* input offset of buf[0] */
	int eof;
	size_t released;	/* mapped bytes handed back to the kernel */
	uint64_t line_base;	/* newlines before buf[0] */
	uint64_t col_base;	/* characters after the last of them */
} reader;

/* Opens path ("-" for stdin), named name in errors: 0, or -1 with err. */
int reader_open(reader *rd, const char *path, const char *name,
    sm_error *err);
void reader_close(reader *rd);

/*
 * Drops the bytes before *pos (which becomes 0) and reads more.  Returns
 * 1 if more input arrived, 0 at the end of the input, -1 on a read error
 * (with err).
 */
int reader_refill(reader *rd, size_t *pos, sm_error *err);

/*
 * Says that everything before pos is parsed: a mapped file's pages
 * behind it go back to the kernel (every 8 MB), so memory stays bounded
 * by what is kept, not by the size of the input.
 */
void reader_release(reader *rd, size_t pos);

/* The 1-based line and column (in characters) of buf[offset]. */
void reader_position(const reader *rd, size_t offset, uint64_t *line,
    uint64_t *column);

/* How much of the file is read, for a progress display. */
uint64_t reader_consumed(const reader *rd, size_t pos);

#endif
