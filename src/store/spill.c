#include "store/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/byte_size.h"
#include "base/debug.h"
#include "base/fatal.h"
#include "base/runlimit.h"
#include "base/util.h"
#include "store/cache_directory.h"

/*
 * A transition in the buffer: entity, time, state, tag, its place in the
 * sorted run, and room for its entity in the list of those present.
 */
#define RECORD_BYTES	(4 + 8 + 2 + 4 + 4 + 4)
#define MIN_RECORDS	16
#define MAX_IO		((size_t)1 << 20)	/* a read or write buffer */
#define MIN_IO		((size_t)4096)

/* What a run says of one entity it holds, in its index. */
typedef struct segment {
	uint32_t entity;
	uint32_t tagged;	/* its tags are in the run's tags */
	uint64_t count;
} segment;

typedef struct run {
	uint64_t index_off, nindex;
	uint64_t times_off, states_off, tags_off;
} run;

struct spill {
	int fd;			/* the run file */
	char dir[PATH_MAX];	/* where it is, for messages */
	uint64_t file_end;
	run *runs;
	size_t nruns, runs_cap;
	size_t run_bytes;

	/* The buffer, freed by the first merge. */
	size_t cap, n;
	uint32_t *entity, *tag, *order, *present;
	uint64_t *time;
	uint16_t *state;
	/* By entity id, for the buffer's sort: counts, then places. */
	uint32_t *place;
	unsigned char *seg_tagged;
	size_t place_cap;

	/* Per entity, everything taken. */
	uint64_t *count;
	unsigned char *tagged;
	size_t entities_cap;
	uint32_t tag_limit;

	uint64_t flush_ns;	/* time spent writing runs, for STATEMAP_DEBUG */

	char *io;		/* the write buffer */
	size_t io_cap, io_len;
	uint64_t io_off;	/* where io_len bytes go */
};

static void __attribute__((format(printf, 2, 3)))
say(char why[SPILL_WHY], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(why, SPILL_WHY, fmt, ap);
	va_end(ap);
}

/* ---- the budget ---- */

static size_t
physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0 ||
	    (unsigned long)pages > SIZE_MAX / (unsigned long)size)
		return (SIZE_MAX);
	return ((size_t)pages * (size_t)size);
}

static _Atomic size_t budget_set;

void
spill_set_budget(size_t bytes)
{
	budget_set = bytes;
}

size_t
spill_budget(void)
{
	static int warned;
	const char *s = getenv("STATEMAP_SPILL_BYTES");
	uint64_t bytes;
	size_t room;

	if (s != NULL && s[0] != '\0') {
		if (byte_size_parse(s, &bytes) == 0 && bytes > 0)
			return (bytes > SIZE_MAX ? SIZE_MAX : (size_t)bytes);
		if (!warned) {
			warned = 1;
			fprintf(stderr, "statemap-lua: STATEMAP_SPILL_BYTES="
			    "\"%s\" is not a size (such as 64M): ignored\n", s);
		}
	}
	room = runlimit_room();
	if (room != SIZE_MAX)
		return (room / 2);
	if (budget_set > 0)
		return (budget_set);
	return (physical_memory() / 2);
}

/* ---- unnamed temporary files ---- */

