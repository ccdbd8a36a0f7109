#include "base/duration.h"

#include <stdio.h>
#include <string.h>

/* ---- Parsing ------------------------------------------------------------ */

typedef struct duration_unit {
	const char *name;
	int digits;		/* log10 of the nanoseconds in one unit */
} duration_unit;

/*
 * Units are case sensitive: "Ms" or "MS" could as well mean megaseconds,
 * and a mistyped unit should fail rather than be guessed at.  Both micro
 * signs are accepted: the header's U+03BC and U+00B5, which is what many
 * keyboards type (AltGr+m) and what looks the same on screen.
 */
static const duration_unit units[] = {
	{ "", 0 },
	{ "ns", 0 },
	{ "us", 3 },
	{ "\xce\xbcs", 3 },	/* U+03BC GREEK SMALL LETTER MU */
	{ "\xc2\xb5s", 3 },	/* U+00B5 MICRO SIGN */
	{ "ms", 6 },
	{ "s", 9 },
	{ "sec", 9 },
};

static int
is_digit(int ch)
{
	return (ch >= '0' && ch <= '9');
}

static int
duration_fail(const char **why, const char *msg)
{
	if (why != NULL)
		*why = msg;
	return (0);
}

/*
 * The number is kept as text until the unit is known and then converted
 * with integers only, so "1.5ms" is exactly 1500000, "0.1s" exactly
 * 100000000 and "2.5e5" exactly 250000, which a double would not
 * guarantee.  Either side of the point may be empty (".5s" and "1.s" are
 * accepted, as strtod would) but not both.  The original tool reads a
 * time as an integer or else as a float, so a leading '+' and an
 * exponent are accepted too.  Digits below a nanosecond are dropped:
 * truncation, so a parsed value never exceeds what was written.  *out is
 * written only on success; out may be NULL to validate only.
 */
int
duration_parse(const char *text, int64_t *out, const char **why)
{
	const char *p, *ip, *fp, *unit;
	size_t ilen = 0, flen = 0, i, ndigits;
	const duration_unit *u = NULL;
	int64_t value = 0, exponent = 0, point;
	int d;

	if (text == NULL || text[0] == '\0')
		return (duration_fail(why, "empty duration"));
	if (text[0] == '-')
		return (duration_fail(why, "negative duration"));
	p = text[0] == '+' ? text + 1 : text;

	ip = p;
	while (is_digit((unsigned char)*p))
		p++;
	ilen = (size_t)(p - ip);
	fp = p;
	if (*p == '.') {
		fp = ++p;
		while (is_digit((unsigned char)*p))
			p++;
		flen = (size_t)(p - fp);
	}
	if (ilen == 0 && flen == 0)
		return (duration_fail(why, "not a number"));
	if ((*p == 'e' || *p == 'E') && (is_digit((unsigned char)p[1]) ||
	    ((p[1] == '+' || p[1] == '-') && is_digit((unsigned char)p[2])))) {
		int negative = p[1] == '-';

		p += p[1] == '+' || p[1] == '-' ? 2 : 1;
		for (; is_digit((unsigned char)*p); p++) {
			/* Beyond this any non-zero value overflows anyway. */
			if (exponent < 100000)
				exponent = exponent * 10 + (*p - '0');
		}
		if (negative)
			exponent = -exponent;
	}

	unit = p;
	for (i = 0; i < sizeof (units) / sizeof (units[0]); i++) {
		if (strcmp(unit, units[i].name) == 0) {
			u = &units[i];
			break;
		}
	}
	if (u == NULL) {
		/* Name the likely mistake if it is not the unit's spelling. */
		if (*unit == '.')
			return (duration_fail(why,
			    "more than one decimal point"));
		if (*unit == ' ' || *unit == '\t')
			return (duration_fail(why, "space before unit"));
		return (duration_fail(why,
		    "unknown unit (use ns, us, ms, s or sec)"));
	}

	/*
	 * The digits of both parts, read as one integer, scaled by the
	 * exponent and the unit: the first `point` of them are the whole
	 * nanoseconds, and zeros follow them if there are fewer.
	 */
	ndigits = ilen + flen;
	point = (int64_t)ilen + exponent + u->digits;
	for (i = 0; point > 0 && (int64_t)i < point; i++) {
		d = i < ilen ? ip[i] - '0' : i < ndigits ? fp[i - ilen] - '0' :
		    0;
		if (value > (INT64_MAX - d) / 10)
			return (duration_fail(why, "too large"));
		value = value * 10 + d;
		/* Only zeros are left: the rest cannot change the value
		 * but by a factor of ten each, checked as they come. */
		if (i >= ndigits && value == 0)
			break;
	}
	if (out != NULL)
		*out = value;
	return (1);
}

/* ---- Axis steps ---------------------------------------------------------- */

uint64_t
duration_step(double want)
{
	uint64_t step = 1;

	for (;;) {
		if ((double)step >= want)
			return (step);
		if ((double)step * 2 >= want)
			return (step * 2);
		if ((double)step * 5 >= want)
			return (step * 5);
		if (step > UINT64_MAX / 100)
			return (step * 10);
		step *= 10;
	}
}

/* ---- Formatting --------------------------------------------------------- */

/*
 * Extra digits are truncated, not rounded: rounding would print 999999999
 * ns as "1000.000ms", or carry it into a unit the rule did not pick, and a
 * truncated value never claims more time than was spent.  So 1999999 ns
 * is "1.999ms".
 */
char *
duration_format(uint64_t ns, char *buf, size_t size)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} fmt_units[] = {
		{ "s", 1000000000 },
		{ "ms", 1000000 },
		{ "us", 1000 },
	};
	size_t i;

	if (size == 0)
		return (buf);
	for (i = 0; i < sizeof (fmt_units) / sizeof (fmt_units[0]); i++) {
		if (ns >= fmt_units[i].ns) {
			snprintf(buf, size, "%llu.%03llu%s",
			    (unsigned long long)(ns / fmt_units[i].ns),
			    (unsigned long long)(ns % fmt_units[i].ns /
			    (fmt_units[i].ns / 1000)),
			    fmt_units[i].name);
			return (buf);
		}
	}
	snprintf(buf, size, "%lluns", (unsigned long long)ns);
	return (buf);
}
