/* Tests for src/base/intern.c: dense ids, lookups, growth, odd bytes. */
#include <stdio.h>
#include <string.h>

#include "base/intern.h"
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
	intern_free(tab);
	return (unit_exit());
}
