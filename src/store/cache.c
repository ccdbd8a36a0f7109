#include "store/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Header only: nothing to link, and the hash loops inline here. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/arena.h"
#include "base/byte_size.h"
#include "base/fatal.h"
#include "base/runlimit.h"
#include "store/cache_directory.h"
#include "store/catalog_file.h"
#include "store/spill.h"
#include "base/util.h"

#define CACHE_MAGIC	"SMLCACHE"
#define CACHE_VERSION	4	/* 3: events with an end, an id, members;
				 * 4: nested and value entities */
#define CACHE_ENDIAN	0x01020304u
#define EDGE_BYTES	65536	/* hashed at each end of the trace file */
#define DEFAULT_LIMIT	((uint64_t)1 << 30)
#define STALE_TMP_SEC	3600	/* a temporary file this old was abandoned */
#define CHUNK		8192	/* transitions checked and hashed at a time */
#define PREFIX		"statemap-lua: "

static int disabled;

/*
 * The file starts with this header; all offsets are from the start of
 * the file.  Native byte order (checked by `endian`): a cache is a local
 * file of one machine, not an interchange format.  checksum is the XXH3
 * (64 bits) of the whole file with checksum itself read as 0.
 */
typedef struct header {
	char magic[8];
	uint32_t version, endian;
	uint64_t checksum;
	uint64_t src_size, src_mtime_sec, src_mtime_nsec;
	uint64_t src_ctime_sec, src_ctime_nsec, src_dev, src_ino;
	uint64_t src_head, src_tail;
	uint64_t file_size;
	uint64_t meta_off, meta_len;
	uint64_t cols_off, ncols;
} header;

/*
 * Where an entity's columns are; tag_off 0 when it has no tags.  kind is
 * its store_kind.  A nested entity adds the depth of each transition
 * (depth_off); a value entity has no transitions (count 0) but vcount
 * values, their times at vtime_off and the values at value_off.
 */
typedef struct col_desc {
	uint64_t count, time_off, state_off, tag_off;
	uint64_t kind, depth_off;
	uint64_t vcount, vtime_off, value_off;
} col_desc;

struct cache_entry {
	void *map;		/* the whole file, read-only */
	size_t len;
	void *copies;		/* states and tags, checked (xmalloc'd) */
	arena *copies_arena;	/* or here, when they are big */
	void *copies_map;	/* or in a temporary file, past the budget */
	size_t copies_len;
	uint64_t dev, ino;	/* the file: never evicted while mapped */
	char *path;		/* the file, named if it changes while mapped */
	int watch;		/* the mapping's registration with fatal.h */
	cache_entry *next;	/* in in_use */
};

/* Entries this process has mapped, which eviction leaves alone. */
static pthread_mutex_t in_use_lock = PTHREAD_MUTEX_INITIALIZER;
static cache_entry *in_use;

void
cache_disable(void)
{
	disabled = 1;
}

/* ---- the size limit ---- */

uint64_t
cache_size_limit(void)
{
	static int warned;
	const char *s = getenv("STATEMAP_CACHE_SIZE");
	uint64_t limit;

	if (disabled)
		return (0);
	if (s == NULL || s[0] == '\0')
		return (DEFAULT_LIMIT);
	if (byte_size_parse(s, &limit) == 0)
		return (limit);
	if (!warned) {
		warned = 1;
		fprintf(stderr, PREFIX "STATEMAP_CACHE_SIZE=\"%s\" is not a "
		    "size (such as 500M or 2G): using 1G\n", s);
	}
	return (DEFAULT_LIMIT);
}

/* ---- keys ---- */

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
	*out = XXH3_64bits(buf, len);
	free(buf);
	return (0);
}

/*
 * Whether the file system clock has moved past the file's ctime, so that
 * any later write gives it another.  Timestamps come from a clock that
 * ticks every few milliseconds (CLOCK_REALTIME_COARSE), so a write in the
 * same tick as the last one would leave the ctime as it was.  1: yes; 0:
 * not yet; -1: the times are whole seconds (a file system that keeps no
 * finer ones, where two seconds, FAT's step, must pass: not worth waiting
 * for).
 */
static int
settled(const struct stat *sb)
{
	struct timespec now;

	if (clock_gettime(CLOCK_REALTIME_COARSE, &now) != 0)
		return (-1);
	if (sb->st_ctim.tv_nsec == 0 && sb->st_mtim.tv_nsec == 0)
		return (now.tv_sec >= sb->st_ctim.tv_sec + 2 ? 1 : -1);
	return (now.tv_sec > sb->st_ctim.tv_sec ||
	    (now.tv_sec == sb->st_ctim.tv_sec &&
	    now.tv_nsec > sb->st_ctim.tv_nsec));
}

/*
 * fstat once the file's ctime is settled (above): at most a few ticks'
 * wait, for a file written just now; -1 if it will not settle (whole
 * seconds, or a ctime in the future, from a clock that was set back or
 * a file server's).
 */
static int
settled_stat(int fd, struct stat *sb)
{
	struct timespec tick;
	int tries, s;

	if (clock_getres(CLOCK_REALTIME_COARSE, &tick) != 0)
		return (-1);
	for (tries = 0; tries < 4; tries++) {
		if (fstat(fd, sb) != 0 || (s = settled(sb)) < 0)
			return (-1);
		if (s > 0)
			return (0);
		(void) nanosleep(&tick, NULL);
	}
	return (-1);
}

