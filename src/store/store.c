/*
 * store.c: the store's memory (store_internal.h): the store made and freed,
 * its columns made, grown and faulted in, the column of no tag its untagged
 * entities share, and what the columns hold.
 */
#include "store/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/fatal.h"
#include "base/util.h"
#include "store/spill.h"
#include "store/store_internal.h"

/* A caller's bug: refused rather than stored wrong. */
_Noreturn void
store_misuse(const char *what, uint32_t state, uint32_t nstates)
{
	fprintf(stderr, "statemap-lua: internal error: %s %u (states are "
	    "0 to %u)\n", what, state, nstates - 1);
	abort();
}

_Noreturn void
store_bug(const char *what)
{
	fprintf(stderr, "statemap-lua: internal error: %s\n", what);
	abort();
}

store *
store_new(uint32_t nstates)
{
	store *s = xcalloc(1, sizeof (*s));

	if (nstates > STORE_MAX_STATES)
		store_misuse("a store of states up to", nstates,
		    STORE_MAX_STATES + 1);
	s->nstates = nstates;
	s->tag_limit = UINT32_MAX;
	s->end = UINT64_MAX;
	s->budget = spill_budget();
	pthread_mutex_init(&s->none_lock, NULL);
	return (s);
}

void
store_free(store *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->ncols; i++) {
		if (s->cols[i].borrowed)
			continue;
		if (!s->cols[i].in_arena) {
			free(s->cols[i].time);
			free(s->cols[i].state);
		}
		free(s->cols[i].tag);
		free(s->cols[i].depth);
		free(s->cols[i].below);
		if (s->cols[i].vals != NULL) {
			if (!s->cols[i].vals->in_arena) {
				free(s->cols[i].vals->time);
				free(s->cols[i].vals->value);
			}
			summary_free(atomic_load_explicit(
			    &s->cols[i].vals->sum, memory_order_relaxed));
			free(s->cols[i].vals);
		}
	}
	arena_free(s->arena);
	free(s->cols);
	store_drop_none(s);
	spill_free(s->spill);
	if (s->map != NULL) {
		fatal_unwatch_map(s->map_watch);
		(void) munmap(s->map, s->map_len);
	}
	pthread_mutex_destroy(&s->none_lock);
	free(s);
}

/* Kept as it changes, so that a load can ask it every so often. */
size_t
store_memory(const store *s)
{
	return (sizeof (*s) + s->cols_cap * sizeof (column) + s->heap_bytes +
	    (s->arena != NULL ? arena_used(s->arena) : 0) +
	    (s->spill != NULL ? spill_memory(s->spill) : 0));
}

/* ---- columns: made, grown, faulted in ---- */

column *
store_add_columns(store *s, uint32_t entity)
{
	size_t old = s->cols_cap;

	grow_array(&s->cols, &s->cols_cap, (size_t)entity + 1,
	    sizeof (column));
	memset(s->cols + old, 0, (s->cols_cap - old) * sizeof (column));
	s->ncols = (size_t)entity + 1;
	return (&s->cols[entity]);
}

/*
 * Column memory is faulted in a quarter of a column at a time, by one
 * system call, rather than by one page fault per 4 KiB as it is first
 * written: loading ten million transitions writes 100 MB of columns, and
 * on virtual machines where a page fault costs several microseconds the
 * faults took longer than the parsing.  A quarter, not the whole new
 * capacity, so that memory still grows with what is stored.  This is
 * advice: where the kernel lacks it (before Linux 5.14), pages fault in
 * as usual.
 */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

void
store_populate(void *p, size_t from, size_t to)
{
	static int unsupported;
	const uintptr_t page = 4096;
	uintptr_t start = ((uintptr_t)p + from) & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + to + page - 1) & ~(page - 1);

	/*
	 * Whole pages: those at the ends hold some of the array.  Not for a
	 * page or two, which fault in as cheaply as a call.
	 */
	if (!unsupported && end - start > 2 * page && madvise((void *)start,
	    end - start, MADV_POPULATE_WRITE) != 0 &&
	    (errno == EINVAL || errno == ENOSYS))
		unsupported = 1;
}

