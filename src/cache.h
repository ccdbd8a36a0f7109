/*
 * cache.h: a loaded trace saved as a compact binary file, so that loading
 * the same file again maps it instead of parsing it.
 *
 * The cache file holds the trace's names and metadata in a short stream
 * and the store's columns as aligned arrays that the store uses in place
 * from the mapping (nothing is copied).  It lives in the cache directory,
 * $XDG_CACHE_HOME/statemap-lua (default ~/.cache/statemap-lua), named by
 * a hash of the trace's absolute path.
 *
 * A cache entry is used only if the trace file still has the size, the
 * modification time (to the nanosecond) and the hashes of its first and
 * last 64 KiB recorded when the entry was made; otherwise it is rebuilt.
 * The key is taken before the trace is read, so a file that changes
 * while it is being read leaves an entry that is already stale.  Every
 * offset, length and value of an entry is checked before use, so a
 * damaged or hostile cache file is rejected (and rebuilt), never trusted.
 * Cache problems are never errors: the trace is just read again.
 *
 * Only whole loads are cached (no filter, tags kept): options that drop
 * data at load time are applied by reading the trace.  Standard input
 * and files that are not regular files are never cached.
 */
#ifndef SM_CACHE_H
#define SM_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "catalog.h"

/* What identifies a trace file's content (see above). */
typedef struct cache_key {
	char *path;		/* absolute; owned */
	uint64_t size, mtime_sec, mtime_nsec, head, tail;
} cache_key;

/* Turns the cache off for this process (--no-cache). */
void cache_disable(void);

/*
 * Fills key for a trace file.  Returns 0, or -1 if the file cannot be
 * cached (stdin, not a regular file, cache turned off).
 */
int cache_key_of(const char *path, cache_key *key);
void cache_key_free(cache_key *key);

/*
 * The cached trace and store for key, if a valid, fresh entry exists:
 * returns 1 with *cat (named name) and *st (its columns in the mapping,
 * which *map and *map_len give: munmap it after store_free), else 0.
 * The store still needs store_finish.
 */
int cache_load(const cache_key *key, const char *name, catalog **cat,
    store **st, void **map, size_t *map_len);

/* Writes an entry for key (atomically: a temporary file renamed). */
void cache_save(const cache_key *key, const catalog *cat, const store *st);

#endif
