/* Tests for src/output/label.c: entity labels, composed and cut. */
#include <stdlib.h>
#include <string.h>

#include "output/label.h"
#include "unit.h"

static char buf[256];
static int bad_lengths;

static const char *
compose(const char *name, const char *desc, label_mode mode, size_t max)
{
	size_t n = label_compose(name, strlen(name), desc, mode, max, buf);

	if (n != strlen(buf) || n > max)
		bad_lengths++;
	return (buf);
}

/* Whether s is whole UTF-8: no character cut (the names here are valid). */
static int
valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p != '\0') {
		int n = *p < 0x80 ? 1 : *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 :
		    *p >= 0xc0 ? 2 : 0;
		int i;

		if (n == 0)
			return (0);
		for (i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return (0);
		}
		p += n;
	}
	return (1);
}

int
main(void)
{
	const char *d = "postgres: client backend 10.0.0.7";
	label_mode m;
	size_t max, n;
	int bad;

	/* The three modes, with room for everything. */
	CHECK_STR("label both", compose("4118", d, LABEL_BOTH, 100),
	    "4118 postgres: client backend 10.0.0.7");
	CHECK_STR("label name", compose("4118", d, LABEL_NAME, 100), "4118");
	CHECK_STR("label description", compose("4118", d, LABEL_DESCRIPTION,
	    100), d);
	CHECK_STR("label both without a description",
	    compose("4118", NULL, LABEL_BOTH, 100), "4118");
	CHECK_STR("label an empty description is none",
	    compose("4118", "", LABEL_BOTH, 100), "4118");
	CHECK_STR("label description falls back on the name",
	    compose("4118", NULL, LABEL_DESCRIPTION, 100), "4118");
	CHECK_INT("label_length both", label_length("4118", 4, d, LABEL_BOTH),
	    5 + strlen(d));
	CHECK_INT("label_length name", label_length("4118", 4, d, LABEL_NAME),
	    4);
	CHECK_INT("label_length description",
	    label_length("4118", 4, NULL, LABEL_DESCRIPTION), 4);

	/* Exactly full, then one byte short: the description is cut. */
	max = 5 + strlen(d);
	CHECK_STR("label both exactly fits", compose("4118", d, LABEL_BOTH,
	    max), "4118 postgres: client backend 10.0.0.7");
	CHECK_STR("label both cuts the description",
	    compose("4118", d, LABEL_BOTH, 20), "4118 postgres: cl\xe2\x80\xa6");
	CHECK_STR("label no space before the ellipsis",
	    compose("4118", d, LABEL_BOTH, 18), "4118 postgres:\xe2\x80\xa6");
	/* No room for a character of the description: the name alone. */
	CHECK_STR("label both keeps the name", compose("4118", d, LABEL_BOTH,
	    8), "4118");
	CHECK_STR("label both, a character of the description",
	    compose("4118", d, LABEL_BOTH, 9), "4118 p\xe2\x80\xa6");
	CHECK_STR("label a long name is cut", compose("abcdefghij", d,
	    LABEL_BOTH, 8), "abcde\xe2\x80\xa6");
	CHECK_STR("label description cut", compose("4118", d,
	    LABEL_DESCRIPTION, 12), "postgres:\xe2\x80\xa6");
	CHECK_STR("label too small for an ellipsis", compose("abcdef", NULL,
	    LABEL_NAME, 3), "abc");
	CHECK_STR("label nothing fits", compose("abcdef", NULL, LABEL_NAME,
	    0), "");

	/*
	 * 39 x and an e-acute (2 bytes): 41 bytes.  Cut at 40 the old way it
	 * split the e-acute; any cut must end between characters.
	 */
	CHECK_STR("label 39 x and e-acute, cut before the e-acute",
	    compose("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xc3\xa9", NULL,
	    LABEL_NAME, 42), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xc3\xa9");
	CHECK_STR("label 39 x and e-acute, at 40 bytes",
	    compose("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xc3\xa9", NULL,
	    LABEL_NAME, 40), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xe2\x80\xa6");
	bad = 0;
	for (max = 0; max < 40; max++) {
		/* Two-, three- and four-byte characters, cut everywhere. */
		static const char *names[] = {
			"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
			"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac",
			"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80x\xf0\x9f\x98\x80",
		};
		size_t i;

		for (i = 0; i < 3; i++) {
			n = label_compose(names[i], strlen(names[i]),
			    "d\xc3\xa9scription \xe6\x97\xa5", LABEL_BOTH, max, buf);
			if (n > max || !valid_utf8(buf))
				bad++;
			n = label_compose(names[i], strlen(names[i]), NULL,
			    LABEL_NAME, max, buf);
			if (n > max || !valid_utf8(buf))
				bad++;
			n = label_compose("n", 1, names[i], LABEL_DESCRIPTION,
			    max, buf);
			if (n > max || !valid_utf8(buf))
				bad++;
		}
	}
	CHECK_INT("label cuts only between characters", bad, 0);

	/* A NUL in a name is data: the name's length counts, not strlen. */
	n = label_compose("a\0b", 3, NULL, LABEL_NAME, 10, buf);
	CHECK("label a name with a NUL", n == 3 && memcmp(buf, "a\0b", 4) == 0);

	CHECK("label_mode_parse both", label_mode_parse("both", &m) == 0 &&
	    m == LABEL_BOTH);
	CHECK("label_mode_parse name", label_mode_parse("name", &m) == 0 &&
	    m == LABEL_NAME);
	CHECK("label_mode_parse description",
	    label_mode_parse("description", &m) == 0 && m == LABEL_DESCRIPTION);
	CHECK_INT("label_mode_parse rejects others",
	    label_mode_parse("Name", &m), -1);
	CHECK_INT("label the default mode is both", (int)LABEL_BOTH, 0);
	CHECK_INT("label returns the length it wrote, at most max_bytes",
	    bad_lengths, 0);
	return (unit_exit());
}
