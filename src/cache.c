#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "color.h"
#include "util.h"

#define CACHE_MAGIC	"SMLCACHE"
#define CACHE_VERSION	1
#define CACHE_ENDIAN	0x01020304u
#define EDGE_BYTES	65536	/* hashed at each end of the trace file */
#define NO_STRING	UINT64_MAX

static int disabled;

/*
 * The file starts with this header; all offsets are from the start of
 * the file.  Native byte order (checked by `endian`): a cache is a local
 * file of one machine, not an interchange format.
 */
typedef struct header {
	char magic[8];
	uint32_t version, endian;
	uint64_t src_size, src_mtime_sec, src_mtime_nsec, src_head, src_tail;
	uint64_t file_size;
	uint64_t meta_off, meta_len, meta_hash;
	uint64_t cols_off, ncols;
} header;

/* Where an entity's columns are; tag_off 0 when it has no tags. */
typedef struct col_desc {
	uint64_t count, time_off, state_off, tag_off;
} col_desc;

/* FNV-1a: enough to tell versions of a file apart, and cheap. */
static uint64_t
hash_bytes(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return (h);
}

#define HASH_INIT	0xcbf29ce484222325ull

static char * __attribute__((format(printf, 1, 2)))
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	(void) vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return (s);
}

void
cache_disable(void)
{
	disabled = 1;
}

/* ---- keys and where entries live ---- */

static int
hash_range(int fd, uint64_t off, size_t len, uint64_t *out)
{
	char *buf = xmalloc(len > 0 ? len : 1);
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return (-1);
		}
		got += (size_t)n;
	}
	*out = hash_bytes(HASH_INIT, buf, len);
	free(buf);
	return (0);
}

int
cache_key_of(const char *path, cache_key *key)
{
	struct stat st;
	size_t edge;
	int fd;

	memset(key, 0, sizeof (*key));
	if (disabled || strcmp(path, "-") == 0)
		return (-1);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		(void) close(fd);
		return (-1);
	}
	key->size = (uint64_t)st.st_size;
	key->mtime_sec = (uint64_t)st.st_mtim.tv_sec;
	key->mtime_nsec = (uint64_t)st.st_mtim.tv_nsec;
	edge = key->size < EDGE_BYTES ? (size_t)key->size : EDGE_BYTES;
	if (hash_range(fd, 0, edge, &key->head) != 0 ||
	    hash_range(fd, key->size - edge, edge, &key->tail) != 0 ||
	    (key->path = realpath(path, NULL)) == NULL) {
		(void) close(fd);
		cache_key_free(key);
		return (-1);
	}
	(void) close(fd);
	return (0);
}

void
cache_key_free(cache_key *key)
{
	free(key->path);
	key->path = NULL;
}

/* $XDG_CACHE_HOME/statemap-lua, or ~/.cache/statemap-lua; NULL if none. */
static char *
cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir;

	/* The spec says a relative XDG_CACHE_HOME is to be ignored. */
	if (xdg != NULL && xdg[0] == '/')
		return (xasprintf("%s/statemap-lua", xdg));
	if (home == NULL || home[0] != '/')
		return (NULL);
	dir = xasprintf("%s/.cache/statemap-lua", home);
	return (dir);
}

static char *
entry_path(const cache_key *key)
{
	char *dir = cache_dir(), *p;

	if (dir == NULL)
		return (NULL);
	p = xasprintf("%s/%016llx.smc", dir, (unsigned long long)
	    hash_bytes(HASH_INIT, key->path, strlen(key->path)));
	free(dir);
	return (p);
}

/* mkdir -p of the directory part of path. */
static int
make_dirs(const char *path)
{
	char *p = xstrndup(path, strlen(path)), *s;

	for (s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST) {
			free(p);
			return (-1);
		}
		*s = '/';
	}
	free(p);
	return (0);
}

/* ---- writing ---- */

typedef struct buf {
	char *data;
	size_t len, cap;
} buf;

