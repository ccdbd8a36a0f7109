#include "store/count_series.h"

#include <stdlib.h>
#include <string.h>

#include "base/runlimit.h"
#include "base/util.h"

/*
 * An entity's place in its column: the next transition that moves it
 * into or out of the counted states is at k (if k < lim); in says
 * whether it is in one now.
 */
typedef struct cursor {
	const uint64_t *times;
	const uint16_t *states;
	size_t k, lim;
	int in;
} cursor;

/* The heap holds the time of each cursor's next change, smallest first. */
typedef struct entry {
	uint64_t time;
	uint32_t entity;
} entry;

/* Whether a state read from a column is counted: no data (STORE_GAP) is not. */
static inline int
is_counted(const unsigned char *counted, uint16_t state)
{
	return (state != STORE_GAP && counted[state] != 0);
}

/*
 * Puts c on entity e's changes in [from, to): at the first after from,
 * in the state of the last at or before it.  Returns whether that state
 * is counted (0 for an entity with no data, whose cursor stays empty).
 */
static int
cursor_start(cursor *c, const store *s, uint32_t e, uint64_t from,
    uint64_t to, const unsigned char *counted)
{
	size_t n = store_count(s, e), first;

	if (n == 0)
		return (0);
	c->times = store_times(s, e);
	c->states = store_states(s, e);
	first = store_count_through(c->times, n, from);
	c->lim = store_count_before(c->times, n, to);
	if (c->lim < first)
		c->lim = first;		/* times out of order */
	c->k = first;
	c->in = first > 0 && is_counted(counted, c->states[first - 1]);
	return (c->in);
}

/*
 * Moves c to its next change; 0 if it has none before the range ends.
 * A cursor comes back only after every other entity had its turn, by
 * which time its columns have left the cache: what it will read next
 * is fetched now (a few lines ahead), and arrives while the others run.
 */
static int
advance(cursor *c, const unsigned char *counted)
{
	while (c->k < c->lim && is_counted(counted, c->states[c->k]) == c->in)
		c->k++;
	__builtin_prefetch(c->times + c->k + 16);
	__builtin_prefetch(c->states + c->k + 64);
	return (c->k < c->lim);
}

/*
 * h[n] is always a sentinel of the largest time, so a last child without
 * a sibling needs no test.  A cursor's next change comes after the other
 * entities' turns, so an entry sinks most of the way: choosing the
 * smaller child is the branch that cannot be predicted, and is written
 * so that the compiler need not branch on it.
 */