/* The directory for temporary files: a descriptor, or -1 with why. */
static int
open_dir(char dir[PATH_MAX], char why[SPILL_WHY])
{
	const char *env = getenv("STATEMAP_SPILL_DIR");
	char *path;
	int fd;

	if (env != NULL && env[0] != '\0') {
		(void) snprintf(dir, PATH_MAX, "%s", env);
		fd = open(env, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			say(why, "cannot use STATEMAP_SPILL_DIR=%s for "
			    "temporary files: %s", env, strerror(errno));
		return (fd);
	}
	fd = cache_directory_open(1, &path);
	if (fd < 0) {
		say(why, "no directory for temporary files (the cache "
		    "directory cannot be used): set STATEMAP_SPILL_DIR");
		return (-1);
	}
	(void) snprintf(dir, PATH_MAX, "%s", path);
	free(path);
	return (fd);
}

/* Where O_TMPFILE is not to be had: a new name, removed at once. */
static int
named_then_removed(int dirfd, const char *dir)
{
	char name[64], path[PATH_MAX + 64];
	int tries, fd = -1, slot;

	for (tries = 0; tries < 16; tries++) {
		uint64_t r;

		if (getrandom(&r, sizeof (r), 0) != (ssize_t)sizeof (r))
			return (-1);
		(void) snprintf(name, sizeof (name), "statemap-lua.%016llx."
		    "spill", (unsigned long long)r);
		(void) snprintf(path, sizeof (path), "%s/%s", dir, name);
		/* Named for the moment it has a name: a signal removes it. */
		slot = fatal_add_temp(path);
		fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			(void) unlinkat(dirfd, name, 0);
		fatal_drop_temp(slot);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	return (fd);
}

static int
temp_file(char dir[PATH_MAX], char why[SPILL_WHY])
{
	int dirfd = open_dir(dir, why), fd;

	if (dirfd < 0)
		return (-1);
	fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR ||
	    errno == EINVAL))
		fd = named_then_removed(dirfd, dir);
	if (fd < 0)
		say(why, "cannot make temporary files in %s: %s", dir,
		    strerror(errno));
	(void) close(dirfd);
	return (fd);
}

int
spill_temp_file(char why[SPILL_WHY])
{
	char dir[PATH_MAX];

	return (temp_file(dir, why));
}

/* ---- writing ---- */

static int
write_failed(const spill *sp, char why[SPILL_WHY], int error)
{
	say(why, "cannot write temporary files in %s: %s", sp->dir,
	    strerror(error != 0 ? error : EIO));
	return (-1);
}

