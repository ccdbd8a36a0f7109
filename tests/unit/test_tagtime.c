/*
 * Tests for src/tagtime.c: random sequences of additions, absorptions and
 * settlings, with a fixed seed, checked against a dense array per list
 * (a time and a "has it" flag per tag id) after every operation.
 */
#include <stdlib.h>
#include <string.h>

#include "tagtime.h"
#include "unit.h"

#define NAIVE_TAGS	700
#define LISTS		6

typedef struct naive {
	uint64_t time[NAIVE_TAGS];
	unsigned char has[NAIVE_TAGS];
} naive;

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (rng_state);
}

/*
 * Whether the list holds exactly the naive one's times, read as the
 * coalescer's readers do after settling: one ascending run, no repeats.
 * Before settling, the same sums must come out of the run and the tail.
 */
static int
same(const tagtime *t, const naive *m, int settled)
{
	uint64_t sum[NAIVE_TAGS];
	unsigned char has[NAIVE_TAGS];
	uint32_t i;

	if (t->sorted > t->n || t->n > t->cap)
		return (0);
	for (i = 1; i < t->sorted; i++) {
		if (t->v[i - 1].tag >= t->v[i].tag)
			return (0);
	}
	if (settled && t->sorted != t->n)
		return (0);
	memset(sum, 0, sizeof (sum));
	memset(has, 0, sizeof (has));
	for (i = 0; i < t->n; i++) {
		if (t->v[i].tag >= NAIVE_TAGS)
			return (0);
		sum[t->v[i].tag] += t->v[i].time;
		has[t->v[i].tag] = 1;
	}
	return (memcmp(sum, m->time, sizeof (sum)) == 0 &&
	    memcmp(has, m->has, sizeof (has)) == 0);
}

static void
test_against_naive(void)
{
	static naive model[LISTS];
	tagtime list[LISTS], scratch;
	int step, ok = 1, ok_settled = 1, i;
	uint32_t ntags = 3;

	memset(list, 0, sizeof (list));
	memset(&scratch, 0, sizeof (scratch));
	memset(model, 0, sizeof (model));
	for (step = 0; step < 200000 && ok && ok_settled; step++) {
		uint32_t a = (uint32_t)(rng() % LISTS);
		uint32_t b = (uint32_t)(rng() % LISTS);
		uint32_t op = (uint32_t)(rng() % 100), k;

		/* Vary how many tags are about: few repeat, many spread. */
		if (step % 5000 == 0)
			ntags = 1 + (uint32_t)(rng() % NAIVE_TAGS);
		if (op < 80) {
			/* Runs of one tag, as one entity's data give. */
			uint32_t tag = (uint32_t)(rng() % ntags);
			uint32_t times = 1 + (uint32_t)(rng() % 3);

			for (k = 0; k < times; k++) {
				uint64_t time = rng() % 4 == 0 ? 0 :
				    rng() % 100000;

				tagtime_add(&list[a], tag, time, &scratch);
				model[a].time[tag] += time;
				model[a].has[tag] = 1;
			}
		} else if (op < 92 && a != b) {
			tagtime_absorb(&list[a], &list[b], &scratch);
			for (k = 0; k < NAIVE_TAGS; k++) {
				model[a].time[k] += model[b].time[k];
				model[a].has[k] |= model[b].has[k];
			}
			memset(&model[b], 0, sizeof (model[b]));
		} else if (op < 97) {
			tagtime_settle(&list[a], &scratch);
			if (!same(&list[a], &model[a], 1))
				ok_settled = 0;
		} else {
			tagtime_clear(&list[a]);
			memset(&model[a], 0, sizeof (model[a]));
		}
		for (i = 0; i < LISTS; i++) {
			if (!same(&list[i], &model[i], 0))
				ok = 0;
		}
		if (!ok || !ok_settled)
			printf("# step %d, op %u, lists %u %u\n", step, op, a, b);
	}
	for (i = 0; i < LISTS; i++) {
		tagtime_settle(&list[i], &scratch);
		if (!same(&list[i], &model[i], 1))
			ok_settled = 0;
		tagtime_free(&list[i]);
	}
	tagtime_free(&scratch);
	CHECK("tagtime keeps the naive map's time per tag through random "
	    "additions, absorptions and clears", ok);
	CHECK("tagtime settles into one ascending run of distinct tags",
	    ok_settled);
}

/* A list that is one tag many times stays small: repeats fold. */
static void
test_repeats_fold(void)
{
	tagtime t, scratch;
	uint32_t i;
	uint64_t total = 0;

	memset(&t, 0, sizeof (t));
	memset(&scratch, 0, sizeof (scratch));
	for (i = 0; i < 100000; i++) {
		tagtime_add(&t, i % 2 == 0 ? 5 : 9, i, &scratch);
		total += i;
	}
	tagtime_settle(&t, &scratch);
	CHECK("tagtime folds repeated tags: two alternating tags stay two",
	    t.n == 2 && t.v[0].tag == 5 && t.v[1].tag == 9 &&
	    t.v[0].time + t.v[1].time == total && t.cap <= 16);
	tagtime_free(&t);
	tagtime_free(&scratch);
}

/*
 * Tails are sorted by counting when their tag ids are small, by
 * comparison when not: both ways give one ascending run with the sums.
 */
static void
test_sort_ways(void)
{
	static const uint32_t scale[] = { 1, 7, 1000003 };
	tagtime t, scratch;
	uint32_t k, i;
	int ok = 1;

	memset(&scratch, 0, sizeof (scratch));
	for (k = 0; k < sizeof (scale) / sizeof (scale[0]); k++) {
		uint64_t sum[NAIVE_TAGS], total = 0, seen = 0;

		memset(&t, 0, sizeof (t));
		memset(sum, 0, sizeof (sum));
		for (i = 0; i < 20000; i++) {
			uint32_t tag = (uint32_t)(rng() % NAIVE_TAGS);
			uint64_t time = rng() % 1000;

			tagtime_add(&t, tag * scale[k], time, &scratch);
			sum[tag] += time;
			total += time;
		}
		tagtime_settle(&t, &scratch);
		for (i = 0; i < t.n; i++) {
			if ((i > 0 && t.v[i - 1].tag >= t.v[i].tag) ||
			    t.v[i].tag % scale[k] != 0 ||
			    t.v[i].time != sum[t.v[i].tag / scale[k]])
				ok = 0;
			seen += t.v[i].time;
		}
		if (seen != total)
			ok = 0;
		tagtime_free(&t);
	}
	tagtime_free(&scratch);
	CHECK("tagtime sorts small tag ids by counting and large ones by "
	    "comparison, to the same ascending sums", ok);
}

/*
 * A zeroed list has no array: settling it must not do arithmetic on a
 * null pointer (UBSan's "applying zero offset to null pointer", found by
 * fuzz_ingest; run under make check-asan).
 */
static void
test_settle_empty(void)
{
	tagtime t, scratch;

	memset(&t, 0, sizeof (t));
	memset(&scratch, 0, sizeof (scratch));
	tagtime_settle(&t, &scratch);
	CHECK("tagtime: an empty list settles, still empty and without an array",
	    t.n == 0 && t.v == NULL);
	tagtime_free(&t);
	tagtime_free(&scratch);
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
