/*
 * cache_read.c: an entry loaded (cache.h): opened, mapped, every part
 * checked and hashed (its catalog by catalog_file.h, its columns by
 * cache_columns.c), and released.
 */
#include "store/cache.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/fatal.h"
#include "base/util.h"
#include "store/cache_directory.h"
#include "store/cache_internal.h"
#include "store/catalog_file.h"
#include "store/spill.h"

/* ---- mapping ---- */

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
	if (entry == NULL)
		return;
	cache_in_use_drop(entry);
	if (entry->map != NULL)
		unmap_entry(entry);
	free(entry->path);
	free(entry->copies);
	arena_free(entry->copies_arena);
	if (entry->copies_map != NULL)
		(void) munmap(entry->copies_map, entry->copies_len);
	free(entry);
}

/* ---- reading: nothing is used before it is checked ---- */

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
	entry_reader r;

	sum = cache_header_for_hash(base, &h);
	if (memcmp(h.magic, CACHE_MAGIC, 8) != 0 ||
	    h.version != CACHE_VERSION || h.endian != CACHE_ENDIAN ||
	    h.file_size != (uint64_t)len || !cache_header_has_key(&h, key))
		return (-1);
	/* The one layout for these lengths and counts, and no other. */
	want = h;
	if (cache_advance(&off, h.meta_len, 1, len, &want.meta_off) != 0 ||
	    cache_advance(&off, h.ncols, sizeof (col_desc), len,
	    &want.cols_off) != 0 ||
	    want.meta_off != h.meta_off || want.cols_off != h.cols_off)
		return (-1);
	got = xcalloc(h.ncols + 1, sizeof (col_desc));
	cols = xcalloc(h.ncols + 1, sizeof (col_desc));
	memcpy(got, base + h.cols_off, (size_t)h.ncols * sizeof (col_desc));
	memcpy(cols, got, (size_t)h.ncols * sizeof (col_desc));
	if (cache_lay_out(&want, cols, len) != 0 ||
	    want.file_size != h.file_size ||
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
	/* catalog_file_load checked the start: the limit is not -1. */
	r.time_limit = (uint64_t)catalog_time_limit(cat->start_sec,
	    cat->start_nsec);
	XXH3_64bits_reset(&r.hash);
	XXH3_64bits_update(&r.hash, &h, sizeof (h));
	r.off = sizeof (h);
	cache_hash_copy(&r, h.meta_off, meta, (size_t)h.meta_len);
	cache_hash_copy(&r, h.cols_off, cols,
	    (size_t)h.ncols * sizeof (col_desc));
	if (cache_read_columns(&r, &h, cols, cat, st, e) != 0 ||
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
	cache_entry_name(key, entry);
	/*
	 * Not through a symbolic link; a FIFO would block without
	 * O_NONBLOCK.
	 */
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
	cache_in_use_add(e);
	*entryp = e;
	return (1);
}
