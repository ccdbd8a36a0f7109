/*
 * cache_internal.h: private to the files of the cache, whose contract is
 * cache.h:
 *
 *   cache.c          turning the cache off, its size limit, keys
 *   cache_entry.c    an entry's file: its name, its header, its layout
 *   cache_evict.c    the entries in use, eviction, clearing
 *   cache_write.c    cache_save
 *   cache_columns.c  an entry's columns checked, copied, and adopted by
 *                    or replayed into a store
 *   cache_read.c     cache_load and cache_release
 *
 * Each uses only those above it.  The entry's layout, an entry in use,
 * and what they call of each other.  cache.c, under the others, has no
 * use for this header.
 */
#ifndef SM_CACHE_INTERNAL_H
#define SM_CACHE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Header only: nothing to link, and the hash loops inline. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/arena.h"
#include "store/cache.h"
#include "store/catalog.h"
#include "store/store.h"

#define CACHE_MAGIC	"SMLCACHE"
#define CACHE_VERSION	6	/* 3: events with an end, an id, members;
				 * 4: nested and value entities;
				 * 5: state STORE_GAP (no data), depth 0;
				 * 6: integer value entities (int64 words) */
#define CACHE_ENDIAN	0x01020304u
#define PREFIX		"statemap-lua: "

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

/* An entry in use: its mapping and the private copies of its columns. */
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
	cache_entry *next;	/* in the list of entries in use */
};

/* An entry being read: where it is, and the checksum so far. */
typedef struct entry_reader {
	const char *base;
	uint64_t off;		/* how far the checksum has got */
	XXH3_state_t hash;
	uint64_t time_limit;	/* the latest time the catalog's start allows */
} entry_reader;

/* ---- cache_entry.c ---- */

/* "0123456789abcdef.smc": key's entry's name in the directory. */
void cache_entry_name(const cache_key *key, char name[32]);

/* 1 for an entry's name, 2 for a temporary file's, 0 for anything else. */
int cache_name_kind(const char *name);

/*
 * The key in a header, and whether a header has it.  The header as it
 * is hashed, from an entry's first bytes: returns its checksum, and h
 * has it as 0.
 */
void cache_key_to_header(const cache_key *key, header *h);
int cache_header_has_key(const header *h, const cache_key *key);
uint64_t cache_header_for_hash(const void *from, header *h);

/*
 * The layout, which writer and reader both compute: cache_advance moves
 * *off to the next multiple of 8 (*at) and past count items of size
 * bytes; cache_lay_out fills every offset of h and cols.  -1 if beyond
 * max.
 */
int cache_advance(uint64_t *off, uint64_t count, uint64_t size, uint64_t max,
    uint64_t *at);
int cache_lay_out(header *h, col_desc *cols, uint64_t max);

/* ---- cache_evict.c ---- */

/* An entry mapped by this process, or no longer: eviction spares it. */
void cache_in_use_add(cache_entry *e);
void cache_in_use_drop(cache_entry *e);

/*
 * Removes least recently used entries of the directory dirfd until the
 * rest fit in limit, never keep (the entry just written).
 */
void cache_evict(int dirfd, const char *keep, uint64_t limit);

/* ---- cache_columns.c ---- */

/*
 * The checksum of the entry up to at, from the mapping; and of len bytes
 * at at from a private copy of them (what is used is what is hashed).
 */
void cache_hash_to(entry_reader *r, uint64_t at);
void cache_hash_copy(entry_reader *r, uint64_t at, const void *copy,
    size_t len);

/*
 * The columns, checked against the layout, copied, hashed, and adopted
 * by or replayed into st; copies in e.  0, or -1 if not sound.
 */
int cache_read_columns(entry_reader *r, const header *h,
    const col_desc *cols, const catalog *cat, store *st, cache_entry *e);

#endif
