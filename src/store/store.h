/*
 * store.h: every transition of a trace, per entity, in columns.
 *
 * Each entity has three parallel arrays sorted by time: transition time,
 * state and tag.  An entity is in the state of its latest transition until
 * its next one; its last state runs to the trace end.  A transition to
 * STORE_GAP ends its data instead: it has no state until its next.  So interval i of an
 * entity is [time[i], time[i+1]) and its last is [time[n-1], end).  Two
 * transitions at the same time make a zero-length interval, which queries
 * skip: the later one is the state at that instant.
 *
 * The store answers the queries scripts need in O(log n) per entity:
 * state at a time, intervals over a range, time per state, counts.
 * Queries are clipped to the store's bounds [begin, end).
 *
 * Two other kinds of entity (the generic state system) live here too:
 *
 * - A nested entity (push and pop in the input) keeps the same columns,
 *   the state column holding the TOP of its stack, so every query and
 *   coalescing sees the state it is in now; two more columns give each
 *   interval its depth (1 for a plain state) and the interval that was
 *   current when its top state was pushed, whose own such link leads on
 *   down, so the whole stack at a time is O(log n + depth) away.
 * - A value entity (a counter, a gauge, a name: "value" in the input)
 *   has no states: store_count is 0 for it, and every state query skips
 *   it.  Its values (value.h) have columns of their own, with a summary
 *   (value_summary.h) for min, max and mean over any range, made by the first
 *   query of a finished store that wants it (from any thread: queries of
 *   a finished store may run on several at once) and counted in
 *   store_memory from store_finish on.
 *   Such a store never goes to disk (below): it stays in memory.
 *
 * Larger than memory.  A store that would grow past its budget
 * (spill_budget: half of what --memory-limit leaves, or half of physical
 * memory) goes to disk: its transitions are written out in sorted runs
 * and, from store_finish on, used in place from a mapped file of its own
 * (spill.h), paged in and out by the kernel.  Appends and queries are the
 * same either way; until store_finish a store on disk answers only
 * store_count, store_has_tags, store_nentities and store_total, and
 * store_memory stays within the budget.  Loading a trace or deriving one
 * (transform.h) thus needs a bounded amount of memory, whatever its size.
 *
 * Mapped columns.  States and tags index arrays, so no process but this
 * one can change those that a store uses in place: a store's own spilled
 * columns are an unnamed temporary file (spill.h) and a cache entry's
 * are checked copies (cache.h), in memory or in such a file.  The
 * store's queries bound them again all the same (store_state_in,
 * store_tag_in: a compare each), so that whatever happened to the bytes
 * a store_interval is within nstates and the tags taken.  Times may lie
 * in a cache entry's mapping: see cache.h.
 *
 * Ownership: the store owns its arrays.  It knows states and tags only as
 * numbers; names live in the trace (trace.h), value strings as ids in its
 * catalog.
 */
#ifndef SM_STORE_H
#define SM_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "store/spill.h"
#include "store/value.h"
#include "store/value_summary.h"

#define STORE_NONE	UINT32_MAX
/* States are kept in 16 bits: values 0 to 65534 (65535 states at most). */
#define STORE_MAX_STATES	65535
/*
 * The one 16-bit state value no state has: a transition to it ends the
 * entity's data (Trace Compass's null state).  From it to the entity's
 * next transition the entity has no state, as before its first: no
 * query gives such an interval (state at a time, intervals, time in
 * each state, counts), its depth is 0, and a push after it starts a new
 * stack.  It is a transition all the same, kept by every copy of a
 * trace (writer, cache, transforms), and never indexes anything.
 */
#define STORE_GAP	0xFFFFu

typedef struct store store;

/* A nested entity is at most this many states deep. */
#define STORE_MAX_DEPTH	65535

/* What an entity is (store_kind). */
typedef enum store_kind {
	STORE_STATES,		/* a state at a time (or none yet) */
	STORE_NESTED,		/* a stack of states: pushed at least once */
	STORE_VALUES		/* values (store_append_value) */
} store_kind;

