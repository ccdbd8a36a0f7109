#include "base/intern.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/*
 * Names live in blocks that never move, so pointers handed out stay
 * valid as the table grows; the hash table holds ids only and is rebuilt
 * from the stored hashes when it doubles.  A table's first block is
 * small and each next one twice the last, up to BLOCK_SIZE: a trace of
 * a few names (a script can make thousands, one per map or group) costs
 * a few KB, not a quarter of a MB a table.
 */
#define FIRST_BLOCK_SIZE	(4 * 1024)
#define BLOCK_SIZE		(256 * 1024)

typedef struct name_ref {
	const char *ptr;
	size_t len;
	uint64_t hash;
} name_ref;

typedef struct block {
	struct block *prev;
	size_t used, size;
	char data[];
} block;

struct intern {
	name_ref *names;	/* by id */
	uint32_t count, cap;
	uint32_t *slots;	/* open addressing: id + 1, 0 is empty */
	size_t nslots;		/* a power of two */
	block *blocks;
	block *spare;		/* blocks emptied by intern_clear */
};

/* FNV-1a: short keys, good enough spread, no alignment games. */
static uint64_t
hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return (h ^ (h >> 29));
}

intern *
intern_new(void)
{
	intern *tab = xcalloc(1, sizeof (*tab));

	tab->nslots = 64;
	tab->slots = xcalloc(tab->nslots, sizeof (uint32_t));
	return (tab);
}

static void
free_blocks(block *b)
{
	block *prev;

	for (; b != NULL; b = prev) {
		prev = b->prev;
		free(b);
	}
}

void
intern_free(intern *tab)
{
	if (tab == NULL)
		return;
	free_blocks(tab->blocks);
	free_blocks(tab->spare);
	free(tab->names);
	free(tab->slots);
	free(tab);
}

static const char *
store_copy(intern *tab, const char *name, size_t len)
{
	block *b = tab->blocks;
	char *p;

	if (b == NULL || b->size - b->used < len + 1) {
		size_t size = b == NULL ? FIRST_BLOCK_SIZE :
		    b->size >= BLOCK_SIZE / 2 ? BLOCK_SIZE : b->size * 2;

		if (len + 1 <= BLOCK_SIZE && tab->spare != NULL) {
			b = tab->spare;
			tab->spare = b->prev;
		} else {
			if (size < len + 1)
				size = len + 1;
			b = xmalloc(sizeof (block) + size);
			b->size = size;
		}
		b->prev = tab->blocks;
		b->used = 0;
		tab->blocks = b;
	}
	p = b->data + b->used;
	if (len > 0)
		memcpy(p, name, len);
	p[len] = '\0';
	b->used += len + 1;
	return (p);
}

static void
grow_slots(intern *tab)
{
	size_t nslots = tab->nslots * 2, mask = nslots - 1;
	uint32_t *slots = xcalloc(nslots, sizeof (uint32_t));
	uint32_t id;

	for (id = 0; id < tab->count; id++) {
		size_t i = tab->names[id].hash & mask;

		while (slots[i] != 0)
			i = (i + 1) & mask;
		slots[i] = id + 1;
	}
	free(tab->slots);
	tab->slots = slots;
	tab->nslots = nslots;
}

static size_t
find_slot(const intern *tab, const char *name, size_t len, uint64_t hash)
{
	size_t mask = tab->nslots - 1, i = hash & mask;

	for (;;) {
		uint32_t s = tab->slots[i];
		const name_ref *r;

		if (s == 0)
			return (i);
		r = &tab->names[s - 1];
		if (r->hash == hash && r->len == len &&
		    memcmp(r->ptr, name, len) == 0)
			return (i);
		i = (i + 1) & mask;
	}
}

uint32_t
intern_find(const intern *tab, const char *name, size_t len)
{
	uint64_t hash = hash_bytes(name, len);
	uint32_t s = tab->slots[find_slot(tab, name, len, hash)];

	return (s == 0 ? INTERN_NONE : s - 1);
}

