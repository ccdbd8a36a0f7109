/*
 * Tests for src/ingest/known_names.c: the names of up to 8 bytes of a
 * table's first ids, found by key and length; longer and empty names, and
 * ids past the table's, left out; holders counted.
 */
#include <stdio.h>
#include <string.h>

#include "base/intern.h"
#include "ingest/known_names.h"
#include "unit.h"

/* The id known has for name (a C string, or len bytes of it). */
static uint32_t
find(const known_names *k, const char *name, size_t len)
{
	return (known_names_find(k, known_names_key(name, len), len));
}

int
main(void)
{
	intern *tab = intern_new();
	known_names *k, *held;
	char name[32];
	uint32_t i;
	int ok;

	CHECK("known_names of no names is NULL",
	    known_names_make(tab, 0) == NULL);
	intern_add(tab, "a", 1, NULL);			/* 0 */
	intern_add(tab, "a\0", 2, NULL);		/* 1: NUL after a */
	intern_add(tab, "", 0, NULL);			/* 2: empty */
	intern_add(tab, "12345678", 8, NULL);		/* 3: 8 bytes */
	intern_add(tab, "123456789", 9, NULL);		/* 4: 9 bytes */
	intern_add(tab, "\xff\x80", 2, NULL);		/* 5: high bytes */
	intern_add(tab, "late", 4, NULL);		/* 6: past from */
	k = known_names_make(tab, 6);
	CHECK_INT("known_names finds a 1-byte name", find(k, "a", 1), 0);
	CHECK_INT("known_names tells a name from it with a NUL after",
	    find(k, "a\0", 2), 1);
	CHECK_INT("known_names and a NUL it does not have",
	    find(k, "a\0\0", 3), KNOWN_NONE);
	CHECK_INT("known_names finds an 8-byte name", find(k, "12345678", 8),
	    3);
	CHECK_INT("known_names: a prefix of a name is another",
	    find(k, "1234567", 7), KNOWN_NONE);
	CHECK_INT("known_names finds high bytes", find(k, "\xff\x80", 2), 5);
	CHECK_INT("known_names leaves out names past from",
	    find(k, "late", 4), KNOWN_NONE);
	CHECK_INT("known_names has from", k->from, 6);
	held = known_names_hold(k);
	CHECK("known_names_hold gives the table", held == k);
	known_names_drop(k);
	/* Still held: valgrind and ASan would see a use after free. */
	CHECK_INT("known_names held once more outlives a drop",
	    find(held, "a", 1), 0);
	known_names_drop(held);
	CHECK("known_names_hold and _drop take NULL",
	    known_names_hold(NULL) == NULL);
	known_names_drop(NULL);

	/* Many names, short and long: every short one found, each long
	 * one's first 8 bytes not (no name is those bytes). */
	for (i = 0; i < 100000; i++) {
		snprintf(name, sizeof (name), i % 10 == 0 ? "process-%u" :
		    "%u", i);
		intern_add(tab, name, strlen(name), NULL);
	}
	k = known_names_make(tab, intern_count(tab));
	for (ok = 1, i = 0; i < 100000; i++) {
		size_t len;

		snprintf(name, sizeof (name), i % 10 == 0 ? "process-%u" :
		    "%u", i);
		len = strlen(name);
		if (find(k, name, len > 8 ? 8 : len) !=
		    (len > 8 ? KNOWN_NONE : i + 7))
			ok = 0;
	}
	CHECK("known_names of 100000 names finds the short ones", ok);
	CHECK("known_names of 100000 names: at least twice the slots",
	    k->mask + 1 >= 2 * (size_t)intern_count(tab));
	for (ok = 1, i = 100000; i < 200000; i++) {
		snprintf(name, sizeof (name), "%u", i);
		if (find(k, name, strlen(name)) != KNOWN_NONE)
			ok = 0;
	}
	CHECK("known_names of 100000 names misses 100000 others", ok);
	known_names_drop(k);
	intern_free(tab);
	return (unit_exit());
}