static int
write_at(int fd, const char *data, size_t len, uint64_t off)
{
	while (len > 0) {
		ssize_t n = pwrite(fd, data, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return (-1);
		}
		data += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return (0);
}

static int
io_flush(spill *sp, int fd, char why[SPILL_WHY])
{
	if (sp->io_len > 0 && write_at(fd, sp->io, sp->io_len, sp->io_off) != 0)
		return (write_failed(sp, why, errno));
	sp->io_off += sp->io_len;
	sp->io_len = 0;
	return (0);
}

/* Appends to fd at io_off on, through the write buffer. */
static int
io_put(spill *sp, int fd, const void *data, size_t len, char why[SPILL_WHY])
{
	const char *p = data;

	while (len > 0) {
		size_t k = sp->io_cap - sp->io_len;

		if (k == 0) {
			if (io_flush(sp, fd, why) != 0)
				return (-1);
			continue;
		}
		if (k > len)
			k = len;
		memcpy(sp->io + sp->io_len, p, k);
		sp->io_len += k;
		p += k;
		len -= k;
	}
	return (0);
}

/* ---- the spill ---- */

spill *
spill_new(size_t run_bytes, char why[SPILL_WHY])
{
	spill *sp = xcalloc(1, sizeof (*sp));

	sp->fd = temp_file(sp->dir, why);
	if (sp->fd < 0) {
		free(sp);
		return (NULL);
	}
	sp->run_bytes = run_bytes;
	sp->cap = run_bytes / RECORD_BYTES;
	if (sp->cap < MIN_RECORDS)
		sp->cap = MIN_RECORDS;
	if (sp->cap > UINT32_MAX / 2)
		sp->cap = UINT32_MAX / 2;
	sp->entity = xmalloc(sp->cap * sizeof (uint32_t));
	sp->tag = xmalloc(sp->cap * sizeof (uint32_t));
	sp->order = xmalloc(sp->cap * sizeof (uint32_t));
	sp->present = xmalloc(sp->cap * sizeof (uint32_t));
	sp->time = xmalloc(sp->cap * sizeof (uint64_t));
	sp->state = xmalloc(sp->cap * sizeof (uint16_t));
	sp->io_cap = run_bytes / 16;
	if (sp->io_cap > MAX_IO)
		sp->io_cap = MAX_IO;
	if (sp->io_cap < MIN_IO)
		sp->io_cap = MIN_IO;
	sp->io = xmalloc(sp->io_cap);
	return (sp);
}

static void
free_buffer(spill *sp)
{
	free(sp->entity);
	free(sp->tag);
	free(sp->order);
	free(sp->present);
	free(sp->time);
	free(sp->state);
	free(sp->place);
	free(sp->seg_tagged);
	sp->entity = sp->tag = sp->order = sp->present = sp->place = NULL;
	sp->time = NULL;
	sp->state = NULL;
	sp->seg_tagged = NULL;
	sp->cap = sp->n = sp->place_cap = 0;
}

void
spill_free(spill *sp)
{
	if (sp == NULL)
		return;
	free_buffer(sp);
	if (sp->fd >= 0)
		(void) close(sp->fd);
	free(sp->runs);
	free(sp->count);
	free(sp->tagged);
	free(sp->io);
	free(sp);
}

size_t
spill_memory(const spill *sp)
{
	return (sizeof (*sp) + sp->cap * RECORD_BYTES + sp->place_cap *
	    (sizeof (uint32_t) + 1) + sp->entities_cap * (sizeof (uint64_t) +
	    1) + sp->runs_cap * sizeof (run) + sp->io_cap);
}

uint64_t
spill_count(const spill *sp, uint32_t entity)
{
	return (entity < sp->entities_cap ? sp->count[entity] : 0);
}

int
spill_tagged(const spill *sp, uint32_t entity)
{
	return (entity < sp->entities_cap && sp->tagged[entity]);
}

uint32_t
spill_tag_limit(const spill *sp)
{
	return (sp->tag_limit);
}

/* Room for per-entity totals up to entity. */
static void
totals_for(spill *sp, uint32_t entity)
{
	size_t old = sp->entities_cap;

	if (entity < old)
		return;
	grow_array(&sp->count, &sp->entities_cap, (size_t)entity + 1,
	    sizeof (uint64_t));
	sp->tagged = xrealloc(sp->tagged, sp->entities_cap);
	memset(sp->count + old, 0, (sp->entities_cap - old) *
	    sizeof (uint64_t));
	memset(sp->tagged + old, 0, sp->entities_cap - old);
}

static run *
new_run(spill *sp, uint64_t nindex, uint64_t total, uint64_t ntagged)
{
	run *r;

	grow_array(&sp->runs, &sp->runs_cap, sp->nruns + 1, sizeof (run));
	r = &sp->runs[sp->nruns++];
	r->index_off = sp->file_end;
	r->nindex = nindex;
	r->times_off = r->index_off + nindex * sizeof (segment);
	r->states_off = r->times_off + total * sizeof (uint64_t);
	r->tags_off = r->states_off + total * sizeof (uint16_t);
	sp->file_end = r->tags_off + ntagged * sizeof (uint32_t);
	sp->io_off = r->index_off;
	sp->io_len = 0;
	return (r);
}

static int
compare_entities(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return (a < b ? -1 : a > b);
}

/*
 * Copies n items of size bytes, the order[i]-th of from for each i,
 * into the file through the write buffer: the gathering loop of a run.
 * With keep, only items whose entity has keep[entity] set.
 */
static int
gather(spill *sp, const void *from, size_t size, const unsigned char *keep,
    char why[SPILL_WHY])
{
	const char *base = from;
	size_t i;

	for (i = 0; i < sp->n; i++) {
		uint32_t k = sp->order[i];

		if (keep != NULL && !keep[sp->entity[k]])
			continue;
		if (sp->io_cap - sp->io_len < size &&
		    io_flush(sp, sp->fd, why) != 0)
			return (-1);
		memcpy(sp->io + sp->io_len, base + (size_t)k * size, size);
		sp->io_len += size;
	}
	return (0);
}

/*
 * Writes the buffer as a run: sorted by entity (a counting sort, stable:
 * place[e] counts, then moves from e's start to its end), the index,
 * then times, states and tags in that order.
 */
static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec);
}

