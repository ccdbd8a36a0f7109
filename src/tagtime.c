#include "tagtime.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Tails shorter than this are not worth a sort and a merge. */
#define TAIL_MIN	8

void
tagtime_free(tagtime *t)
{
	free(t->v);
	memset(t, 0, sizeof (*t));
}

void
tagtime_clear(tagtime *t)
{
	t->sorted = t->n = 0;
}

static void
reserve(tagtime *t, uint32_t need)
{
	uint32_t cap = t->cap == 0 ? 4 : t->cap;

	if (need <= t->cap)
		return;
	while (cap < need) {
		if (cap > UINT32_MAX / 2)
			out_of_memory((size_t)need * sizeof (coalesce_tag));
		cap *= 2;
	}
	t->v = xrealloc(t->v, (size_t)cap * sizeof (coalesce_tag));
	t->cap = cap;
}

/* ---- sorting a tail by tag ---- */

static void
insertion_sort(coalesce_tag *a, uint32_t n)
{
	uint32_t i, j;

	for (i = 1; i < n; i++) {
		coalesce_tag x = a[i];

		for (j = i; j > 0 && a[j - 1].tag > x.tag; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/*
 * Quicksort on the tag, the median of three as pivot, recursing into the
 * smaller side so the stack stays logarithmic.  Tails repeat tags a lot,
 * which a partition that stops on equal keys handles in n log n.
 */
static void
sort_tags(coalesce_tag *a, uint32_t n)
{
	while (n > 16) {
		uint32_t mid = n / 2, i = 0, j = n - 1, pivot;
		coalesce_tag x;

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

/*
 * Tails of tag ids below 2^(2 * RADIX_BITS) and at least RADIX_MIN
 * entries long are sorted by two passes of a counting sort, the low
 * digit then the high one: no comparisons to mispredict, where
 * quicksort spent most of its time on them (tag ids are small: one per
 * state and tag name).
 */
#define RADIX_BITS	6
#define RADIX_MIN	32

/* One stable pass: from by digit (tag >> shift) into to. */
static void
radix_pass(const coalesce_tag *from, coalesce_tag *to, uint32_t n,
    unsigned shift)
{
	uint32_t count[1u << RADIX_BITS], i, sum = 0;
	const uint32_t mask = (1u << RADIX_BITS) - 1;

	memset(count, 0, sizeof (count));
	for (i = 0; i < n; i++)
		count[(from[i].tag >> shift) & mask]++;
	for (i = 0; i <= mask; i++) {
		uint32_t c = count[i];

		count[i] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		to[count[(from[i].tag >> shift) & mask]++] = from[i];
}

/* Sorts a[0, n) by tag, by counting when it pays, with scratch's room. */
static void
sort_tail(coalesce_tag *a, uint32_t n, tagtime *scratch)
{
	uint32_t i, high = 0;

	if (n >= RADIX_MIN) {
		for (i = 0; i < n; i++)
			high |= a[i].tag;
		if (high < (1u << (2 * RADIX_BITS))) {
			scratch->sorted = scratch->n = 0;
			reserve(scratch, n);
			radix_pass(a, scratch->v, n, 0);
			radix_pass(scratch->v, a, n, RADIX_BITS);
			return;
		}
	}
	sort_tags(a, n);
}

/* Sums neighbours of one tag in a sorted array; returns the new length. */
static uint32_t
fold(coalesce_tag *a, uint32_t n)
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

/* Merges two sorted runs of distinct tags into out; returns its length. */
static uint32_t
merge_runs(coalesce_tag *out, const coalesce_tag *a, uint32_t na,
    const coalesce_tag *b, uint32_t nb)
{
	uint32_t i = 0, j = 0, n = 0;

	while (i < na && j < nb) {
		if (a[i].tag < b[j].tag) {
			out[n++] = a[i++];
		} else if (b[j].tag < a[i].tag) {
			out[n++] = b[j++];
		} else {
			out[n].tag = a[i].tag;
			out[n++].time = a[i++].time + b[j++].time;
		}
	}
	memcpy(out + n, a + i, (na - i) * sizeof (coalesce_tag));
	n += na - i;
	memcpy(out + n, b + j, (nb - j) * sizeof (coalesce_tag));
	return (n + nb - j);
}

/* The merged array is in scratch's buffer: the two trade buffers. */
static void
take_scratch(tagtime *t, tagtime *scratch, uint32_t n)
{
	coalesce_tag *v = t->v;
	uint32_t cap = t->cap;

	t->v = scratch->v;
	t->cap = scratch->cap;
	t->sorted = t->n = n;
	scratch->v = v;
	scratch->cap = cap;
	scratch->sorted = scratch->n = 0;
}

void
tagtime_settle(tagtime *t, tagtime *scratch)
{
	uint32_t ntail = t->n - t->sorted;
	coalesce_tag *tail;

	/* An empty list may have no array: no pointer arithmetic on NULL. */
	if (ntail == 0)
		return;
	tail = t->v + t->sorted;
	sort_tail(tail, ntail, scratch);
	ntail = fold(tail, ntail);
	if (t->sorted == 0) {
		t->sorted = t->n = ntail;
		return;
	}
	/* Tags new to the list often come after all of its run. */
	if (tail[0].tag > t->v[t->sorted - 1].tag) {
		t->sorted = t->n = t->sorted + ntail;
		return;
	}
	reserve(scratch, t->sorted + ntail);
	take_scratch(t, scratch, merge_runs(scratch->v, t->v, t->sorted,
	    tail, ntail));
}

void
tagtime_add(tagtime *t, uint32_t tag, uint64_t time, tagtime *scratch)
{
	if (t->n > 0 && t->v[t->n - 1].tag == tag) {
		/* The run's last entry is fine to add to: it stays sorted. */
		t->v[t->n - 1].time += time;
		return;
	}
	if (t->n == t->cap) {
		uint32_t ntail = t->n - t->sorted;

		/*
		 * Settle when the tail is worth it (a quarter of the run):
		 * the sort and the merge are then paid by the additions
		 * since the last one.  Grow when that leaves the array
		 * more than half full, so settling stays that rare.
		 */
		if (ntail >= TAIL_MIN && ntail >= t->sorted / 4)
			tagtime_settle(t, scratch);
		if (t->n == t->cap || t->n > t->cap / 2)
			reserve(t, t->cap + 1);
	}
	t->v[t->n].tag = tag;
	t->v[t->n].time = time;
	t->n++;
}

void
tagtime_absorb(tagtime *into, tagtime *from, tagtime *scratch)
{
	uint32_t i;

	if (from->n == 0)
		return;
	if (into->n == 0) {
		coalesce_tag *v = into->v;
		uint32_t cap = into->cap;

		*into = *from;
		from->v = v;
		from->cap = cap;
		tagtime_clear(from);
		return;
	}
	/* A short list joins the tail; a long one is merged at once. */
	if (from->n <= TAIL_MIN) {
		for (i = 0; i < from->n; i++)
			tagtime_add(into, from->v[i].tag, from->v[i].time,
			    scratch);
		tagtime_clear(from);
		return;
	}
	tagtime_settle(into, scratch);
	tagtime_settle(from, scratch);
	reserve(scratch, into->n + from->n);
	take_scratch(into, scratch, merge_runs(scratch->v, into->v, into->n,
	    from->v, from->n));
	tagtime_clear(from);
}