typedef struct store_interval {
	uint32_t entity;
	uint32_t state;
	uint32_t tag;		/* STORE_NONE when untagged */
	uint64_t start, end;	/* [start, end), clipped to the query */
	/*
	 * The stack's depth (1 for a plain state); 0 for a value's
	 * interval, whose value is in value (state and tag are then
	 * STORE_NONE).  Only store_iter with values on gives those.
	 */
	uint32_t depth;
	sm_value value;
} store_interval;

/* A store for states 0 to nstates - 1; nstates <= STORE_MAX_STATES. */
store *store_new(uint32_t nstates);
void store_free(store *s);

/*
 * Appends a transition; times must not decrease within an entity, and
 * state must be below the store's nstates or STORE_GAP (the entity's data
 * ends, tag STORE_NONE): anything else is a bug of the caller, which
 * stops the program rather than store a wrong state.
 */
void store_append(store *s, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag);

/* Appends n untagged transitions at once; the same as n store_append. */
void store_append_many(store *s, uint32_t entity, const uint64_t *time,
    const uint16_t *state, size_t n);

/*
 * Asks for what an append to the entity will touch, where entities are
 * too many for the cache: near 0, its column's record (a few appends
 * ahead); near 1, the ends of its arrays, found in that record (just
 * before).  A hint only, for an entity the store may not have yet.
 */
void store_prefetch_column(const store *s, uint32_t entity, int near);

/*
 * Says how much of the input the appends so far come from, as a share of
 * it (0 < done <= 1; 0: not known).  A column that must grow is then
 * made the size its entity is heading for, at one go, instead of being
 * grown by half time and again, in memory that is quick to fill
 * (arena.h).  It changes nothing but speed and memory.
 */
void store_progress(store *s, double done);

/*
 * Gives an entity (which has no transitions yet) count transitions kept
 * elsewhere, such as in a mapped cache file: they are used in place, not
 * copied, and must stay valid until store_free (tag may be NULL: none
 * tagged).  The caller vouches that times are sorted, states are below
 * nstates; an append to such an entity copies its columns first.
 */
void store_adopt(store *s, uint32_t entity, const uint64_t *time,
    const uint16_t *state, const uint32_t *tag, size_t count);

/*
 * A state or a tag read from a column (store_states, store_tags), made
 * safe to index with: within [0, nstates) or STORE_GAP (which the caller
 * must test for before it indexes), and below the tag limit or
 * STORE_NONE.  A value out of bounds can only come from a file written
 * over (above), and any value within them does as well as another.
 */
static inline uint32_t
store_state_in(uint32_t state, uint32_t nstates)
{
	return (state < nstates || state == STORE_GAP ? state : 0);
}

static inline uint32_t
store_tag_in(uint32_t tag, uint32_t tag_limit)
{
	return (tag < tag_limit ? tag : STORE_NONE);
}

/* Whether the transitions are on disk, not yet mapped (store_finish). */
int store_spilled(const store *s);

/*
 * What went wrong on the way to disk, or NULL.  *lost says whether
 * transitions were lost (a disk that filled up): such a store is not to
 * be used.  Otherwise it could not go to disk at all (no directory for
 * temporary files) and stayed in memory, past its budget.
 */
const char *store_failed(const store *s, int *lost);

/*
 * Keeps the store in memory whatever its size (it never goes to disk):
 * for a builder (builder.h), which reads its columns while they grow.
 */
void store_in_memory(store *s);

/*
 * A store that reads parent's columns in place, over [begin, end) (a
 * slice): each entity keeps the transitions that bound its intervals
 * there: from the one in effect at begin (its first, if none is) to the
 * first after end.  O(log n) per entity, and memory for the entities
 * only.  parent must be finished, outlive the view and not
 * change; the view is finished (store_finish is not called on it).
 * A nested entity keeps every transition from its first (its stacks'
 * links reach back), and a value entity all its values and summary,
 * read in place: queries clip them to [begin, end) all the same.
 */
store *store_view(const store *parent, uint64_t begin, uint64_t end);

/* Whether any transition of the entity has a tag. */
int store_has_tags(const store *s, uint32_t entity);

/* ---- nested states ---- */

