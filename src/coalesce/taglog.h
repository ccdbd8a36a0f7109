/*
 * taglog.h: the time per tag of one entity's coalesced rectangles, kept
 * as one log in which every rectangle owns a contiguous range.  (The
 * coalescer keeps time per state so too, past a number of states:
 * coalesce_state.h; a state is then the "tag" of an entry.)
 *
 * An entity's rectangles follow each other in time, and so do the data
 * whose tags they count.  So if each datum's tag and time are appended
 * to its entity's log, a rectangle's tags are the entries from its own
 * first one to the next rectangle's first: merging two neighbours costs
 * nothing, their ranges being neighbours too, where merging two sorted
 * lists cost a pass over both at each of millions of merges.  A datum
 * costs an addition to the newest entry, held in the log's header (its
 * tag is the datum's), or the store of that entry into the array and a
 * new one held: the array's end, far from the cache when data cycle
 * through a thousand entities, is only ever written, never read.
 *
 * An entry is one word, the tag above the time, so that the logs (a
 * tagged trace's largest memory by far) cost half what a tag and a time
 * apart did.  A tag or a time too large for its bits (tags from 2^24 - 1
 * on, times of 2^40 ns, 18 minutes, and more: rare) is kept whole in the
 * log's side array, and its word names it there.
 *
 * Now and then the owner, which knows where the ranges begin, compacts
 * the log: each range sorted by tag, repeats summed, the ranges moved
 * down (taglog_settle_range, one range at a time, first to last, then
 * taglog_cut).  Compacting when what came since the last compaction is
 * twice as long as what that left keeps each entry's share of the work
 * constant and the log at most about three times what its rectangles
 * need.  (Once as long, the rule while entries were twice the size, did
 * half again the work for no less peak memory.)
 *
 * Ownership: a log owns its array; taglog_free releases it.  A zeroed
 * taglog is an empty log.
 */
#ifndef SM_TAGLOG_H
#define SM_TAGLOG_H

#include <stddef.h>
#include <stdint.h>

/*
 * A tag and the time in it: what an entry stands for, unpacked.  The
 * coalescer hands its readers these (coalesce.h's coalesce_tag).
 */
typedef struct taglog_pair {
	uint32_t tag;		/* tag id */
	uint64_t time;		/* ns */
} taglog_pair;

typedef struct taglog {
	uint64_t *v;		/* entries: read them with taglog_entry */
	uint32_t n, cap;
	uint32_t settled;	/* n as the last compaction left it */
	uint32_t open;		/* where the last range begins */
	/* The last range's newest entry, while holding (not yet in v). */
	int holding;
	uint32_t held_tag;
	uint64_t held_time;
	struct taglog_side *side;	/* made on the first large entry */
} taglog;

void taglog_free(taglog *l);

/* Entry i of the log (i < n). */
taglog_pair taglog_entry(const taglog *l, uint32_t i);

/* Entries lo to hi (at most n) of the log, copied to out. */
void taglog_read(const taglog *l, uint32_t lo, uint32_t hi, taglog_pair *out);

/* How many entries are kept in the side array (for tests). */
uint32_t taglog_side_entries(const taglog *l);

/*
 * What settling ranges needs besides the log: a time per tag id, for
 * ranges of small ids, and room to sort others.  One per owner, reused;
 * a zeroed one is ready.
 */
typedef struct taglog_sorter {
	uint64_t *sums;		/* by tag id, made on first use */
	taglog_pair *scratch;
	size_t scratch_cap;
	uint64_t *words;	/* twice a range's words, for radix passes */
	size_t words_cap;
} taglog_sorter;

void taglog_sorter_free(taglog_sorter *s);

/* Starts a new last range at the end of the log; returns where. */
uint32_t taglog_begin_range(taglog *l);

/* Stores the held entry in the array: before reading the log whole. */
void taglog_flush(taglog *l);

/* An entry's word: the tag above TAGLOG_TIME_BITS bits of time. */
#define TAGLOG_TIME_BITS	40
#define TAGLOG_SIDE_TAG	((uint32_t)(UINT64_MAX >> TAGLOG_TIME_BITS))

/* Whether tag and time fit one word, and that word. */
static inline int
taglog_fits(uint32_t tag, uint64_t time)
{
	return (tag < TAGLOG_SIDE_TAG && time >> TAGLOG_TIME_BITS == 0);
}

static inline uint64_t
taglog_pack(uint32_t tag, uint64_t time)
{
	return ((uint64_t)tag << TAGLOG_TIME_BITS | time);
}

/* The word of an entry that does not fit one, kept in the side array. */
uint64_t taglog_side_word(taglog *l, uint32_t tag, uint64_t time);

/*
 * Adds time to tag in the last range.  Returns 0, having added nothing,
 * when the held entry must be stored and the log is full: the owner
 * compacts it if taglog_compaction_due (the held entry stays held),
 * calls taglog_make_room and adds again.  Inline: a tagged datum's.
 */
static inline int
taglog_add(taglog *l, uint32_t tag, uint64_t time)
{
	if (l->holding && l->held_tag == tag) {
		l->held_time += time;
		return (1);
	}
	if (l->holding) {
		if (l->n == l->cap)
			return (0);
		l->v[l->n++] = taglog_fits(l->held_tag, l->held_time) ?
		    taglog_pack(l->held_tag, l->held_time) :
		    taglog_side_word(l, l->held_tag, l->held_time);
	}
	l->holding = 1;
	l->held_tag = tag;
	l->held_time = time;
	return (1);
}

/* Whether enough came since the last compaction to pay for another. */
int taglog_compaction_due(const taglog *l);

/* Makes room for one more entry, and for as many again when half full. */
void taglog_make_room(taglog *l);

/*
 * Sorts the range [lo, hi) by tag, sums repeats, moves it to start at
 * to (at most lo: ranges move down in order) and returns its length.
 * A compaction settles every range, first to last, then cuts.
 */
uint32_t taglog_settle_range(taglog *l, uint32_t lo, uint32_t hi, uint32_t to,
    taglog_sorter *s);

/* Ends a compaction: the log is its first n entries, the last range at open. */
void taglog_cut(taglog *l, uint32_t n, uint32_t open);

/* Appends a settled range of n entries (ascending, distinct tags). */
void taglog_append_range(taglog *l, const taglog_pair *tags, uint32_t n);

#endif
