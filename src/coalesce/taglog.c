#include "coalesce/taglog.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Logs that grew by less than this since they were compacted just grow. */
#define GROWTH_MIN	16

/* An entry's word: the tag in the high bits, the time below. */
#define TIME_BITS	TAGLOG_TIME_BITS
#define TIME_MASK	(((uint64_t)1 << TIME_BITS) - 1)
#define SIDE_TAG	TAGLOG_SIDE_TAG	/* 2^24 - 1 */
#define WORD_TAG(w)	((uint32_t)((w) >> TIME_BITS))

/*
 * The entries too large for a word, apart from the log's header so that
 * the header, read at every datum, stays small.  A compaction writes
 * those it keeps to the next array, which taglog_cut makes this one.
 */
struct taglog_side {
	taglog_pair *now, *next;
	uint32_t nnow, nnext;
	size_t now_cap, next_cap;
};

void
taglog_free(taglog *l)
{
	free(l->v);
	if (l->side != NULL) {
		free(l->side->now);
		free(l->side->next);
		free(l->side);
	}
	memset(l, 0, sizeof (*l));
}

static void
reserve(taglog *l, uint32_t need)
{
	uint32_t cap = l->cap == 0 ? 4 : l->cap;

	if (need <= l->cap)
		return;
	while (cap < need) {
		if (cap > UINT32_MAX / 2)
			out_of_memory((size_t)need * sizeof (uint64_t));
		cap *= 2;
	}
	l->v = xrealloc(l->v, (size_t)cap * sizeof (uint64_t));
	l->cap = cap;
}

/* Keeps tag and time whole at the end of a side array: see entry_word. */
static __attribute__((noinline)) uint64_t
side_word(taglog *l, uint32_t tag, uint64_t time, int next)
{
	taglog_pair **side;
	uint32_t *n;
	size_t *cap;

	if (l->side == NULL)
		l->side = xcalloc(1, sizeof (*l->side));
	side = next ? &l->side->next : &l->side->now;
	n = next ? &l->side->nnext : &l->side->nnow;
	cap = next ? &l->side->next_cap : &l->side->now_cap;
	if (*n == UINT32_MAX)
		out_of_memory((size_t)-1);
	grow_array(side, cap, (size_t)*n + 1, sizeof (taglog_pair));
	(*side)[*n].tag = tag;
	(*side)[*n].time = time;
	return ((uint64_t)SIDE_TAG << TIME_BITS | (*n)++);
}

/*
 * The word for tag and time: the two themselves where they fit, else
 * where they are kept whole, in a side array (the log's, or when next
 * the one a compaction is making).
 */
static inline uint64_t
entry_word(taglog *l, uint32_t tag, uint64_t time, int next)
{
	return (taglog_fits(tag, time) ? taglog_pack(tag, time) :
	    side_word(l, tag, time, next));
}

uint64_t
taglog_side_word(taglog *l, uint32_t tag, uint64_t time)
{
	return (side_word(l, tag, time, 0));
}

/* The entry a word stands for. */
static inline taglog_pair
word_entry(const taglog *l, uint64_t w)
{
	taglog_pair t;

	if (WORD_TAG(w) == SIDE_TAG)
		return (l->side->now[w & TIME_MASK]);
	t.tag = WORD_TAG(w);
	t.time = w & TIME_MASK;
	return (t);
}

taglog_pair
taglog_entry(const taglog *l, uint32_t i)
{
	return (word_entry(l, l->v[i]));
}

void
taglog_read(const taglog *l, uint32_t lo, uint32_t hi, taglog_pair *out)
{
	uint32_t i;

	for (i = lo; i < hi; i++)
		*out++ = word_entry(l, l->v[i]);
}

uint32_t
taglog_side_entries(const taglog *l)
{
	return (l->side != NULL ? l->side->nnow : 0);
}

void
taglog_sorter_free(taglog_sorter *s)
{
	free(s->sums);
	free(s->scratch);
	free(s->words);
	memset(s, 0, sizeof (*s));
}

/* ---- sorting a range by tag ---- */

