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
#include "store/spill.h"
#include "base/util.h"

/* Tags go to a spill as they are: its "no tag" must be the store's. */
_Static_assert(SPILL_NO_TAG == STORE_NONE, "spill.h's SPILL_NO_TAG");

/*
 * tag is NULL until the entity's first tagged transition: most traces
 * have no tags, and the column would be 4 of every 14 bytes.
 */
typedef struct column {
	uint64_t *time;
	uint16_t *state;
	uint32_t *tag;
	size_t count, cap;
	size_t populated;	/* transitions' worth of memory faulted in */
	int borrowed;		/* adopted arrays: neither grown nor freed */
	int in_arena;		/* time and state are the arena's: not freed */
	/* Nested entities only (NULL until the first push): store.h. */
	uint16_t *depth;
	uint32_t *below;
	struct values *vals;	/* value entities only */
} column;

/* A value entity's columns, apart from the states'. */
typedef struct values {
	uint64_t *time;
	sm_value *value;
	size_t count, cap;
	size_t populated;	/* values' worth of memory faulted in */
	int in_arena;		/* time and value are the arena's: not freed */
	/*
	 * Of the first summed values: made at the first query that wants
	 * it (values_summary), not at load, and then read by any thread.
	 */
	_Atomic(summary *) sum;
	size_t summed;
	size_t sum_bytes;	/* counted in heap_bytes since store_finish */
} values;

static void fill_value(const store *s, const values *v, uint32_t entity,
    size_t i, store_interval *out);

struct store {
	uint32_t nstates;
	uint32_t tag_limit;	/* tags at or above it read as none */
	arena *arena;		/* columns sized by estimate, or NULL */
	double done;		/* see store_progress */
	uint32_t *none;		/* STORE_NONE times the longest column */
	size_t none_len;
	size_t heap_bytes;	/* columns in malloc'd memory, and none */
	column *cols;
	size_t ncols, cols_cap;
	uint64_t total;
	uint64_t values_total;
	size_t special;		/* columns that are nested or values */
	uint64_t begin, end;

	/*
	 * Past budget bytes the transitions go to disk (spill.h): spill
	 * holds them until store_finish maps them back from map.  A store
	 * whose columns are mapped makes none only when it is asked for.
	 */
	size_t budget;
	spill *spill;
	int no_disk;		/* going to disk failed, or store_in_memory */
	int lost;		/* transitions were lost on the way to disk */
	char why[SPILL_WHY];	/* what went wrong, or "" */
	int mapped;		/* columns in a mapping: none made lazily */
	size_t none_want;	/* the longest untagged column, for that */
	int none_counted;	/* none is in heap_bytes (made eagerly) */
	size_t none_map_len;	/* none is mapped (none_mapped), this long */
	pthread_mutex_t none_lock;
	void *map;		/* the merged columns, when store_finish made them */
	size_t map_len;
	int map_watch;
};

static void drop_none(store *s);

/* A caller's bug: refused rather than stored wrong. */
static _Noreturn void
misuse(const char *what, uint32_t state, uint32_t nstates)
{
	fprintf(stderr, "statemap-lua: internal error: %s %u (states are "
	    "0 to %u)\n", what, state, nstates - 1);
	abort();
}

static _Noreturn void
bug(const char *what)
{
	fprintf(stderr, "statemap-lua: internal error: %s\n", what);
	abort();
}

