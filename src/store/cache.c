/*
 * cache.c: the cache turned off, its size limit, and keys: what identifies
 * a trace file's content (cache.h).
 */
#include "store/cache.h"

#include <dirent.h>
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

static void
later(uint64_t *sec, uint64_t *nsec, const struct timespec *t)
{
	if ((uint64_t)t->tv_sec > *sec || ((uint64_t)t->tv_sec == *sec &&
	    (uint64_t)t->tv_nsec > *nsec)) {
		*sec = (uint64_t)t->tv_sec;
		*nsec = (uint64_t)t->tv_nsec;
	}
}

/*
 * A directory's key (a CTF trace is one): its own device and inode, the
 * sum of its regular files' sizes, the latest of its and their times,
 * and a hash of their names, sizes, times and inodes in name order (so
 * any file written, added or removed makes another key).  -1 if a time
 * has not settled.
 */
static int
dir_key(const char *path, const struct stat *dst, cache_key *key)
{
	struct dirent **list = NULL;
	XXH3_state_t h;
	int n, i, rv = 0;

	if (settled(dst) <= 0 || (n = scandir(path, &list, NULL,
	    alphasort)) < 0)
		return (-1);
	key->dev = (uint64_t)dst->st_dev;
	key->ino = (uint64_t)dst->st_ino;
	later(&key->mtime_sec, &key->mtime_nsec, &dst->st_mtim);
	later(&key->ctime_sec, &key->ctime_nsec, &dst->st_ctim);
	(void)XXH3_64bits_reset(&h);
	for (i = 0; i < n; i++) {
		struct stat sb;
		uint64_t facts[6];
		char *p = NULL;

		if (rv == 0 && asprintf(&p, "%s/%s", path,
		    list[i]->d_name) >= 0 && stat(p, &sb) == 0 &&
		    S_ISREG(sb.st_mode)) {
			if (settled(&sb) <= 0)
				rv = -1;
			facts[0] = (uint64_t)sb.st_size;
			facts[1] = (uint64_t)sb.st_mtim.tv_sec;
			facts[2] = (uint64_t)sb.st_mtim.tv_nsec;
			facts[3] = (uint64_t)sb.st_ctim.tv_sec;
			facts[4] = (uint64_t)sb.st_ctim.tv_nsec;
			facts[5] = (uint64_t)sb.st_ino;
			(void)XXH3_64bits_update(&h, list[i]->d_name,
			    strlen(list[i]->d_name) + 1);
			(void)XXH3_64bits_update(&h, facts, sizeof (facts));
			key->size += (uint64_t)sb.st_size;
			key->tail++;
			later(&key->mtime_sec, &key->mtime_nsec, &sb.st_mtim);
			later(&key->ctime_sec, &key->ctime_nsec, &sb.st_ctim);
		}
		free(p);
		free(list[i]);
	}
	free(list);
	key->head = XXH3_64bits_digest(&h);
	if (rv == 0 && (key->path = realpath(path, NULL)) == NULL)
		rv = -1;
	return (rv);
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
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		(void) close(fd);
		if (dir_key(path, &st, key) == 0)
			return (0);
		cache_key_free(key);
		return (-1);
	}
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
