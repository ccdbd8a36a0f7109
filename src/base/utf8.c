#include "base/utf8.h"

#include <stdint.h>
#include <string.h>

int
utf8_char(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	int len, i;

	if (c < 0x80)
		return (1);
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return (0);
	/* The second byte's range excludes overlongs and surrogates. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return (-1);
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			return (0);
	}
	return (len);
}

int
utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		int n;
		uint64_t w;

		/* Names are mostly ASCII: eight bytes at a time while so. */
		if (len - i >= 8) {
			memcpy(&w, p + i, 8);
			if ((w & 0x8080808080808080ULL) == 0) {
				i += 8;
				continue;
			}
		}
		n = p[i] < 0x80 ? 1 : utf8_char(p + i, len - i);

		if (n <= 0)
			return (0);
		i += (size_t)n;
	}
	return (1);
}

int
utf8_noncharacter(const unsigned char *s, int n)
{
	uint32_t c;

	if (n == 3)
		c = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 |
		    (s[2] & 0x3f);
	else if (n == 4)
		c = (uint32_t)(s[0] & 0x07) << 18 |
		    (uint32_t)(s[1] & 0x3f) << 12 |
		    (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
	else
		return (0);
	return ((c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) == 0xfffe);
}

size_t
utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return (len);
	/* Back over continuation bytes to the start of the cut character. */
	while (max > 0 && utf8_continues((unsigned char)s[max]))
		max--;
	return (max);
}

size_t
utf8_count(const char *s, size_t len, size_t cap)
{
	size_t i, n = 0;

	for (i = 0; i < len && n < cap; i++) {
		if (!utf8_continues((unsigned char)s[i]))
			n++;
	}
	return (n);
}

size_t
utf8_offset(const char *s, size_t len, size_t n)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (!utf8_continues((unsigned char)s[i]) && n-- == 0)
			break;
	}
	return (i);
}
