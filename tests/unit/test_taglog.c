/*
 * Tests for src/coalesce/taglog.c: one entity's log driven as coalesce.c drives
 * it, by random steps with a fixed seed (new ranges, additions, merges of
 * neighbouring ranges, compactions when due, full settlings), checked
 * after every step against a dense array of times per range.
 */
#include <stdlib.h>
#include <string.h>

#include "coalesce/taglog.h"
#define RANDTRACE_SEED	0x2545f4914f6cdd1dULL
#include "randtrace.h"
#include "unit.h"

#define NAIVE_TAGS	700
#define MAX_RANGES	40

/*
 * The model's tags 0 to 699 as the log's: the last hundred straddle
 * 2^24 - 1, from which tags go to the side array.
 */
#define WIDE_FROM	600
#define WIDE_BASE	(((uint32_t)1 << 24) - 1 - 50)

static uint32_t
log_tag(uint32_t i)
{
	return (i < WIDE_FROM ? i : WIDE_BASE + (i - WIDE_FROM));
}

static uint32_t
model_tag(uint32_t tag)
{
	if (tag < WIDE_FROM)
		return (tag);
	if (tag >= WIDE_BASE && tag - WIDE_BASE < NAIVE_TAGS - WIDE_FROM)
		return (WIDE_FROM + (tag - WIDE_BASE));
	return (NAIVE_TAGS);	/* not one of ours */
}

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
		taglog_pair e = taglog_entry(&o->log, k);
		uint32_t t = model_tag(e.tag);

		if (t >= NAIVE_TAGS || (settled && k > lo &&
		    taglog_entry(&o->log, k - 1).tag >= e.tag))
			return (0);
		sum[t] += e.time;
		has[t] = 1;
	}
	if (i == o->nranges - 1 && o->log.holding) {
		if (settled || model_tag(o->log.held_tag) >= NAIVE_TAGS)
			return (0);
		sum[model_tag(o->log.held_tag)] += o->log.held_time;
		has[model_tag(o->log.held_tag)] = 1;
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

	if (!taglog_add(&o->log, log_tag(tag), time)) {
		if (taglog_compaction_due(&o->log))
			compact(o);
		taglog_make_room(&o->log);
		if (!taglog_add(&o->log, log_tag(tag), time))
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
	uint32_t ntags = 3, most_settled = 0;

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

			/*
			 * Now and then a time of 2^40 ns or about, which
			 * goes to the side array, or sums past it.
			 */
			for (k = 0; k < times; k++)
				add(&o, tag, below(4) == 0 ? 0 :
				    below(500) == 0 ? ((uint64_t)1 << 40) - 2 +
				    below(4) : below(100000));
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
		if (o.log.settled > most_settled)
			most_settled = o.log.settled;
		if (!ok || !ok_settled)
			printf("# step %d, op %u\n", step, op);
	}
	CHECK("taglog keeps each range's time per tag through random "
	    "additions, new ranges, merges and compactions", ok);
	CHECK("taglog settles each range into one ascending run of distinct "
	    "tags", ok_settled);
	/* What the ranges needed at most: the longest settled log. */
	CHECK("taglog stays within about twice what its ranges need",
	    o.log.cap <= 4 * (most_settled + 64));
	taglog_flush(&o.log);
	compact(&o);
	CHECK("taglog: a compaction keeps only the side entries still named",
	    taglog_side_entries(&o.log) <= o.log.n &&
	    taglog_side_entries(&o.log) > 0);
	for (i = 0, ok = 1; i < o.nranges; i++)
		ok &= same(&o, i, 1);
	CHECK("taglog: the last compaction leaves every range's sums", ok);
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
	    ok && l.n == 2 && taglog_entry(&l, 0).tag == 5 &&
	    taglog_entry(&l, 1).tag == 9 && taglog_entry(&l, 0).time +
	    taglog_entry(&l, 1).time == total && l.cap <= 64);
	taglog_free(&l);
	taglog_sorter_free(&sorter);
}

/*
 * Ranges are summed per tag id when their ids are small, sorted when not
 * (one large id is enough): by the words' tag bytes in a log of words
 * alone (ids up to 7 * 699 vary in two bytes, up to 23003 * 699 in
 * three), by comparison in one with a side array (1000003 * 699 is past
 * a word's tags): every way gives one ascending run with the sums.
 */
static void
test_sort_ways(void)
{
	static const uint32_t scale[] = { 1, 7, 23003, 1000003 };
	static taglog_pair in[20000];
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
		taglog_cut(&l, n, 0);
		for (i = 0; i < n; i++) {
			taglog_pair e = taglog_entry(&l, i);

			if ((i > 0 && taglog_entry(&l, i - 1).tag >= e.tag) ||
			    e.tag % scale[k] != 0 ||
			    e.time != sum[e.tag / scale[k]])
				ok = 0;
			seen += e.time;
		}
		if (seen != total)
			ok = 0;
		taglog_free(&l);
	}
	taglog_sorter_free(&sorter);
	CHECK("taglog sums small tag ids in place and sorts large ones by "
	    "their bytes or by comparison, to the same ascending sums", ok);
}

/*
 * Times too long for a word, alone and as sums of short ones, in both
 * ways of settling: each tag's sum exact, the words' time bits never
 * carrying into the tag.
 */
static void
test_long_times(void)
{
	static const uint32_t tags[] = { 3, 5000, 3, 5000, 3 };
	const uint64_t big = (uint64_t)1 << 40;
	taglog l;
	taglog_sorter sorter;
	int way, ok = 1;

	memset(&sorter, 0, sizeof (sorter));
	for (way = 0; way < 2; way++) {
		uint64_t want3 = 0, want5000 = 0;
		uint32_t i, n;

		memset(&l, 0, sizeof (l));
		taglog_begin_range(&l);
		for (i = 0; i < 5; i++) {
			/* way 0: small ids only, summed in place. */
			uint32_t tag = way == 0 ? tags[i] % 4096 : tags[i];
			uint64_t t = i == 0 ? 3 * big + 7 : big / 2 + i;

			if (!taglog_add(&l, tag, t)) {
				taglog_make_room(&l);
				ok &= taglog_add(&l, tag, t);
			}
			if (tags[i] == 3)
				want3 += t;
			else
				want5000 += t;
		}
		taglog_flush(&l);
		n = taglog_settle_range(&l, 0, l.n, 0, &sorter);
		taglog_cut(&l, n, 0);
		ok &= n == 2 && taglog_entry(&l, 0).tag == 3 &&
		    taglog_entry(&l, 0).time == want3 &&
		    taglog_entry(&l, 1).tag == (way == 0 ? 5000 % 4096 :
		    5000) && taglog_entry(&l, 1).time == want5000;
		taglog_free(&l);
	}
	taglog_sorter_free(&sorter);
	CHECK("taglog keeps times of 2^40 ns and more, and sums past it, "
	    "exactly", ok);
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
	test_long_times();
	test_settle_empty();
	return (unit_exit());
}
