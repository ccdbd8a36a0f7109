/*
 * cache_write.c: an entry written (cache.h): in layout order into a new
 * file of an unpredictable name, hashed as it goes, renamed over the old
 * entry, then the least recently used entries evicted.
 */
#include "store/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "base/util.h"
#include "store/cache_directory.h"
#include "store/cache_internal.h"
#include "store/catalog_file.h"

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
	cache_key_to_header(key, &h);
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
	if (cache_lay_out(&h, cols, limit) != 0 ||
	    (dirfd = cache_directory_open(1, NULL)) < 0) {
		free(cols);
		free(meta);
		return;
	}
	cache_entry_name(key, name);
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
			emit_at(&w, cols[i].time_off, store_times(st, e),
			    n * 8);
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
		cache_evict(dirfd, name, limit);
	(void) close(dirfd);
	free(cols);
	free(meta);
}