int
cache_key_of(const char *path, cache_key *key)
{
	struct stat st;
	size_t edge;
	int fd;

	memset(key, 0, sizeof (*key));
	if (disabled || strcmp(path, "-") == 0 || cache_size_limit() == 0)
		return (-1);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return (-1);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    settled_stat(fd, &st) != 0) {
		(void) close(fd);
		return (-1);
	}
	key->size = (uint64_t)st.st_size;
	key->mtime_sec = (uint64_t)st.st_mtim.tv_sec;
	key->mtime_nsec = (uint64_t)st.st_mtim.tv_nsec;
	key->ctime_sec = (uint64_t)st.st_ctim.tv_sec;
	key->ctime_nsec = (uint64_t)st.st_ctim.tv_nsec;
	key->dev = (uint64_t)st.st_dev;
	key->ino = (uint64_t)st.st_ino;
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

static void
key_to_header(const cache_key *key, header *h)
{
	h->src_size = key->size;
	h->src_mtime_sec = key->mtime_sec;
	h->src_mtime_nsec = key->mtime_nsec;
	h->src_ctime_sec = key->ctime_sec;
	h->src_ctime_nsec = key->ctime_nsec;
	h->src_dev = key->dev;
	h->src_ino = key->ino;
	h->src_head = key->head;
	h->src_tail = key->tail;
}

static int
header_has_key(const header *h, const cache_key *key)
{
	header want;

	key_to_header(key, &want);
	return (h->src_size == want.src_size &&
	    h->src_mtime_sec == want.src_mtime_sec &&
	    h->src_mtime_nsec == want.src_mtime_nsec &&
	    h->src_ctime_sec == want.src_ctime_sec &&
	    h->src_ctime_nsec == want.src_ctime_nsec &&
	    h->src_dev == want.src_dev && h->src_ino == want.src_ino &&
	    h->src_head == want.src_head && h->src_tail == want.src_tail);
}

/* ---- entries' names ---- */

/* "0123456789abcdef.smc": the entry's name in the directory. */
static void
entry_name(const cache_key *key, char name[32])
{
	(void) snprintf(name, 32, "%016llx.smc", (unsigned long long)
	    XXH3_64bits(key->path, strlen(key->path)));
}

char *
cache_entry_path(const cache_key *key)
{
	char name[32], *dir = cache_directory(), *p;
	size_t len;

	if (dir == NULL || key->path == NULL) {
		free(dir);
		return (NULL);
	}
	entry_name(key, name);
	len = strlen(dir) + 1 + strlen(name) + 1;
	p = xmalloc(len);
	(void) snprintf(p, len, "%s/%s", dir, name);
	free(dir);
	return (p);
}