static int
flush(spill *sp, char why[SPILL_WHY])
{
	size_t i, n = sp->n, npresent = 0, ntagged = 0, start = 0, prev;
	uint32_t e, *place = sp->place;
	uint64_t t0 = now_ns();
	segment seg;

	if (n == 0)
		return (0);
	for (i = 0; i < n; i++) {
		e = sp->entity[i];
		if (place[e]++ == 0)
			sp->present[npresent++] = e;
		if (sp->tag[i] != SPILL_NO_TAG)
			sp->seg_tagged[e] = 1;
	}
	qsort(sp->present, npresent, sizeof (uint32_t), compare_entities);
	for (i = 0; i < npresent; i++) {
		uint32_t c;

		e = sp->present[i];
		c = place[e];
		place[e] = (uint32_t)start;
		start += c;
		if (sp->seg_tagged[e])
			ntagged += c;
	}
	(void) new_run(sp, npresent, n, ntagged);
	for (i = 0; i < n; i++)
		sp->order[place[sp->entity[i]]++] = (uint32_t)i;
	for (i = 0, prev = 0; i < npresent; i++) {
		e = sp->present[i];
		seg.entity = e;
		seg.tagged = sp->seg_tagged[e];
		seg.count = place[e] - prev;
		prev = place[e];
		if (io_put(sp, sp->fd, &seg, sizeof (seg), why) != 0)
			return (-1);
	}
	if (gather(sp, sp->time, sizeof (uint64_t), NULL, why) != 0 ||
	    gather(sp, sp->state, sizeof (uint16_t), NULL, why) != 0 ||
	    (ntagged > 0 && gather(sp, sp->tag, sizeof (uint32_t),
	    sp->seg_tagged, why) != 0) ||
	    io_flush(sp, sp->fd, why) != 0)
		return (-1);
	/* Cleared for the next run, touching only what this one used. */
	for (i = 0; i < npresent; i++) {
		place[sp->present[i]] = 0;
		sp->seg_tagged[sp->present[i]] = 0;
	}
	sp->n = 0;
	sp->flush_ns += now_ns() - t0;
	return (0);
}

/* Room in the buffer's per-entity arrays for entity. */
static void
place_for(spill *sp, uint32_t entity)
{
	size_t old = sp->place_cap;

	if ((size_t)entity + 1 <= old)
		return;
	grow_array(&sp->place, &sp->place_cap, (size_t)entity + 1,
	    sizeof (uint32_t));
	sp->seg_tagged = xrealloc(sp->seg_tagged, sp->place_cap);
	memset(sp->place + old, 0, (sp->place_cap - old) * sizeof (uint32_t));
	memset(sp->seg_tagged + old, 0, sp->place_cap - old);
}

int
spill_append(spill *sp, uint32_t entity, uint64_t time, uint16_t state,
    uint32_t tag, char why[SPILL_WHY])
{
	size_t i;

	if (sp->n == sp->cap && flush(sp, why) != 0)
		return (-1);
	if (entity >= sp->place_cap)
		place_for(sp, entity);
	if (entity >= sp->entities_cap)
		totals_for(sp, entity);
	i = sp->n++;
	sp->entity[i] = entity;
	sp->time[i] = time;
	sp->state[i] = state;
	sp->tag[i] = tag;
	sp->count[entity]++;
	if (tag != SPILL_NO_TAG) {
		sp->tagged[entity] = 1;
		if (tag >= sp->tag_limit)
			sp->tag_limit = tag + 1;
	}
	return (0);
}

