/*
 * Unit tests for xml_escape (output/xml_escape.h): markup escaped,
 * characters XML forbids and bytes that are not UTF-8 made U+FFFD, every
 * valid character kept as it is.
 */
#include <stdlib.h>

#include "output/xml_escape.h"
#include "unit.h"

#define FFFD	"\xef\xbf\xbd"

/* xml_escape of len bytes of s, as a malloc'd string. */
static char *
escaped(const char *s, size_t len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	xml_escape(f, s, len);
	fclose(f);
	return (buf);
}

static void
check_escape(const char *name, const char *s, size_t len, const char *want)
{
	char *got = escaped(s, len);

	CHECK_STR(name, got, want);
	free(got);
}

#define ESCAPE(name, lit, want)	check_escape(name, lit, sizeof (lit) - 1, want)

int
main(void)
{
	ESCAPE("xml: markup", "<a href=\"x\">&'</a>",
	    "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
	ESCAPE("xml: tab, newline and return kept, other controls not",
	    "a\tb\nc\rd\x01" "e\x1f", "a\tb\nc\rd" FFFD "e" FFFD);
	ESCAPE("xml: a NUL", "a\0b", "a" FFFD "b");
	ESCAPE("xml: characters of 2, 3 and 4 bytes kept",
	    "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd",
	    "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd");
	ESCAPE("xml: U+FFFE and U+FFFF", "a\xef\xbf\xbe" "b\xef\xbf\xbf",
	    "a" FFFD "b" FFFD);
	ESCAPE("xml: other noncharacters are XML characters",
	    "\xef\xb7\x90\xf4\x8f\xbf\xbe", "\xef\xb7\x90\xf4\x8f\xbf\xbe");
	ESCAPE("xml: a stray byte", "a\xff" "b\x80" "c", "a" FFFD "b" FFFD "c");
	ESCAPE("xml: a surrogate, a byte each", "\xed\xa0\x80",
	    FFFD FFFD FFFD);
	ESCAPE("xml: an overlong form", "\xc0\xaf<", FFFD FFFD "&lt;");
	ESCAPE("xml: past U+10FFFF", "\xf4\x90\x80\x80",
	    FFFD FFFD FFFD FFFD);
	ESCAPE("xml: a character cut short at the end", "a\xe2\x82",
	    "a" FFFD FFFD);
	ESCAPE("xml: a character cut short by markup", "\xe2\x82<",
	    FFFD FFFD "&lt;");
	/* A cut at len: the bytes after it are not looked at. */
	check_escape("xml: the length is the end", "\xc3\xa9", 1, FFFD);
	return (unit_exit());
}