static int
is_hex16(const char *s)
{
	int i;

	for (i = 0; i < 16; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return (0);
	return (1);
}

/* 1 for an entry's name, 2 for a temporary file's, 0 for anything else. */
static int
kind_of_name(const char *name)
{
	size_t len = strlen(name);

	if (len == 20 && is_hex16(name) && strcmp(name + 16, ".smc") == 0)
		return (1);
	if (len == 41 && is_hex16(name) && strncmp(name + 16, ".smc.", 5) == 0 &&
	    is_hex16(name + 21) && strcmp(name + 37, ".tmp") == 0)
		return (2);
	return (0);
}

/* ---- entries in use ---- */

static int
is_in_use(uint64_t dev, uint64_t ino)
{
	cache_entry *e;
	int found = 0;

	pthread_mutex_lock(&in_use_lock);
	for (e = in_use; e != NULL && !found; e = e->next)
		found = e->dev == dev && e->ino == ino;
	pthread_mutex_unlock(&in_use_lock);
	return (found);
}

/*
 * The only places an entry is mapped and unmapped.  A file truncated
 * while it is mapped makes reading the pages past its new end raise
 * SIGBUS, which fatal.h turns into "PATH: changed while being read" and
 * exit status 1, for the mappings registered with it.  The mapping is
 * registered before anything in it is read: the checks read every page.
 */
static void *
map_entry(cache_entry *e, int fd)
{
	void *map;

	/*
	 * Populated at once: every page is read by the checks anyway; not
	 * an entry bigger than the memory budget, whose first pages would
	 * be dropped again before the checks reach them.
	 */
	map = mmap(NULL, e->len, PROT_READ, MAP_PRIVATE |
	    (e->len <= spill_budget() ? MAP_POPULATE : 0), fd, 0);
	if (map == MAP_FAILED)
		return (NULL);
	e->watch = fatal_watch_map(map, e->len, e->path);
	return (map);
}

static void
unmap_entry(cache_entry *e)
{
	fatal_unwatch_map(e->watch);
	(void) munmap(e->map, e->len);
}

void
cache_release(cache_entry *entry)
{
	cache_entry **p;

	if (entry == NULL)
		return;
	pthread_mutex_lock(&in_use_lock);
	for (p = &in_use; *p != NULL; p = &(*p)->next) {
		if (*p == entry) {
			*p = entry->next;
			break;
		}
	}
	pthread_mutex_unlock(&in_use_lock);
	if (entry->map != NULL)
		unmap_entry(entry);
	free(entry->path);
	free(entry->copies);
	arena_free(entry->copies_arena);
	if (entry->copies_map != NULL)
		(void) munmap(entry->copies_map, entry->copies_len);
	free(entry);
}

/* ---- the layout, which writer and reader both compute ---- */

/*
 * Moves *off to the next multiple of 8 (returned) and past count items
 * of size bytes; -1 if that would go beyond max.
 */
static int
advance(uint64_t *off, uint64_t count, uint64_t size, uint64_t max,
    uint64_t *at)
{
	uint64_t a;

	if (*off > max || max - *off < 7)
		return (-1);
	a = (*off + 7) & ~(uint64_t)7;
	if (count > (max - a) / size)
		return (-1);
	*at = a;
	*off = a + count * size;
	return (0);
}

/*
 * Lays an entry out: the header, the catalog (catalog_file.h; meta_len
 * bytes), the table of h->ncols column descriptors, then each entity's
 * times, states, tags, depths (nested entities), value times and values
 * (value entities) in entity order, each 8-aligned.  Fills the
 * offsets in h and cols from the lengths, the counts and which columns
 * have tags (tag_off != 0); -1 if the whole would be bigger than max.
 * There is one layout for a given content, so that a reader can ask for
 * exactly it, and check offsets by comparing them.
 */
static int
lay_out(header *h, col_desc *cols, uint64_t max)
{
	uint64_t off = sizeof (header), i;

	if (advance(&off, h->meta_len, 1, max, &h->meta_off) != 0 ||
	    advance(&off, h->ncols, sizeof (col_desc), max, &h->cols_off) != 0)
		return (-1);
	for (i = 0; i < h->ncols; i++) {
		col_desc *c = &cols[i];
		int tagged = c->tag_off != 0;

		c->time_off = c->state_off = c->tag_off = c->depth_off = 0;
		c->vtime_off = c->value_off = 0;
		if (c->count > 0 &&
		    (advance(&off, c->count, 8, max, &c->time_off) != 0 ||
		    advance(&off, c->count, 2, max, &c->state_off) != 0 ||
		    (tagged &&
		    advance(&off, c->count, 4, max, &c->tag_off) != 0) ||
		    (c->kind == STORE_NESTED &&
		    advance(&off, c->count, 2, max, &c->depth_off) != 0)))
			return (-1);
		if (c->vcount > 0 &&
		    (advance(&off, c->vcount, 8, max, &c->vtime_off) != 0 ||
		    advance(&off, c->vcount, 8, max, &c->value_off) != 0))
			return (-1);
	}
	h->file_size = off;
	return (0);
}

/* ---- writing ---- */

/* A file being written in layout order, hashed as it goes. */
typedef struct writer {
	FILE *f;
	uint64_t off;
	XXH3_state_t hash;
} writer;

static void
emit(writer *w, const void *data, size_t len)
{
	(void) fwrite(data, 1, len, w->f);
	XXH3_64bits_update(&w->hash, data, len);
	w->off += len;
}

/* Zeros up to at, where the layout puts the next part. */
static void
emit_at(writer *w, uint64_t at, const void *data, size_t len)
{
	static const char zeros[8];

	emit(w, zeros, (size_t)(at - w->off));
	emit(w, data, len);
}

/* A new file in the directory that nobody can have planted: fd or -1. */
static int
create_temp(int dirfd, const char *name, char tmp[64])
{
	int tries, fd;

	for (tries = 0; tries < 16; tries++) {
		uint64_t r;

		if (getrandom(&r, sizeof (r), 0) != (ssize_t)sizeof (r))
			return (-1);
		(void) snprintf(tmp, 64, "%.16s.smc.%016llx.tmp", name,
		    (unsigned long long)r);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return (fd);
	}
	return (-1);
}

static void evict(int dirfd, const char *keep, uint64_t limit);

void
cache_save(const cache_key *key, const catalog *cat, const store *st)
{
	char name[32], tmp[64], *meta;
	size_t meta_len;
	header h;
	col_desc *cols;
	uint64_t ncols = store_nentities(st), limit = cache_size_limit(), i;
	writer w;
	int dirfd, fd, ok;

	if (key->path == NULL || limit == 0)
		return;
	meta = catalog_file_save(cat, &meta_len);
	memset(&h, 0, sizeof (h));
	memcpy(h.magic, CACHE_MAGIC, 8);
	h.version = CACHE_VERSION;
	h.endian = CACHE_ENDIAN;
	key_to_header(key, &h);
	h.meta_len = meta_len;
	h.ncols = ncols;
	cols = xcalloc(ncols > 0 ? ncols : 1, sizeof (col_desc));
	for (i = 0; i < ncols; i++) {
		cols[i].count = store_count(st, (uint32_t)i);
		cols[i].tag_off = store_has_tags(st, (uint32_t)i);
		cols[i].kind = store_kind_of(st, (uint32_t)i);
		cols[i].vcount = store_value_count(st, (uint32_t)i);
	}
	/* An entry bigger than the whole cache is not worth writing. */
	if (lay_out(&h, cols, limit) != 0 ||
	    (dirfd = cache_directory_open(1, NULL)) < 0) {
		free(cols);
		free(meta);
		return;
	}
	entry_name(key, name);
	if ((fd = create_temp(dirfd, name, tmp)) < 0 ||
	    (w.f = fdopen(fd, "wb")) == NULL) {
		if (fd >= 0) {
			(void) close(fd);
			(void) unlinkat(dirfd, tmp, 0);
		}
		(void) close(dirfd);
		free(cols);
		free(meta);
		return;
	}
	w.off = 0;
	XXH3_64bits_reset(&w.hash);
	emit(&w, &h, sizeof (h));	/* checksum 0: filled in at the end */
	emit_at(&w, h.meta_off, meta, meta_len);
	emit_at(&w, h.cols_off, cols, ncols * sizeof (col_desc));
	for (i = 0; i < ncols; i++) {
		uint32_t e = (uint32_t)i;
		size_t n = (size_t)cols[i].count;

		if (n > 0) {
			emit_at(&w, cols[i].time_off, store_times(st, e), n * 8);
			emit_at(&w, cols[i].state_off, store_states(st, e),
			    n * 2);
			if (cols[i].tag_off != 0)
				emit_at(&w, cols[i].tag_off, store_tags(st, e),
				    n * 4);
			if (cols[i].depth_off != 0)
				emit_at(&w, cols[i].depth_off,
				    store_depths(st, e), n * 2);
		}
		if (cols[i].vcount > 0) {
			n = (size_t)cols[i].vcount;
			emit_at(&w, cols[i].vtime_off,
			    store_value_times(st, e), n * 8);
			emit_at(&w, cols[i].value_off, store_values(st, e),
			    n * 8);
		}
	}
	h.checksum = XXH3_64bits_digest(&w.hash);
	/*
	 * No fsync: an entry that a crash leaves short or zeroed fails its
	 * checksum, and a lost entry costs a reread.
	 */
	ok = w.off == h.file_size && !ferror(w.f) &&
	    fseeko(w.f, 0, SEEK_SET) == 0 &&
	    fwrite(&h, 1, sizeof (h), w.f) == sizeof (h);
	ok = fclose(w.f) == 0 && ok;
	if (!ok || renameat(dirfd, tmp, dirfd, name) != 0)
		(void) unlinkat(dirfd, tmp, 0);
	else
		evict(dirfd, name, limit);
	(void) close(dirfd);
	free(cols);
	free(meta);
}

/* ---- eviction and clearing ---- */

typedef struct found {
	char name[48];
	uint64_t size, dev, ino;
	struct timespec used;	/* the entry's mtime: when last loaded */
} found;

static int
compare_found(const void *pa, const void *pb)
{
	const found *a = pa, *b = pb;

	if (a->used.tv_sec != b->used.tv_sec)
		return (a->used.tv_sec < b->used.tv_sec ? -1 : 1);
	if (a->used.tv_nsec != b->used.tv_nsec)
		return (a->used.tv_nsec < b->used.tv_nsec ? -1 : 1);
	return (strcmp(a->name, b->name));	/* the same order every time */
}

/*
 * The directory's entries (kind 1) or temporary files (kind 2) that are
 * regular files: an array, its length in *n; NULL if it cannot be read.
 */
static found *
list_dir(int dirfd, int kind, size_t *n)
{
	/* Opened anew: a dup would share (and move) dirfd's offset. */
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	found *list = NULL;
	size_t cap = 0;

	*n = 0;
	if (dir == NULL) {
		if (fd >= 0)
			(void) close(fd);
		return (NULL);
	}
	while ((de = readdir(dir)) != NULL) {
		struct stat sb;
		found *f;

		if (kind_of_name(de->d_name) != kind ||
		    fstatat(dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(sb.st_mode))
			continue;
		grow_array(&list, &cap, *n + 1, sizeof (found));
		f = &list[(*n)++];
		/* At most 41 bytes: kind_of_name saw to that. */
		memcpy(f->name, de->d_name, strlen(de->d_name) + 1);
		f->size = (uint64_t)sb.st_size;
		f->dev = (uint64_t)sb.st_dev;
		f->ino = (uint64_t)sb.st_ino;
		f->used = sb.st_mtim;
	}
	(void) closedir(dir);
	if (list == NULL)
		list = xmalloc(1);
	return (list);
}

/*
 * Removes least recently used entries until the rest fit in limit, but
 * never keep (just written) nor one this process has mapped; and
 * temporary files abandoned long ago.  Another process may be evicting
 * at the same time: an entry removed twice, or removed just as another
 * process renames a new one over it, costs at most a reread.
 */
static void
evict(int dirfd, const char *keep, uint64_t limit)
{
	struct timespec now;
	found *list;
	size_t n, i;
	uint64_t total = 0;

	if ((list = list_dir(dirfd, 2, &n)) != NULL &&
	    clock_gettime(CLOCK_REALTIME, &now) == 0) {
		for (i = 0; i < n; i++)
			if (list[i].used.tv_sec + STALE_TMP_SEC < now.tv_sec)
				(void) unlinkat(dirfd, list[i].name, 0);
	}
	free(list);
	if ((list = list_dir(dirfd, 1, &n)) == NULL)
		return;
	for (i = 0; i < n; i++)
		total += list[i].size;
	qsort(list, n, sizeof (found), compare_found);
	for (i = 0; i < n && total > limit; i++) {
		if (strcmp(list[i].name, keep) == 0 ||
		    is_in_use(list[i].dev, list[i].ino))
			continue;
		if (unlinkat(dirfd, list[i].name, 0) == 0 || errno == ENOENT)
			total -= list[i].size;
	}
	free(list);
}

int
cache_clear(FILE *report)
{
	char *dir = cache_directory();
	const char *why;
	found *list;
	size_t n, i;
	uint64_t bytes = 0;
	int dirfd, removed = 0, failed = 0, kind;

	if (dir == NULL) {
		fprintf(stderr, PREFIX "no cache directory: neither "
		    "XDG_CACHE_HOME nor HOME is an absolute path\n");
		return (-1);
	}
	if ((dirfd = cache_directory_open_checked(dir, 0, &why)) < 0) {
		if (why == NULL && errno == ENOENT) {
			if (report != NULL)
				fprintf(report, "removed 0 entries (0.0 MB) "
				    "from %s\n", dir);
			free(dir);
			return (0);
		}
		fprintf(stderr, PREFIX "not clearing the cache directory %s: "
		    "%s\n", dir, why != NULL ? why : strerror(errno));
		free(dir);
		return (-1);
	}
	for (kind = 1; kind <= 2; kind++) {
		if ((list = list_dir(dirfd, kind, &n)) == NULL) {
			fprintf(stderr, PREFIX "cannot read the cache "
			    "directory %s: %s\n", dir, strerror(errno));
			failed = 1;
			break;
		}
		for (i = 0; i < n; i++) {
			if (unlinkat(dirfd, list[i].name, 0) == 0) {
				removed += kind == 1;
				bytes += list[i].size;
			} else if (errno != ENOENT && !failed) {
				fprintf(stderr, PREFIX "cannot remove %s/%s: "
				    "%s\n", dir, list[i].name, strerror(errno));
				failed = 1;
			}
		}
		free(list);
	}
	(void) close(dirfd);
	if (!failed && report != NULL)
		fprintf(report, "removed %d %s (%.1f MB) from %s\n", removed,
		    removed == 1 ? "entry" : "entries", (double)bytes / 1e6,
		    dir);
	free(dir);
	return (failed ? -1 : removed);
}

/* ---- reading: nothing is used before it is checked ---- */

/* An entry being read: where it is, and the checksum so far. */
typedef struct reader {
	const char *base;
	uint64_t off;		/* how far the checksum has got */
	XXH3_state_t hash;
} reader;

/* Hashes the file from r->off up to at (padding) from the mapping. */
static void
hash_to(reader *r, uint64_t at)
{
	XXH3_64bits_update(&r->hash, r->base + r->off, (size_t)(at - r->off));
	r->off = at;
}

/* Hashes a part of the file from a private copy of it. */
static void
hash_copy(reader *r, uint64_t at, const void *copy, size_t len)
{
	hash_to(r, at);
	XXH3_64bits_update(&r->hash, copy, len);
	r->off = at + len;
}

/*
 * A column of times, left in the mapping: hashed, and checked to be in
 * order, a chunk at a time while the chunk is in the cache.
 */
static int
check_times(reader *r, uint64_t at, size_t n)
{
	const uint64_t *t = (const uint64_t *)(r->base + at);
	uint64_t last = 0;
	size_t i, k;
	int bad = 0;

	hash_to(r, at);
	for (i = 0; i < n; i += CHUNK) {
		size_t m = n - i < CHUNK ? n - i : CHUNK;

		XXH3_64bits_update(&r->hash, t + i, m * 8);
		bad |= t[i] < last;
		for (k = 1; k < m; k++)
			bad |= t[i + k] < t[i + k - 1];
		last = t[i + m - 1];
		if (bad)
			return (-1);
	}
	r->off = at + n * 8;
	return (0);
}

/*
 * Whether any of a whole chunk of states or tags is out of range: loops
 * of a fixed count, which compilers make vector code of at -O2.
 */
static int
states_bad(const uint16_t *s, uint32_t nstates)
{
	size_t k;
	int bad = 0;

	for (k = 0; k < CHUNK; k++)
		bad |= s[k] >= nstates;
	return (bad);
}

static int
tags_bad(const uint32_t *t, uint32_t ntags)
{
	size_t k;
	int bad = 0;

	for (k = 0; k < CHUNK; k++)
		bad |= t[k] >= ntags && t[k] != STORE_NONE;
	return (bad);
}

/*
 * A column of states copied to private memory, where they are checked
 * and hashed: values from the mapping could change after the check, and
 * queries index arrays by them.
 */
static int
copy_states(reader *r, uint64_t at, size_t n, uint16_t *to, uint32_t nstates)
{
	size_t i, k;
	int bad = 0;

	hash_to(r, at);
	for (i = 0; i < n; i += CHUNK) {
		size_t m = n - i < CHUNK ? n - i : CHUNK;

		memcpy(to + i, r->base + at + i * 2, m * 2);
		if (m == CHUNK) {
			bad = states_bad(to + i, nstates);
		} else {
			for (k = 0; k < m; k++)
				bad |= to[i + k] >= nstates;
		}
		if (bad)
			return (-1);
		XXH3_64bits_update(&r->hash, to + i, m * 2);
	}
	r->off = at + n * 2;
	return (0);
}

/* The same for tags: each a tag id, or STORE_NONE. */
static int
copy_tags(reader *r, uint64_t at, size_t n, uint32_t *to, uint32_t ntags)
{
	size_t i, k;
	int bad = 0;

	hash_to(r, at);
	for (i = 0; i < n; i += CHUNK) {
		size_t m = n - i < CHUNK ? n - i : CHUNK;

		memcpy(to + i, r->base + at + i * 4, m * 4);
		if (m == CHUNK) {
			bad = tags_bad(to + i, ntags);
		} else {
			for (k = 0; k < m; k++)
				bad |= to[i + k] >= ntags &&
				    to[i + k] != STORE_NONE;
		}
		if (bad)
			return (-1);
		XXH3_64bits_update(&r->hash, to + i, m * 4);
	}
	r->off = at + n * 4;
	return (0);
}

/* A part of the file copied to private memory and hashed there. */
static void
copy_hashed(reader *r, uint64_t at, void *to, size_t len)
{
	hash_to(r, at);
	memcpy(to, r->base + at, len);
	XXH3_64bits_update(&r->hash, to, len);
	r->off = at + len;
}

static int
times_in_order(const uint64_t *t, size_t n)
{
	size_t i;
	int bad = 0;

	for (i = 1; i < n; i++)
		bad |= t[i] < t[i - 1];
	return (!bad);
}

/*
 * A nested entity, copied out, checked and replayed into the store
 * (which makes its links down the stacks again): each depth must be one
 * that a plain datum (1), a push on a state (one deeper) or a pop (one
 * shallower, from 2 or more) leads to.
 */
static int
replay_nested(reader *r, const col_desc *c, const catalog *cat, store *st,
    uint32_t entity)
{
	size_t n = (size_t)c->count, i;
	uint64_t *time = xmalloc(n * sizeof (uint64_t));
	uint16_t *state = xmalloc(n * sizeof (uint16_t));
	uint16_t *depth = xmalloc(n * sizeof (uint16_t));
	uint32_t *tag = c->tag_off != 0 ? xmalloc(n * sizeof (uint32_t)) :
	    NULL;
	uint32_t now;
	int ok = 0;

	copy_hashed(r, c->time_off, time, n * sizeof (uint64_t));
	if (!times_in_order(time, n) ||
	    copy_states(r, c->state_off, n, state, cat->nstates) != 0 ||
	    (tag != NULL &&
	    copy_tags(r, c->tag_off, n, tag, catalog_ntags(cat)) != 0))
		goto out;
	copy_hashed(r, c->depth_off, depth, n * sizeof (uint16_t));
	for (i = 0; i < n; i++) {
		uint32_t d = depth[i];

		/* The store's own depth: what store_append_depth checks. */
		now = store_depth_now(st, entity);
		if (!(d == 1 || (now >= 1 && d == now + 1) ||
		    (now >= 2 && d + 1 == now)))
			goto out;
		store_append_depth(st, entity, time[i], state[i],
		    tag != NULL ? tag[i] : STORE_NONE, d);
	}
	ok = 1;
out:
	free(time);
	free(state);
	free(depth);
	free(tag);
	return (ok ? 0 : -1);
}

/*
 * A value entity, copied out and checked: times in order, each value a
 * number, none, or a string the catalog has.
 */
static int
replay_values(reader *r, const col_desc *c, const catalog *cat, store *st,
    uint32_t entity)
{
	size_t n = (size_t)c->vcount, i;
	uint64_t *time = xmalloc(n * sizeof (uint64_t));
	sm_value *value = xmalloc(n * sizeof (sm_value));
	uint32_t nstrings = intern_count(cat->value_strings);
	int bad = 0;

	copy_hashed(r, c->vtime_off, time, n * sizeof (uint64_t));
	copy_hashed(r, c->value_off, value, n * sizeof (sm_value));
	for (i = 0; i < n; i++) {
		sm_value v = value[i];

		if (value_is_string(v))
			bad |= value_string_id(v) >= nstrings ||
			    (v >> 32) != (VALUE_STRING >> 32);
		else if (value_is_number(v))
			bad |= isnan(value_to_double(v));
		else
			bad |= !value_is_none(v);
	}
	bad |= !times_in_order(time, n);
	if (!bad)
		store_append_values(st, entity, time, value, n);
	free(time);
	free(value);
	return (bad ? -1 : 0);
}

/*
 * Gives back the pages wholly within [from, to) of the mapping, once
 * replayed into the store: nothing reads them again, and a trace of
 * nested or value entities would otherwise hold both its entry and the
 * store made from it.
 */
static void
drop_replayed(const reader *r, uint64_t from, uint64_t to)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)r->base + (uintptr_t)from;
	uintptr_t b = (uintptr_t)r->base + (uintptr_t)to;

	a = (a + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	b &= ~((uintptr_t)page - 1);
	if (b > a)
		(void) madvise((void *)a, (size_t)(b - a), MADV_DONTNEED);
}

/*
 * A nested or value entity's columns (c->kind), replayed into the store,
 * then their pages given back.  -1 if they are not sound.
 */
static int
replay_column(reader *r, const col_desc *c, const catalog *cat, store *st,
    uint32_t entity)
{
	uint64_t from = c->kind == STORE_NESTED ? c->time_off : c->vtime_off;

	if (c->kind == STORE_VALUES && c->vcount == 0)
		return (0);
	if ((c->kind == STORE_NESTED ? replay_nested(r, c, cat, st, entity) :
	    replay_values(r, c, cat, st, entity)) != 0)
		return (-1);
	drop_replayed(r, from, r->off);
	return (0);
}

/* Round up to 8 bytes: the copies keep their columns 8-aligned. */
#define ALIGN8(n)	(((n) + 7) & ~(uint64_t)7)

/*
 * Copies bigger than the memory budget (spill.h) go to an unnamed
 * temporary file of this process's own, mapped shared: no other process
 * can open it by name to change what was checked, and the kernel pages
 * it in and out like the entry itself.  Its blocks are allocated first,
 * so that a write through the mapping cannot meet a full disk (which
 * would be SIGBUS).  NULL if that cannot be had: then memory after all.
 */
static char *
copies_on_disk(cache_entry *e, uint64_t bytes)
{
	char why[SPILL_WHY];
	void *map;
	int fd;

	if (bytes > SIZE_MAX || bytes > (uint64_t)INT64_MAX ||
	    (fd = spill_temp_file(why)) < 0)
		return (NULL);
	if (posix_fallocate(fd, 0, (off_t)bytes) != 0) {
		(void) close(fd);
		return (NULL);
	}
	map = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0);
	(void) close(fd);
	if (map == MAP_FAILED)
		return (NULL);
	e->copies_map = map;
	e->copies_len = (size_t)bytes;
	return (map);
}