static void
put(buf *b, const void *data, size_t len)
{
	grow_array(&b->data, &b->cap, b->len + len, 1);
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

static void
put_u64(buf *b, uint64_t v)
{
	put(b, &v, sizeof (v));
}

static void
put_str(buf *b, const char *s, size_t len)
{
	if (s == NULL) {
		put_u64(b, NO_STRING);
		return;
	}
	put_u64(b, len);
	put(b, s, len);
}

static void
put_cstr(buf *b, const char *s)
{
	put_str(b, s, s != NULL ? strlen(s) : 0);
}

static void
write_meta(buf *b, const catalog *cat)
{
	uint32_t i, n;

	put_cstr(b, cat->title);
	put_cstr(b, cat->host);
	put_cstr(b, cat->entity_kind);
	put_u64(b, (uint64_t)cat->have_start);
	put_u64(b, cat->start_sec);
	put_u64(b, cat->start_nsec);
	put_u64(b, cat->nstates);
	for (i = 0; i < cat->nstates; i++) {
		put_str(b, cat->states[i].name, cat->states[i].name_len);
		put_cstr(b, cat->states[i].color_text);
	}
	n = catalog_nentities(cat);
	put_u64(b, n);
	for (i = 0; i < n; i++) {
		size_t len;
		const char *name = catalog_entity_name(cat, i, &len);

		put_str(b, name, len);
		put_cstr(b, cat->descriptions[i]);
	}
	n = catalog_ntags(cat);
	put_u64(b, n);
	for (i = 0; i < n; i++) {
		size_t len;
		const char *name = intern_name(cat->tag_names, cat->tags[i].name,
		    &len);

		put_u64(b, cat->tags[i].state);
		put_str(b, name, len);
		put_cstr(b, cat->tags[i].members);
	}
	put_u64(b, cat->nevents);
	for (i = 0; i < cat->nevents; i++) {
		const catalog_event *ev = &cat->events[i];
		size_t len;
		const char *s;

		put_u64(b, ev->time);
		s = intern_name(cat->event_entities, ev->entity, &len);
		put_str(b, s, len);
		s = intern_name(cat->event_kinds, ev->kind, &len);
		put_str(b, s, len);
		if (ev->target == CATALOG_NO_ENTITY) {
			put_str(b, NULL, 0);
		} else {
			s = intern_name(cat->event_entities, ev->target, &len);
			put_str(b, s, len);
		}
	}
	put_u64(b, cat->nrecords);
	put_u64(b, cat->ndata);
	put_u64(b, (uint64_t)cat->have_data);
	put_u64(b, cat->last_time);
}

/* Writes len bytes at the end of the file, 8-aligned; returns where. */
static uint64_t
append(FILE *f, uint64_t *off, const void *data, size_t len)
{
	static const char zeros[8];
	uint64_t at = (*off + 7) & ~(uint64_t)7;

	fwrite(zeros, 1, (size_t)(at - *off), f);
	fwrite(data, 1, len, f);
	*off = at + len;
	return (at);
}

void
cache_save(const cache_key *key, const catalog *cat, const store *st)
{
	char *path, *tmp;
	buf meta = { NULL, 0, 0 };
	header h;
	col_desc *cols;
	uint64_t off, ncols = store_nentities(st), i;
	FILE *f;
	int ok;

	if (key->path == NULL || (path = entry_path(key)) == NULL)
		return;
	tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
	if (make_dirs(path) != 0 || (f = fopen(tmp, "wb")) == NULL) {
		free(tmp);
		free(path);
		return;
	}
	write_meta(&meta, cat);
	memset(&h, 0, sizeof (h));
	memcpy(h.magic, CACHE_MAGIC, 8);
	h.version = CACHE_VERSION;
	h.endian = CACHE_ENDIAN;
	h.src_size = key->size;
	h.src_mtime_sec = key->mtime_sec;
	h.src_mtime_nsec = key->mtime_nsec;
	h.src_head = key->head;
	h.src_tail = key->tail;
	h.meta_len = meta.len;
	h.meta_hash = hash_bytes(HASH_INIT, meta.data, meta.len);
	h.ncols = ncols;
	cols = xcalloc(ncols > 0 ? ncols : 1, sizeof (col_desc));

	fwrite(&h, 1, sizeof (h), f);	/* again at the end, filled in */
	off = sizeof (h);
	h.meta_off = append(f, &off, meta.data, meta.len);
	h.cols_off = append(f, &off, cols, ncols * sizeof (col_desc));
	for (i = 0; i < ncols; i++) {
		uint32_t e = (uint32_t)i;
		size_t n = store_count(st, e);

		cols[i].count = n;
		if (n == 0)
			continue;
		cols[i].time_off = append(f, &off, store_times(st, e),
		    n * sizeof (uint64_t));
		cols[i].state_off = append(f, &off, store_states(st, e),
		    n * sizeof (uint16_t));
		if (store_has_tags(st, e))
			cols[i].tag_off = append(f, &off, store_tags(st, e),
			    n * sizeof (uint32_t));
	}
	h.file_size = off;
	ok = fseeko(f, 0, SEEK_SET) == 0 &&
	    fwrite(&h, 1, sizeof (h), f) == sizeof (h) &&
	    fseeko(f, (off_t)h.cols_off, SEEK_SET) == 0 &&
	    fwrite(cols, sizeof (col_desc), ncols, f) == ncols;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) != 0)
		(void) unlink(tmp);
	free(cols);
	free(meta.data);
	free(tmp);
	free(path);
}

