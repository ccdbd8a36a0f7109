/*
 * Tests for src/taglog.c: one entity's log driven as coalesce.c drives
 * it, by random steps with a fixed seed (new ranges, additions, merges of
 * neighbouring ranges, compactions when due, full settlings), checked
 * after every step against a dense array of times per range.
 */
#include <stdlib.h>
#include <string.h>

#include "taglog.h"
#define RANDTRACE_SEED	0x2545f4914f6cdd1dULL
#include "randtrace.h"
#include "unit.h"

#define NAIVE_TAGS	700
#define MAX_RANGES	40

typedef struct naive {
	uint64_t time[NAIVE_TAGS];
	unsigned char has[NAIVE_TAGS];
} naive;

/* The log and, as its owner keeps them, where its ranges begin. */
typedef struct owner {
	taglog log;
	taglog_sorter sorter;
	uint32_t lo[MAX_RANGES];
	int nranges;
	naive model[MAX_RANGES];
} owner;

static uint32_t
range_hi(const owner *o, int i)
{
	return (i + 1 < o->nranges ? o->lo[i + 1] : o->log.n);
}

/*
 * Whether range i holds exactly the model's times (the held entry
 * counting for the last range), as one ascending run of distinct tags
 * if settled.
 */
static int
same(const owner *o, int i, int settled)
{
	uint64_t sum[NAIVE_TAGS];
	unsigned char has[NAIVE_TAGS];
	uint32_t k, lo = o->lo[i], hi = range_hi(o, i);

	if (lo > hi || hi > o->log.n || o->log.n > o->log.cap)
		return (0);
	memset(sum, 0, sizeof (sum));
	memset(has, 0, sizeof (has));
	for (k = lo; k < hi; k++) {
		if (o->log.v[k].tag >= NAIVE_TAGS || (settled && k > lo &&
		    o->log.v[k - 1].tag >= o->log.v[k].tag))
			return (0);
		sum[o->log.v[k].tag] += o->log.v[k].time;
		has[o->log.v[k].tag] = 1;
	}
	if (i == o->nranges - 1 && o->log.holding) {
		if (settled)
			return (0);
		sum[o->log.held_tag] += o->log.held_time;
		has[o->log.held_tag] = 1;
	}
	return (memcmp(sum, o->model[i].time, sizeof (sum)) == 0 &&
	    memcmp(has, o->model[i].has, sizeof (has)) == 0);
}

/* What coalesce.c's compact_tags does. */
static void
compact(owner *o)
{
	uint32_t to = 0;
	int i;

	for (i = 0; i < o->nranges; i++) {
		uint32_t lo = o->lo[i], hi = range_hi(o, i);

		o->lo[i] = to;
		to += taglog_settle_range(&o->log, lo, hi, to, &o->sorter);
	}
	taglog_cut(&o->log, to, o->nranges > 0 ? o->lo[o->nranges - 1] : to);
}

static void
add(owner *o, uint32_t tag, uint64_t time)
{
	naive *m = &o->model[o->nranges - 1];

	if (!taglog_add(&o->log, tag, time)) {
		if (taglog_compaction_due(&o->log))
			compact(o);
		taglog_make_room(&o->log);
		if (!taglog_add(&o->log, tag, time))
			return;		/* counted as a difference below */
	}
	m->time[tag] += time;
	m->has[tag] = 1;
}

static void
test_against_naive(void)
{
	static owner o;
	int step, ok = 1, ok_settled = 1, i;
	uint32_t ntags = 3;

	memset(&o, 0, sizeof (o));
	o.lo[0] = taglog_begin_range(&o.log);
	o.nranges = 1;
	for (step = 0; step < 300000 && ok && ok_settled; step++) {
		uint32_t op = (uint32_t)below(100), k;

		/* Vary how many tags are about: few repeat, many spread. */
		if (step % 5000 == 0)
			ntags = 1 + (uint32_t)below(NAIVE_TAGS);
		if (op < 80) {
			/* Runs of one tag, as one entity's data give. */
			uint32_t tag = (uint32_t)below(ntags);
			uint32_t times = 1 + (uint32_t)below(3);

			for (k = 0; k < times; k++)
				add(&o, tag, below(4) == 0 ? 0 :
				    below(100000));
		} else if (op < 88 && o.nranges < MAX_RANGES) {
			i = o.nranges++;
			memset(&o.model[i], 0, sizeof (o.model[i]));
			o.lo[i] = taglog_begin_range(&o.log);
		} else if (op < 97 && o.nranges > 1) {
			/* Range i absorbs its right neighbour. */
			int j = (int)(below((uint64_t)(o.nranges - 1)));

			for (k = 0; k < NAIVE_TAGS; k++) {
				o.model[j].time[k] += o.model[j + 1].time[k];
				o.model[j].has[k] |= o.model[j + 1].has[k];
			}
			memmove(&o.model[j + 1], &o.model[j + 2],
			    (size_t)(o.nranges - j - 2) * sizeof (naive));
			memmove(&o.lo[j + 1], &o.lo[j + 2],
			    (size_t)(o.nranges - j - 2) * sizeof (uint32_t));
			o.nranges--;
			if (j == o.nranges - 1)
				o.log.open = o.lo[j];
		} else if (op < 99) {
			taglog_flush(&o.log);
			compact(&o);
			for (i = 0; i < o.nranges; i++) {
				if (!same(&o, i, 1))
					ok_settled = 0;
			}
		}
		for (i = 0; i < o.nranges; i++) {
			if (!same(&o, i, 0))
				ok = 0;
		}
		if (!ok || !ok_settled)
			printf("# step %d, op %u\n", step, op);
	}
	CHECK("taglog keeps each range's time per tag through random "
	    "additions, new ranges, merges and compactions", ok);
	CHECK("taglog settles each range into one ascending run of distinct "
	    "tags", ok_settled);
	CHECK("taglog stays within about twice what its ranges need",
	    o.log.cap <= 4 * (o.log.n + 64));
	taglog_free(&o.log);
	taglog_sorter_free(&o.sorter);
}