/*
 * The columns: checked against the layout, states and tags copied, every
 * byte hashed in file order.  Fills st and e->copies (or the others).
 */
static int
read_columns(reader *r, const header *h, const col_desc *cols,
    const catalog *cat, store *st, cache_entry *e)
{
	uint32_t ntags = catalog_ntags(cat);
	uint64_t i, bytes = 0;
	char *copies, *next;
	const char *why;

	for (i = 0; i < h->ncols; i++) {
		const col_desc *c = &cols[i];

		/* Each kind with the columns it may have, and no others. */
		if (c->kind == STORE_STATES ? c->vcount != 0 :
		    c->kind == STORE_NESTED ? c->vcount != 0 || c->count == 0 :
		    c->kind == STORE_VALUES ? c->count != 0 : 1)
			return (-1);
		if (c->kind != STORE_STATES)
			continue;
		bytes += ALIGN8(c->count * 2);
		if (c->tag_off != 0)
			bytes += ALIGN8(c->count * 4);
	}
	/* Big copies in huge pages, which fill without a fault per 4 KiB. */
	if (bytes > spill_budget() &&
	    (copies = copies_on_disk(e, bytes)) != NULL) {
		/* copies_map, made read-only once filled */
	} else if (bytes >= ((uint64_t)2 << 20)) {
		e->copies_arena = arena_new();
		copies = arena_alloc(e->copies_arena, (size_t)bytes);
	} else {
		copies = e->copies = xmalloc(bytes > 0 ? (size_t)bytes : 1);
	}
	next = copies;
	for (i = 0; i < h->ncols; i++) {
		const col_desc *c = &cols[i];
		size_t n = (size_t)c->count;
		uint16_t *state;
		uint32_t *tag = NULL;

		/*
		 * Replayed columns are memory a script's limit counts: past
		 * it, the entry is left for a fresh load, which stops with
		 * the reason.
		 */
		if (c->kind != STORE_STATES) {
			if (replay_column(r, c, cat, st, (uint32_t)i) != 0 ||
			    runlimit_check(store_memory(st), &why) != 0)
				return (-1);
			continue;
		}
		if (n == 0)
			continue;
		state = (uint16_t *)next;
		next += ALIGN8(c->count * 2);
		if (c->tag_off != 0) {
			tag = (uint32_t *)next;
			next += ALIGN8(c->count * 4);
		}
		if (check_times(r, c->time_off, n) != 0 ||
		    copy_states(r, c->state_off, n, state, cat->nstates) != 0 ||
		    (tag != NULL &&
		    copy_tags(r, c->tag_off, n, tag, ntags) != 0))
			return (-1);
		store_adopt(st, (uint32_t)i,
		    (const uint64_t *)(r->base + c->time_off), state, tag, n);
	}
	if (e->copies_map != NULL)
		(void) mprotect(e->copies_map, e->copies_len, PROT_READ);
	hash_to(r, h->file_size);
	return (0);
}

