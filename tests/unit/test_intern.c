/* Tests for src/base/intern.c: dense ids, lookups, growth, odd bytes. */
#include <stdio.h>
#include <string.h>

#include "base/intern.h"
#include "base/work.h"
#include "unit.h"

int
main(void)
{
	intern *tab = intern_new();
	char name[32];
	int added, ok = 1;
	uint32_t i;
	size_t len;

	CHECK_INT("intern first id is 0", intern_add(tab, "a", 1, &added), 0);
	CHECK_INT("intern reports a new name", added, 1);
	CHECK_INT("intern second name", intern_add(tab, "b", 1, NULL), 1);
	CHECK_INT("intern same name, same id", intern_add(tab, "a", 1,
	    &added), 0);
	CHECK_INT("intern reports an old name", added, 0);
	CHECK_INT("intern find missing", intern_find(tab, "c", 1),
	    INTERN_NONE);
	CHECK_INT("intern names may hold NUL", intern_add(tab, "a\0b", 3,
	    NULL), 2);
	CHECK_INT("intern NUL-holding name differs from its prefix",
	    intern_find(tab, "a", 1), 0);
	CHECK_INT("intern empty name", intern_add(tab, "", 0, NULL), 3);
	for (i = 0; i < 100000; i++) {
		snprintf(name, sizeof (name), "entity-%u", i);
		if (intern_add(tab, name, strlen(name), NULL) != i + 4)
			ok = 0;
	}
	for (i = 0; i < 100000; i += 997) {
		snprintf(name, sizeof (name), "entity-%u", i);
		if (intern_find(tab, name, strlen(name)) != i + 4 ||
		    strcmp(intern_name(tab, i + 4, &len), name) != 0 ||
		    len != strlen(name))
			ok = 0;
	}
	CHECK("intern 100000 names keep their ids through growth", ok);
	CHECK_INT("intern count", intern_count(tab), 100004);
	{
		/* Every third name of tab, and names it lacks, in another
		 * table: found at once as each would be. */
		intern *from = intern_new();
		uint32_t ids[40001], n;	/* 30,000 + 10,000 + 1 names */

		for (i = 0; i < 30000; i++) {
			snprintf(name, sizeof (name), "entity-%u", i * 3);
			intern_add(from, name, strlen(name), NULL);
			snprintf(name, sizeof (name), "other-%u", i);
			if (i % 3 == 0)
				intern_add(from, name, strlen(name), NULL);
		}
		intern_add(from, "", 0, NULL);
		n = intern_count(from);
		intern_find_each(tab, from, ids);
		for (ok = 1, i = 0; i < n; i++) {
			const char *s = intern_name(from, i, &len);

			if (ids[i] != intern_find(tab, s, len))
				ok = 0;
		}
		CHECK("intern_find_each finds as intern_find, names and "
		    "misses", ok && ids[0] == 4 && ids[1] == INTERN_NONE &&
		    ids[n - 1] == 3);
		intern_free(from);
	}
	intern_free(tab);

	{
		/* Cleared, a table is as new, and takes as many names
		 * again (in the blocks it kept) and a name longer than a
		 * block; then a few, in arrays it may shrink. */
		static char longname[300 * 1024];
		int round;

		memset(longname, 'x', sizeof (longname));
		tab = intern_new();
		for (round = 0, ok = 1; round < 3; round++) {
			uint32_t n = round == 2 ? 10 : 50000;

			for (i = 0; i < n; i++) {
				snprintf(name, sizeof (name), "r%d-%u", round,
				    i);
				if (intern_add(tab, name, strlen(name),
				    &added) != i || !added)
					ok = 0;
			}
			if (intern_add(tab, longname, sizeof (longname),
			    NULL) != n)
				ok = 0;
			for (i = 0; i < n; i++) {
				snprintf(name, sizeof (name), "r%d-%u", round,
				    i);
				if (intern_find(tab, name, strlen(name)) != i ||
				    strcmp(intern_name(tab, i, &len), name) !=
				    0)
					ok = 0;
			}
			if (intern_count(tab) != n + 1 ||
			    intern_name(tab, n, &len)[len - 1] != 'x' ||
			    len != sizeof (longname))
				ok = 0;
			intern_clear(tab);
			snprintf(name, sizeof (name), "r%d-%u", round, 0u);
			if (intern_count(tab) != 0 ||
			    intern_find(tab, name, strlen(name)) !=
			    INTERN_NONE ||
			    intern_find(tab, longname, sizeof (longname)) !=
			    INTERN_NONE)
				ok = 0;
		}
		CHECK("intern_clear empties a table that then fills again, "
		    "three times", ok);
		CHECK_INT("intern_clear: ids start at 0 again",
		    intern_add(tab, "z", 1, &added), 0);
		intern_free(tab);
	}
	{
		/*
		 * A table of a few short names takes a few KB (a script
		 * makes a catalog per map or group: a quarter of a MB a
		 * table made 27,000 of them 0.8 GB); names longer than the
		 * first blocks are whole all the same.
		 */
		static char mid[5000];
		uint64_t before = work_bytes_done();

		tab = intern_new();
		intern_add(tab, "cpu0", 4, NULL);
		intern_add(tab, "cpu1", 4, NULL);
		intern_add(tab, "on-cpu", 6, NULL);
		CHECK("intern: three short names take less than 16 KB",
		    work_bytes_done() - before < 16 * 1024);
		memset(mid, 'm', sizeof (mid));
		for (i = 0, ok = 1; i < 300; i++) {
			mid[0] = (char)('a' + i % 26);
			mid[1] = (char)('a' + i / 26);
			if (intern_add(tab, mid, sizeof (mid) - i, NULL) != i + 3)
				ok = 0;
		}
		for (i = 0; i < 300; i++) {
			const char *s = intern_name(tab, i + 3, &len);

			if (len != sizeof (mid) - i ||
			    s[0] != (char)('a' + i % 26) ||
			    s[1] != (char)('a' + i / 26) || s[len - 1] != 'm' ||
			    s[len] != '\0')
				ok = 0;
		}
		CHECK("intern: 300 names of about 5 KB, kept whole through "
		    "the blocks' growth", ok &&
		    strcmp(intern_name(tab, 1, &len), "cpu1") == 0);
		intern_free(tab);
	}
	return (unit_exit());
}