/*
 * How far to fault in arrays of cap entries, populated so far, that need
 * room for need: a quarter of cap further, at least need, at most cap.
 */
size_t
store_populate_to(size_t populated, size_t cap, size_t need)
{
	size_t to = populated + cap / 4;

	if (to < need)
		to = need;
	return (to > cap ? cap : to);
}

/* Faults in the column's arrays up to at least need transitions. */
void
store_column_populate(column *c, size_t need)
{
	size_t to = store_populate_to(c->populated, c->cap, need);

	store_populate(c->time, c->populated * sizeof (uint64_t),
	    to * sizeof (uint64_t));
	store_populate(c->state, c->populated * sizeof (uint16_t),
	    to * sizeof (uint16_t));
	if (c->tag != NULL)
		store_populate(c->tag, c->populated * sizeof (uint32_t),
		    to * sizeof (uint32_t));
	c->populated = to;
}

/*
 * A copy of an array in a bigger one of size bytes (from the arena if not
 * NULL), of which the first used bytes matter; frees the old one unless
 * it is the arena's.
 */
void *
store_grown(void *old, size_t used, size_t size, arena *from,
    int old_in_arena)
{
	void *p;

	/*
	 * Heap to heap: realloc, which moves a large block by remapping its
	 * pages (no copy, and no second block faulted in beside the first).
	 */
	if (from == NULL && !old_in_arena)
		return (xrealloc(old, size));
	p = from != NULL ? arena_alloc(from, size) : xmalloc(size);

	store_populate(p, 0, used);
	if (used > 0)
		memcpy(p, old, used);
	if (!old_in_arena)
		free(old);
	return (p);
}

/*
 * Moves a column's times and the array beside them (other, of entries of
 * size bytes: states or values) from old_cap entries, count of them
 * used, to cap: in the arena if cap was an estimate (the old arrays are
 * the arena's if in_arena), else on the heap, which heap_bytes counts.
 */
void
store_grow_columns(store *s, uint64_t **time, void **other, size_t size,
    size_t count, size_t old_cap, size_t cap, int by_estimate,
    int in_arena)
{
	arena *from = NULL;

	if (by_estimate) {
		if (s->arena == NULL)
			s->arena = arena_new();
		from = s->arena;
	}
	*time = store_grown(*time, count * sizeof (uint64_t),
	    cap * sizeof (uint64_t), from, in_arena);
	*other = store_grown(*other, count * size, cap * size, from,
	    in_arena);
	if (!in_arena)
		s->heap_bytes -= old_cap * (sizeof (uint64_t) + size);
	if (!by_estimate)
		s->heap_bytes += cap * (sizeof (uint64_t) + size);
}

/*
 * Estimates go by the share of the input read: not before an eighth of
 * it, when they are still rough, and never for more in all than a quarter
 * beyond what the whole store is heading for, so that entities busy early
 * and quiet later cannot run memory up.  A column sized by estimate gets
 * an eighth more than the estimate, for the noise in it.
 */
#define EARLIEST_ESTIMATE	0.125

/*
 * The capacity to give a column (of states, or of values) of cap that
 * holds count and needs room for need, each taking size bytes.
 */
size_t
store_new_capacity(store *s, size_t cap, size_t count, size_t need,
    size_t size, int *by_estimate)
{
	if (need > SIZE_MAX / 2 / sizeof (uint64_t))
		out_of_memory(SIZE_MAX);
	*by_estimate = 0;
	if (cap == 0)
		cap = 16;
	if (s->done >= EARLIEST_ESTIMATE) {
		double expect = (double)need / s->done;
		double heading = (double)s->total * TIME_STATE +
		    (double)s->values_total * VALUE_BYTES +
		    (double)(need - count) * size;
		double budget = 1.25 * heading / s->done;
		size_t room = (size_t)(expect + expect / 8) + 16;
		size_t used = s->arena != NULL ? arena_used(s->arena) : 0;

		if (room >= need && room <= SIZE_MAX / 2 / sizeof (uint64_t) &&
		    (double)used + (double)room * size <= budget) {
			*by_estimate = 1;
			return (room);
		}
	}
	/* By half: a column is at most a third empty (doubling: half). */
	while (cap < need)
		cap += cap / 2;
	return (cap);
}

