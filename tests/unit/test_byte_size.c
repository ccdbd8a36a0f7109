/* Tests for src/base/byte_size.c: sizes as people write them. */
#include <stdio.h>

#include "base/byte_size.h"
#include "unit.h"

int
main(void)
{
	static const struct {
		const char *text;
		uint64_t want;
	} good[] = {
		{ "0", 0 }, { "7", 7 }, { "1K", 1024 }, { "1k", 1024 },
		{ "512M", 512ull << 20 }, { "2G", 2ull << 30 },
		{ "3T", 3ull << 40 }, { "2GB", 2ull << 30 },
		{ "2GiB", 2ull << 30 }, { "2gib", 2ull << 30 },
		{ "100B", 100 }, { "100b", 100 }, { "1.5K", 1536 },
		{ "0.5M", 512ull << 10 }, { ".5K", 512 }, { "5.", 5 },
		{ "1.0001", 1 }, { "4194304T", 1ull << 62 },
		{ "4611686018427387904", 1ull << 62 }
	};
	static const char *bad[] = {
		"", "abc", "K", ".", ".K", "5X", "-1", "+1", "1e9", " 5M",
		"5 ", "5M ", "1.5.5G", "5iB", "5Bi", "5KK", "0x10",
		"99999999999999999999", "4611686018427387905", "4194305T",
		"4194304.5T", "8E"
	};
	char name[128];
	uint64_t got;
	size_t i;

	for (i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
		got = 12345;
		snprintf(name, sizeof (name), "size: \"%s\"", good[i].text);
		CHECK_INT(name, byte_size_parse(good[i].text, &got), 0);
		CHECK_U64(name, got, good[i].want);
	}
	for (i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
		got = 12345;
		snprintf(name, sizeof (name), "size: \"%s\" is none, and "
		    "nothing is set", bad[i]);
		CHECK(name, byte_size_parse(bad[i], &got) == -1 &&
		    got == 12345);
	}
	return (unit_exit());
}