int
spill_append_many(spill *sp, uint32_t entity, const uint64_t *times,
    const uint16_t *states, size_t n, char why[SPILL_WHY])
{
	if (entity >= sp->place_cap)
		place_for(sp, entity);
	if (entity >= sp->entities_cap)
		totals_for(sp, entity);
	while (n > 0) {
		size_t k = sp->cap - sp->n, i;

		if (k == 0) {
			if (flush(sp, why) != 0)
				return (-1);
			continue;
		}
		if (k > n)
			k = n;
		memcpy(sp->time + sp->n, times, k * sizeof (uint64_t));
		memcpy(sp->state + sp->n, states, k * sizeof (uint16_t));
		for (i = 0; i < k; i++) {
			sp->entity[sp->n + i] = entity;
			sp->tag[sp->n + i] = SPILL_NO_TAG;
		}
		sp->n += k;
		sp->count[entity] += k;
		times += k;
		states += k;
		n -= k;
	}
	return (0);
}

int
spill_write_columns(spill *sp, uint32_t nentities,
    const uint64_t *const *time, const uint16_t *const *state,
    const uint32_t *const *tag, const size_t *count, char why[SPILL_WHY])
{
	uint64_t nindex = 0, total = 0, ntagged = 0;
	uint32_t e;
	size_t i;
	segment seg;

	if (nentities == 0)
		return (0);
	if (flush(sp, why) != 0)
		return (-1);
	totals_for(sp, nentities - 1);
	for (e = 0; e < nentities; e++) {
		if (count[e] == 0)
			continue;
		nindex++;
		total += count[e];
		if (tag[e] != NULL)
			ntagged += count[e];
	}
	(void) new_run(sp, nindex, total, ntagged);
	for (e = 0; e < nentities; e++) {
		if (count[e] == 0)
			continue;
		seg.entity = e;
		seg.tagged = tag[e] != NULL;
		seg.count = count[e];
		sp->count[e] += count[e];
		sp->tagged[e] |= tag[e] != NULL;
		if (io_put(sp, sp->fd, &seg, sizeof (seg), why) != 0)
			return (-1);
	}
	for (e = 0; e < nentities; e++)
		if (count[e] > 0 && io_put(sp, sp->fd, time[e], count[e] *
		    sizeof (uint64_t), why) != 0)
			return (-1);
	for (e = 0; e < nentities; e++)
		if (count[e] > 0 && io_put(sp, sp->fd, state[e], count[e] *
		    sizeof (uint16_t), why) != 0)
			return (-1);
	for (e = 0; e < nentities; e++) {
		if (count[e] == 0 || tag[e] == NULL)
			continue;
		for (i = 0; i < count[e]; i++)
			if (tag[e][i] != SPILL_NO_TAG &&
			    tag[e][i] >= sp->tag_limit)
				sp->tag_limit = tag[e][i] + 1;
		if (io_put(sp, sp->fd, tag[e], count[e] * sizeof (uint32_t),
		    why) != 0)
			return (-1);
	}
	return (io_flush(sp, sp->fd, why));
}

/* ---- merging ---- */

/* A part of the run file read front to back through a buffer. */
typedef struct cursor {
	uint64_t off, end;	/* what is still to be read */
	char *buf;
	size_t cap, at, have;
} cursor;

static int
read_failed(const spill *sp, char why[SPILL_WHY], int error)
{
	say(why, "cannot read temporary files in %s: %s", sp->dir,
	    error != 0 ? strerror(error) : "cut short");
	return (-1);
}

/* At least one byte buffered, unless the part is done: 0, or -1. */
static int
cursor_fill(const spill *sp, cursor *c, char why[SPILL_WHY])
{
	size_t want;
	ssize_t got;

	if (c->at < c->have)
		return (0);
	want = c->end - c->off < c->cap ? (size_t)(c->end - c->off) : c->cap;
	do {
		got = pread(sp->fd, c->buf, want, (off_t)c->off);
	} while (got < 0 && errno == EINTR);
	if (got <= 0)
		return (read_failed(sp, why, got < 0 ? errno : 0));
	c->off += (uint64_t)got;
	c->at = 0;
	c->have = (size_t)got;
	return (0);
}

