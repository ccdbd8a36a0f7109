/*
 * test_duration.c: duration_parse and duration_format.
 */
#include "base/duration.h"
#include "unit.h"

/* Parses text, expecting success and want nanoseconds. */
static void
parse_ok(const char *name, const char *text, int64_t want)
{
	int64_t got = -1;
	const char *why = NULL;
	int ok;

	ok = duration_parse(text, &got, &why);
	UNIT_REPORT(ok == 1 && got == want, name,
	    "duration_parse(\"%s\") is %d, %" PRId64 " (%s), want 1, %" PRId64,
	    text, ok, got, why != NULL ? why : "no reason", want);
}

/*
 * Parses text, expecting failure with a reason, *out untouched, and (if
 * want_why is not NULL) that exact reason.
 */
static void
parse_fail(const char *name, const char *text, const char *want_why)
{
	int64_t got = 12345;
	const char *why = NULL;
	int ok;

	ok = duration_parse(text, &got, &why);
	UNIT_REPORT(ok == 0 && got == 12345 && why != NULL &&
	    why[0] != '\0' && (want_why == NULL || strcmp(why, want_why) == 0),
	    name, "duration_parse(\"%s\") is %d, %" PRId64 ", why \"%s\"; "
	    "want 0, untouched, \"%s\"", text != NULL ? text : "(null)", ok,
	    got, why != NULL ? why : "(null)",
	    want_why != NULL ? want_why : "any reason");
}

static void
test_parse_integers(void)
{
	parse_ok("duration_parse bare number is ns", "1500", 1500);
	parse_ok("duration_parse zero", "0", 0);
	parse_ok("duration_parse leading zeros", "000000000000000000000042",
	    42);
	parse_ok("duration_parse ns", "7ns", 7);
	parse_ok("duration_parse us", "7us", 7000);
	parse_ok("duration_parse μs (U+03BC)", "7\xce\xbcs", 7000);
	parse_ok("duration_parse µs (U+00B5 micro sign)", "7\xc2\xb5s", 7000);
	parse_ok("duration_parse ms", "7ms", 7000000);
	parse_ok("duration_parse s", "7s", 7000000000);
	parse_ok("duration_parse sec", "7sec", 7000000000);
	parse_ok("duration_parse 0s", "0s", 0);
	parse_ok("duration_parse leading plus", "+1s", 1000000000);
	parse_ok("duration_parse largest", "9223372036854775807",
	    INT64_MAX);
}

/* As the original reads times (an integer, else a float), exactly. */
static void
test_parse_exponents(void)
{
	parse_ok("duration_parse 1e3", "1e3", 1000);
	parse_ok("duration_parse 1E3", "1E3", 1000);
	parse_ok("duration_parse 1e+3", "1e+3", 1000);
	parse_ok("duration_parse 2.5e5 exact", "2.5e5", 250000);
	parse_ok("duration_parse 2.5e6ns", "2.5e6ns", 2500000);
	parse_ok("duration_parse 1.5e3ms", "1.5e3ms", 1500000000);
	parse_ok("duration_parse 1e-3s", "1e-3s", 1000000);
	parse_ok("duration_parse 1e-10s truncates to 0", "1e-10s", 0);
	parse_ok("duration_parse 123e-2 truncates", "123e-2", 1);
	parse_ok("duration_parse .5e1us", ".5e1us", 5000);
	parse_ok("duration_parse 0e99999", "0e99999", 0);
	parse_ok("duration_parse 0.0e400s", "0.0e400s", 0);
	parse_ok("duration_parse 9.223372036854775807e18",
	    "9.223372036854775807e18", INT64_MAX);
	parse_ok("duration_parse +2e0", "+2e0", 2);
	parse_ok("duration_parse 1e6 with many exponent digits",
	    "1e0000000000000000000000006", 1000000);
}

