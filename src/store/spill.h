/*
 * spill.h: a store's transitions on disk, in sorted runs merged back
 * entity by entity, so that a store of any size is built in a fixed
 * amount of memory (store.h decides when; this is how).
 *
 * Transitions come as a store takes them: interleaved between entities,
 * each entity's in time order.  They gather in a buffer of a fixed size;
 * when it is full it is sorted by entity (a counting sort, which keeps
 * each entity's transitions in their order) and written to the run file
 * as a run: the entities present with their counts, then their times,
 * states and tags, entity after entity.  An entity's transitions are
 * then its segments of the runs in run order, so the merge reads each
 * run once, front to back (one cursor per run for each of the index,
 * times, states and tags): for each entity in turn, its times from every
 * run, then its states, then its tags.
 *
 * What the merge writes is the layout of the cache's columns
 * (cache_internal.h), so that a cache entry is the merge's output behind a
 * header: for each entity with transitions, its times (8 bytes each),
 * its states (2), and if any of its transitions has a tag, its tags (4;
 * SPILL_NO_TAG for those without), each array starting at a multiple of
 * 8 bytes, zeros between.
 *
 * Where the files go.  Runs, and a store's merged columns when they are
 * not a cache entry, are unnamed temporary files (O_TMPFILE; where a
 * file system lacks it, a file of unpredictable name created exclusively,
 * mode 0600, never through a symbolic link, and removed at once): no
 * other process can open them by name, and they vanish with the process
 * however it ends, SIGKILL included.  They are made in STATEMAP_SPILL_DIR
 * if it is set, else in the cache directory (cache_directory.h; made if
 * missing, and used under the same rules), whether or not the cache
 * itself is on.
 * Not in /tmp, which is often a tmpfs: memory again.
 *
 * Errors (no directory to use, a full disk) are one line in the caller's
 * buffer: "cannot write temporary files in DIR: No space left on
 * device".  A spill that failed is of no further use.
 *
 * Ownership: a spill owns its buffer, files and per-entity counts.
 */
#ifndef SM_SPILL_H
#define SM_SPILL_H

#include <stddef.h>
#include <stdint.h>

#define SPILL_WHY	512	/* room for an error line */
/* No tag: the store's STORE_NONE, which store_disk.c checks is the same. */
#define SPILL_NO_TAG	UINT32_MAX

typedef struct spill spill;

/*
 * How many bytes a store may hold in memory before it goes to disk, and
 * the size of a spill's buffer: STATEMAP_SPILL_BYTES if set (a size as
 * byte_size.h reads it; for tests that want the disk path on small
 * data), else half of what the memory limit leaves (runlimit.h), else
 * what spill_set_budget set, else half of the machine's physical memory.
 * Read anew at each call.
 */
size_t spill_budget(void);

/*
 * The budget without a memory limit, for work that is to stay small
 * beside the rest (the classic command's --detail loads: classic.c); 0
 * goes back to half of physical memory.
 */
void spill_set_budget(size_t bytes);

/* A spill whose buffer takes about run_bytes; NULL with why filled. */
spill *spill_new(size_t run_bytes, char why[SPILL_WHY]);
void spill_free(spill *sp);

/* Bytes of memory it holds (buffer, counts, read buffers). */
size_t spill_memory(const spill *sp);

/* Transitions of entity so far, and whether any had a tag. */
uint64_t spill_count(const spill *sp, uint32_t entity);
int spill_tagged(const spill *sp, uint32_t entity);
/* One more than the largest tag taken (0 if none). */
uint32_t spill_tag_limit(const spill *sp);

/*
 * Takes a transition (tag SPILL_NO_TAG for none), or n untagged ones of
 * one entity.  0, or -1 with why filled if a run could not be written.
 */
int spill_append(spill *sp, uint32_t entity, uint64_t time, uint16_t state,
    uint32_t tag, char why[SPILL_WHY]);
int spill_append_many(spill *sp, uint32_t entity, const uint64_t *times,
    const uint16_t *states, size_t n, char why[SPILL_WHY]);

/*
 * Writes columns held elsewhere as a run of their own: entity e's
 * count[e] transitions at time[e], state[e] and tag[e] (NULL: none
 * tagged), for e below nentities.  For a store moving its memory to
 * disk in one go, before anything else is taken.  0, or -1 with why.
 */
int spill_write_columns(spill *sp, uint32_t nentities,
    const uint64_t *const *time, const uint16_t *const *state,
    const uint32_t *const *tag, const size_t *count, char why[SPILL_WHY]);

/*
 * Writes every transition, merged, in the layout above, for entities 0
 * to nentities - 1, through write (0, or -1 with why filled to stop).
 * Nothing more may be appended after; the merge may be done again (a
 * write that failed tried elsewhere).  0, or -1 with why filled.
 */
typedef int (*spill_write_fn)(void *ctx, const void *data, size_t len,
    char why[SPILL_WHY]);
int spill_merge(spill *sp, uint32_t nentities, spill_write_fn write,
    void *ctx, char why[SPILL_WHY]);

/*
 * The same into an unnamed temporary file of its own (above): 0 with
 * *fd (the caller's to close) and *len, or -1 with why filled.
 */
int spill_merge_file(spill *sp, uint32_t nentities, int *fd, uint64_t *len,
    char why[SPILL_WHY]);

/*
 * An unnamed temporary file where the spill's files go (above), for other
 * data too big for memory (cache_columns.c: the checked copies of a big
 * entry's states and tags): a descriptor, or -1 with why filled.
 */
int spill_temp_file(char why[SPILL_WHY]);

#endif