/* Passes the next len bytes to write. */
static int
cursor_pass(const spill *sp, cursor *c, uint64_t len, spill_write_fn write,
    void *ctx, char why[SPILL_WHY])
{
	while (len > 0) {
		size_t k;

		if (cursor_fill(sp, c, why) != 0)
			return (-1);
		k = c->have - c->at;
		if (k > len)
			k = (size_t)len;
		if (write(ctx, c->buf + c->at, k, why) != 0)
			return (-1);
		c->at += k;
		len -= k;
	}
	return (0);
}

static int
cursor_get(const spill *sp, cursor *c, void *to, size_t len,
    char why[SPILL_WHY])
{
	char *p = to;

	while (len > 0) {
		size_t k;

		if (cursor_fill(sp, c, why) != 0)
			return (-1);
		k = c->have - c->at;
		if (k > len)
			k = len;
		memcpy(p, c->buf + c->at, k);
		c->at += k;
		p += k;
		len -= k;
	}
	return (0);
}

/* Zeros up to the next multiple of 8 after len bytes. */
static int
pad(uint64_t len, spill_write_fn write, void *ctx, char why[SPILL_WHY])
{
	static const char zeros[8];
	size_t k = (size_t)((8 - len % 8) % 8);

	return (k > 0 ? write(ctx, zeros, k, why) : 0);
}

/* count tags of SPILL_NO_TAG, for an untagged segment of a tagged entity. */
static int
no_tags(uint64_t count, spill_write_fn write, void *ctx, char why[SPILL_WHY])
{
	uint32_t none[1024];
	size_t i;

	for (i = 0; i < 1024; i++)
		none[i] = SPILL_NO_TAG;
	while (count > 0) {
		size_t k = count < 1024 ? (size_t)count : 1024;

		if (write(ctx, none, k * sizeof (uint32_t), why) != 0)
			return (-1);
		count -= k;
	}
	return (0);
}

/* Each run's parts, and the segment its index is at. */
typedef struct reading {
	cursor index, times, states, tags;
	segment at;		/* entity UINT32_MAX: the run is done */
	uint64_t left;		/* segments not yet read */
	int started;
} reading;

static int
next_segment(const spill *sp, reading *r, char why[SPILL_WHY])
{
	uint32_t last = r->at.entity;

	if (r->left == 0) {
		r->at.entity = UINT32_MAX;
		return (0);
	}
	r->left--;
	if (cursor_get(sp, &r->index, &r->at, sizeof (segment), why) != 0)
		return (-1);
	/* Written in entity order, each entity once: anything else is damage. */
	if (r->at.entity == UINT32_MAX || (r->started && r->at.entity <= last) ||
	    r->at.count == 0)
		return (read_failed(sp, why, 0));
	r->started = 1;
	return (0);
}

static void
cursor_init(cursor *c, uint64_t off, uint64_t end, char *buf, size_t cap)
{
	c->off = off;
	c->end = end;
	c->buf = buf;
	c->cap = cap;
	c->at = c->have = 0;
}

/* Every run's segments of entity e, one part after another. */
static int
merge_entity(spill *sp, reading *rd, uint32_t e, spill_write_fn write,
    void *ctx, char why[SPILL_WHY])
{
	uint64_t total = sp->count[e], sum = 0;
	size_t r;

	for (r = 0; r < sp->nruns; r++) {
		if (rd[r].at.entity != e)
			continue;
		sum += rd[r].at.count;
		if (cursor_pass(sp, &rd[r].times, rd[r].at.count * 8, write,
		    ctx, why) != 0)
			return (-1);
	}
	if (sum != total)
		return (read_failed(sp, why, 0));
	if (pad(total * 8, write, ctx, why) != 0)
		return (-1);
	for (r = 0; r < sp->nruns; r++)
		if (rd[r].at.entity == e && cursor_pass(sp, &rd[r].states,
		    rd[r].at.count * 2, write, ctx, why) != 0)
			return (-1);
	if (pad(total * 2, write, ctx, why) != 0)
		return (-1);
	if (sp->tagged[e]) {
		for (r = 0; r < sp->nruns; r++) {
			if (rd[r].at.entity != e)
				continue;
			if (rd[r].at.tagged ? cursor_pass(sp, &rd[r].tags,
			    rd[r].at.count * 4, write, ctx, why) != 0 :
			    no_tags(rd[r].at.count, write, ctx, why) != 0)
				return (-1);
		}
		if (pad(total * 4, write, ctx, why) != 0)
			return (-1);
	}
	for (r = 0; r < sp->nruns; r++)
		if (rd[r].at.entity == e && next_segment(sp, &rd[r], why) != 0)
			return (-1);
	return (0);
}