/* The header as it is hashed: its checksum read as 0.  Returns that. */
static uint64_t
header_for_hash(const void *from, header *h)
{
	uint64_t sum;

	memcpy(h, from, sizeof (*h));
	sum = h->checksum;
	h->checksum = 0;
	return (sum);
}

/*
 * Whether the entry (len bytes from base, at least a header) is sound and
 * for key: then fills *catp, *stp and e's copies.  Every part that is
 * used is first copied out of the mapping, then checked, then hashed, so
 * that what is checked is what is hashed and what is used.
 */
static int
read_entry(const char *base, size_t len, const cache_key *key,
    const char *name, catalog **catp, store **stp, cache_entry *e)
{
	header h, want;
	col_desc *got = NULL, *cols = NULL;
	char *meta = NULL;
	catalog *cat = NULL;
	store *st = NULL;
	uint64_t sum, off = sizeof (header);
	reader r;

	sum = header_for_hash(base, &h);
	if (memcmp(h.magic, CACHE_MAGIC, 8) != 0 ||
	    h.version != CACHE_VERSION || h.endian != CACHE_ENDIAN ||
	    h.file_size != (uint64_t)len || !header_has_key(&h, key))
		return (-1);
	/* The one layout for these lengths and counts, and no other. */
	want = h;
	if (advance(&off, h.meta_len, 1, len, &want.meta_off) != 0 ||
	    advance(&off, h.ncols, sizeof (col_desc), len, &want.cols_off) != 0 ||
	    want.meta_off != h.meta_off || want.cols_off != h.cols_off)
		return (-1);
	got = xcalloc(h.ncols + 1, sizeof (col_desc));
	cols = xcalloc(h.ncols + 1, sizeof (col_desc));
	memcpy(got, base + h.cols_off, (size_t)h.ncols * sizeof (col_desc));
	memcpy(cols, got, (size_t)h.ncols * sizeof (col_desc));
	if (lay_out(&want, cols, len) != 0 || want.file_size != h.file_size ||
	    memcmp(cols, got, (size_t)h.ncols * sizeof (col_desc)) != 0)
		goto reject;
	meta = xmalloc(h.meta_len + 1);
	memcpy(meta, base + h.meta_off, (size_t)h.meta_len);
	if ((cat = catalog_file_load(meta, (size_t)h.meta_len, name)) == NULL ||
	    h.ncols > catalog_nentities(cat))
		goto reject;
	st = store_new(cat->nstates);
	/* Replayed columns stay in memory, as a fresh load keeps nested and
	 * value entities: none of them may go to disk half way. */
	store_in_memory(st);
	r.base = base;
	XXH3_64bits_reset(&r.hash);
	XXH3_64bits_update(&r.hash, &h, sizeof (h));
	r.off = sizeof (h);
	hash_copy(&r, h.meta_off, meta, (size_t)h.meta_len);
	hash_copy(&r, h.cols_off, cols, (size_t)h.ncols * sizeof (col_desc));
	if (read_columns(&r, &h, cols, cat, st, e) != 0 ||
	    XXH3_64bits_digest(&r.hash) != sum)
		goto reject;
	free(got);
	free(cols);
	free(meta);
	*catp = cat;
	*stp = st;
	return (0);
reject:
	free(got);
	free(cols);
	free(meta);
	store_free(st);
	catalog_free(cat);
	return (-1);
}

