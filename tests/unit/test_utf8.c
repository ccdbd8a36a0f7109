/*
 * Unit tests for base/utf8.h's noncharacters: every code point encoded,
 * measured by utf8_char and classed by utf8_noncharacter, against the
 * definition (Unicode's 66: U+FDD0 to U+FDEF and the last two of each of
 * the 17 planes).
 */
#include <stdint.h>

#include "base/utf8.h"
#include "unit.h"

static int
encode(uint32_t c, unsigned char *b)
{
	if (c < 0x80) {
		b[0] = (unsigned char)c;
		return (1);
	}
	if (c < 0x800) {
		b[0] = (unsigned char)(0xc0 | c >> 6);
		b[1] = (unsigned char)(0x80 | (c & 0x3f));
		return (2);
	}
	if (c < 0x10000) {
		b[0] = (unsigned char)(0xe0 | c >> 12);
		b[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (c & 0x3f));
		return (3);
	}
	b[0] = (unsigned char)(0xf0 | c >> 18);
	b[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
	b[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
	b[3] = (unsigned char)(0x80 | (c & 0x3f));
	return (4);
}

static void
test_noncharacters(void)
{
	uint32_t c, found = 0, wrong = 0, first = 0;
	unsigned char b[4];

	for (c = 0; c <= 0x10ffff; c++) {
		int n, want, got;

		if (c >= 0xd800 && c <= 0xdfff)
			continue;	/* surrogates: not characters */
		n = encode(c, b);
		want = (c >= 0xfdd0 && c <= 0xfdef) || (c & 0xffff) == 0xfffe ||
		    (c & 0xffff) == 0xffff;
		got = utf8_char(b, (size_t)n) == n &&
		    utf8_noncharacter(b, n);
		found += (uint32_t)got;
		if (got != want && wrong++ == 0)
			first = c;
	}
	UNIT_REPORT(wrong == 0, "utf8: noncharacters, every code point",
	    "%u wrong, the first U+%04X", (unsigned)wrong, (unsigned)first);
	CHECK_INT("utf8: 66 noncharacters", found, 66);
}

int
main(void)
{
	test_noncharacters();
	return (unit_exit());
}
