/*
 * coalesce_state.h: the coalescer's state, private to its files, whose
 * contract is coalesce.h; each part's functions are in its own header
 * (coalesce_set.h, coalesce_merge.h, coalesce_rects.h):
 *
 *   coalesce.c        the interface: data fed, the end, rectangles put
 *                     and read
 *   coalesce_merge.c  a datum's rectangle made or merged on arrival,
 *                     and the lightest merged with a neighbour
 *   coalesce_set.c    the ordered set of rectangles by weight
 *   coalesce_rects.c  the rectangles' arrays: a new rectangle, a tag log
 *                     compacted, and at the end the arrays renumbered in
 *                     entity order and every log settled
 *
 * The arrays they share, and what reads them on every datum (inline),
 * calling none of the parts.
 * It does not include coalesce.h, which coalesce.c alone implements:
 * the others are under it.  So "no rectangle" and "no tag" have names
 * of their own here, which coalesce.c checks are coalesce.h's.
 */
#ifndef SM_COALESCE_STATE_H
#define SM_COALESCE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "coalesce/taglog.h"

#define RECT_NONE	UINT32_MAX	/* COALESCE_NONE */
#define RECT_NO_TAG	UINT32_MAX	/* COALESCE_NO_TAG */
#define RECT_GAP	0xFFFFu		/* COALESCE_GAP: no data */
#define SET_SHADOW	(UINT32_MAX - 1)	/* a heap_pos: see coalesce_set.c */

typedef struct coalesce coalesce;

/*
 * A rectangle is kept in parallel arrays, by how often each part is
 * read.  Weights are what merging compares, and a weight reads a
 * rectangle's duration and its neighbours', so those (and the links)
 * are together in 16 bytes; the start, the entity and where its tags
 * and states begin are read once per merge.
 *
 * Its time per state is kept in one of two ways while data come:
 *
 * - Densely, a word per state, for the rectangle (state_time) and for
 *   its entity (totals): the fastest way by far, while those words are
 *   few.  A rectangle holds not its own times but its entity's running
 *   totals when it began, and what it stands for is the difference
 *   between its totals and the next one's (or the entity's, for the
 *   last), whatever merged into it: a merge adds nothing up and reads
 *   neither rectangle's times, and a datum merged on arrival adds to its
 *   entity's totals alone.  The same goes for its count of intervals,
 *   however its times are kept.
 * - In a log per entity, as the tags are (taglog.h), in which each
 *   rectangle owns the range from its state_lo to the next one's: what
 *   rectangles hold, not the product of the states with the entities
 *   and rectangles.  The dense words are that product, which ran to
 *   gigabytes for a trace of a few megabytes with many of each; so when
 *   they would pass DENSE_WORDS, the times move to logs for good
 *   (coalesce_rects_undense), and memory stays in proportion to the
 *   input whatever its shape.
 *
 * coalesce_finish turns either into what readers read: every
 * rectangle's states with time, ascending, one after another in
 * pair_state and pair_time (coalesce_rects_renumber and
 * coalesce_rects_pairs); coalesce_put writes rectangles there at once.
 */
typedef struct rect {
	uint64_t duration;
	uint32_t prev, next;
} rect;

typedef struct rect_info {
	uint64_t start;
	uint32_t entity;
	uint32_t tag_lo;	/* its first entry in its entity's tag log */
	/*
	 * The intervals with time it stands for (saturating at UINT32_MAX);
	 * while data come, its entity's count of them when it began.
	 */
	uint64_t count;
	uint32_t state_lo;	/* its first entry in its entity's state log */
} rect_info;

typedef struct entity {
	uint64_t start;		/* when the open state began */
	uint32_t first, last;
	uint32_t nrects;
	uint32_t state, tag;
	uint64_t count;		/* intervals with time so far */
	unsigned char seen;	/* had a datum within the end bound */
	unsigned char has_state;
} ent_state;

/*
 * An entry of the ordered set (coalesce_set.c).  Entries carry the
 * weight, so sifting compares without touching the rectangles (which
 * would be a cache miss per comparison); only equal weights, which are
 * rare, read the rest of the key from them.  A rectangle's start and
 * entity never change while it is in the set.  The entity is in the
 * entry too: the top's is read at every trim and every refresh of the
 * top, which so read no line of the rectangle's but its weight's.
 */
typedef struct heap_entry {
	uint64_t weight;
	uint32_t rect;
	uint32_t entity;
} heap_entry;

