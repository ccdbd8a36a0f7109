#include "ingest/source.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "base/debug.h"
#include "base/fatal.h"
#include "base/threads.h"
#include "base/util.h"

/* Compressed input is read in pieces this big (decompressors like big). */
#define IN_CHUNK	(1 << 20)

/*
 * Decompression runs ahead on a thread of its own, when there are cores
 * for it, so that it overlaps parsing: it fills a few buffers, which
 * source_read hands out in order.  An error is passed on in its place in
 * the stream, after the data before it.
 */
#define AHEAD_BUFFERS	4
#define AHEAD_SIZE	(1 << 20)

typedef struct ahead_buffer {
	char *data;
	size_t len;
	uint64_t consumed;	/* file bytes read when it was filled */
} ahead_buffer;

typedef struct ahead {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, drained;
	ahead_buffer bufs[AHEAD_BUFFERS];
	size_t head, count;	/* the oldest filled buffer; how many */
	size_t pos;		/* how much of the oldest has been handed out */
	int end, failed, stop;
	sm_error err;		/* when failed */
} ahead;

struct source {
	const char *name;
	int fd;
	source_kind kind;
	const char *map;	/* the whole file, when mapped */
	size_t map_len;
	int map_watch;		/* its registration with fatal.h */
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
	ahead *ahead;		/* the decompressing thread, once started */
	int ahead_tried;
	uint64_t handed;	/* file bytes behind what was handed out */
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
			/* A file cut short while mapped is an error, not a
			 * crash: reading past its new end raises SIGBUS. */
			s->map_watch = fatal_watch_map(map, s->map_len, name);
			debug_hold("hold-input", name, 1);
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

static void ahead_stop(source *s);
static void ahead_free(ahead *a);

void
source_close(source *s)
{
	if (s == NULL)
		return;
	ahead_stop(s);
	if (s->map != NULL) {
		fatal_unwatch_map(s->map_watch);
		(void) munmap((void *)s->map, s->map_len);
	}
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

long
source_copy(const source *s, uint64_t offset, char *buf, size_t cap)
{
	size_t done = 0;

	if (offset >= s->map_len)
		return (0);
	if (cap > s->map_len - offset)
		cap = (size_t)(s->map_len - offset);
	while (done < cap) {
		ssize_t n = pread(s->fd, buf + done, cap - done,
		    (off_t)(offset + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return (n < 0 ? -1 : (long)done);
		done += (size_t)n;
	}
	return ((long)done);
}

uint64_t
source_consumed(const source *s)
{
	return (s->ahead != NULL ? s->handed : s->consumed);
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

static long
decode(source *s, char *buf, size_t cap, sm_error *err)
{
	switch (s->kind) {
	case SOURCE_GZIP:
		return (read_gzip(s, buf, cap, err));
	case SOURCE_ZSTD:
		return (read_zstd(s, buf, cap, err));
	default:
		return (read_plain(s, buf, cap, err));
	}
}

static void *
ahead_thread(void *arg)
{
	source *s = arg;
	ahead *a = s->ahead;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		ahead_buffer *b;
		sm_error err;
		long n;

		while (a->count == AHEAD_BUFFERS && !a->stop)
			pthread_cond_wait(&a->drained, &a->lock);
		if (a->stop)
			break;
		b = &a->bufs[(a->head + a->count) % AHEAD_BUFFERS];
		pthread_mutex_unlock(&a->lock);
		n = decode(s, b->data, AHEAD_SIZE, &err);
		pthread_mutex_lock(&a->lock);
		if (n <= 0) {
			a->end = 1;
			a->failed = n < 0;
			a->err = err;
			pthread_cond_signal(&a->filled);
			break;
		}
		b->len = (size_t)n;
		b->consumed = s->consumed;
		a->count++;
		pthread_cond_signal(&a->filled);
	}
	pthread_mutex_unlock(&a->lock);
	return (NULL);
}

/* Starts decompressing ahead, if it pays; 0 if reading stays inline. */
static int
ahead_start(source *s)
{
	ahead *a;
	size_t i;

	s->ahead_tried = 1;
	if (s->kind == SOURCE_PLAIN || threads_count() < 2)
		return (0);
	a = xcalloc(1, sizeof (*a));
	for (i = 0; i < AHEAD_BUFFERS; i++)
		a->bufs[i].data = xmalloc(AHEAD_SIZE);
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->filled, NULL);
	pthread_cond_init(&a->drained, NULL);
	s->ahead = a;
	if (pthread_create(&a->thread, NULL, ahead_thread, s) != 0) {
		s->ahead = NULL;
		ahead_free(a);
		return (0);
	}
	return (1);
}

static void
ahead_free(ahead *a)
{
	size_t i;

	for (i = 0; i < AHEAD_BUFFERS; i++)
		free(a->bufs[i].data);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->filled);
	pthread_cond_destroy(&a->drained);
	free(a);
}

static void
ahead_stop(source *s)
{
	ahead *a = s->ahead;

	if (a == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = 1;
	pthread_cond_signal(&a->drained);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	s->ahead = NULL;
	ahead_free(a);
}

/* Hands out the decompressed data in order: as decode does. */
static long
ahead_read(source *s, char *buf, size_t cap, sm_error *err)
{
	ahead *a = s->ahead;
	ahead_buffer *b;
	size_t n;

	pthread_mutex_lock(&a->lock);
	while (a->count == 0 && !a->end)
		pthread_cond_wait(&a->filled, &a->lock);
	if (a->count == 0) {
		pthread_mutex_unlock(&a->lock);
		if (!a->failed)
			return (0);
		*err = a->err;
		return (-1);
	}
	b = &a->bufs[a->head];
	pthread_mutex_unlock(&a->lock);
	n = b->len - a->pos < cap ? b->len - a->pos : cap;
	memcpy(buf, b->data + a->pos, n);
	a->pos += n;
	s->handed = b->consumed;
	if (a->pos == b->len) {
		pthread_mutex_lock(&a->lock);
		a->head = (a->head + 1) % AHEAD_BUFFERS;
		a->count--;
		a->pos = 0;
		pthread_cond_signal(&a->drained);
		pthread_mutex_unlock(&a->lock);
	}
	return ((long)n);
}

long
source_read(source *s, char *buf, size_t cap, sm_error *err)
{
	if (s->map != NULL || cap == 0)
		return (0);
	if (s->ahead != NULL || (!s->ahead_tried && ahead_start(s)))
		return (ahead_read(s, buf, cap, err));
	return (decode(s, buf, cap, err));
}
