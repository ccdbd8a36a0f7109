/*
 * store_internal.h: private to the files of the store, whose contract is
 * store.h:
 *
 *   store.c         the store's memory: the store made and freed, its
 *                   columns made, grown and faulted in, the column of no
 *                   tag its untagged entities share, what they hold
 *   store_values.c  value entities: their columns and summaries
 *   store_query.c   the queries: state at a time, time in each state,
 *                   intervals over a range, values, stacks
 *   store_disk.c    going to disk past the budget, and store_finish,
 *                   which maps the columns back
 *   store_append.c  transitions appended: one, many, nested ones
 *   store_view.c    views of a finished store, copies of entities
 *
 * Each uses only those above it.  The columns they share, and what they
 * call of each other.  It does not include store.h: store.c, which the
 * others call, includes this, and store.h is store.c's own header, so
 * the layers check would see a circle (store -> store_internal ->
 * store).  It names the store's type itself, as store.h does.
 */
#ifndef SM_STORE_INTERNAL_H
#define SM_STORE_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "store/spill.h"
#include "store/value.h"
#include "store/value_summary.h"

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
	 * it (store_values_summary), not at load, then read by any thread.
	 */
	_Atomic(summary *) sum;
	size_t summed;
	size_t sum_bytes;	/* counted in heap_bytes since store_finish */
} values;

typedef struct store store;

/* The store itself (store.h). */
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
	void *map;		/* the merged columns, mapped by store_finish */
	size_t map_len;
	int map_watch;
};

/* Bytes a transition takes in memory; a nested one's more; a value's. */
#define TIME_STATE	(sizeof (uint64_t) + sizeof (uint16_t))
#define NESTED_BYTES	(sizeof (uint16_t) + sizeof (uint32_t))
#define VALUE_BYTES	(sizeof (uint64_t) + sizeof (sm_value))

/* ---- store.c ---- */

/*
 * A caller's bug: refused rather than stored wrong (the program stops).
 * store_misuse names a state out of range.
 */
_Noreturn void store_misuse(const char *what, uint32_t state,
    uint32_t nstates);
_Noreturn void store_bug(const char *what);

/* Columns up to entity's, the new ones empty; returns entity's. */
column *store_add_columns(store *s, uint32_t entity);

/* An entity's column, made if new. */
static inline column *
store_column_of(store *s, uint32_t entity)
{
	return (entity < s->ncols ? &s->cols[entity] :
	    store_add_columns(s, entity));
}

/*
 * Memory faulted in ahead of being written: bytes [from, to) of p;
 * store_populate_to says how far arrays of cap entries, populated so
 * far, that need room for need, are to be; store_column_populate does
 * so for a column's arrays.
 */
void store_populate(void *p, size_t from, size_t to);
size_t store_populate_to(size_t populated, size_t cap, size_t need);
void store_column_populate(column *c, size_t need);

/*
 * Growing columns: store_new_capacity says how big (by estimate or by
 * doubling), store_grow_columns moves times and the array beside them
 * there, store_grown moves one array.
 */
size_t store_new_capacity(store *s, size_t cap, size_t count, size_t need,
    size_t size, int *by_estimate);
void store_grow_columns(store *s, uint64_t **time, void **other,
    size_t size, size_t count, size_t old_cap, size_t cap, int by_estimate,
    int in_arena);
void *store_grown(void *old, size_t used, size_t size, arena *from,
    int old_in_arena);

/* Makes an adopted column the store's own, so that it can grow. */
void store_own_column(store *s, column *c);

/*
 * Whether the store is on disk, which nested states and values cannot
 * join: then it is lost (store_lost_on_disk), and says why.
 */
int store_lost_on_disk(store *s);

static inline int
store_refuse_on_disk(store *s)
{
	return (s->spill != NULL && store_lost_on_disk(s));
}

/* The shared column of no tag (store.h), made as long as none_want, and
 * freed. */
void store_make_none(store *s);
void store_drop_none(store *s);

/* ---- store_values.c ---- */

/* A column's values, made if it has none (a state entity: a bug). */
values *store_values_of(store *s, column *c);

/* Trims a value entity's columns and readies its summary. */
void store_values_finish(store *s, values *v);

/* The summary of a finished value entity, made now if it is not yet. */
const summary *store_values_summary(const values *v, int ints);

/* ---- store_disk.c ---- */

/*
 * Room for need transitions in a column of the store's own.  Returns 1
 * if instead the store went to disk, 0 when there is room.
 */
int store_column_reserve(store *s, column *c, size_t need);

/* ---- store_append.c ---- */

/* Gives a column the depth and below columns, its past all depth 1. */
void store_make_nested(store *s, column *c);

#endif
