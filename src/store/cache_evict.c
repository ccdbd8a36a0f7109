/*
 * cache_evict.c: the entries this process has mapped, and what leaves the
 * cache directory: the least recently used entries past the size limit,
 * temporary files abandoned long ago, and everything at --clear-cache.
 */
#include "store/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "store/cache_directory.h"
#include "store/cache_internal.h"

#define STALE_TMP_SEC	3600	/* a temporary file this old was abandoned */

/* ---- entries in use ---- */

/* Entries this process has mapped, which eviction leaves alone. */
static pthread_mutex_t in_use_lock = PTHREAD_MUTEX_INITIALIZER;
static cache_entry *in_use;

void
cache_in_use_add(cache_entry *e)
{
	pthread_mutex_lock(&in_use_lock);
	e->next = in_use;
	in_use = e;
	pthread_mutex_unlock(&in_use_lock);
}

void
cache_in_use_drop(cache_entry *e)
{
	cache_entry **p;

	pthread_mutex_lock(&in_use_lock);
	for (p = &in_use; *p != NULL; p = &(*p)->next) {
		if (*p == e) {
			*p = e->next;
			break;
		}
	}
	pthread_mutex_unlock(&in_use_lock);
}

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

		if (cache_name_kind(de->d_name) != kind ||
		    fstatat(dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(sb.st_mode))
			continue;
		grow_array(&list, &cap, *n + 1, sizeof (found));
		f = &list[(*n)++];
		/* At most 41 bytes: cache_name_kind saw to that. */
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
void
cache_evict(int dirfd, const char *keep, uint64_t limit)
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
