/*
 * Tests for fixed.h: fixed3_format writes every double as printf's "%.3f"
 * does.  printf is the oracle: exact ties (0.0625 is 62.5 thousandths,
 * rounded to even), values a hair either side of a tie, every thousandth
 * at several scales, random doubles, and what the fast path must hand
 * over (negative zero, negatives, huge, infinite, not a number).
 * fixed_round_trip against the loop it replaces: "%.15g", "%.16g" and
 * "%.17g", the first that strtod reads back, on means of integers,
 * random doubles, each side of powers of ten and of halfway digits.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/fixed.h"
#include "unit.h"

#define RANDTRACE_SEED	0x9e3779b97f4a7c15u
#include "randtrace.h"

static int mismatches;
static char first_bad[FIXED3_MAX * 3];

static void
compare(double v)
{
	char want[FIXED3_MAX], got[FIXED3_MAX + 8];
	size_t len;

	memset(got, 'Z', sizeof (got));
	snprintf(want, sizeof (want), "%.3f", v);
	len = fixed3_format(v, got);
	if (len != strlen(want) || strcmp(got, want) != 0) {
		if (mismatches++ == 0)
			snprintf(first_bad, sizeof (first_bad), "%a: got "
			    "\"%.*s\", want \"%s\"", v, (int)(len < FIXED3_MAX ?
			    len : 40), got, want);
	}
}

static void
report(const char *name)
{
	UNIT_REPORT(mismatches == 0, name, "%d differ, first %s", mismatches,
	    first_bad);
	mismatches = 0;
}


/*
 * fixed_uint against printf's PRIu64: zero, each side of every power of
 * ten, the largest values, random ones.
 */
static void
test_uint(void)
{
	char want[32], got[FIXED_UINT_MAX + 1];
	uint64_t p = 1, v[4];
	int bad = 0, i, k;

	for (i = 0; i < 20000; i++) {
		v[0] = p;
		v[1] = p - 1;
		v[2] = p + 1;
		v[3] = i < 20 ? UINT64_MAX - (uint64_t)i : next() >> (i % 64);
		for (k = 0; k < 4; k++) {
			size_t len = fixed_uint(v[k], got);

			got[len] = '\0';
			snprintf(want, sizeof (want), "%" PRIu64, v[k]);
			bad += strcmp(got, want) != 0;
		}
		if (i < 19)
			p *= 10;
	}
	CHECK_INT("fixed_uint as printf's PRIu64: zero, powers of ten and "
	    "their neighbours, the largest, 20,000 random", bad, 0);
}

/* What kindjson wrote before fixed_round_trip: printf three times. */
static void
round_trip_by_printf(double v, char *buf)
{
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, FIXED_G_MAX, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, FIXED_G_MAX, "%.17g", v);
}

static int rt_bad;
static char rt_first[160];

static void
compare_rt(double v)
{
	char want[FIXED_G_MAX], got[FIXED_G_MAX + 8];
	size_t len;

	if (!isfinite(v))
		return;
	memset(got, 'Z', sizeof (got));
	round_trip_by_printf(v, want);
	len = fixed_round_trip(v, got);
	if (len != strlen(want) || strcmp(got, want) != 0) {
		if (rt_bad++ == 0)
			snprintf(rt_first, sizeof (rt_first), "%a: got \"%.*s\","
			    " want \"%s\"", v, (int)(len < FIXED_G_MAX ? len :
			    FIXED_G_MAX), got, want);
	}
}

static void
test_round_trip(void)
{
	uint64_t i;
	int e;

	for (i = 0; i < 200000; i++) {
		/* A counter's mean: a sum of integers over a count. */
		double sum = (double)(next() % 1000000000), n = (double)(1 +
		    next() % 100000);

		compare_rt(sum / n);
		compare_rt(-sum / n);
	}
	for (i = 0; i < 200000; i++) {
		uint64_t bits = next();
		double v;

		memcpy(&v, &bits, sizeof (v));
		compare_rt(v);
	}
	for (e = -320; e <= 308; e++) {
		double p = pow(10, e);

		compare_rt(p);
		compare_rt(nextafter(p, 0));
		compare_rt(nextafter(p, INFINITY));
		compare_rt(9.5 * p);
		compare_rt(9.999999999999999 * p);
		compare_rt(1.25 * p);
	}
	/* Digits that end in a half at 15 and 16 places, and near it. */
	for (i = 0; i < 20000; i++) {
		double v = (double)(next() % 100000000000000ull) + 0.5;

		compare_rt(v);
		compare_rt(v / 10);
		compare_rt(nextafter(v, 0));
		compare_rt(nextafter(v, INFINITY));
		compare_rt(1e-6 * (double)(next() % 1000000000000000ull) +
		    5e-22);
	}
	compare_rt(0.0);
	compare_rt(-0.0);
	compare_rt(0.1);
	compare_rt(1e-5);
	compare_rt(1e-4);
	compare_rt(123456789012345678.0);
	compare_rt(4.9406564584124654e-324);
	compare_rt(2.2250738585072014e-308);
	compare_rt(1.7976931348623157e308);
	compare_rt(-1.7976931348623157e308);
	UNIT_REPORT(rt_bad == 0, "fixed_round_trip as the loop of printf and "
	    "strtod: means, random bits, powers of ten, halves",
	    "%d differ, first %s", rt_bad, rt_first);
}

int
main(void)
{
	uint64_t i;
	double scale;

	/* Ties: (2k+1)/2000 is a double when 125 divides 2k+1. */
	for (i = 0; i < 200000; i++)
		compare((double)(125 * (2 * i + 1)) / 2000.0);
	compare(0.0625);
	compare(0.1875);
	report("exact ties, rounded to even as printf does");

	for (i = 0; i < 200000; i++) {
		double v = ((double)i + 0.5) / 1000.0;

		compare(v);
		compare(nextafter(v, 0));
		compare(nextafter(v, 1e9));
	}
	report("a hair either side of every half thousandth below 200");

	for (scale = 1e-3; scale < 2e6; scale *= 10) {
		for (i = 0; i < 100000; i++)
			compare((double)i * scale / 1000.0);
	}
	report("every thousandth, and multiples, at eight scales");

	for (i = 0; i < 2000000; i++) {
		uint64_t bits = next();
		double unit = (double)(bits >> 11) / 9007199254740992.0;

		compare(unit * 1e6 * (below(2) == 0 ? 1.0 : 1e-3));
	}
	report("two million random doubles below 1e6 and below 1000");

	for (i = 0; i < 200000; i++) {
		uint64_t bits = next();
		double v;

		memcpy(&v, &bits, sizeof (v));
		compare(v);
	}
	report("random bit patterns: every sign, size and NaN");

	compare(0.0);
	compare(-0.0);
	compare(-0.0004);
	compare(-1.5);
	compare(1e6);
	compare(nextafter(1e6, 0));
	compare(999999.9995);
	compare(0.0005);
	compare(0.0015);
	compare(4.9406564584124654e-324);
	compare(1.7976931348623157e308);
	compare(-1.7976931348623157e308);
	compare(INFINITY);
	compare(-INFINITY);
	compare(NAN);
	report("zeros, limits, infinities, not a number");
	test_uint();
	test_round_trip();
	return (unit_exit());
}
