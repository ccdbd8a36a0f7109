#include "output/fixed.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

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