static void
test_parse_decimals(void)
{
	parse_ok("duration_parse 1.5ms exact", "1.5ms", 1500000);
	parse_ok("duration_parse 0.1s exact (no binary rounding)", "0.1s",
	    100000000);
	parse_ok("duration_parse 2.25us", "2.25us", 2250);
	parse_ok("duration_parse one ns in seconds", "0.000000001s", 1);
	parse_ok("duration_parse sub-ns truncated (s)", "1.0000000001s",
	    1000000000);
	parse_ok("duration_parse sub-ns truncated, not rounded (s)",
	    "0.9999999999s", 999999999);
	parse_ok("duration_parse sub-ns truncated (ms)", "1.0000009ms",
	    1000000);
	parse_ok("duration_parse sub-ns truncated (us)", "1.2345us", 1234);
	parse_ok("duration_parse fraction of ns truncated", "1.9ns", 1);
	parse_ok("duration_parse fraction of bare ns truncated", "1.9", 1);
	parse_ok("duration_parse leading point", ".5s", 500000000);
	parse_ok("duration_parse leading point ms", ".5ms", 500000);
	parse_ok("duration_parse trailing point", "1.s", 1000000000);
	parse_ok("duration_parse trailing point bare", "1.", 1);
	parse_ok("duration_parse many fraction digits", "2.50000000000000000000"
	    "000000000001sec", 2500000000);
	parse_ok("duration_parse 1.5sec", "1.5sec", 1500000000);
}

static void
test_parse_limits(void)
{
	parse_ok("duration_parse INT64_MAX ns", "9223372036854775807",
	    INT64_MAX);
	parse_ok("duration_parse INT64_MAX ns with unit",
	    "9223372036854775807ns", INT64_MAX);
	parse_ok("duration_parse INT64_MAX as seconds with fraction",
	    "9223372036.854775807s", INT64_MAX);
	parse_ok("duration_parse INT64_MAX as seconds, sub-ns ignored",
	    "9223372036.8547758079s", INT64_MAX);
	parse_ok("duration_parse largest whole seconds", "9223372036s",
	    INT64_C(9223372036000000000));
	parse_fail("duration_parse INT64_MAX+1 ns overflows",
	    "9223372036854775808", "too large");
	parse_fail("duration_parse INT64_MAX+1 as seconds overflows",
	    "9223372036.854775808s", "too large");
	parse_fail("duration_parse 10000000000s overflows", "10000000000s",
	    "too large");
	parse_fail("duration_parse 9223372037s overflows", "9223372037s",
	    "too large");
	parse_fail("duration_parse UINT64_MAX overflows",
	    "18446744073709551615", "too large");
	parse_fail("duration_parse UINT64_MAX+1 does not wrap",
	    "18446744073709551616", "too large");
	parse_fail("duration_parse very long number overflows",
	    "100000000000000000000000000000000000000", "too large");
	parse_fail("duration_parse huge ms overflows", "9223372036855ms",
	    "too large");
}

static void
test_parse_failures(void)
{
	int64_t v = 99;

	parse_fail("duration_parse NULL fails", NULL, NULL);
	parse_fail("duration_parse empty fails", "", NULL);
	parse_fail("duration_parse unit alone fails", "ms", "not a number");
	parse_fail("duration_parse point alone fails", ".", "not a number");
	parse_fail("duration_parse point and unit fails", ".s", "not a number");
	parse_fail("duration_parse negative fails", "-1s", NULL);
	parse_fail("duration_parse plus alone fails", "+", "not a number");
	parse_fail("duration_parse two signs fail", "++1s", "not a number");
	parse_fail("duration_parse plus then minus fails", "+-1", "not a number");
	parse_fail("duration_parse leading space fails", " 1s", "not a number");
	parse_fail("duration_parse trailing space fails", "1s ", NULL);
	parse_fail("duration_parse space before unit fails", "1 s", NULL);
	parse_fail("duration_parse exponent without digits fails", "1e", NULL);
	parse_fail("duration_parse exponent sign without digits fails", "1e+s",
	    NULL);
	parse_fail("duration_parse exponent alone fails", "e5", "not a number");
	parse_fail("duration_parse huge exponent is too large", "1e400",
	    "too large");
	parse_fail("duration_parse 2^63 is too large", "9223372036854775808",
	    "too large");
	parse_fail("duration_parse 2^63 by exponent is too large",
	    "9.223372036854775808e18", "too large");
	parse_fail("duration_parse inf is not a number", "inf", "not a number");
	parse_fail("duration_parse nan is not a number", "nan", "not a number");
	parse_fail("duration_parse two points fail", "1.2.3s", NULL);
	parse_fail("duration_parse unknown unit fails", "5xs", NULL);
	parse_fail("duration_parse minutes are not a unit", "5m", NULL);
	parse_fail("duration_parse hours are not a unit", "5h", NULL);
	parse_fail("duration_parse units are case sensitive (MS)", "5MS", NULL);
	parse_fail("duration_parse units are case sensitive (S)", "5S", NULL);
	parse_fail("duration_parse plural secs fails", "5secs", NULL);
	parse_fail("duration_parse two units fail", "5mss", NULL);
	parse_fail("duration_parse lone mu fails", "5\xce\xbc", NULL);
	parse_fail("duration_parse hex fails", "0x10", NULL);
	parse_fail("duration_parse comma decimal fails", "1,5ms", NULL);
	parse_fail("duration_parse digit after unit fails", "1s5", NULL);
	parse_fail("duration_parse nan fails", "nan", "not a number");
	parse_fail("duration_parse inf fails", "inf", "not a number");

	CHECK_INT("duration_parse NULL why on failure",
	    duration_parse("bogus", &v, NULL), 0);
	CHECK_INT("duration_parse failure leaves out alone", v, 99);
	CHECK_INT("duration_parse NULL out validates only",
	    duration_parse("1.5ms", NULL, NULL), 1);
}

