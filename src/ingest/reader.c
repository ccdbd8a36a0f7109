#include "ingest/reader.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/json.h"
#include "base/util.h"

#define READ_CHUNK	(4 << 20)
#define RELEASE_CHUNK	((size_t)8 << 20)

void
reader_position(const reader *rd, size_t offset, uint64_t *line,
    uint64_t *column)
{
	uint64_t l, c;

	/* Within the window, then from where the window starts. */
	json_line_column(rd->buf, offset, &l, &c);
	*line = rd->line_base + l;
	*column = l == 1 ? rd->col_base + c : c;
}

int
reader_open(reader *rd, const char *path, const char *name, sm_error *err)
{
	memset(rd, 0, sizeof (*rd));
	if ((rd->src = source_open(path, name, err)) == NULL)
		return (-1);
	if (source_map(rd->src, &rd->buf, &rd->len)) {
		rd->mapped = 1;
		rd->eof = 1;
		return (0);
	}
	rd->cap = READ_CHUNK;
	rd->mem = xmalloc(rd->cap);
	rd->buf = rd->mem;
	return (0);
}

void
reader_close(reader *rd)
{
	free(rd->mem);
	source_close(rd->src);
}

int
reader_refill(reader *rd, size_t *pos, sm_error *err)
{
	long n;

	if (rd->eof)
		return (0);
	if (*pos > 0) {
		uint64_t line, col;

		reader_position(rd, *pos, &line, &col);
		rd->line_base = line - 1;
		rd->col_base = col - 1;
		memmove(rd->mem, rd->mem + *pos, rd->len - *pos);
		rd->len -= *pos;
		rd->base += *pos;
		*pos = 0;
	}
	if (rd->cap - rd->len < READ_CHUNK / 2) {
		rd->cap *= 2;
		rd->mem = xrealloc(rd->mem, rd->cap);
	}
	rd->buf = rd->mem;
	n = source_read(rd->src, rd->mem + rd->len, rd->cap - rd->len, err);
	if (n < 0)
		return (-1);
	if (n == 0) {
		rd->eof = 1;
		return (0);
	}
	rd->len += (size_t)n;
	return (1);
}

/*
 * Nothing points into parsed records (names are copied), and an error
 * position that needs them again just faults them back in.
 */
void
reader_release(reader *rd, size_t pos)
{
	size_t page = 4096, end;

	if (!rd->mapped || pos - rd->released < RELEASE_CHUNK)
		return;
	end = pos & ~(page - 1);
	(void) madvise((char *)rd->buf + rd->released, end - rd->released,
	    MADV_DONTNEED);
	rd->released = end;
}

uint64_t
reader_consumed(const reader *rd, size_t pos)
{
	return (rd->mapped || rd->src == NULL ? rd->base + pos :
	    source_consumed(rd->src));
}