store *
store_new(uint32_t nstates)
{
	store *s = xcalloc(1, sizeof (*s));

	if (nstates > STORE_MAX_STATES)
		misuse("a store of states up to", nstates, STORE_MAX_STATES + 1);
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
	drop_none(s);
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

#define TIME_STATE	(sizeof (uint64_t) + sizeof (uint16_t))
#define NESTED_BYTES	(sizeof (uint16_t) + sizeof (uint32_t))
#define VALUE_BYTES	(sizeof (uint64_t) + sizeof (sm_value))

static column *
column_of(store *s, uint32_t entity)
{
	if (entity >= s->ncols) {
		size_t old = s->cols_cap;

		grow_array(&s->cols, &s->cols_cap, (size_t)entity + 1,
		    sizeof (column));
		memset(s->cols + old, 0, (s->cols_cap - old) * sizeof (column));
		s->ncols = (size_t)entity + 1;
	}
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

static void
populate(void *p, size_t from, size_t to)
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
static size_t
populate_to(size_t populated, size_t cap, size_t need)
{
	size_t to = populated + cap / 4;

	if (to < need)
		to = need;
	return (to > cap ? cap : to);
}

/* Faults in the column's arrays up to at least need transitions. */
static void
column_populate(column *c, size_t need)
{
	size_t to = populate_to(c->populated, c->cap, need);

	populate(c->time, c->populated * sizeof (uint64_t),
	    to * sizeof (uint64_t));
	populate(c->state, c->populated * sizeof (uint16_t),
	    to * sizeof (uint16_t));
	if (c->tag != NULL)
		populate(c->tag, c->populated * sizeof (uint32_t),
		    to * sizeof (uint32_t));
	c->populated = to;
}

/*
 * A copy of an array in a bigger one of size bytes (from the arena if not
 * NULL), of which the first used bytes matter; frees the old one unless
 * it is the arena's.
 */
static void *
grown(void *old, size_t used, size_t size, arena *from, int old_in_arena)
{
	void *p = from != NULL ? arena_alloc(from, size) : xmalloc(size);

	populate(p, 0, used);
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
static void
grow_columns(store *s, uint64_t **time, void **other, size_t size,
    size_t count, size_t old_cap, size_t cap, int by_estimate,
    int in_arena)
{
	arena *from = NULL;

	if (by_estimate) {
		if (s->arena == NULL)
			s->arena = arena_new();
		from = s->arena;
	}
	*time = grown(*time, count * sizeof (uint64_t),
	    cap * sizeof (uint64_t), from, in_arena);
	*other = grown(*other, count * size, cap * size, from, in_arena);
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
static size_t
new_capacity(store *s, size_t cap, size_t count, size_t need, size_t size,
    int *by_estimate)
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
	while (cap < need)
		cap *= 2;
	return (cap);
}

/* ---- going to disk ---- */

/*
 * Moves every transition to a spill (spill.h) and frees the columns;
 * from now on appends go there, and store_finish maps them back.  The
 * spill's buffer is allocated first but written only after the columns
 * are freed, so that the pages of the two are never resident together.  Returns 1 on disk (or lost on the way:
 * s->lost), 0 if there is no disk to go to (s->no_disk; the store stays
 * in memory, and s->why says why).
 */
static int
go_to_disk(store *s)
{
	size_t n = s->ncols + 1, e;
	const uint64_t **time = xcalloc(n, sizeof (*time));
	const uint16_t **state = xcalloc(n, sizeof (*state));
	const uint32_t **tag = xcalloc(n, sizeof (*tag));
	size_t *count = xcalloc(n, sizeof (*count));
	spill *sp = spill_new(s->budget, s->why);

	if (sp == NULL) {
		s->no_disk = 1;
		free(time);
		free(state);
		free(tag);
		free(count);
		return (0);
	}
	for (e = 0; e < s->ncols; e++) {
		time[e] = s->cols[e].time;
		state[e] = s->cols[e].state;
		tag[e] = s->cols[e].tag;
		count[e] = s->cols[e].count;
	}
	if (spill_write_columns(sp, (uint32_t)s->ncols, time, state, tag,
	    count, s->why) != 0)
		s->lost = 1;
	free(time);
	free(state);
	free(tag);
	free(count);
	for (e = 0; e < s->ncols; e++) {
		column *c = &s->cols[e];

		if (!c->borrowed) {
			if (!c->in_arena) {
				free(c->time);
				free(c->state);
			}
			free(c->tag);
		}
		memset(c, 0, sizeof (*c));
	}
	arena_free(s->arena);
	s->arena = NULL;
	drop_none(s);
	s->none_counted = 0;
	s->heap_bytes = 0;
	s->spill = sp;
	return (1);
}

static void
append_to_disk(store *s, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag)
{
	if (!s->lost && spill_append(s->spill, entity, time, (uint16_t)state,
	    tag, s->why) != 0)
		s->lost = 1;
	s->total++;
}

/*
 * The columns, written by spill_merge_file, mapped back: the store uses
 * them in place.  On failure the store is left empty and lost.
 */
static void
map_back(store *s)
{
	spill *sp = s->spill;
	uint64_t len = 0, off = 0;
	char *map = NULL;
	size_t e;
	int fd = -1;

	s->spill = NULL;
	if (!s->lost && spill_merge_file(sp, (uint32_t)s->ncols, &fd, &len,
	    s->why) != 0)
		s->lost = 1;
	if (!s->lost && len > 0) {
		map = len <= SIZE_MAX ? mmap(NULL, (size_t)len, PROT_READ,
		    MAP_SHARED, fd, 0) : MAP_FAILED;
		if (map == MAP_FAILED) {
			snprintf(s->why, sizeof (s->why), "cannot map a "
			    "temporary file: %s", strerror(errno));
			s->lost = 1;
			map = NULL;
		}
	}
	if (fd >= 0)
		(void) close(fd);
	if (map != NULL) {
		s->map = map;
		s->map_len = (size_t)len;
		s->map_watch = fatal_watch_map(map, (size_t)len,
		    "a temporary file");
	}
	for (e = 0; e < s->ncols; e++) {
		column *c = &s->cols[e];
		size_t n = s->lost ? 0 : (size_t)spill_count(sp, (uint32_t)e);

		memset(c, 0, sizeof (*c));
		if (n == 0)
			continue;
		/* The layout spill.h gives: arrays 8-aligned, in this order. */
		c->time = (uint64_t *)(map + off);
		off += ((uint64_t)n * 8 + 7) & ~(uint64_t)7;
		c->state = (uint16_t *)(map + off);
		off += ((uint64_t)n * 2 + 7) & ~(uint64_t)7;
		if (spill_tagged(sp, (uint32_t)e)) {
			c->tag = (uint32_t *)(map + off);
			off += ((uint64_t)n * 4 + 7) & ~(uint64_t)7;
		}
		c->count = c->cap = c->populated = n;
		c->borrowed = 1;
	}
	if (s->lost)
		s->total = 0;
	s->tag_limit = spill_tag_limit(sp);
	s->mapped = 1;
	spill_free(sp);
}

/*
 * Room for need transitions in a column of the store's own.  Returns 1
 * if instead the store went to disk (the column would have taken it past
 * its budget), 0 when there is room.
 */
static int
column_reserve(store *s, column *c, size_t need)
{
	int by_estimate;
	size_t cap;
	void *state = c->state;

	cap = new_capacity(s, c->cap, c->count, need, TIME_STATE,
	    &by_estimate);
	/* Nested and value entities stay in memory: spill.c knows neither. */
	if (!s->no_disk && s->special == 0 && store_memory(s) + cap *
	    (TIME_STATE + (c->tag != NULL ? sizeof (uint32_t) : 0)) >
	    s->budget && go_to_disk(s))
		return (1);
	grow_columns(s, &c->time, &state, sizeof (uint16_t), c->count, c->cap,
	    cap, by_estimate, c->in_arena);
	c->state = state;
	if (c->tag != NULL) {
		c->tag = grown(c->tag, c->count * sizeof (uint32_t),
		    cap * sizeof (uint32_t), NULL, 0);
		s->heap_bytes += (cap - c->cap) * sizeof (uint32_t);
	}
	if (c->depth != NULL) {
		c->depth = xrealloc(c->depth, cap * sizeof (uint16_t));
		c->below = xrealloc(c->below, cap * sizeof (uint32_t));
		s->heap_bytes += (cap - c->cap) * NESTED_BYTES;
	}
	c->in_arena = by_estimate;
	c->cap = cap;
	c->populated = c->count;	/* the copies faulted theirs in */
	return (0);
}

/* Makes an adopted column the store's own, so that it can grow. */
static void
own(store *s, column *c)
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
	column *c = column_of(s, entity);

	c->time = (uint64_t *)time;
	c->state = (uint16_t *)state;
	c->tag = (uint32_t *)tag;
	c->count = c->cap = count;
	c->borrowed = 1;
	s->total += count;
}

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
 * Appends a transition to a column in memory; returns its index.  A
 * store with nested or value entities never goes to disk
 * (column_reserve), so the column always grows here.
 */
static size_t
append_one(store *s, column *c, uint64_t time, uint32_t state, uint32_t tag)
{
	if (state >= s->nstates)
		misuse("store_append of state", state, s->nstates);
	if (c->vals != NULL)
		bug("store_append of a state to a value entity");
	if (c->borrowed)
		own(s, c);
	if (c->count == c->cap && column_reserve(s, c, c->count + 1))
		bug("a store with nested entities went to disk");
	if (c->count >= c->populated)
		column_populate(c, c->count + 1);
	if (tag != STORE_NONE && c->tag == NULL) {
		size_t i;

		c->tag = xmalloc(c->cap * sizeof (uint32_t));
		s->heap_bytes += c->cap * sizeof (uint32_t);
		for (i = 0; i < c->count; i++)
			c->tag[i] = STORE_NONE;
	}
	c->time[c->count] = time;
	c->state[c->count] = (uint16_t)state;
	if (c->tag != NULL)
		c->tag[c->count] = tag;
	if (c->depth != NULL) {
		c->depth[c->count] = 1;
		c->below[c->count] = STORE_NONE;
	}
	s->total++;
	return (c->count++);
}

void
store_append(store *s, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag)
{
	column *c = column_of(s, entity);

	if (state >= s->nstates)
		misuse("store_append of state", state, s->nstates);
	if (c->vals != NULL)
		bug("store_append of a state to a value entity");
	if (s->spill != NULL) {
		append_to_disk(s, entity, time, state, tag);
		return;
	}
	if (c->borrowed)
		own(s, c);
	if (c->count == c->cap && column_reserve(s, c, c->count + 1)) {
		append_to_disk(s, entity, time, state, tag);
		return;
	}
	append_one(s, c, time, state, tag);
}

void
store_append_many(store *s, uint32_t entity, const uint64_t *time,
    const uint16_t *state, size_t n)
{
	column *c = column_of(s, entity);
	size_t i;

	if (n == 0)
		return;
	if (c->vals != NULL)
		bug("store_append_many to a value entity");
	if (s->spill == NULL) {
		if (c->borrowed)
			own(s, c);
		if (c->count + n > c->cap)
			(void) column_reserve(s, c, c->count + n);
	}
	if (s->spill != NULL) {
		if (!s->lost && spill_append_many(s->spill, entity, time,
		    state, n, s->why) != 0)
			s->lost = 1;
		s->total += n;
		return;
	}
	if (c->count + n > c->populated)
		column_populate(c, c->count + n);
	memcpy(c->time + c->count, time, n * sizeof (uint64_t));
	memcpy(c->state + c->count, state, n * sizeof (uint16_t));
	if (c->tag != NULL) {
		for (i = 0; i < n; i++)
			c->tag[c->count + i] = STORE_NONE;
	}
	if (c->depth != NULL) {
		for (i = 0; i < n; i++) {
			c->depth[c->count + i] = 1;
			c->below[c->count + i] = STORE_NONE;
		}
	}
	c->count += n;
	s->total += n;
}

/*
 * Trims a value entity's columns and makes ready for their summary
 * (value_summary.h), which values_summary makes when a query first wants it:
 * a load that never asks for statistics never pays for it (a tenth of
 * loading a counter trace), and its memory is counted from now, so the
 * store's size does not change under a query.  A summary depends on
 * nothing but the values, so a later store_finish (new bounds) keeps it
 * unless values were added since.
 */
static void
values_finish(store *s, values *v)
{
	summary *sum = atomic_load_explicit(&v->sum, memory_order_relaxed);

	if (v->count < v->cap && !v->in_arena) {
		v->time = xrealloc(v->time, v->count * sizeof (uint64_t));
		v->value = xrealloc(v->value, v->count * sizeof (sm_value));
		s->heap_bytes -= (v->cap - v->count) * VALUE_BYTES;
		v->cap = v->populated = v->count;
	}
	if (sum != NULL && v->summed == v->count)
		return;
	summary_free(sum);
	atomic_store_explicit(&v->sum, NULL, memory_order_relaxed);
	s->heap_bytes -= v->sum_bytes;
	v->summed = v->count;
	v->sum_bytes = summary_memory_for(v->count);
	s->heap_bytes += v->sum_bytes;
}

/* Below this many intervals a query adds them up without a summary. */
#define SUMMARY_WORTH	256

static pthread_mutex_t summary_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The summary of a finished value entity, made now if it is not yet:
 * queries run on any thread (a served trace's answers, a picture's
 * strips), so the first to want it makes it under a lock and publishes
 * it; the others wait for it or find it made.  NULL if the values grew
 * since store_finish.  The summary is a cache of the values, so making
 * it through a const store changes nothing a reader can see but speed.
 */
static const summary *
values_summary(const values *cv)
{
	values *v = (values *)cv;
	summary *sum = atomic_load_explicit(&v->sum, memory_order_acquire);

	if (sum != NULL || v->summed != v->count)
		return (sum);
	pthread_mutex_lock(&summary_lock);
	sum = atomic_load_explicit(&v->sum, memory_order_relaxed);
	if (sum == NULL) {
		sum = summary_build(v->time, v->value, v->count);
		atomic_store_explicit(&v->sum, sum, memory_order_release);
	}
	pthread_mutex_unlock(&summary_lock);
	return (sum);
}

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

static void
make_none(store *s)
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

static void
drop_none(store *s)
{
	if (s->none_map_len > 0)
		(void) munmap(s->none, s->none_map_len);
	else
		free(s->none);
	s->none = NULL;
	s->none_len = 0;
	s->none_map_len = 0;
}

void
store_finish(store *s, uint64_t begin, uint64_t end)
{
	size_t i, longest = 1;

	s->begin = begin;
	s->end = end;
	if (s->spill != NULL)
		map_back(s);
	for (i = 0; i < s->ncols; i++) {
		column *c = &s->cols[i];

		if (c->tag == NULL && c->count > longest)
			longest = c->count;
		if (c->count == c->cap || c->count == 0 || c->borrowed ||
		    c->in_arena)
			continue;
		c->time = xrealloc(c->time, c->count * sizeof (uint64_t));
		c->state = xrealloc(c->state, c->count * sizeof (uint16_t));
		s->heap_bytes -= (c->cap - c->count) * TIME_STATE;
		if (c->tag != NULL) {
			c->tag = xrealloc(c->tag, c->count * sizeof (uint32_t));
			s->heap_bytes -= (c->cap - c->count) *
			    sizeof (uint32_t);
		}
		if (c->depth != NULL) {
			c->depth = xrealloc(c->depth,
			    c->count * sizeof (uint16_t));
			c->below = xrealloc(c->below,
			    c->count * sizeof (uint32_t));
			s->heap_bytes -= (c->cap - c->count) * NESTED_BYTES;
		}
		c->cap = c->populated = c->count;
	}
	for (i = 0; i < s->ncols; i++) {
		if (s->cols[i].vals != NULL)
			values_finish(s, s->cols[i].vals);
	}
	/*
	 * One shared column of "no tag" for every untagged entity; for
	 * mapped columns, which may be far larger than memory, made when
	 * first asked for (store_tags).
	 */
	if (s->none_counted)
		s->heap_bytes -= s->none_len * sizeof (uint32_t);
	drop_none(s);
	s->none_want = longest;
	s->none_counted = !s->mapped;
	if (!s->mapped) {
		make_none(s);
		s->heap_bytes += s->none_len * sizeof (uint32_t);
	}
}

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
		make_none((store *)s);
	none = s->none;
	pthread_mutex_unlock((pthread_mutex_t *)&s->none_lock);
	return (none);
}

size_t
store_count_through(const uint64_t *times, size_t count, uint64_t t)
{
	size_t lo = 0, hi = count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (times[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

size_t
store_count_before(const uint64_t *times, size_t count, uint64_t t)
{
	size_t lo = 0, hi = count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (times[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

/* The number of transitions of a column at or before t. */
static size_t
upper_bound(const column *c, uint64_t t)
{
	return (store_count_through(c->time, c->count, t));
}

static uint64_t
interval_end(const store *s, const column *c, size_t i)
{
	return (i + 1 < c->count ? c->time[i + 1] : s->end);
}

/* States and tags read from a column are bounded here (store.h). */
static void
fill(const store *s, const column *c, uint32_t entity, size_t i,
    store_interval *out)
{
	out->entity = entity;
	out->state = store_state_in(c->state[i], s->nstates);
	out->tag = c->tag != NULL ? store_tag_in(c->tag[i], s->tag_limit) :
	    STORE_NONE;
	out->start = c->time[i];
	out->end = interval_end(s, c, i);
	out->depth = c->depth != NULL ? c->depth[i] : 1;
	out->value = VALUE_NONE;
}

int
store_state_at(const store *s, uint32_t entity, uint64_t t,
    store_interval *out)
{
	const column *c;
	size_t n;

	if (entity >= s->ncols || t < s->begin || t >= s->end)
		return (0);
	c = &s->cols[entity];
	n = upper_bound(c, t);
	if (n == 0)
		return (0);
	fill(s, c, entity, n - 1, out);
	return (out->end > t);
}

void
store_states_at(const store *s, uint64_t t, uint32_t *states)
{
	store_interval iv;
	uint32_t e;

	for (e = 0; e < s->ncols; e++)
		states[e] = store_state_at(s, e, t, &iv) ? iv.state :
		    STORE_NONE;
}

void
store_count_at(const store *s, uint64_t t, uint64_t *counts)
{
	store_interval iv;
	uint32_t e;

	memset(counts, 0, s->nstates * sizeof (uint64_t));
	for (e = 0; e < s->ncols; e++) {
		if (store_state_at(s, e, t, &iv))
			counts[iv.state]++;
	}
}

static void
clip_range(const store *s, uint64_t *t0, uint64_t *t1)
{
	if (*t0 < s->begin)
		*t0 = s->begin;
	if (*t1 > s->end)
		*t1 = s->end;
}

static void
entity_time_in(const store *s, uint32_t entity, uint64_t t0, uint64_t t1,
    uint64_t *per_state)
{
	const column *c = &s->cols[entity];
	size_t i = upper_bound(c, t0);

	if (i > 0)
		i--;		/* the interval containing t0 */
	for (; i < c->count && c->time[i] < t1; i++) {
		uint64_t a = c->time[i], b = interval_end(s, c, i);

		if (a < t0)
			a = t0;
		if (b > t1)
			b = t1;
		if (b > a)
			per_state[store_state_in(c->state[i], s->nstates)] +=
			    b - a;
	}
}

void
store_time_in(const store *s, uint32_t entity, uint64_t t0, uint64_t t1,
    uint64_t *per_state)
{
	uint32_t e;

	clip_range(s, &t0, &t1);
	if (t1 <= t0)
		return;
	if (entity != STORE_NONE) {
		if (entity < s->ncols)
			entity_time_in(s, entity, t0, t1, per_state);
		return;
	}
	for (e = 0; e < s->ncols; e++)
		entity_time_in(s, e, t0, t1, per_state);
}

void
store_iter_init(store_iter *it, const store *s, const uint32_t *entities,
    size_t nentities, uint64_t t0, uint64_t t1)
{
	memset(it, 0, sizeof (*it));
	it->s = s;
	it->entities = entities;
	it->nentities = entities != NULL ? nentities : s->ncols;
	it->entity = STORE_NONE;
	clip_range(s, &t0, &t1);
	it->t0 = t0;
	it->t1 = t1;
}

void
store_iter_values(store_iter *it)
{
	it->values = 1;
}

/* Moves to the next entity that has transitions; 0 when there is none. */
static int
iter_next_entity(store_iter *it)
{
	const store *s = it->s;

	while (it->next_entity < it->nentities) {
		uint32_t e = it->entities != NULL ?
		    it->entities[it->next_entity] : (uint32_t)it->next_entity;
		const column *c;
		const uint64_t *times;
		size_t i, count;

		it->next_entity++;
		if (e >= s->ncols)
			continue;
		c = &s->cols[e];
		if (c->vals != NULL) {
			if (!it->values)
				continue;
			times = c->vals->time;
			count = c->vals->count;
		} else {
			times = c->time;
			count = c->count;
		}
		if (count == 0)
			continue;
		i = store_count_through(times, count, it->t0);
		it->entity = e;
		it->in_values = c->vals != NULL;
		it->index = i > 0 ? i - 1 : 0;
		it->count = count;
		return (1);
	}
	return (0);
}

int
store_iter_next(store_iter *it, store_interval *out)
{
	const store *s = it->s;

	if (it->t1 <= it->t0)
		return (0);
	for (;;) {
		const column *c;

		if (it->entity == STORE_NONE || it->index >= it->count) {
			if (!iter_next_entity(it))
				return (0);
		}
		c = &s->cols[it->entity];
		if ((it->in_values ? c->vals->time : c->time)[it->index] >=
		    it->t1) {
			it->index = it->count;	/* done with this entity */
			continue;
		}
		if (it->in_values)
			fill_value(s, c->vals, it->entity, it->index, out);
		else
			fill(s, c, it->entity, it->index, out);
		it->index++;
		if (out->start < it->t0)
			out->start = it->t0;
		if (out->end > it->t1)
			out->end = it->t1;
		if (out->end > out->start)
			return (1);
	}
}

/* ---- nested states ---- */

/* Gives a column the depth and below columns, its past all depth 1. */
static void
make_nested(store *s, column *c)
{
	size_t i;

	c->depth = xmalloc(c->cap * sizeof (uint16_t));
	c->below = xmalloc(c->cap * sizeof (uint32_t));
	s->heap_bytes += c->cap * NESTED_BYTES;
	for (i = 0; i < c->count; i++) {
		c->depth[i] = 1;
		c->below[i] = STORE_NONE;
	}
	s->special++;
}

uint32_t
store_depth_now(const store *s, uint32_t entity)
{
	const column *c;

	if (entity >= s->ncols || s->cols[entity].count == 0)
		return (0);
	c = &s->cols[entity];
	return (c->depth != NULL ? c->depth[c->count - 1] : 1);
}

/*
 * A store already on disk (plain data past its budget came first) cannot
 * take nested states or values, which stay in memory: it is lost, with
 * why, as when the disk fails it.
 */
static int
on_disk(store *s)
{
	if (s->spill == NULL)
		return (0);
	if (!s->lost)
		snprintf(s->why, sizeof (s->why), "nested states and values "
		    "are kept in memory only, but plain data before them "
		    "had gone to disk (past the memory budget)");
	s->lost = 1;
	return (1);
}

void
store_push(store *s, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag)
{
	column *c;
	uint32_t depth;
	size_t i;

	if (on_disk(s))
		return;
	c = column_of(s, entity);
	depth = store_depth_now(s, entity);
	if (depth == 0 || depth >= STORE_MAX_DEPTH)
		bug("store_push on an entity with no state, or too deep");
	if (c->borrowed)
		own(s, c);
	/* Room first, so that the new columns have the column's size. */
	if (c->count == c->cap)
		column_reserve(s, c, c->count + 1);
	if (c->depth == NULL)
		make_nested(s, c);
	i = append_one(s, c, time, state, tag);
	c->depth[i] = (uint16_t)(depth + 1);
	c->below[i] = (uint32_t)(i - 1);
}

void
store_pop(store *s, uint32_t entity, uint64_t time)
{
	column *c;
	uint32_t depth, under;
	size_t i;

	if (on_disk(s))
		return;
	c = column_of(s, entity);
	depth = store_depth_now(s, entity);
	if (depth < 2)
		bug("store_pop with nothing pushed");
	under = c->below[c->count - 1];
	i = append_one(s, c, time, c->state[under],
	    c->tag != NULL ? c->tag[under] : STORE_NONE);
	c->depth[i] = (uint16_t)(depth - 1);
	c->below[i] = c->below[under];
}

void
store_append_stacked(store *s, uint32_t entity, const uint64_t *times,
    const uint8_t *ops, const uint16_t *states, size_t n)
{
	column *c;
	size_t i, k;

	if (n == 0 || on_disk(s))
		return;
	c = column_of(s, entity);
	if (c->count == 0 || c->vals != NULL)
		bug("store_append_stacked on an entity with no state");
	if (c->borrowed)
		own(s, c);
	/* Nested first: a store with nested entities never goes to disk. */
	if (c->depth == NULL)
		make_nested(s, c);
	if (c->count + n > c->cap && column_reserve(s, c, c->count + n))
		bug("a store with nested entities went to disk");
	if (c->count + n > c->populated)
		column_populate(c, c->count + n);
	for (i = 0, k = c->count; i < n; i++, k++) {
		uint32_t depth = c->depth[k - 1], state = states[i];
		uint32_t tag = STORE_NONE, below = STORE_NONE;

		switch (ops[i]) {
		case STORE_SET:
			depth = 1;
			break;
		case STORE_PUSH:
			if (depth >= STORE_MAX_DEPTH)
				bug("store_append_stacked: too deep");
			depth++;
			below = (uint32_t)(k - 1);
			break;
		default:
			if (depth < 2)
				bug("store_append_stacked: a pop with nothing "
				    "pushed");
			below = c->below[k - 1];
			state = c->state[below];
			if (c->tag != NULL)
				tag = c->tag[below];
			below = c->below[below];
			depth--;
			break;
		}
		if (state >= s->nstates)
			misuse("store_append_stacked of state", state,
			    s->nstates);
		c->time[k] = times[i];
		c->state[k] = (uint16_t)state;
		if (c->tag != NULL)
			c->tag[k] = tag;
		c->depth[k] = (uint16_t)depth;
		c->below[k] = below;
	}
	c->count = k;
	s->total += n;
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

uint32_t
store_stack_at(const store *s, uint32_t entity, uint64_t t,
    store_frame *frames, uint32_t max)
{
	store_interval iv;
	const column *c;
	size_t i;
	uint32_t depth, k;

	if (!store_state_at(s, entity, t, &iv))
		return (0);
	c = &s->cols[entity];
	i = store_count_through(c->time, c->count, t) - 1;
	depth = c->depth != NULL ? c->depth[i] : 1;
	/* Down the links from the top: each one is an earlier interval. */
	for (k = depth; k > 0; k--) {
		if (k <= max) {
			frames[k - 1].state = c->state[i];
			frames[k - 1].tag = c->tag != NULL ? c->tag[i] :
			    STORE_NONE;
		}
		if (k == 1)
			break;
		if (c->below[i] >= i)
			break;		/* never: links go back in time */
		i = c->below[i];
	}
	return (depth);
}

void
store_append_depth(store *s, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag, uint32_t depth)
{
	uint32_t now = store_depth_now(s, entity);

	if (depth <= 1)
		store_append(s, entity, time, state, tag);
	else if (depth == now + 1)
		store_push(s, entity, time, state, tag);
	else if (depth + 1 == now)
		store_pop(s, entity, time);
	else
		bug("store_append_depth: a depth no push or pop leads to");
}

/* ---- values ---- */

static values *
values_of(store *s, column *c)
{
	if (c->vals == NULL) {
		if (c->count > 0)
			bug("store_append_value to a state entity");
		c->vals = xcalloc(1, sizeof (values));
		s->heap_bytes += sizeof (values);
		s->special++;
	}
	return (c->vals);
}

/*
 * Room for need values, and their memory faulted in, as columns of states
 * have theirs (column_reserve, column_populate): sized by estimate in the
 * arena's huge pages once the input says where the column is heading.
 * A counter trace writes 16 bytes a value: faulted in 4 KiB at a time,
 * its load took 7% longer (README).
 */
static void
values_reserve(store *s, values *v, size_t need)
{
	if (need > v->cap) {
		int by_estimate;
		size_t cap;
		void *value = v->value;

		cap = new_capacity(s, v->cap, v->count, need, VALUE_BYTES,
		    &by_estimate);
		grow_columns(s, &v->time, &value, sizeof (sm_value), v->count,
		    v->cap, cap, by_estimate, v->in_arena);
		v->value = value;
		v->in_arena = by_estimate;
		v->cap = cap;
		v->populated = v->count;
	}
	if (need > v->populated) {
		size_t to = populate_to(v->populated, v->cap, need);

		populate(v->time, v->populated * sizeof (uint64_t),
		    to * sizeof (uint64_t));
		populate(v->value, v->populated * sizeof (sm_value),
		    to * sizeof (sm_value));
		v->populated = to;
	}
}

void
store_append_value(store *s, uint32_t entity, uint64_t time, sm_value value)
{
	values *v;

	if (on_disk(s))
		return;
	v = values_of(s, column_of(s, entity));
	if (v->count == v->populated)
		values_reserve(s, v, v->count + 1);
	v->time[v->count] = time;
	v->value[v->count] = value;
	v->count++;
	s->values_total++;
}

void
store_append_values(store *s, uint32_t entity, const uint64_t *time,
    const sm_value *value, size_t n)
{
	values *v;

	if (on_disk(s) || n == 0)
		return;
	v = values_of(s, column_of(s, entity));
	if (v->count + n > v->populated)
		values_reserve(s, v, v->count + n);
	memcpy(v->time + v->count, time, n * sizeof (uint64_t));
	memcpy(v->value + v->count, value, n * sizeof (sm_value));
	v->count += n;
	s->values_total += n;
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

size_t
store_value_count(const store *s, uint32_t entity)
{
	return (entity < s->ncols && s->cols[entity].vals != NULL ?
	    s->cols[entity].vals->count : 0);
}

const uint64_t *
store_value_times(const store *s, uint32_t entity)
{
	return (entity < s->ncols && s->cols[entity].vals != NULL ?
	    s->cols[entity].vals->time : NULL);
}

const sm_value *
store_values(const store *s, uint32_t entity)
{
	return (entity < s->ncols && s->cols[entity].vals != NULL ?
	    s->cols[entity].vals->value : NULL);
}

uint64_t
store_values_total(const store *s)
{
	return (s->values_total);
}

static void
fill_value(const store *s, const values *v, uint32_t entity, size_t i,
    store_interval *out)
{
	out->entity = entity;
	out->state = STORE_NONE;
	out->tag = STORE_NONE;
	out->start = v->time[i];
	out->end = i + 1 < v->count ? v->time[i + 1] : s->end;
	out->depth = 0;
	out->value = v->value[i];
}

int
store_value_at(const store *s, uint32_t entity, uint64_t t,
    store_interval *out)
{
	const values *v;
	size_t n;

	if (entity >= s->ncols || (v = s->cols[entity].vals) == NULL ||
	    t < s->begin || t >= s->end)
		return (0);
	n = store_count_through(v->time, v->count, t);
	if (n == 0)
		return (0);
	fill_value(s, v, entity, n - 1, out);
	return (out->end > t);
}

/* Adds value i over its interval clipped to [t0, t1). */
static void
value_clipped(const store *s, const values *v, size_t i, uint64_t t0,
    uint64_t t1, value_stats *st)
{
	uint64_t a = v->time[i], b = i + 1 < v->count ? v->time[i + 1] :
	    s->end;

	if (a < t0)
		a = t0;
	if (b > t1)
		b = t1;
	if (b > a)
		value_stats_add(st, v->value[i], b - a);
}

void
store_value_stats(const store *s, uint32_t entity, uint64_t t0, uint64_t t1,
    value_stats *st)
{
	const values *v;
	const summary *sum;
	size_t a, b, i;

	if (entity >= s->ncols || (v = s->cols[entity].vals) == NULL ||
	    v->count == 0)
		return;
	clip_range(s, &t0, &t1);
	if (t1 <= t0)
		return;
	/* a: the interval holding t0 (or the first); b: the last before t1. */
	a = store_count_through(v->time, v->count, t0);
	a = a > 0 ? a - 1 : 0;
	b = store_count_before(v->time, v->count, t1);
	if (b == 0 || b - 1 < a)
		return;
	b--;
	value_clipped(s, v, a, t0, t1, st);
	if (b == a)
		return;
	/* Those between lie whole in [t0, t1), their ends fixed. */
	if (b - a > SUMMARY_WORTH && (sum = values_summary(v)) != NULL)
		summary_add(sum, v->time, v->value, a + 1, b, st);
	else
		for (i = a + 1; i < b; i++)
			value_stats_add(st, v->value[i],
			    v->time[i + 1] - v->time[i]);
	value_clipped(s, v, b, t0, t1, st);
}

/* ---- copies ---- */

void
store_copy_entity(store *s, uint32_t to, const store *src, uint32_t from)
{
	const column *f;
	column *c;
	size_t n, i;

	if (from >= src->ncols)
		return;
	f = &src->cols[from];
	c = column_of(s, to);
	if (c->count > 0 || c->vals != NULL)
		bug("store_copy_entity to an entity that has data");
	if (f->vals != NULL) {
		values *v = values_of(s, c);

		n = f->vals->count;
		v->time = xmalloc((n + 1) * sizeof (uint64_t));
		v->value = xmalloc((n + 1) * sizeof (sm_value));
		if (n > 0) {
			memcpy(v->time, f->vals->time, n * sizeof (uint64_t));
			memcpy(v->value, f->vals->value, n * sizeof (sm_value));
		}
		v->count = n;
		v->cap = v->populated = n + 1;
		s->heap_bytes += v->cap * VALUE_BYTES;
		s->values_total += n;
		return;
	}
	n = f->count;
	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		if (f->state[i] >= s->nstates)
			misuse("store_copy_entity of state", f->state[i],
			    s->nstates);
	}
	column_reserve(s, c, n);
	column_populate(c, n);
	memcpy(c->time, f->time, n * sizeof (uint64_t));
	memcpy(c->state, f->state, n * sizeof (uint16_t));
	if (f->tag != NULL) {
		c->tag = xmalloc(c->cap * sizeof (uint32_t));
		s->heap_bytes += c->cap * sizeof (uint32_t);
		memcpy(c->tag, f->tag, n * sizeof (uint32_t));
	}
	if (f->depth != NULL) {
		make_nested(s, c);
		memcpy(c->depth, f->depth, n * sizeof (uint16_t));
		memcpy(c->below, f->below, n * sizeof (uint32_t));
	}
	c->count = n;
	s->total += n;
}

/*
 * The first transition past end stays, as it ends the entity's last
 * interval in the window: the interval holding a time (store_state_at)
 * is then the one a copy would give, unclipped.  Those at end stay too,
 * as the classic coalescing closes a rectangle at a datum at its end
 * bound, and a slice must coalesce as a copy would.
 */
store *
store_view(const store *parent, uint64_t begin, uint64_t end)
{
	store *s = store_new(parent->nstates);
	size_t e, longest = 0;

	if (parent->ncols > 0) {
		s->cols = xcalloc(parent->ncols, sizeof (column));
		s->ncols = s->cols_cap = parent->ncols;
	}
	for (e = 0; e < parent->ncols; e++) {
		const column *from = &parent->cols[e];
		column *c = &s->cols[e];
		size_t lo, hi;

		if (from->vals != NULL) {
			/* The parent's values and summary, read in place:
			 * queries clip them to the view's bounds. */
			c->vals = from->vals;
			c->borrowed = 1;
			s->special++;
			s->values_total += from->vals->count;
			continue;
		}
		if (from->count == 0)
			continue;
		lo = upper_bound(from, begin);
		lo = lo > 0 ? lo - 1 : 0;
		/* A stack's links are indexes from the column's first
		 * transition, and may reach back before the view. */
		if (from->depth != NULL)
			lo = 0;
		hi = upper_bound(from, end);
		if (hi < from->count)
			hi++;
		if (hi <= lo)
			hi = lo + 1;
		c->time = from->time + lo;
		c->state = from->state + lo;
		c->tag = from->tag != NULL ? from->tag + lo : NULL;
		if (from->depth != NULL) {
			c->depth = from->depth;
			c->below = from->below;
			s->special++;
		}
		c->count = c->cap = c->populated = hi - lo;
		c->borrowed = 1;
		s->total += hi - lo;
		if (c->tag == NULL && hi - lo > longest)
			longest = hi - lo;
	}
	/*
	 * The parent's columns may be mapped and far larger than memory:
	 * the view's own none is made when first asked for, as long as its
	 * longest column (store_tags).
	 */
	s->mapped = 1;
	s->none_want = longest;
	s->begin = begin;
	s->end = end;
	return (s);
}