/* Formats ns, expecting want. */
static void
format_is(const char *name, uint64_t ns, const char *want)
{
	char buf[64];

	memset(buf, 'x', sizeof (buf));
	CHECK_STR(name, duration_format(ns, buf, sizeof (buf)), want);
}

static void
test_format(void)
{
	char buf[8], *ret;

	format_is("duration_format 0", 0, "0ns");
	format_is("duration_format 1ns", 1, "1ns");
	format_is("duration_format 999ns", 999, "999ns");
	format_is("duration_format 1000ns is 1.000us", 1000, "1.000us");
	format_is("duration_format 1001ns", 1001, "1.001us");
	format_is("duration_format 999999ns", 999999, "999.999us");
	format_is("duration_format 1ms", 1000000, "1.000ms");
	format_is("duration_format 1.5ms", 1500000, "1.500ms");
	format_is("duration_format truncates, not rounds (ms)", 1999999,
	    "1.999ms");
	format_is("duration_format truncates below a unit boundary",
	    999999999, "999.999ms");
	format_is("duration_format 2s", 2000000000, "2.000s");
	format_is("duration_format 1.000000001s truncates", 1000000001,
	    "1.000s");
	format_is("duration_format 59.25s", 59250000000, "59.250s");
	format_is("duration_format stays in seconds above 1000s",
	    1234500000000, "1234.500s");
	format_is("duration_format INT64_MAX", INT64_MAX,
	    "9223372036.854s");
	format_is("duration_format UINT64_MAX", UINT64_MAX,
	    "18446744073.709s");

	ret = duration_format(1500000, buf, 4);
	CHECK("duration_format returns buf", ret == buf);
	CHECK_STR("duration_format truncates to size", buf, "1.5");
	buf[0] = 'z';
	duration_format(1500000, buf, 0);
	CHECK_INT("duration_format size 0 writes nothing", buf[0], 'z');
	CHECK("duration_format size 0 returns buf",
	    duration_format(1, buf, 0) == buf);
	duration_format(1500000, buf, 1);
	CHECK_STR("duration_format size 1 writes only NUL", buf, "");
	duration_format(1500000, buf, sizeof (buf));
	CHECK_STR("duration_format fits \"1.500ms\" in 8 bytes", buf,
	    "1.500ms");
}

/* What duration_format writes, duration_parse reads back (truncated). */
static void
test_round_trip(void)
{
	static const uint64_t values[] = {
		0, 1, 999, 1000, 1234, 999999, 1500000, 1999999,
		2000000000, 1234567890123, INT64_MAX,
	};
	char buf[64], name[128];
	int64_t got;
	uint64_t want, unit;
	size_t i;
	int ok;

	for (i = 0; i < sizeof (values) / sizeof (values[0]); i++) {
		duration_format(values[i], buf, sizeof (buf));
		unit = values[i] >= 1000000000 ? 1000000 :
		    values[i] >= 1000000 ? 1000 : 1;
		want = values[i] / unit * unit;
		ok = duration_parse(buf, &got, NULL);
		snprintf(name, sizeof (name),
		    "duration round trip %" PRIu64 " via \"%s\"", values[i],
		    buf);
		UNIT_REPORT(ok && (uint64_t)got == want, name,
		    "parsed %d, %" PRId64 ", want %" PRIu64, ok, got, want);
	}
}

int
main(void)
{
	test_parse_integers();
	test_parse_decimals();
	test_parse_exponents();
	test_parse_limits();
	test_parse_failures();
	test_format();
	test_round_trip();
	return (unit_exit());
}
