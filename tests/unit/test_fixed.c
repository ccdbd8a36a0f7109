/*
 * Tests for fixed.h: fixed3_format writes every double as printf's "%.3f"
 * does.  printf is the oracle: exact ties (0.0625 is 62.5 thousandths,
 * rounded to even), values a hair either side of a tie, every thousandth
 * at several scales, random doubles, and what the fast path must hand
 * over (negative zero, negatives, huge, infinite, not a number).
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
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
	return (unit_exit());
}
