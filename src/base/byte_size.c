#include "base/byte_size.h"

#include <string.h>

int
byte_size_parse(const char *s, uint64_t *out)
{
	const char *p = s, *units = "KMGT", *u;
	uint64_t whole = 0, mult = 1;
	double frac = 0, scale = 1;
	int digits = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (whole > BYTE_SIZE_MAX / 10)
			return (-1);
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			scale /= 10;
			frac += scale * (*p - '0');
		}
	}
	if (digits == 0)
		return (-1);
	if (((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) &&
	    (u = strchr(units, *p & ~0x20)) != NULL) {
		mult = (uint64_t)1 << (10 * (u - units + 1));
		p++;
		if (*p == 'i')
			p++;
	}
	if (*p == 'B' || *p == 'b')
		p++;
	if (*p != '\0' || whole > BYTE_SIZE_MAX / mult ||
	    (double)(whole * mult) + frac * (double)mult >
	    (double)BYTE_SIZE_MAX)
		return (-1);
	*out = whole * mult + (uint64_t)(frac * (double)mult);
	return (0);
}