/* ---- reading: nothing is used before it is checked ---- */

typedef struct cursor {
	const char *p, *end;
	int bad;
} cursor;

static uint64_t
get_u64(cursor *c)
{
	uint64_t v;

	if (c->bad || (size_t)(c->end - c->p) < sizeof (v)) {
		c->bad = 1;
		return (0);
	}
	memcpy(&v, c->p, sizeof (v));
	c->p += sizeof (v);
	return (v);
}

/* A string: returns its bytes (not NUL-terminated), NULL for none. */
static const char *
get_str(cursor *c, size_t *len)
{
	uint64_t n = get_u64(c);
	const char *s;

	*len = 0;
	if (c->bad || n == NO_STRING)
		return (NULL);
	if (n > (uint64_t)(c->end - c->p)) {
		c->bad = 1;
		return (NULL);
	}
	s = c->p;
	c->p += n;
	*len = (size_t)n;
	return (s);
}

static char *
get_dup(cursor *c)
{
	size_t len;
	const char *s = get_str(c, &len);

	return (s != NULL ? xstrndup(s, len) : NULL);
}

/* A count of things that take at least min_bytes each in the stream. */
static uint64_t
get_count(cursor *c, size_t min_bytes)
{
	uint64_t n = get_u64(c);

	if (n > (uint64_t)(c->end - c->p) / min_bytes)
		c->bad = 1;
	return (c->bad ? 0 : n);
}

static int
read_meta(cursor *c, catalog *cat)
{
	uint64_t n, i;

	cat->title = get_dup(c);
	cat->host = get_dup(c);
	cat->entity_kind = get_dup(c);
	cat->have_start = get_u64(c) != 0;
	cat->start_sec = get_u64(c);
	cat->start_nsec = get_u64(c);
	n = get_count(c, 16);
	if (c->bad || n == 0 || n > STORE_MAX_STATES)
		return (-1);
	cat->states = xcalloc((size_t)n, sizeof (catalog_state));
	cat->nstates = (uint32_t)n;
	for (i = 0; i < n && !c->bad; i++) {
		catalog_state *s = &cat->states[i];
		size_t len;
		const char *name = get_str(c, &len);
		const char *text;

		if (name == NULL)
			return (-1);
		s->name = xstrndup(name, len);
		s->name_len = len;
		text = get_str(c, &len);
		if (text != NULL) {
			if (!color_parse(text, len, &s->color))
				return (-1);
			s->color_text = xstrndup(text, len);
		}
	}
	catalog_assign_colors(cat);
	if (catalog_index_states(cat) != 0)
		return (-1);
	n = get_count(c, 16);
	for (i = 0; i < n && !c->bad; i++) {
		size_t len, dlen;
		const char *name = get_str(c, &len), *desc;

		if (name == NULL || catalog_entity(cat, name, len) != i)
			return (-1);
		if ((desc = get_str(c, &dlen)) != NULL)
			catalog_set_description(cat, (uint32_t)i, desc, dlen);
	}
	n = get_count(c, 24);
	for (i = 0; i < n && !c->bad; i++) {
		uint64_t state = get_u64(c);
		size_t len;
		const char *name = get_str(c, &len);

		if (name == NULL || state >= cat->nstates ||
		    catalog_tag_id(cat, (uint32_t)state, name, len) != i)
			return (-1);
		catalog_define_tag(cat, (uint32_t)i, get_dup(c));
	}
	n = get_count(c, 32);
	for (i = 0; i < n && !c->bad; i++) {
		uint64_t time = get_u64(c);
		size_t elen, klen, tlen;
		const char *ent = get_str(c, &elen);
		const char *kind = get_str(c, &klen);
		const char *target = get_str(c, &tlen);

		if (ent == NULL || kind == NULL)
			return (-1);
		catalog_add_event(cat, time, ent, elen, kind, klen, target, tlen);
	}
	cat->nrecords = get_u64(c);
	cat->ndata = get_u64(c);
	cat->have_data = get_u64(c) != 0;
	cat->last_time = get_u64(c);
	return (c->bad || c->p != c->end ? -1 : 0);
}

