#include "ingest/known_names.h"

#include <stdlib.h>

#include "base/util.h"

/*
 * At least twice as many slots as names, four to a cache line: a name is
 * found, or found missing, in a probe or two, mostly in one line.
 */
#define MIN_SLOTS	16

known_names *
known_names_make(const intern *tab, uint32_t from)
{
	known_names *k;
	size_t nslots = MIN_SLOTS;
	uint32_t id;

	if (from == 0)
		return (NULL);
	while (nslots < (size_t)from * 2)
		nslots *= 2;
	k = xmalloc(sizeof (*k));
	k->slots = xcalloc(nslots, sizeof (known_slot));
	k->mask = nslots - 1;
	k->shift = 64 - (unsigned)__builtin_ctzll(nslots);
	k->from = from;
	atomic_init(&k->holders, 1);
	for (id = 0; id < from && id != KNOWN_NONE; id++) {
		size_t len;
		const char *name = intern_name(tab, id, &len);
		uint64_t key;
		size_t i;

		if (len == 0 || len > KNOWN_MAX_LEN)
			continue;
		key = known_names_key(name, len);
		for (i = known_names_home(k, key); k->slots[i].len != 0;
		    i = (i + 1) & k->mask)
			;
		k->slots[i].key = key;
		k->slots[i].id = id;
		k->slots[i].len = (uint32_t)len;
	}
	return (k);
}

known_names *
known_names_hold(known_names *k)
{
	if (k != NULL)
		atomic_fetch_add(&k->holders, 1);
	return (k);
}

void
known_names_drop(known_names *k)
{
	if (k == NULL || atomic_fetch_sub(&k->holders, 1) != 1)
		return;
	free(k->slots);
	free(k);
}