int
cache_load(const cache_key *key, const char *name, catalog **catp,
    store **stp, cache_entry **entryp)
{
	char entry[32];
	struct stat sb;
	cache_entry *e;
	int dirfd, fd;

	if (key->path == NULL || (dirfd = cache_directory_open(0, NULL)) < 0)
		return (0);
	entry_name(key, entry);
	/* Not through a symbolic link; a FIFO would block without O_NONBLOCK. */
	fd = openat(dirfd, entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	(void) close(dirfd);
	if (fd < 0)
		return (0);
	/* The user's own, and nobody else may have written to it. */
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid() || (sb.st_mode & (S_IWGRP | S_IWOTH)) ||
	    (uint64_t)sb.st_size < sizeof (header) ||
	    (uint64_t)sb.st_size > SIZE_MAX) {
		(void) close(fd);
		return (0);
	}
	e = xcalloc(1, sizeof (*e));
	e->len = (size_t)sb.st_size;
	e->dev = (uint64_t)sb.st_dev;
	e->ino = (uint64_t)sb.st_ino;
	e->path = cache_entry_path(key);
	e->map = map_entry(e, fd);
	if (e->map == NULL) {
		(void) close(fd);
		free(e->path);
		free(e);
		return (0);
	}
	if (read_entry(e->map, e->len, key, name, catp, stp, e) != 0) {
		(void) close(fd);
		cache_release(e);
		return (0);
	}
	/* Used now: the least recently used entries are evicted first. */
	(void) futimens(fd, NULL);
	(void) close(fd);
	pthread_mutex_lock(&in_use_lock);
	e->next = in_use;
	in_use = e;
	pthread_mutex_unlock(&in_use_lock);
	*entryp = e;
	return (1);
}

void
cache_seal(unsigned char *entry, size_t len, const cache_key *key)
{
	XXH3_state_t hash;
	header h;

	if (len < sizeof (h))
		return;
	(void) header_for_hash(entry, &h);
	key_to_header(key, &h);
	XXH3_64bits_reset(&hash);
	XXH3_64bits_update(&hash, &h, sizeof (h));
	XXH3_64bits_update(&hash, entry + sizeof (h), len - sizeof (h));
	h.checksum = XXH3_64bits_digest(&hash);
	memcpy(entry, &h, sizeof (h));
}