static void
sift_down(entry *h, size_t n, size_t i)
{
	entry x = h[i];

	for (;;) {
		size_t m = 2 * i + 1;

		if (m >= n)
			break;
		m += h[m + 1].time < h[m].time;
		if (h[m].time >= x.time)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
}

/*
 * Steps on their way to fn, keeping the series' invariants (times rise
 * strictly, neighbours differ) whatever comes in: a second step at one
 * time replaces the first, and one that changes nothing is dropped.  The
 * last step is held until a later one (or the end) says it stands.
 */
typedef struct stepper {
	series_step_fn fn;
	void *ctx;
	uint64_t time;		/* the held step, if held */
	uint32_t count;
	int held;
	int sent;		/* a step went to fn: last_sent is its count */
	uint32_t last_sent;
} stepper;

static int
emit(stepper *b, uint64_t t, uint32_t count, const char **why)
{
	if (b->held && b->time == t) {
		b->count = count;
		if (b->sent && b->last_sent == count)
			b->held = 0;
		return (0);
	}
	if (b->held) {
		if (b->count == count)
			return (0);
		if (b->fn(b->ctx, b->time, b->count, why) != 0)
			return (-1);
		b->sent = 1;
		b->last_sent = b->count;
	} else if (b->sent && b->last_sent == count) {
		return (0);
	}
	b->time = t;
	b->count = count;
	b->held = 1;
	return (0);
}

int
series_walk(const store *s, const unsigned char *counted, uint64_t from,
    uint64_t to, series_step_fn fn, void *ctx, const char **why)
{
	uint32_t ne = store_nentities(s), e;
	cursor *cur;
	entry *heap;
	size_t nheap = 0, i;
	uint64_t now, tick = 0;
	uint32_t count = 0;
	stepper b = { fn, ctx, 0, 0, 0, 0, 0 };
	int rv = 0;

	if (from < store_begin(s))
		from = store_begin(s);
	if (to > store_end(s))
		to = store_end(s);
	if (to <= from)
		return (0);
	cur = xcalloc((size_t)ne + 1, sizeof (cursor));
	heap = xcalloc((size_t)ne + 2, sizeof (entry));
	for (e = 0; e < ne; e++) {
		cursor *c = &cur[e];

		count += (uint32_t)cursor_start(c, s, e, from, to, counted);
		if (c->times != NULL && advance(c, counted)) {
			heap[nheap].time = c->times[c->k];
			heap[nheap++].entity = e;
		}
	}
	heap[nheap].time = UINT64_MAX;
	for (i = nheap / 2; i-- > 0;)
		sift_down(heap, nheap, i);
	rv = emit(&b, from, count, why);
	now = from;
	while (rv == 0 && nheap > 0) {
		cursor *c = &cur[heap[0].entity];
		/* Never back in time, even where a column's times go back. */
		uint64_t t = heap[0].time > now ? heap[0].time : now;

		c->in = !c->in;
		if (c->in)
			count++;
		else
			count--;
		c->k++;
		if (advance(c, counted)) {
			heap[0].time = c->times[c->k];
		} else {
			heap[0] = heap[--nheap];
			heap[nheap].time = UINT64_MAX;
		}
		sift_down(heap, nheap, 0);
		now = t;
		/* Every change at t is in: the count from t on is known. */
		if (nheap == 0 || heap[0].time > t)
			rv = emit(&b, t, count, why);
		if (rv == 0 && (++tick & 0xffff) == 0)
			rv = runlimit_check((size_t)ne * (sizeof (cursor) +
			    sizeof (entry)), why);
	}
	if (rv == 0 && b.held)
		rv = fn(ctx, b.time, b.count, why);
	free(cur);
	free(heap);
	return (rv);
}

/*
 * series_count's sweep, for a whole series in memory anyway: the range
 * is cut into blocks of time holding about BLOCK_CHANGES transitions
 * each, or 4 an entity where there are more than BLOCK_CHANGES / 4 entities
 * (evenly spread over the range).  For a block, each entity's
 * column is read in order up to the block's end, and each change into
 * or out of the counted states is written as a key: its time within the
 * block, shifted left, with the entity's new state (in or out) as the
 * low bit.  The keys are sorted by radix, only as many 11-bit digits as
 * the block's largest key has, and the sorted keys give the count at
 * each time.  Each column is read in order, the keys are a block's, and
 * there is no heap: the steps are series_walk's (its emit, every change
 * at a time counted before the time's step), at a fraction of its cost
 * a change.  Memory: 16 bytes a change of the fullest block (uneven
 * times can put most of a trace's changes in one), beside the series'
 * own 12 bytes a step.
 */
#define BLOCK_CHANGES	65536
#define RADIX_BITS	11
#define RADIX		(1u << RADIX_BITS)
#define AHEAD		8	/* entities whose lines are asked for ahead */

/* Sorts keys[0..n) by radix, tmp as large; returns the sorted array. */
static uint64_t *
radix_sort(uint64_t *keys, uint64_t *tmp, size_t n, uint64_t max)
{
	size_t count[RADIX];
	unsigned shift;

	for (shift = 0; shift < 64 && (max >> shift) != 0;
	    shift += RADIX_BITS) {
		size_t i, sum = 0;
		uint64_t *t;

		memset(count, 0, sizeof (count));
		for (i = 0; i < n; i++)
			count[(keys[i] >> shift) & (RADIX - 1)]++;
		for (i = 0; i < RADIX; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[count[(keys[i] >> shift) & (RADIX - 1)]++] =
			    keys[i];
		t = keys;
		keys = tmp;
		tmp = t;
	}
	return (keys);
}

/*
 * Reads c's column up to the block [start, end), writing each change into
 * or out of the counted states as a key (its time within the block,
 * never before the entity's last, *last, and in or out in the low bit)
 * into keys[*nkeys..cap), *max gathering the keys' bits.  Returns 1 when
 * keys is full before the block's end (c is left on the change not
 * written, to go on from), 0 when the block is done.  A function of its
 * own, so that the compiler keeps the loop's state in registers.
 */
static int
scan_column(cursor *c, const unsigned char *counted, uint64_t start,
    uint64_t end, uint64_t *last, uint64_t *keys, size_t *nkeys, size_t cap,
    uint64_t *max)
{
	const uint64_t *times = c->times;
	const uint16_t *states = c->states;
	size_t k = c->k, lim = c->lim, n = *nkeys;
	uint64_t l = *last, m = *max;
	int in = c->in, full = 0;

	for (; k < lim && times[k] < end; k++) {
		uint64_t key;

		if (is_counted(counted, states[k]) == in)
			continue;
		if (n == cap) {
			full = 1;
			break;
		}
		in = !in;
		/* Never before the block nor before the entity's last
		 * change, where a column's times go back (count_series.h):
		 * each entity's changes up to any time are then the first
		 * of its own, and the counts the steps give stay within the
		 * entities. */
		key = times[k] > start ? times[k] - start : 0;
		if (key < l)
			key = l;
		l = key;
		key = key << 1 | (uint64_t)in;
		m |= key;
		keys[n++] = key;
	}
	c->k = k;
	c->in = in;
	*nkeys = n;
	*last = l;
	*max = m;
	return (full);
}

/*
 * series_count's steps, written straight into its arrays (which double as
 * they fill) under emit's rules: a second step at one time replaces the
 * first, and a step that changes nothing is dropped.  Only the first step
 * can meet another at its time (a change at the range's start, whose key
 * is 0), so a replaced step has no step before it to repeat.
 */
typedef struct gather {
	series *out;
	size_t cap;
} gather;

static inline int
gather_step(gather *g, uint64_t time, uint32_t count, const char **why)
{
	series *sr = g->out;
	size_t n = sr->n;

	if (n > 0 && sr->time[n - 1] == time) {
		sr->count[n - 1] = count;
		return (0);
	}
	if (n > 0 && sr->count[n - 1] == count)
		return (0);
	if (n == g->cap) {
		g->cap = g->cap == 0 ? 1024 : 2 * g->cap;
		if (runlimit_check(g->cap * (sizeof (uint64_t) +
		    sizeof (uint32_t)), why) != 0)
			return (-1);
		sr->time = xrealloc(sr->time, g->cap * sizeof (uint64_t));
		sr->count = xrealloc(sr->count, g->cap * sizeof (uint32_t));
	}
	sr->time[n] = time;
	sr->count[n] = count;
	sr->n = n + 1;
	return (0);
}

static int
series_sweep_blocks(const store *s, const unsigned char *counted,
    uint64_t from, uint64_t to, gather *g, const char **why)
{
	uint32_t ne = store_nentities(s), e;
	cursor *cur;
	uint64_t *keys = NULL, *tmp = NULL, total = 0, nblocks, width, b;
	size_t nkeys, cap = 0, scanned = 0;
	uint32_t count = 0;
	int rv;

	cur = xcalloc((size_t)ne + 1, sizeof (cursor));
	for (e = 0; e < ne; e++) {
		cursor *c = &cur[e];

		count += (uint32_t)cursor_start(c, s, e, from, to, counted);
		total += c->lim - c->k;
	}
	rv = gather_step(g, from, count, why);
	/* Each block visits every entity: at least 4 transitions a visit. */
	nblocks = total / (ne > BLOCK_CHANGES / 4 ? 4 * (uint64_t)ne :
	    BLOCK_CHANGES) + 1;
	if (nblocks > to - from)
		nblocks = to - from;
	width = (to - from) / nblocks + 1;
	for (b = 0; rv == 0 && b < nblocks; b++) {
		uint64_t start = from + b * width, end, max = 0, *sorted;
		size_t i;

		end = b + 1 == nblocks || to - start <= width ? to :
		    start + width;
		nkeys = 0;
		for (e = 0; rv == 0 && e < ne; e++) {
			cursor *c = &cur[e];
			size_t k0 = c->k;
			uint64_t last = 0;

			/* The next entities' first lines, which come from
			 * another part of memory, on their way. */
			if (e + AHEAD < ne) {
				const cursor *a = &cur[e + AHEAD];

				__builtin_prefetch(a->times + a->k);
				__builtin_prefetch(a->states + a->k);
			}
			while (scan_column(c, counted, start, end, &last, keys,
			    &nkeys, cap, &max)) {
				cap = cap == 0 ? 4096 : 2 * cap;
				rv = runlimit_check(cap * 2 * sizeof (uint64_t) +
				    (size_t)ne * sizeof (cursor), why);
				if (rv != 0)
					break;
				keys = xrealloc(keys, cap * sizeof (uint64_t));
				tmp = xrealloc(tmp, cap * sizeof (uint64_t));
			}
			scanned += c->k - k0;
			if (rv == 0 && scanned > (1u << 20)) {
				scanned = 0;
				rv = runlimit_check(cap * 2 * sizeof (uint64_t) +
				    (size_t)ne * sizeof (cursor), why);
			}
		}
		if (rv != 0)
			break;
		sorted = radix_sort(keys, tmp, nkeys, max);
		for (i = 0; rv == 0 && i < nkeys; i++) {
			/* In adds one, out takes one away. */
			count += (uint32_t)(sorted[i] & 1) * 2 - 1;
			/* Every change at a time is in before its step. */
			if (i + 1 == nkeys || (sorted[i + 1] >> 1) !=
			    (sorted[i] >> 1))
				rv = gather_step(g, start + (sorted[i] >> 1),
				    count, why);
		}
	}
	free(cur);
	free(keys);
	free(tmp);
	return (rv);
}

int
series_count(const store *s, const unsigned char *counted, uint64_t from,
    uint64_t to, series *out, const char **why)
{
	gather g = { out, 0 };

	memset(out, 0, sizeof (*out));
	if (from < store_begin(s))
		from = store_begin(s);
	if (to > store_end(s))
		to = store_end(s);
	out->begin = from;
	out->finish = to > from ? to : from;
	if (to > from &&
	    series_sweep_blocks(s, counted, from, to, &g, why) != 0) {
		series_free(out);
		return (-1);
	}
	if (out->n > 0 && out->n < g.cap) {
		out->time = xrealloc(out->time, out->n * sizeof (uint64_t));
		out->count = xrealloc(out->count, out->n * sizeof (uint32_t));
	}
	return (0);
}

void
series_free(series *sr)
{
	free(sr->time);
	free(sr->count);
	sr->time = NULL;
	sr->count = NULL;
	sr->n = 0;
}

size_t
series_memory(const series *sr)
{
	return (sizeof (*sr) + sr->n * (sizeof (uint64_t) + sizeof (uint32_t)));
}

size_t
series_find(const series *sr, uint64_t t)
{
	if (sr->n == 0 || t < sr->begin || t >= sr->finish)
		return (SIZE_MAX);
	return (store_count_through(sr->time, sr->n, t) - 1);
}