/* Makes an adopted column the store's own, so that it can grow. */
void
store_own_column(store *s, column *c)
{
	uint64_t *time = xmalloc((c->count + 1) * sizeof (uint64_t));
	uint16_t *state = xmalloc((c->count + 1) * sizeof (uint16_t));
	uint32_t *tag = NULL;

	memcpy(time, c->time, c->count * sizeof (uint64_t));
	memcpy(state, c->state, c->count * sizeof (uint16_t));
	if (c->tag != NULL) {
		tag = xmalloc((c->count + 1) * sizeof (uint32_t));
		memcpy(tag, c->tag, c->count * sizeof (uint32_t));
	}
	c->time = time;
	c->state = state;
	c->tag = tag;
	c->cap = c->count + 1;
	s->heap_bytes += c->cap * (TIME_STATE + (tag != NULL ?
	    sizeof (uint32_t) : 0));
	c->populated = c->count;
	c->borrowed = 0;
}

void
store_adopt(store *s, uint32_t entity, const uint64_t *time,
    const uint16_t *state, const uint32_t *tag, size_t count)
{
	column *c = store_column_of(s, entity);

	c->time = (uint64_t *)time;
	c->state = (uint16_t *)state;
	c->tag = (uint32_t *)tag;
	c->count = c->cap = count;
	c->borrowed = 1;
	s->total += count;
}

/* ---- the store as a whole ---- */

void
store_progress(store *s, double done)
{
	s->done = done > 0 && done <= 1 ? done : 0;
}

void
store_in_memory(store *s)
{
	s->no_disk = 1;
}

int
store_has_tags(const store *s, uint32_t entity)
{
	if (s->spill != NULL)
		return (spill_tagged(s->spill, entity));
	return (entity < s->ncols && s->cols[entity].tag != NULL);
}

int
store_spilled(const store *s)
{
	return (s->spill != NULL);
}

const char *
store_failed(const store *s, int *lost)
{
	*lost = s->lost;
	return (s->why[0] != '\0' ? s->why : NULL);
}

/*
 * A store already on disk (plain data past its budget came first) cannot
 * take nested states or values, which stay in memory: it is lost, with
 * why, as when the disk fails it.
 */
int
store_lost_on_disk(store *s)
{
	if (!s->lost)
		snprintf(s->why, sizeof (s->why), "nested states and values "
		    "are kept in memory only, but plain data before them "
		    "had gone to disk (past the memory budget)");
	s->lost = 1;
	return (1);
}

/* ---- the shared column of no tag ---- */

/*
 * A column of n STORE_NONE for a mapped store, whose columns may be far
 * larger than memory, without n * 4 bytes of it: one block of them in a
 * memfd, mapped again and again side by side over a reserved range.
 * NULL if the kernel will not (then memory after all).
 */
#define NONE_BLOCK	((size_t)2 << 20)