/*
 * The most words kept densely (see above), 64 MB: traces with a few
 * states, or hundreds over a thousand entities, never reach it.
 */
#define DENSE_WORDS	((size_t)8 << 20)

struct coalesce {
	uint32_t nstates;
	uint64_t budget;
	int64_t begin, end;
	uint64_t end_used;
	int dense;		/* time per state kept densely (above) */
	size_t dense_words;	/* DENSE_WORDS, or a test's */

	rect *rects;
	rect_info *info;	/* parallel to rects */
	/*
	 * Dense: nstates per rect, parallel to rects, its entity's totals
	 * when it began; after coalesce_rects_renumber, its times.
	 */
	uint64_t *state_time;
	/*
	 * Each rectangle's position in the heap, RECT_NONE, or SET_SHADOW
	 * (in the set without an entry: coalesce_set_shadow); apart from
	 * the rectangles because sifting writes it at every level, and a
	 * small dense array stays in cache where the rectangles do not.
	 */
	uint32_t *heap_pos;
	size_t nrects, rects_cap;
	uint32_t free_list;	/* through rect.next */

	ent_state *ents;
	/* Dense: each entity's time per state so far, nstates per entity. */
	uint64_t *totals;
	size_t nents, ents_cap;
	/*
	 * Each entity's tag log (taglog.h), parallel to ents; NULL until
	 * the first tag, so that a trace without tags pays nothing for it.
	 */
	taglog *logs;
	/* Not dense: each entity's state log, parallel to ents. */
	taglog *slogs;

	/*
	 * What readers read, after coalesce_finish or at coalesce_put:
	 * rectangle r's states with time (ascending) and their times are
	 * entries pair_lo[r] to pair_lo[r + 1] of pair_state and pair_time.
	 */
	uint32_t *pair_state;
	uint64_t *pair_time;
	size_t *pair_lo;	/* nrects + 1 */
	size_t npairs, pairs_cap, pair_lo_cap;

	heap_entry *heap;	/* heap_mem + HEAP_SKEW: see heap_reserve */
	heap_entry *heap_mem;
	size_t heap_len, heap_cap;
	/* The rectangles in the set: the heap's entries and the shadows. */
	size_t set_size;
	/*
	 * The top of the heap is known to hold its true weight: set by
	 * coalesce_set_fresh_top, cleared by anything that may change the
	 * heap or a weight.  A datum merged on arrival changes only its own
	 * entity's weights, so it leaves the flag alone unless the top is
	 * in that entity: the next datum then compares with the top as it
	 * is, without reading the top's rectangles again.
	 */
	int top_fresh;
	uint32_t top_entity;

	taglog_sorter sorter;	/* for settling tag logs */
	/* Filled by coalesce_put: rectangles hold their own times. */
	int from_puts;
};

/* ---- the arrays, read everywhere ---- */

/* Whether the dense words of so many entities and rectangles fit. */
static inline int
dense_fits(const coalesce *c, size_t ents, size_t rects)
{
	return (c->nstates == 0 ||
	    ents + rects <= c->dense_words / c->nstates);
}

static inline uint64_t *
states_of(const coalesce *c, uint32_t r)
{
	return (&c->state_time[(size_t)r * c->nstates]);
}

static inline uint64_t *
totals_of(const coalesce *c, uint32_t id)
{
	return (&c->totals[(size_t)id * c->nstates]);
}

/* At most UINT32_MAX: a count that large only says "very many". */
static inline uint64_t
count_clamp(uint64_t n)
{
	return (n > UINT32_MAX ? UINT32_MAX : n);
}

/* Where a rectangle's tags end: where the next one's begin. */
static inline uint32_t
tag_hi(const coalesce *c, uint32_t r)
{
	uint32_t next = c->rects[r].next;

	return (next != RECT_NONE ? c->info[next].tag_lo :
	    c->logs[c->info[r].entity].n);
}

/* Where a rectangle's states end in a state log (not dense). */
static inline uint32_t
state_hi(const coalesce *c, uint32_t r)
{
	uint32_t next = c->rects[r].next;

	return (next != RECT_NONE ? c->info[next].state_lo :
	    c->slogs[c->info[r].entity].n);
}

/* How many tags a rectangle has in its entity's log. */
static inline uint32_t
tags_of(const coalesce *c, uint32_t r)
{
	if (c->logs == NULL || c->logs[c->info[r].entity].v == NULL)
		return (0);
	return (tag_hi(c, r) - c->info[r].tag_lo);
}

#endif
