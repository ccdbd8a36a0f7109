#include "output/fixed.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Below this, v * 1000 is under 2^30, where a double's spacing is 2^-22:
 * the product's rounding error is at most half that, so a fraction more
 * than FIXED3_MARGIN from one half rounds as the exact value would.
 */
#define FIXED3_LIMIT	1e6
#define FIXED3_MARGIN	1e-6

size_t
fixed_uint(uint64_t v, char *buf)
{
	char digits[FIXED_UINT_MAX];
	size_t len = 0, k = 0;

	do {
		digits[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (k > 0)
		buf[len++] = digits[--k];
	return (len);
}

size_t
fixed3_format(double v, char *buf)
{
	double scaled, whole, frac;
	uint64_t n;
	unsigned fp;
	size_t len;

	if (!(v >= 0 && v < FIXED3_LIMIT) || signbit(v))
		return ((size_t)snprintf(buf, FIXED3_MAX, "%.3f", v));
	scaled = v * 1000.0;
	whole = floor(scaled);
	frac = scaled - whole;		/* exact: scaled and its floor agree */
	if (fabs(frac - 0.5) < FIXED3_MARGIN)
		return ((size_t)snprintf(buf, FIXED3_MAX, "%.3f", v));
	n = (uint64_t)whole + (frac > 0.5);
	fp = (unsigned)(n % 1000);
	len = fixed_uint(n / 1000, buf);
	buf[len++] = '.';
	buf[len++] = (char)('0' + fp / 100);
	buf[len++] = (char)('0' + fp / 10 % 10);
	buf[len++] = (char)('0' + fp % 10);
	buf[len] = '\0';
	return (len);
}

/*
 * What "%.<prec>g" writes for the decimal of ndig digits (the first not
 * zero) whose first digit is worth 10^exp10, negative if neg: digits of
 * that precision, with style e below 10^-4 or from 10^prec, else style
 * f; trailing zeros and a bare point dropped.
 */
static size_t
g_style(int neg, const char *digits, int ndig, int exp10, int prec,
    char *buf)
{
	char *p = buf;
	int i;

	while (ndig > 1 && digits[ndig - 1] == '0')
		ndig--;
	if (neg)
		*p++ = '-';
	if (exp10 < -4 || exp10 >= prec) {
		int e = exp10 < 0 ? -exp10 : exp10;

		*p++ = digits[0];
		if (ndig > 1) {
			*p++ = '.';
			memcpy(p, digits + 1, (size_t)ndig - 1);
			p += ndig - 1;
		}
		*p++ = 'e';
		*p++ = exp10 < 0 ? '-' : '+';
		if (e >= 100)
			*p++ = (char)('0' + e / 100);
		*p++ = (char)('0' + e / 10 % 10);
		*p++ = (char)('0' + e % 10);
	} else if (exp10 >= 0) {
		for (i = 0; i <= exp10; i++)
			*p++ = i < ndig ? digits[i] : '0';
		if (ndig > exp10 + 1) {
			*p++ = '.';
			memcpy(p, digits + exp10 + 1, (size_t)(ndig - exp10 - 1));
			p += ndig - exp10 - 1;
		}
	} else {
		*p++ = '0';
		*p++ = '.';
		for (i = 0; i < -exp10 - 1; i++)
			*p++ = '0';
		memcpy(p, digits, (size_t)ndig);
		p += ndig;
	}
	*p = '\0';
	return ((size_t)(p - buf));
}

/*
 * Rounds the 17 digits d17 (worth 10^exp10 at the first) to prec, into
 * out and *exp; returns 0 where the digits dropped are exactly a half,
 * which they may be only by rounding: then which way the exact value
 * goes is not known here.  Otherwise the 17 digits are on the same side
 * of every halfway point as the exact value, so they round as it does.
 */
static int
round_digits(const char *d17, int exp10, int prec, char *out, int *exp)
{
	int i, up;

	if (d17[prec] == '5') {
		for (i = prec + 1; i < 17 && d17[i] == '0'; i++)
			continue;
		if (i == 17)
			return (0);
	}
	up = d17[prec] >= '5';
	memcpy(out, d17, (size_t)prec);
	*exp = exp10;
	for (i = prec - 1; up && i >= 0; i--) {
		if (out[i] == '9') {
			out[i] = '0';
		} else {
			out[i]++;
			up = 0;
		}
	}
	if (up) {
		/* 99...9 rounded up: 10...0, a place higher. */
		out[0] = '1';
		memset(out + 1, '0', (size_t)prec - 1);
		(*exp)++;
	}
	return (1);
}

size_t
fixed_round_trip(double v, char *buf)
{
	char e17[40], d17[17], digits[17];
	int neg, exp10, prec, exp;

	if (v == 0 || !isfinite(v))
		goto by_printf;
	/* "-d.dddddddddddddddde-dd": 17 digits and the exponent. */
	snprintf(e17, sizeof (e17), "%.16e", v);
	neg = e17[0] == '-';
	d17[0] = e17[neg];
	memcpy(d17 + 1, e17 + neg + 2, 16);
	exp10 = atoi(e17 + neg + 19);
	for (prec = 15; prec < 17; prec++) {
		size_t len;

		if (round_digits(d17, exp10, prec, digits, &exp))
			len = g_style(neg, digits, prec, exp, prec, buf);
		else
			len = (size_t)snprintf(buf, FIXED_G_MAX, "%.*g", prec,
			    v);
		if (strtod(buf, NULL) == v)
			return (len);
	}
	return (g_style(neg, d17, 17, exp10, 17, buf));
by_printf:
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, FIXED_G_MAX, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return (strlen(buf));
	}
	return ((size_t)snprintf(buf, FIXED_G_MAX, "%.17g", v));
}
