/*
 * cache.h: a loaded trace saved as a compact binary file, so that loading
 * the same file again maps it instead of parsing it.
 *
 * Where entries live.  In the cache directory (cache_directory.h: where
 * it is, and when it is not used, which one line on stderr says, and
 * traces are then read without the cache), one entry per trace file,
 * named by a hash of the trace's absolute path.  Entries are opened
 * without following symbolic links and used only if they are regular
 * files of the user's that nobody else may write; they are written to a
 * new file of an unpredictable name (created exclusively, mode 0600) in
 * the directory and renamed over the entry, so concurrent processes see
 * an old entry or a new one, never half of one.
 *
 * What makes an entry fresh.  An entry is used only if the trace file is
 * still the same file (device and inode), with the size, modification
 * time and status-change time (ctime, to the nanosecond) and the hashes
 * of its first and last 64 KiB recorded when the entry was made.  Every
 * write to a file moves its ctime, which unlike the mtime cannot be set
 * back (touch, cp -p and rsync -t set the mtime), so an edit anywhere in
 * the file makes the entry stale.  The key is taken before the trace is
 * read, so a file that changes while it is read leaves a stale entry; and
 * it is taken only once the file system clock has moved past the file's
 * ctime (cache_key_of waits a clock tick at most, or gives up caching for
 * a file whose times look whole seconds), so that a write just after the
 * key is taken cannot carry the same ctime.
 *
 * What makes an entry sound.  An entry carries an XXH3 checksum of all its
 * bytes, checked each time it is opened, and every offset, length and
 * value in it is checked as well, so a damaged or hostile entry is
 * rejected, never trusted (and the trace is read again).  The columns'
 * times stay in the mapping; states, tags, names and offsets are copied
 * into private memory as they are checked, so that nothing that indexes
 * an array can change after it was checked, even if the file is written
 * while mapped (nested and value entities are copied whole, checked and
 * replayed into the store, which rebuilds their stacks' links and value
 * summaries); copies bigger than the memory budget (spill.h) go to an
 * unnamed temporary file of the process's own, mapped, which no other
 * process can open, rather than to memory.  An entry bigger than the
 * budget is not read in ahead (MAP_POPULATE): the kernel pages it in and
 * out as queries go.  A time changed under the mapping is a wrong time,
 * maybe out of order: the store's queries stay within their arrays whatever
 * the times, but code that derives an index from their order (a count
 * of overlapping intervals, say) must bound it itself.  A file truncated
 * while mapped faults on access: see the SIGBUS guard comments in
 * cache_read.c.
 *
 * How big it grows.  The entries together are kept within a size limit,
 * 1 GiB unless STATEMAP_CACHE_SIZE says otherwise (a size as
 * byte_size.h reads it: "500M", "2G"; 0 turns the cache off).  An entry
 * is marked used (its mtime set to now) each time it is loaded; after an
 * entry is written, the least recently used entries are removed until
 * the rest fit, never one that this process has mapped.  An entry
 * bigger than the limit is not written.
 *
 * Cache problems are never errors: the trace is just read again.  Only
 * whole loads are cached (no filter, tags kept): options that drop data
 * at load time are applied by reading the trace.  Standard input and files
 * that are not regular files are never cached.
 */
#ifndef SM_CACHE_H
#define SM_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store/catalog.h"
#include "store/store.h"

/* What identifies a trace file's content (see above). */
typedef struct cache_key {
	char *path;		/* absolute; owned */
	uint64_t size, mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint64_t dev, ino, head, tail;
} cache_key;

/* An entry in use: its mapping and the private copies of its columns. */
typedef struct cache_entry cache_entry;

/* Turns the cache off for this process (--no-cache). */
void cache_disable(void);

/*
 * Fills key for a trace file, or a directory that is a trace (a CTF
 * trace's: its regular files' names, sizes, times and inodes make the
 * key).  Returns 0, or -1 if it cannot be cached (stdin, neither a
 * regular file nor a directory, the cache turned off, a ctime that does
 * not settle: see above).
 */
int cache_key_of(const char *path, cache_key *key);
void cache_key_free(cache_key *key);

/*
 * Makes key stand for one reading of the file among several, named by
 * variant (a kernel trace read through some analyses: "kernel:threads"):
 * each variant has an entry of its own, and an entry is fresh only for
 * the variant it was saved for.
 */
void cache_key_variant(cache_key *key, const char *variant);

/*
 * The cached catalog and store for key, if a sound, fresh entry exists:
 * returns 1 with *cat (named name), *st (some of its columns in the
 * entry's mapping) and *entry, which must outlive *st: pass it to
 * cache_release after store_free.  Else returns 0 and sets nothing.  The
 * store still needs store_finish.
 */
int cache_load(const cache_key *key, const char *name, catalog **cat,
    store **st, cache_entry **entry);

/* Unmaps an entry and frees its copies (NULL is fine). */
void cache_release(cache_entry *entry);

/*
 * Writes an entry for key (atomically: a new file renamed over the old),
 * then removes least recently used entries beyond the size limit.
 */
void cache_save(const cache_key *key, const catalog *cat, const store *st);

/*
 * Removes every entry (and temporary file) from the cache directory, for
 * --clear-cache; other files there are left alone, and so is a directory
 * that would not be used (cache_directory.h).  A process that has an entry
 * mapped keeps reading it until it is done.  Returns how many entries
 * were removed (0 if the directory does not exist), or -1 if there is no
 * cache directory (no absolute XDG_CACHE_HOME or HOME), it is not to be
 * used or cannot be read, or an entry cannot be removed: then one line
 * on stderr, "statemap-lua: ...", says why.  On success, if report is
 * not NULL, one line there says what was done: "removed 3 entries (120.5
 * MB) from DIR".  Works even when the cache is turned off.
 */
int cache_clear(FILE *report);

/*
 * The size limit in bytes (STATEMAP_CACHE_SIZE or the default, 1 GiB);
 * 0 when the cache is off.  A value that is not a size is warned about
 * on stderr (once per process) and the default used.
 */
uint64_t cache_size_limit(void);

/*
 * For tests and fuzzing only.  The path of key's entry (malloc'd), or
 * NULL if there is no cache directory.
 */
char *cache_entry_path(const cache_key *key);

/*
 * For tests and fuzzing only: rewrites the header of an entry held in
 * memory (len bytes) so that it claims to be for key and its checksum
 * matches its bytes, so that what lies behind those two checks (layout,
 * offsets, every value) can be tested with made-up entries.  Too short
 * to hold a header: nothing is done.
 */
void cache_seal(unsigned char *entry, size_t len, const cache_key *key);

#endif
