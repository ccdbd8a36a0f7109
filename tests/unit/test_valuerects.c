/*
 * Tests for src/coalesce/valuerects.c: hand cases (a merged rectangle's min, max,
 * mean and strings; null time), then random streams (fixed seed) checked
 * against a naive reference: the rectangles' edges must be those of the
 * state coalescer (coalesce.c) fed the same data, since the merging rule
 * is the same and looks at durations only, and each rectangle's payload
 * must be what a scan of the raw intervals it covers gives.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coalesce/coalesce.h"
#include "unit.h"
#include "coalesce/valuerects.h"

static uint64_t seed = 0x9e3779b97f4a7c15ULL;

static uint64_t
rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (seed);
}

typedef struct datum {
	uint32_t entity;
	uint64_t time;
	sm_value value;
} datum;

static void
test_hand(void)
{
	valuerects *v = valuerects_new(2, 0, 0);
	valuerects_rect x;
	uint32_t r;

	/* [0,10) 4, [10,20) null, [20,50) 10, [50,60) "a" */
	valuerects_datum(v, 0, 0, value_number(4), 0);
	valuerects_datum(v, 0, 10, VALUE_NONE, 0);
	valuerects_datum(v, 0, 20, value_number(10), 0);
	valuerects_datum(v, 0, 50, value_string(3), 0);
	valuerects_finish(v, 60);
	r = valuerects_first(v, 0);
	CHECK("valuerects hand: a first rectangle", r != VALUERECTS_NONE);
	valuerects_get(v, r, &x);
	CHECK_U64("valuerects hand: merged start", x.start, 0);
	CHECK_U64("valuerects hand: merged duration", x.duration, 50);
	CHECK_U64("valuerects hand: time with numbers", x.numtime, 40);
	CHECK("valuerects hand: min and max", x.min == 4 && x.max == 10);
	CHECK("valuerects hand: time-weighted mean of numbers only",
	    fabs(x.mean - (4.0 * 10 + 10.0 * 30) / 40) < 1e-12);
	CHECK_U64("valuerects hand: merged count", x.count, 3);
	r = valuerects_next(v, r);
	valuerects_get(v, r, &x);
	CHECK("valuerects hand: a string's time",
	    x.start == 50 && x.duration == 10 && x.numtime == 0 &&
	    x.nstrings == 1 && x.strings[0].id == 3 &&
	    x.strings[0].time == 10);
	CHECK("valuerects hand: no more", valuerects_next(v, r) ==
	    VALUERECTS_NONE);
	CHECK("valuerects hand: range", valuerects_range(v, 0, &x.min,
	    &x.max) && x.min == 4 && x.max == 10);
	CHECK("valuerects hand: unseen entity", !valuerects_seen(v, 1));
	valuerects_free(v);
}

/* What the raw intervals of entity e overlapping [s, s + d) hold. */
typedef struct payload {
	uint64_t numtime;
	double min, max, sum;
	uint64_t str[4];
} payload;

static void
naive(const datum *d, size_t n, uint32_t e, uint64_t stop, int64_t end,
    uint64_t s, uint64_t dur, payload *p)
{
	size_t i, j;

	memset(p, 0, sizeof (*p));
	for (i = 0; i < n; i++) {
		uint64_t a, b, lo, hi;

		if (d[i].entity != e || (end > 0 && d[i].time > (uint64_t)end))
			continue;
		for (j = i + 1; j < n; j++)
			if (d[j].entity == e)
				break;
		a = d[i].time;
		b = j < n && !(end > 0 && d[j].time > (uint64_t)end) ?
		    d[j].time : stop;
		lo = a > s ? a : s;
		hi = b < s + dur ? b : s + dur;
		if (hi <= lo)
			continue;
		if (value_is_number(d[i].value)) {
			double x = value_to_double(d[i].value);

			if (p->numtime == 0 || x < p->min)
				p->min = x;
			if (p->numtime == 0 || x > p->max)
				p->max = x;
			p->sum += x * (double)(hi - lo);
			p->numtime += hi - lo;
		} else if (value_is_string(d[i].value)) {
			p->str[value_string_id(d[i].value)] += hi - lo;
		}
	}
}