/*
 * Whether [off, off + count * size) lies in the file, aligned for the
 * type (at most 8: nothing in the file needs more).
 */
static int
in_file(uint64_t off, uint64_t count, size_t size, uint64_t file_size)
{
	return (off % (size < 8 ? size : 8) == 0 && off <= file_size &&
	    count <= (file_size - off) / size);
}

static int
read_columns(const char *base, const header *h, const catalog *cat, store *st)
{
	const col_desc *cols = (const col_desc *)(base + h->cols_off);
	uint32_t ntags = catalog_ntags(cat);
	uint64_t i, k;

	for (i = 0; i < h->ncols; i++) {
		col_desc d;
		const uint64_t *time;
		const uint16_t *state;
		const uint32_t *tag = NULL;

		memcpy(&d, &cols[i], sizeof (d));
		if (d.count == 0)
			continue;
		if (!in_file(d.time_off, d.count, 8, h->file_size) ||
		    !in_file(d.state_off, d.count, 2, h->file_size) ||
		    (d.tag_off != 0 &&
		    !in_file(d.tag_off, d.count, 4, h->file_size)))
			return (-1);
		time = (const uint64_t *)(base + d.time_off);
		state = (const uint16_t *)(base + d.state_off);
		if (d.tag_off != 0)
			tag = (const uint32_t *)(base + d.tag_off);
		/* Queries index arrays by these: check every one. */
		for (k = 0; k < d.count; k++) {
			if (state[k] >= cat->nstates ||
			    (k > 0 && time[k] < time[k - 1]) ||
			    (tag != NULL && tag[k] >= ntags &&
			    tag[k] != STORE_NONE))
				return (-1);
		}
		store_adopt(st, (uint32_t)i, time, state, tag,
		    (size_t)d.count);
	}
	return (0);
}

int
cache_load(const cache_key *key, const char *name, catalog **catp,
    store **stp, void **mapp, size_t *map_len)
{
	char *path;
	struct stat sb;
	header h;
	const char *base;
	void *map;
	catalog *cat = NULL;
	store *st = NULL;
	cursor c;
	int fd;

	if (key->path == NULL || (path = entry_path(key)) == NULL)
		return (0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return (0);
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size < sizeof (h) ||
	    (map = mmap(NULL, (size_t)sb.st_size, PROT_READ,
	    MAP_PRIVATE | MAP_POPULATE, fd, 0)) == MAP_FAILED) {
		(void) close(fd);
		return (0);
	}
	/* Populated at once: every page is read by the checks anyway. */
	(void) close(fd);
	base = map;
	memcpy(&h, base, sizeof (h));
	if (memcmp(h.magic, CACHE_MAGIC, 8) != 0 ||
	    h.version != CACHE_VERSION || h.endian != CACHE_ENDIAN ||
	    h.file_size != (uint64_t)sb.st_size ||
	    h.src_size != key->size || h.src_mtime_sec != key->mtime_sec ||
	    h.src_mtime_nsec != key->mtime_nsec || h.src_head != key->head ||
	    h.src_tail != key->tail ||
	    !in_file(h.meta_off, h.meta_len, 1, h.file_size) ||
	    !in_file(h.cols_off, h.ncols, sizeof (col_desc), h.file_size) ||
	    h.cols_off % 8 != 0 ||
	    hash_bytes(HASH_INIT, base + h.meta_off, (size_t)h.meta_len) !=
	    h.meta_hash)
		goto reject;
	cat = catalog_new(name);
	c.p = base + h.meta_off;
	c.end = c.p + h.meta_len;
	c.bad = 0;
	if (read_meta(&c, cat) != 0 || h.ncols > catalog_nentities(cat))
		goto reject;
	st = store_new(cat->nstates);
	if (read_columns(base, &h, cat, st) != 0)
		goto reject;
	*catp = cat;
	*stp = st;
	*mapp = map;
	*map_len = (size_t)sb.st_size;
	return (1);
reject:
	store_free(st);
	catalog_free(cat);
	(void) munmap(map, (size_t)sb.st_size);
	return (0);
}