/*
 * Pushes state (with tag, or STORE_NONE) on top of the entity's stack at
 * time; the entity must be a state entity less than STORE_MAX_DEPTH deep.
 * On an entity with no state yet its stack starts, at depth 1 (as Trace
 * Compass's pushAttribute on an empty stack), as after a STORE_GAP.
 * store_pop takes the top off, back to the state (and tag) under it; a
 * pop of the last state (depth 1) leaves the entity with no state (a
 * STORE_GAP transition, depth 0), as Trace Compass's popAttribute does;
 * a pop with no state is a bug.  store_append on a nested entity
 * replaces its whole stack (STORE_GAP: ends it).  As for store_append, misuse stops
 * the program: callers check first (store_depth_now).
 */
void store_push(store *s, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag);
void store_pop(store *s, uint32_t entity, uint64_t time);

/*
 * n untagged transitions of an entity with a state at once, in order:
 * what each does (STORE_SET: store_append, the whole stack replaced;
 * STORE_PUSH: store_push of its state; STORE_POP: store_pop, its state
 * unused), each as those do it, and with their preconditions.  For a
 * loader that takes the data of nested entities a run at a time.
 */
enum { STORE_SET, STORE_PUSH, STORE_POP };
void store_append_stacked(store *s, uint32_t entity, const uint64_t *times,
    const uint8_t *ops, const uint16_t *states, size_t n);

/*
 * Replays a transition of a nested entity kept elsewhere, which left it
 * depth deep (its store_depths entry; 1 for a plain state): at depth 1,
 * store_append (the whole stack replaced); one deeper than the entity is
 * now, store_push of state and tag; one shallower, store_pop (state and
 * tag are then the frame under, whatever is passed).  Any other depth
 * is a caller's bug; depth 0 (or state STORE_GAP) ends the entity's
 * data, whatever its depth.  So a trace derived transition by transition keeps
 * its source's stacks, with each frame's state as the caller maps it;
 * the entity is nested from its first transition (store_push on no
 * state), as its source is even if it is never deeper than 1.
 */
void store_append_depth(store *s, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag, uint32_t depth);

/*
 * How deep the entity's stack is after its last transition (0: none,
 * or its data ended: STORE_GAP).
 */
uint32_t store_depth_now(const store *s, uint32_t entity);

/*
 * The columns of a nested entity (NULL for any other): depth per
 * transition (0 for a STORE_GAP), and per transition the one that was current when its top
 * state was pushed (STORE_NONE at depth 1).  Parallel to store_times.
 */
const uint16_t *store_depths(const store *s, uint32_t entity);
const uint32_t *store_below(const store *s, uint32_t entity);

typedef struct store_frame {
	uint32_t state, tag;
} store_frame;

/*
 * The stack of entity at time t, bottom first: returns its depth (0 if
 * the entity has no state at t) and fills frames[0..min(depth, max) - 1]
 * from the bottom.  O(log n + depth).
 */
uint32_t store_stack_at(const store *s, uint32_t entity, uint64_t t,
    store_frame *frames, uint32_t max);

/* ---- values ---- */

/*
 * Appends a value to a value entity at time (not before its last); the
 * entity must have no states.  Kinds do not mix: a caller's bug stops the
 * program.
 */
void store_append_value(store *s, uint32_t entity, uint64_t time,
    sm_value value);

/* Appends n values at once: the same as n store_append_value. */
void store_append_values(store *s, uint32_t entity, const uint64_t *time,
    const sm_value *value, size_t n);

store_kind store_kind_of(const store *s, uint32_t entity);

/* Whether every entity holds plain states (no nested, no value entity). */
int store_plain(const store *s);

/* The values of an entity (0 and NULL for a state entity). */
size_t store_value_count(const store *s, uint32_t entity);
const uint64_t *store_value_times(const store *s, uint32_t entity);
const sm_value *store_values(const store *s, uint32_t entity);
/* Values of every entity. */
uint64_t store_values_total(const store *s);

/*
 * The value of a value entity at t: returns 1 and fills out (depth 0,
 * value, start and end, not clipped), or 0 before its first value or
 * outside the bounds.
 */
int store_value_at(const store *s, uint32_t entity, uint64_t t,
    store_interval *out);

/*
 * Adds into st the numbers of a value entity over [t0, t1), clipped to
 * the bounds (value_summary.h; valid after store_finish).  O(log n).
 * st was made by value_stats_init with whether the entity's words are
 * integers (catalog_value_ints), which its summary keeps.
 */