/*
 * intern_find_each asks for name i + AHEAD's slot, then for the entry that
 * slot names at i + AHEAD / 2, and for that entry's bytes at i + AHEAD / 4:
 * each step's line has had time to arrive when the next reads it.
 */
#define FIND_AHEAD	16

void
intern_find_each(const intern *tab, const intern *from, uint32_t *ids)
{
	size_t mask = tab->nslots - 1;
	uint32_t i, n = from->count, s;

	for (i = 0; i < n; i++) {
		const name_ref *r = &from->names[i];

		if (i + FIND_AHEAD < n)
			__builtin_prefetch(&tab->slots[from->names[i +
			    FIND_AHEAD].hash & mask]);
		if (i + FIND_AHEAD / 2 < n && (s = tab->slots[from->names[i +
		    FIND_AHEAD / 2].hash & mask]) != 0)
			__builtin_prefetch(&tab->names[s - 1]);
		if (i + FIND_AHEAD / 4 < n && (s = tab->slots[from->names[i +
		    FIND_AHEAD / 4].hash & mask]) != 0)
			__builtin_prefetch(tab->names[s - 1].ptr);
		s = tab->slots[find_slot(tab, r->ptr, r->len, r->hash)];
		ids[i] = s == 0 ? INTERN_NONE : s - 1;
	}
}

uint32_t
intern_add(intern *tab, const char *name, size_t len, int *added)
{
	uint64_t hash = hash_bytes(name, len);
	size_t slot = find_slot(tab, name, len, hash);
	uint32_t id;

	if (added != NULL)
		*added = 0;
	if (tab->slots[slot] != 0)
		return (tab->slots[slot] - 1);

	if (tab->count == tab->cap) {
		tab->cap = tab->cap == 0 ? 64 : tab->cap * 2;
		tab->names = xrealloc(tab->names,
		    tab->cap * sizeof (name_ref));
	}
	id = tab->count++;
	tab->names[id].ptr = store_copy(tab, name, len);
	tab->names[id].len = len;
	tab->names[id].hash = hash;
	tab->slots[slot] = id + 1;
	/* Keep the load factor under one half. */
	if ((size_t)tab->count * 2 > tab->nslots)
		grow_slots(tab);
	if (added != NULL)
		*added = 1;
	return (id);
}

const char *
intern_name(const intern *tab, uint32_t id, size_t *len)
{
	if (len != NULL)
		*len = tab->names[id].len;
	return (tab->names[id].ptr);
}

void
intern_clear(intern *tab)
{
	size_t need = 64;
	block *b, *prev;

	/* The slots as intern_add would have grown them for tab's names,
	 * unless there are four times as many. */
	while (need < (size_t)tab->count * 2)
		need *= 2;
	if (tab->nslots > need * 4) {
		free(tab->slots);
		tab->slots = xcalloc(need, sizeof (uint32_t));
		tab->nslots = need;
	} else {
		memset(tab->slots, 0, tab->nslots * sizeof (uint32_t));
	}
	if ((size_t)tab->cap > need * 2) {
		free(tab->names);
		tab->names = NULL;
		tab->cap = 0;
	}
	tab->count = 0;
	/* Blocks of the full size wait to be filled again; the smaller
	 * first ones, and longer ones made for one long name each, go. */
	for (b = tab->blocks; b != NULL; b = prev) {
		prev = b->prev;
		if (b->size == BLOCK_SIZE) {
			b->prev = tab->spare;
			tab->spare = b;
		} else {
			free(b);
		}
	}
	tab->blocks = NULL;
}

void
intern_prefetch(const intern *tab, uint32_t id)
{
	__builtin_prefetch(&tab->names[id]);
}

uint32_t
intern_count(const intern *tab)
{
	return (tab->count);
}