/* The last run, after which the buffer's memory goes to reading. */
static int
seal(spill *sp, char why[SPILL_WHY])
{
	if (sp->entity == NULL)
		return (0);
	if (flush(sp, why) != 0)
		return (-1);
	free_buffer(sp);
	return (0);
}

int
spill_merge(spill *sp, uint32_t nentities, spill_write_fn write, void *ctx,
    char why[SPILL_WHY])
{
	reading *rd;
	char *bufs;
	size_t per, r;
	uint32_t e;
	uint64_t t0;
	int rv = 0;

	if (seal(sp, why) != 0)
		return (-1);
	t0 = now_ns();
	per = sp->run_bytes / (4 * (sp->nruns + 1));
	per = per > MAX_IO ? MAX_IO : per < MIN_IO ? MIN_IO : per & ~(size_t)7;
	rd = xcalloc(sp->nruns + 1, sizeof (reading));
	bufs = xmalloc(4 * per * (sp->nruns + 1));
	for (r = 0; r < sp->nruns && rv == 0; r++) {
		const run *u = &sp->runs[r];
		char *b = bufs + 4 * per * r;
		uint64_t end = r + 1 < sp->nruns ? sp->runs[r + 1].index_off :
		    sp->file_end;

		cursor_init(&rd[r].index, u->index_off, u->times_off, b, per);
		cursor_init(&rd[r].times, u->times_off, u->states_off, b + per,
		    per);
		cursor_init(&rd[r].states, u->states_off, u->tags_off,
		    b + 2 * per, per);
		cursor_init(&rd[r].tags, u->tags_off, end, b + 3 * per, per);
		rd[r].left = u->nindex;
		rv = next_segment(sp, &rd[r], why);
	}
	for (e = 0; e < nentities && rv == 0; e++) {
		if (e < sp->entities_cap && sp->count[e] > 0)
			rv = merge_entity(sp, rd, e, write, ctx, why);
	}
	/* Every segment must have been someone's. */
	for (r = 0; r < sp->nruns && rv == 0; r++)
		if (rd[r].at.entity != UINT32_MAX)
			rv = read_failed(sp, why, 0);
	free(bufs);
	free(rd);
	if (debug_on("spill"))
		fprintf(stderr, "spill: %zu runs of %zu bytes (%.3f s), merged "
		    "in %.3f s\n", sp->nruns, sp->run_bytes, sp->flush_ns / 1e9,
		    (now_ns() - t0) / 1e9);
	return (rv);
}

/* ---- the merge into a file of its own ---- */

typedef struct file_out {
	spill *sp;
	int fd;
} file_out;

static int
to_file(void *ctx, const void *data, size_t len, char why[SPILL_WHY])
{
	file_out *f = ctx;

	return (io_put(f->sp, f->fd, data, len, why));
}

int
spill_merge_file(spill *sp, uint32_t nentities, int *fd, uint64_t *len,
    char why[SPILL_WHY])
{
	char dir[PATH_MAX];
	file_out f;

	if (seal(sp, why) != 0)
		return (-1);
	f.sp = sp;
	f.fd = temp_file(dir, why);
	if (f.fd < 0)
		return (-1);
	sp->io_off = 0;
	sp->io_len = 0;
	if (spill_merge(sp, nentities, to_file, &f, why) != 0 ||
	    io_flush(sp, f.fd, why) != 0) {
		(void) close(f.fd);
		return (-1);
	}
	*fd = f.fd;
	*len = sp->io_off;
	return (0);
}