/* A log of one tag many times stays small: the held entry takes them. */
static void
test_repeats_fold(void)
{
	taglog l;
	taglog_sorter sorter;
	uint32_t i;
	uint64_t total = 0;
	int ok = 1;

	memset(&l, 0, sizeof (l));
	memset(&sorter, 0, sizeof (sorter));
	taglog_begin_range(&l);
	for (i = 0; i < 100000; i++) {
		if (!taglog_add(&l, i % 2 == 0 ? 5 : 9, i)) {
			if (taglog_compaction_due(&l))
				taglog_cut(&l, taglog_settle_range(&l, 0, l.n,
				    0, &sorter), 0);
			taglog_make_room(&l);
			ok &= taglog_add(&l, i % 2 == 0 ? 5 : 9, i);
		}
		total += i;
	}
	taglog_flush(&l);
	taglog_cut(&l, taglog_settle_range(&l, 0, l.n, 0, &sorter), 0);
	CHECK("taglog folds repeated tags: two alternating tags stay two",
	    ok && l.n == 2 && l.v[0].tag == 5 && l.v[1].tag == 9 &&
	    l.v[0].time + l.v[1].time == total && l.cap <= 64);
	taglog_free(&l);
	taglog_sorter_free(&sorter);
}

/*
 * Ranges are summed per tag id when their ids are small, sorted by
 * comparison when not (one large id is enough): both ways give one
 * ascending run with the sums.
 */
static void
test_sort_ways(void)
{
	static const uint32_t scale[] = { 1, 7, 1000003 };
	static coalesce_tag in[20000];
	taglog l;
	taglog_sorter sorter;
	uint32_t k, i, n;
	int ok = 1;

	memset(&sorter, 0, sizeof (sorter));
	for (k = 0; k < sizeof (scale) / sizeof (scale[0]); k++) {
		uint64_t sum[NAIVE_TAGS], total = 0, seen = 0;

		memset(&l, 0, sizeof (l));
		memset(sum, 0, sizeof (sum));
		for (i = 0; i < 20000; i++) {
			uint32_t tag = (uint32_t)below(NAIVE_TAGS);

			in[i].tag = tag * scale[k];
			in[i].time = below(1000);
			sum[tag] += in[i].time;
			total += in[i].time;
		}
		taglog_append_range(&l, in, 20000);
		n = taglog_settle_range(&l, 0, l.n, 0, &sorter);
		for (i = 0; i < n; i++) {
			if ((i > 0 && l.v[i - 1].tag >= l.v[i].tag) ||
			    l.v[i].tag % scale[k] != 0 ||
			    l.v[i].time != sum[l.v[i].tag / scale[k]])
				ok = 0;
			seen += l.v[i].time;
		}
		if (seen != total)
			ok = 0;
		taglog_free(&l);
	}
	taglog_sorter_free(&sorter);
	CHECK("taglog sums small tag ids in place and sorts large ones by "
	    "comparison, to the same ascending sums", ok);
}

/*
 * A zeroed log has no array: settling its empty range must not do
 * arithmetic on a null pointer (UBSan's "applying zero offset to null
 * pointer"; run under make check-asan).
 */
static void
test_settle_empty(void)
{
	taglog l;
	taglog_sorter sorter;

	memset(&l, 0, sizeof (l));
	memset(&sorter, 0, sizeof (sorter));
	taglog_flush(&l);
	CHECK("taglog: an empty log settles, still empty and without an array",
	    taglog_settle_range(&l, 0, 0, 0, &sorter) == 0 && l.n == 0 &&
	    l.v == NULL);
	taglog_free(&l);
	taglog_sorter_free(&sorter);
}

int
main(void)
{
	test_against_naive();
	test_repeats_fold();
	test_sort_ways();
	test_settle_empty();
	return (unit_exit());
}