static int
one_round(int round)
{
	uint32_t nents = 1 + (uint32_t)(rnd() % 5), e;
	size_t n = 1 + rnd() % 300, i;
	uint64_t budget = 1 + rnd() % 40, *last, stop;
	int64_t begin = rnd() % 3 == 0 ? (int64_t)(rnd() % 500) : 0;
	int64_t end = rnd() % 3 == 0 ? (int64_t)(rnd() % 3000) : 0;
	datum *d = calloc(n, sizeof (datum));
	valuerects *v;
	coalesce *c;
	int ok = 1;

	last = calloc(nents, sizeof (uint64_t));
	for (i = 0; i < n; i++) {
		uint64_t k = rnd() % 10;

		d[i].entity = (uint32_t)(rnd() % nents);
		/* Times strictly increase per entity: no zero-length ties. */
		last[d[i].entity] += 1 + rnd() % 40;
		d[i].time = last[d[i].entity];
		d[i].value = k == 0 ? VALUE_NONE : d[i].entity == 0 ?
		    value_string((uint32_t)(rnd() % 4)) :
		    value_number((double)(int64_t)(rnd() % 2001 - 1000) / 8);
	}
	/*
	 * A begin at or past the end is refused by the classic command
	 * before anything is drawn (both coalescers agree on the nonsense).
	 */
	if (begin > 0 && (uint64_t)begin >= d[n - 1].time)
		begin = (int64_t)d[n - 1].time / 2;
	if (end > 0 && end <= begin)
		end = begin + 1 + (int64_t)(rnd() % 1000);
	v = valuerects_new(budget, begin, end);
	c = coalesce_new(1, budget, begin, end);
	for (i = 0; i < n; i++) {
		valuerects_datum(v, d[i].entity, d[i].time, d[i].value, 0);
		if (coalesce_in_bounds(c, d[i].time))
			coalesce_datum(c, d[i].entity, d[i].time, 0,
			    COALESCE_NO_TAG);
		if (valuerects_size(v) != coalesce_size(c))
			ok = 0;
	}
	/* As the classic command: the last datum's time in file order. */
	stop = d[n - 1].time;
	valuerects_finish(v, stop);
	coalesce_finish(c, stop);
	if (end > 0 && (uint64_t)end < stop)
		stop = (uint64_t)end;
	for (e = 0; e < nents && ok; e++) {
		uint32_t a = valuerects_first(v, e);
		uint32_t b = e < coalesce_nentities(c) ? coalesce_first(c, e) :
		    COALESCE_NONE;

		for (; a != VALUERECTS_NONE && b != COALESCE_NONE;
		    a = valuerects_next(v, a), b = coalesce_next(c, b)) {
			valuerects_rect x;
			coalesce_rect y;
			payload p;
			uint32_t s;

			valuerects_get(v, a, &x);
			coalesce_get(c, b, &y);
			if (x.start != y.start || x.duration != y.duration ||
			    x.count != y.count) {
				ok = 0;
				break;
			}
			naive(d, n, e, stop, end, x.start, x.duration, &p);
			if (p.numtime != x.numtime || (p.numtime > 0 &&
			    (p.min != x.min || p.max != x.max ||
			    fabs(p.sum / (double)p.numtime - x.mean) >
			    1e-9 * (1 + fabs(x.mean)))))
				ok = 0;
			for (s = 0; s < 4; s++) {
				uint64_t t = 0;
				size_t k;

				for (k = 0; k < x.nstrings; k++)
					if (x.strings[k].id == s)
						t = x.strings[k].time;
				if (t != p.str[s])
					ok = 0;
			}
		}
		if (a != VALUERECTS_NONE || b != COALESCE_NONE)
			ok = 0;
	}
	if (!ok && getenv("VR_DEBUG") != NULL) {
		for (i = 0; i < n; i++)
			printf("# d %u %llu %llx\n", d[i].entity,
			    (unsigned long long)d[i].time,
			    (unsigned long long)d[i].value);
		for (e = 0; e < nents; e++) {
			uint32_t a;

			for (a = valuerects_first(v, e); a != VALUERECTS_NONE;
			    a = valuerects_next(v, a)) {
				valuerects_rect x;

				valuerects_get(v, a, &x);
				printf("# v %u [%llu +%llu) n%llu\n", e,
				    (unsigned long long)x.start,
				    (unsigned long long)x.duration,
				    (unsigned long long)x.numtime);
			}
			for (a = e < coalesce_nentities(c) ?
			    coalesce_first(c, e) : COALESCE_NONE;
			    a != COALESCE_NONE; a = coalesce_next(c, a)) {
				coalesce_rect y;

				coalesce_get(c, a, &y);
				printf("# c %u [%llu +%llu)\n", e,
				    (unsigned long long)y.start,
				    (unsigned long long)y.duration);
			}
		}
	}
	if (!ok)
		printf("# round %d: %u entities, %zu data, budget %" PRIu64
		    ", begin %" PRId64 ", end %" PRId64 "\n", round, nents, n,
		    budget, begin, end);
	valuerects_free(v);
	coalesce_free(c);
	free(d);
	free(last);
	return (ok);
}

static void
test_random(void)
{
	int i, ok = 1;

	for (i = 0; i < 400 && ok; i++)
		ok = one_round(i);
	CHECK("valuerects random streams: edges as coalesce.c, payload as "
	    "a naive scan", ok);
}

int
main(void)
{
	test_hand();
	test_random();
	return (unit_exit());
}
