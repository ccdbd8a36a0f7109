#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "util.h"

/* Compressed input is read in pieces this big (decompressors like big). */
#define IN_CHUNK	(1 << 20)

struct source {
	const char *name;
	int fd;
	source_kind kind;
	const char *map;	/* the whole file, when mapped */
	size_t map_len;
	uint64_t size;		/* of a regular file, else 0 */
	uint64_t consumed;	/* bytes read from the file */
	unsigned char *in;	/* raw bytes read but not yet used */
	size_t in_len, in_pos;
	int in_eof;
	int last_full;		/* the decompressor filled the last buffer */
	z_stream z;
	int z_ready, z_done;	/* set up; at the end of a gzip member */
	ZSTD_DStream *zs;
	size_t z_hint;		/* zstd's last return: 0 at a frame's end */
};

/* One read(2): the number of bytes (0 at the end), or -1 with err. */
static ssize_t
raw_read(source *s, void *buf, size_t cap, sm_error *err)
{
	ssize_t n;

	do {
		n = read(s->fd, buf, cap);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		error_at(err, s->name, 0, 0, "read error: %s", strerror(errno));
		return (-1);
	}
	if (n == 0)
		s->in_eof = 1;
	s->consumed += (uint64_t)n;
	return (n);
}

/* Refills the raw buffer once it is used up: 1, 0 at the end, or -1. */
static int
raw_fill(source *s, sm_error *err)
{
	ssize_t n;

	if (s->in_pos < s->in_len)
		return (1);
	if (s->in_eof)
		return (0);
	n = raw_read(s, s->in, IN_CHUNK, err);
	s->in_pos = 0;
	s->in_len = n > 0 ? (size_t)n : 0;
	return (n < 0 ? -1 : n > 0);
}

/* What the first bytes say the data is. */
static source_kind
sniff(const unsigned char *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return (SOURCE_GZIP);
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f &&
	    p[3] == 0xfd)
		return (SOURCE_ZSTD);
	return (SOURCE_PLAIN);
}

static int
start_decoder(source *s, sm_error *err)
{
	if (s->kind == SOURCE_GZIP) {
		/* 15 + 32: any window size, gzip or zlib header detected. */
		if (inflateInit2(&s->z, 15 + 32) != Z_OK) {
			error_at(err, s->name, 0, 0, "cannot start gzip "
			    "decompression");
			return (-1);
		}
		s->z_ready = 1;
	} else if (s->kind == SOURCE_ZSTD) {
		if ((s->zs = ZSTD_createDStream()) == NULL) {
			error_at(err, s->name, 0, 0, "cannot start zstd "
			    "decompression");
			return (-1);
		}
		(void) ZSTD_initDStream(s->zs);
		s->z_hint = 1;
	}
	return (0);
}

source *
source_open(const char *path, const char *name, sm_error *err)
{
	source *s = xcalloc(1, sizeof (*s));
	unsigned char magic[4];
	struct stat st;
	ssize_t n = 0;

	s->name = name;
	if (strcmp(path, "-") == 0) {
		s->fd = STDIN_FILENO;
	} else if ((s->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		error_at(err, path, 0, 0, "cannot open: %s", strerror(errno));
		free(s);
		return (NULL);
	}
	if (fstat(s->fd, &st) != 0) {
		error_at(err, name, 0, 0, "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		error_at(err, name, 0, 0, "is a directory, not a trace file");
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		s->size = (uint64_t)st.st_size;
		do {
			n = pread(s->fd, magic, sizeof (magic), 0);
		} while (n < 0 && errno == EINTR);
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0 && n > 0 &&
	    sniff(magic, (size_t)n) == SOURCE_PLAIN) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ,
		    MAP_PRIVATE, s->fd, 0);

		if (map != MAP_FAILED) {
			(void) madvise(map, (size_t)st.st_size,
			    MADV_SEQUENTIAL);
			s->map = map;
			s->map_len = (size_t)st.st_size;
			s->consumed = s->size;
			return (s);
		}
	}
	/* Read the first few bytes to see what the stream holds. */
	s->in = xmalloc(IN_CHUNK);
	while (s->in_len < 4 && !s->in_eof) {
		ssize_t r = raw_read(s, s->in + s->in_len, 4 - s->in_len, err);

		if (r < 0)
			goto fail;
		s->in_len += (size_t)r;
	}
	s->kind = sniff(s->in, s->in_len);
	if (start_decoder(s, err) != 0)
		goto fail;
	return (s);
fail:
	source_close(s);
	return (NULL);
}

