/*
 * known_names.h: the short names a catalog table already has, frozen for
 * the scanning threads to look up while the calling thread goes on adding
 * names to the table itself.
 *
 * A scanning thread numbers each datum's entity and tag names within its
 * chunk, and the calling thread then finds each chunk number's id in the
 * catalog.  On a trace of many names (100,000 entities, or tag names) most
 * of a chunk's names are new to the chunk, so a datum costs a name added
 * to the chunk's table and then a lookup in the catalog's: two hash tables
 * of tens of thousands of names, a few cache misses in each.  A name the
 * catalog had when the table was made is instead found here, by the
 * scanning thread, in one probe: a name of up to 8 bytes is its key, and
 * a slot holds the key and the id side by side.
 *
 * Ownership: a table is made by one thread and then only read; each
 * holder counts itself (known_names_hold) and the last to let go
 * (known_names_drop) frees it.  It copies what it needs: the source table
 * may change or go.
 */
#ifndef SM_KNOWN_NAMES_H
#define SM_KNOWN_NAMES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/intern.h"

/* Not found (known_names_find). */
#define KNOWN_NONE	UINT32_MAX
/* The longest name a table keeps: a name is one 64-bit key. */
#define KNOWN_MAX_LEN	8

typedef struct known_slot {
	uint64_t key;		/* the name's bytes as a word, zero-filled */
	uint32_t id;
	uint32_t len;		/* 0: empty */
} known_slot;

typedef struct known_names {
	known_slot *slots;
	size_t mask;		/* how many slots, less one (a power of two) */
	unsigned shift;		/* 64 less log2 of how many slots */
	uint32_t from;		/* how many names the source had: ids below */
	atomic_uint holders;
} known_names;

/*
 * The names of 1 to KNOWN_MAX_LEN bytes among the first from names of tab
 * (by id), with one holder, the caller; NULL if from is 0.  Ids of
 * KNOWN_NONE and above are left out.
 */
known_names *known_names_make(const intern *tab, uint32_t from);

/* k, with one holder more; k may be NULL. */
known_names *known_names_hold(known_names *k);

/* One holder fewer; the last frees k.  k may be NULL. */
void known_names_drop(known_names *k);

/*
 * The key of a name of len bytes (1 to KNOWN_MAX_LEN) at name: its bytes
 * as a 64-bit word, the rest zero.  Where the name is followed by at
 * least 8 - len readable bytes, on a little-endian machine, the word read
 * at name with the high 8 - len bytes cleared is the same key.
 */
static inline uint64_t
known_names_key(const char *name, size_t len)
{
	unsigned char b[KNOWN_MAX_LEN] = { 0 };
	uint64_t key;

	memcpy(b, name, len);
	memcpy(&key, b, sizeof (key));
	return (key);
}

/* Where a key's search starts. */
static inline size_t
known_names_home(const known_names *k, uint64_t key)
{
	return ((size_t)((key * 0x9e3779b97f4a7c15ULL) >> k->shift));
}

/* The id of the name whose key is key and length len, or KNOWN_NONE. */
static inline uint32_t
known_names_find(const known_names *k, uint64_t key, size_t len)
{
	size_t i = known_names_home(k, key);

	for (;; i = (i + 1) & k->mask) {
		const known_slot *s = &k->slots[i];

		if (s->len == 0)
			return (KNOWN_NONE);
		if (s->key == key && s->len == len)
			return (s->id);
	}
}

#endif