static void
insertion_sort(taglog_pair *a, uint32_t n)
{
	uint32_t i, j;

	for (i = 1; i < n; i++) {
		taglog_pair x = a[i];

		for (j = i; j > 0 && a[j - 1].tag > x.tag; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/*
 * Quicksort on the tag, the median of three as pivot, recursing into the
 * smaller side so the stack stays logarithmic.  Ranges repeat tags a lot,
 * which a partition that stops on equal keys handles in n log n.
 */
static void
sort_tags(taglog_pair *a, uint32_t n)
{
	while (n > 16) {
		uint32_t mid = n / 2, i = 0, j = n - 1, pivot;
		taglog_pair x;

		if (a[mid].tag < a[0].tag) {
			x = a[mid]; a[mid] = a[0]; a[0] = x;
		}
		if (a[n - 1].tag < a[0].tag) {
			x = a[n - 1]; a[n - 1] = a[0]; a[0] = x;
		}
		if (a[n - 1].tag < a[mid].tag) {
			x = a[n - 1]; a[n - 1] = a[mid]; a[mid] = x;
		}
		pivot = a[mid].tag;
		for (;;) {
			while (a[i].tag < pivot)
				i++;
			while (a[j].tag > pivot)
				j--;
			if (i >= j)
				break;
			x = a[i]; a[i] = a[j]; a[j] = x;
			i++;
			j--;
		}
		/* [0, j] <= pivot <= [j + 1, n) */
		if (j + 1 < n - j - 1) {
			sort_tags(a, j + 1);
			a += j + 1;
			n -= j + 1;
		} else {
			sort_tags(a + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	insertion_sort(a, n);
}

/* Sums neighbours of one tag in a sorted array; returns the new length. */
static uint32_t
fold(taglog_pair *a, uint32_t n)
{
	uint32_t i, k = 0;

	for (i = 1; i < n; i++) {
		if (a[i].tag == a[k].tag)
			a[k].time += a[i].time;
		else
			a[++k] = a[i];
	}
	return (n == 0 ? 0 : k + 1);
}

/*
 * Whether a[0, n) is one ascending run of distinct tags already, none
 * of them in a side array (which the compaction makes anew).
 */
static int
settled_already(const uint64_t *a, uint32_t n)
{
	uint32_t i;

	for (i = 1; i < n; i++) {
		if (WORD_TAG(a[i - 1]) >= WORD_TAG(a[i]))
			return (0);
	}
	return (WORD_TAG(a[n - 1]) != SIDE_TAG);
}

void
taglog_flush(taglog *l)
{
	if (!l->holding)
		return;
	if (l->n == l->cap)
		reserve(l, l->cap + 1);
	l->v[l->n++] = entry_word(l, l->held_tag, l->held_time, 0);
	l->holding = 0;
}

uint32_t
taglog_begin_range(taglog *l)
{
	taglog_flush(l);
	l->open = l->n;
	return (l->n);
}

int
taglog_compaction_due(const taglog *l)
{
	uint32_t grown = l->n - l->settled;

	return (grown >= GROWTH_MIN && grown / 2 >= l->settled);
}

void
taglog_make_room(taglog *l)
{
	if (l->n == l->cap || l->n > l->cap / 2)
		reserve(l, l->cap + 1);
}

/*
 * Ranges whose tag ids are all below DENSE_TAGS (one per state and tag
 * name: nearly always) are summed into a time per id, the ids seen
 * marked in a bitmap, and written out in the bitmap's order: one pass,
 * each entry read once, where a sort moved each twice and folding read
 * it again.  Returns the range's length at out (which may overlap a only
 * at or before it), or UINT32_MAX, having written nothing, if an id is
 * too large.
 */
#define DENSE_TAGS	4096

static uint32_t
dense_fold(taglog *l, const uint64_t *a, uint32_t n, uint64_t *out,
    taglog_sorter *s)
{
	uint64_t seen[DENSE_TAGS / 64];
	uint32_t i, w, k = 0;

	if (s->sums == NULL)
		s->sums = xmalloc(DENSE_TAGS * sizeof (uint64_t));
	memset(seen, 0, sizeof (seen));
	for (i = 0; i < n; i++) {
		uint32_t tag = WORD_TAG(a[i]);
		uint64_t bit;

		if (tag >= DENSE_TAGS)
			return (UINT32_MAX);	/* a side entry too */
		bit = (uint64_t)1 << (tag % 64);
		if (seen[tag / 64] & bit) {
			s->sums[tag] += a[i] & TIME_MASK;
		} else {
			seen[tag / 64] |= bit;
			s->sums[tag] = a[i] & TIME_MASK;
		}
	}
	for (w = 0; w < DENSE_TAGS / 64; w++) {
		uint64_t bits = seen[w];

		while (bits != 0) {
			uint32_t tag = w * 64 + (uint32_t)__builtin_ctzll(bits);

			out[k++] = entry_word(l, tag, s->sums[tag], 1);
			bits &= bits - 1;
		}
	}
	return (k);
}

/*
 * A range of many entries with large tag ids, in a log without large
 * entries (no side array), is sorted by its words: a word's tag is its
 * top bits, so a least-significant-digit radix sort on the tag's three
 * bytes (a pass skipped where all agree) orders it, each pass a read
 * and a write of every word, where the quicksort of pairs moved each
 * entry log n times.  A trace of 600,000 tags folds ranges of hundreds.
 * The times of one tag are then summed, in whatever order: integers.
 */
#define RADIX_MIN	64

static uint32_t
radix_fold(taglog *l, uint32_t lo, uint32_t n, uint32_t to,
    taglog_sorter *s)
{
	uint32_t count[3][256], i, k = 0, p;
	const uint64_t *src = l->v + lo;
	uint64_t *dst, sum;

	grow_array(&s->words, &s->words_cap, 2 * (size_t)n, sizeof (uint64_t));
	memset(count, 0, sizeof (count));
	for (i = 0; i < n; i++) {
		uint64_t w = src[i];

		count[0][(w >> TIME_BITS) & 255]++;
		count[1][(w >> (TIME_BITS + 8)) & 255]++;
		count[2][(w >> (TIME_BITS + 16)) & 255]++;
	}
	dst = s->words;
	for (p = 0; p < 3; p++) {
		unsigned shift = TIME_BITS + 8 * p;
		uint32_t at = 0, b, c;

		if (count[p][(src[0] >> shift) & 255] == n)
			continue;	/* one value: the order stays */
		for (b = 0; b < 256; b++) {
			c = count[p][b];
			count[p][b] = at;
			at += c;
		}
		for (i = 0; i < n; i++)
			dst[count[p][(src[i] >> shift) & 255]++] = src[i];
		src = dst;
		dst = dst == s->words ? s->words + n : s->words;
	}
	/* src may still be the log's own range, which to may overlap at
	 * or before it: each word is read before its place is written. */
	for (i = 0; i < n; k++) {
		uint32_t tag = WORD_TAG(src[i]);

		for (sum = 0; i < n && WORD_TAG(src[i]) == tag; i++)
			sum += src[i] & TIME_MASK;
		l->v[to + k] = entry_word(l, tag, sum, 1);
	}
	return (k);
}

/*
 * Any range by the entries themselves: read out whole, sorted, summed
 * and written back at to.
 */
static uint32_t
sorted_fold(taglog *l, uint32_t lo, uint32_t n, uint32_t to,
    taglog_sorter *s)
{
	uint32_t i;

	if (n >= RADIX_MIN && l->side == NULL)
		return (radix_fold(l, lo, n, to, s));
	grow_array(&s->scratch, &s->scratch_cap, n, sizeof (taglog_pair));
	for (i = 0; i < n; i++)
		s->scratch[i] = taglog_entry(l, lo + i);
	sort_tags(s->scratch, n);
	n = fold(s->scratch, n);
	for (i = 0; i < n; i++)
		l->v[to + i] = entry_word(l, s->scratch[i].tag,
		    s->scratch[i].time, 1);
	return (n);
}

uint32_t
taglog_settle_range(taglog *l, uint32_t lo, uint32_t hi, uint32_t to,
    taglog_sorter *s)
{
	uint32_t n = hi - lo, dense;

	/* An empty log may have no array: no pointer arithmetic on NULL. */
	if (n == 0)
		return (0);
	if (settled_already(l->v + lo, n)) {
		if (to != lo)
			memmove(l->v + to, l->v + lo, n * sizeof (uint64_t));
		return (n);
	}
	dense = dense_fold(l, l->v + lo, n, l->v + to, s);
	return (dense != UINT32_MAX ? dense : sorted_fold(l, lo, n, to, s));
}

void
taglog_cut(taglog *l, uint32_t n, uint32_t open)
{
	struct taglog_side *sd = l->side;

	l->n = l->settled = n;
	l->open = open;
	if (sd != NULL) {
		/* The side entries still named are the next array's. */
		taglog_pair *old = sd->now;
		size_t cap = sd->now_cap;

		sd->now = sd->next;
		sd->nnow = sd->nnext;
		sd->now_cap = sd->next_cap;
		sd->next = old;
		sd->next_cap = cap;
		sd->nnext = 0;
	}
}

void
taglog_append_range(taglog *l, const taglog_pair *tags, uint32_t n)
{
	uint32_t i;

	if (n > UINT32_MAX - l->n)
		out_of_memory((size_t)-1);
	taglog_flush(l);
	reserve(l, l->n + n);
	l->open = l->n;
	for (i = 0; i < n; i++)
		l->v[l->n + i] = entry_word(l, tags[i].tag, tags[i].time, 0);
	l->n += n;
	l->settled = l->n;
}