void
source_close(source *s)
{
	if (s == NULL)
		return;
	if (s->map != NULL)
		(void) munmap((void *)s->map, s->map_len);
	if (s->z_ready)
		(void) inflateEnd(&s->z);
	ZSTD_freeDStream(s->zs);
	free(s->in);
	if (s->fd > STDIN_FILENO)
		(void) close(s->fd);
	free(s);
}

source_kind
source_kind_of(const source *s)
{
	return (s->kind);
}

int
source_map(const source *s, const char **buf, size_t *len)
{
	if (s->map == NULL)
		return (0);
	*buf = s->map;
	*len = s->map_len;
	return (1);
}

uint64_t
source_consumed(const source *s)
{
	return (s->consumed);
}

uint64_t
source_size(const source *s)
{
	return (s->size);
}

static long
read_plain(source *s, char *buf, size_t cap, sm_error *err)
{
	if (s->in_pos < s->in_len) {
		size_t n = s->in_len - s->in_pos;

		if (n > cap)
			n = cap;
		memcpy(buf, s->in + s->in_pos, n);
		s->in_pos += n;
		return ((long)n);
	}
	if (s->in_eof)
		return (0);
	/* Straight into the caller's buffer: no copy for plain streams. */
	return ((long)raw_read(s, buf, cap, err));
}

static long
read_gzip(source *s, char *buf, size_t cap, sm_error *err)
{
	z_stream *z = &s->z;

	z->next_out = (Bytef *)buf;
	z->avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
	for (;;) {
		int r;

		if (!s->last_full && raw_fill(s, err) < 0)
			return (-1);
		if (s->z_done) {
			/* Another member follows, or this is the end. */
			if (s->in_pos == s->in_len && s->in_eof)
				return (0);
			(void) inflateReset(z);
			s->z_done = 0;
		}
		z->next_in = s->in + s->in_pos;
		z->avail_in = (uInt)(s->in_len - s->in_pos);
		r = inflate(z, Z_NO_FLUSH);
		s->in_pos = s->in_len - z->avail_in;
		s->last_full = z->avail_out == 0;
		if (r == Z_STREAM_END) {
			s->z_done = 1;
		} else if (r != Z_OK && r != Z_BUF_ERROR) {
			error_at(err, s->name, 0, 0, "corrupt gzip data: %s",
			    z->msg != NULL ? z->msg : "inflate failed");
			return (-1);
		}
		if ((size_t)z->avail_out < cap)
			return ((long)(cap - z->avail_out));
		if (!s->z_done && s->in_pos == s->in_len && s->in_eof) {
			error_at(err, s->name, 0, 0, "gzip data is cut short");
			return (-1);
		}
	}
}

static long
read_zstd(source *s, char *buf, size_t cap, sm_error *err)
{
	ZSTD_outBuffer out = { buf, cap, 0 };

	for (;;) {
		ZSTD_inBuffer in;
		size_t r;

		if (!s->last_full && raw_fill(s, err) < 0)
			return (-1);
		in.src = s->in + s->in_pos;
		in.size = s->in_len - s->in_pos;
		in.pos = 0;
		r = ZSTD_decompressStream(s->zs, &out, &in);
		s->in_pos += in.pos;
		if (ZSTD_isError(r)) {
			error_at(err, s->name, 0, 0, "corrupt zstd data: %s",
			    ZSTD_getErrorName(r));
			return (-1);
		}
		/* With no input and no output, r hints at a next frame. */
		if (in.pos > 0 || out.pos > 0)
			s->z_hint = r;
		s->last_full = out.pos == out.size;
		if (out.pos > 0)
			return ((long)out.pos);
		if (s->in_pos == s->in_len && s->in_eof) {
			if (s->z_hint == 0)
				return (0);
			error_at(err, s->name, 0, 0, "zstd data is cut short");
			return (-1);
		}
	}
}

long
source_read(source *s, char *buf, size_t cap, sm_error *err)
{
	if (s->map != NULL || cap == 0)
		return (0);
	switch (s->kind) {
	case SOURCE_GZIP:
		return (read_gzip(s, buf, cap, err));
	case SOURCE_ZSTD:
		return (read_zstd(s, buf, cap, err));
	default:
		return (read_plain(s, buf, cap, err));
	}
}
