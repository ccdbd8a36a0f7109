/*
 * pidmap.c: an open-addressing table of 64-bit keys.
 */
#include "ingest/pidmap.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void
pidmap_init(pidmap *m)
{
	memset(m, 0, sizeof (*m));
}

void
pidmap_free(pidmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof (*m));
}

static size_t
slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return ((size_t)key & (cap - 1));
}

uint32_t
pidmap_find(const pidmap *m, uint64_t key)
{
	size_t i;

	if (m->cap == 0)
		return (PIDMAP_NONE);
	for (i = slot_of(key, m->cap); m->vals[i] != PIDMAP_NONE;
	    i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return (m->vals[i]);
	return (PIDMAP_NONE);
}

static void
put(uint64_t *keys, uint32_t *vals, size_t cap, uint64_t key, uint32_t val)
{
	size_t i;

	for (i = slot_of(key, cap); vals[i] != PIDMAP_NONE;
	    i = (i + 1) & (cap - 1))
		continue;
	keys[i] = key;
	vals[i] = val;
}

static void
grow(pidmap *m)
{
	size_t cap = m->cap == 0 ? 64 : m->cap * 2, i;
	uint64_t *keys = xmalloc(cap * sizeof (uint64_t));
	uint32_t *vals = xmalloc(cap * sizeof (uint32_t));

	memset(vals, 0xff, cap * sizeof (uint32_t));
	for (i = 0; i < m->cap; i++)
		if (m->vals[i] != PIDMAP_NONE)
			put(keys, vals, cap, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
}

uint32_t
pidmap_add(pidmap *m, uint64_t key, int *added)
{
	uint32_t v = pidmap_find(m, key);

	if (added != NULL)
		*added = 0;
	if (v != PIDMAP_NONE)
		return (v);
	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	v = (uint32_t)m->n++;
	put(m->keys, m->vals, m->cap, key, v);
	if (added != NULL)
		*added = 1;
	return (v);
}