static uint32_t *
none_mapped(size_t n, size_t *len)
{
	size_t total, off, i;
	char *base;
	uint32_t *block;
	int fd;

	if (n > (SIZE_MAX - NONE_BLOCK) / sizeof (uint32_t))
		return (NULL);
	total = (n * sizeof (uint32_t) + NONE_BLOCK - 1) / NONE_BLOCK *
	    NONE_BLOCK;
	if ((fd = memfd_create("statemap-none", MFD_CLOEXEC)) < 0)
		return (NULL);
	block = ftruncate(fd, (off_t)NONE_BLOCK) == 0 ? mmap(NULL, NONE_BLOCK,
	    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	base = block != MAP_FAILED ? mmap(NULL, total, PROT_NONE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) : MAP_FAILED;
	if (base == MAP_FAILED) {
		if (block != MAP_FAILED)
			(void) munmap(block, NONE_BLOCK);
		(void) close(fd);
		return (NULL);
	}
	for (i = 0; i < NONE_BLOCK / sizeof (uint32_t); i++)
		block[i] = STORE_NONE;
	(void) munmap(block, NONE_BLOCK);
	for (off = 0; off < total; off += NONE_BLOCK) {
		if (mmap(base + off, NONE_BLOCK, PROT_READ, MAP_SHARED |
		    MAP_FIXED, fd, 0) == MAP_FAILED) {
			(void) munmap(base, total);
			(void) close(fd);
			return (NULL);
		}
	}
	(void) close(fd);
	*len = total;
	return ((uint32_t *)(void *)base);
}

void
store_make_none(store *s)
{
	size_t i;

	if (s->mapped && s->none_want * sizeof (uint32_t) > NONE_BLOCK &&
	    (s->none = none_mapped(s->none_want, &s->none_map_len)) != NULL) {
		s->none_len = s->none_want;
		return;
	}
	s->none = xmalloc(s->none_want * sizeof (uint32_t));
	s->none_len = s->none_want;
	for (i = 0; i < s->none_len; i++)
		s->none[i] = STORE_NONE;
}

void
store_drop_none(store *s)
{
	if (s->none_map_len > 0)
		(void) munmap(s->none, s->none_map_len);
	else
		free(s->none);
	s->none = NULL;
	s->none_len = 0;
	s->none_map_len = 0;
}

/* ---- what the columns hold ---- */

uint32_t store_nentities(const store *s) { return ((uint32_t)s->ncols); }
uint32_t store_nstates(const store *s) { return (s->nstates); }
uint64_t store_begin(const store *s) { return (s->begin); }
uint64_t store_end(const store *s) { return (s->end); }
uint64_t store_total(const store *s) { return (s->total); }

size_t
store_count(const store *s, uint32_t entity)
{
	if (s->spill != NULL)
		return ((size_t)spill_count(s->spill, entity));
	return (entity < s->ncols ? s->cols[entity].count : 0);
}

size_t
store_capacity(const store *s, uint32_t entity)
{
	if (entity >= s->ncols)
		return (0);
	return (s->cols[entity].vals != NULL ? s->cols[entity].vals->cap :
	    s->cols[entity].cap);
}

const uint64_t *
store_times(const store *s, uint32_t entity)
{
	return (entity < s->ncols ? s->cols[entity].time : NULL);
}

const uint16_t *
store_states(const store *s, uint32_t entity)
{
	return (entity < s->ncols ? s->cols[entity].state : NULL);
}

const uint32_t *
store_tags(const store *s, uint32_t entity)
{
	const uint32_t *none;

	if (entity >= s->ncols)
		return (NULL);
	if (s->cols[entity].tag != NULL)
		return (s->cols[entity].tag);
	if (!s->mapped)
		return (s->none);
	/* Made now, once, whichever thread asks first. */
	pthread_mutex_lock((pthread_mutex_t *)&s->none_lock);
	if (s->none == NULL && s->none_want > 0)
		store_make_none((store *)s);
	none = s->none;
	pthread_mutex_unlock((pthread_mutex_t *)&s->none_lock);
	return (none);
}

store_kind
store_kind_of(const store *s, uint32_t entity)
{
	if (entity >= s->ncols)
		return (STORE_STATES);
	if (s->cols[entity].vals != NULL)
		return (STORE_VALUES);
	return (s->cols[entity].depth != NULL ? STORE_NESTED : STORE_STATES);
}

int
store_plain(const store *s)
{
	return (s->special == 0);
}

const uint16_t *
store_depths(const store *s, uint32_t entity)
{
	return (entity < s->ncols ? s->cols[entity].depth : NULL);
}

const uint32_t *
store_below(const store *s, uint32_t entity)
{
	return (entity < s->ncols ? s->cols[entity].below : NULL);
}
