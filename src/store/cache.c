/*
 * cache.c: the cache turned off, its size limit, and keys: what identifies
 * a trace file's content (cache.h).
 */
#include "store/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Header only: nothing to link, and the hash loops inline here. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/byte_size.h"
#include "base/util.h"

#define DEFAULT_LIMIT	((uint64_t)1 << 30)
#define EDGE_BYTES	65536	/* hashed at each end of the trace file */
#define PREFIX		"statemap-lua: "

static int disabled;

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
cache_key_variant(cache_key *key, const char *variant)
{
	size_t plen = strlen(key->path), vlen = strlen(variant);
	char *p = xmalloc(plen + 1 + vlen + 1);

	/*
	 * The entry's name is a hash of the path, which now ends with the
	 * variant (after a newline, which a realpath may hold too, but
	 * then the head's hash below still tells them apart); the head's
	 * hash, kept in the entry, takes the variant in too, so an entry
	 * of one variant is never fresh for another.
	 */
	memcpy(p, key->path, plen);
	p[plen] = '\n';
	memcpy(p + plen + 1, variant, vlen + 1);
	free(key->path);
	key->path = p;
	key->head ^= XXH3_64bits(variant, vlen) * 0x9e3779b97f4a7c15ULL + 1;
}

void
cache_key_free(cache_key *key)
{
	free(key->path);
	key->path = NULL;
}
