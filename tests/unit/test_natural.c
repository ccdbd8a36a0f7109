/* Tests for src/base/natural.c: natural order of entity names. */
#include <string.h>

#include "base/natural.h"
#include "unit.h"

static int
cmp(const char *a, const char *b)
{
	int r = natural_compare(a, strlen(a), b, strlen(b));

	return (r < 0 ? -1 : r > 0 ? 1 : 0);
}

int
main(void)
{
	CHECK_INT("natural cpu2 before cpu10", cmp("cpu2", "cpu10"), -1);
	CHECK_INT("natural cpu10 after cpu9", cmp("cpu10", "cpu9"), 1);
	CHECK_INT("natural equal", cmp("cpu10", "cpu10"), 0);
	CHECK_INT("natural numbers", cmp("9", "10"), -1);
	CHECK_INT("natural prefix first", cmp("cpu", "cpu1"), -1);
	CHECK_INT("natural letters by byte", cmp("a1", "b0"), -1);
	CHECK_INT("natural uppercase before lowercase", cmp("B", "a"), -1);
	CHECK_INT("natural several runs", cmp("x1y10", "x1y9"), 1);
	CHECK_INT("natural leading zero compares as a fraction",
	    cmp("a01", "a002"), 1);
	CHECK_INT("natural whitespace is skipped", cmp("a 1", "a1"), 0);
	CHECK_INT("natural empty first", cmp("", "a"), -1);
	CHECK_INT("natural long numbers", cmp("t18446744073709551616",
	    "t18446744073709551615"), 1);
	return (unit_exit());
}