void store_value_stats(const store *s, uint32_t entity, uint64_t t0,
    uint64_t t1, value_stats *st);

/*
 * The same, the search for t0 starting at *from, the value where the
 * last call for this entity found its t0 (0 the first time), which it
 * updates: for ranges one after another (a picture's columns), each
 * found in O(log distance) from the last, with the same answer.
 */
void store_value_stats_from(const store *s, uint32_t entity, uint64_t t0,
    uint64_t t1, size_t *from, value_stats *st);

/*
 * Copies every column of entity from of src (states, tags, depths,
 * values) into entity to of s, which must have none yet; src's states
 * must be valid in s.
 */
void store_copy_entity(store *s, uint32_t to, const store *src,
    uint32_t from);

/*
 * Sets the bounds: intervals are clipped to [begin, end), and the last
 * state of every entity runs to end.  Also trims spare capacity, but for
 * columns sized by estimate (store_progress), whose spare eighth stays,
 * and makes the summaries of value entities.
 */
void store_finish(store *s, uint64_t begin, uint64_t end);

uint32_t store_nentities(const store *s);
uint32_t store_nstates(const store *s);
uint64_t store_begin(const store *s);
uint64_t store_end(const store *s);

/*
 * Bytes of memory the store holds of its own (not what it adopted from
 * a mapping, nor its own mapped columns): for telling a garbage
 * collector, or a memory limit, what a trace costs.
 */
size_t store_memory(const store *s);

/* Transitions of an entity (0 for an entity that has none). */
size_t store_count(const store *s, uint32_t entity);
/* How many it (or a value entity) has room for before growing. */
size_t store_capacity(const store *s, uint32_t entity);
uint64_t store_total(const store *s);
const uint64_t *store_times(const store *s, uint32_t entity);
const uint16_t *store_states(const store *s, uint32_t entity);
/*
 * Valid after store_finish (an untagged entity shares one column of
 * STORE_NONE as long as the longest: for a mapped store it is made when
 * first asked for, so code that can ask store_has_tags first should).
 */
const uint32_t *store_tags(const store *s, uint32_t entity);

/*
 * Binary searches over a column of times in ascending order (as
 * store_times gives): how many are at or before t, and how many are
 * before t.
 */
size_t store_count_through(const uint64_t *times, size_t count, uint64_t t);
size_t store_count_before(const uint64_t *times, size_t count, uint64_t t);

/*
 * The interval of entity containing time t (start <= t < end).  Returns 1
 * and fills out (not clipped), or 0 if the entity has no state at t.
 */
int store_state_at(const store *s, uint32_t entity, uint64_t t,
    store_interval *out);

/*
 * The state of every entity at t: states[e] is a state value or
 * STORE_NONE; states has store_nentities entries.
 */
void store_states_at(const store *s, uint64_t t, uint32_t *states);

/* counts[state] = how many entities are in that state at t. */
void store_count_at(const store *s, uint64_t t, uint64_t *counts);

/*
 * Time in each state of one entity over [t0, t1) (clipped to the bounds):
 * adds to per_state (nstates entries).  Pass STORE_NONE as entity for the
 * sum over all entities.
 */
void store_time_in(const store *s, uint32_t entity, uint64_t t0, uint64_t t1,
    uint64_t *per_state);

/*
 * Iterates over the intervals of a set of entities that overlap [t0, t1)
 * (not those of STORE_GAP: no data), clipped to it, entity by entity in the order given, each in time order.
 * entities NULL means all, in id order.  Value entities are skipped
 * unless store_iter_values is called after init: their intervals then
 * come too, with depth 0 and their value.
 */
typedef struct store_iter {
	const store *s;
	const uint32_t *entities;
	size_t nentities, next_entity;
	uint32_t entity;	/* current, or STORE_NONE before the first */
	size_t index, count;
	uint64_t t0, t1;
	int values;		/* value entities too */
	int in_values;		/* the current entity is one */
} store_iter;

void store_iter_init(store_iter *it, const store *s, const uint32_t *entities,
    size_t nentities, uint64_t t0, uint64_t t1);
void store_iter_values(store_iter *it);
int store_iter_next(store_iter *it, store_interval *out);

#endif
