/*
 * cache_entry.c: a cache entry's file (cache_internal.h): its name in the
 * directory, its header and the key in it, and its layout.
 */
#include "store/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/cache_directory.h"
#include "store/cache_internal.h"

/* ---- entries' names ---- */

/* "0123456789abcdef.smc": the entry's name in the directory. */
void
cache_entry_name(const cache_key *key, char name[32])
{
	(void) snprintf(name, 32, "%016llx.smc", (unsigned long long)
	    XXH3_64bits(key->path, strlen(key->path)));
}

char *
cache_entry_path(const cache_key *key)
{
	char name[32], *dir = cache_directory(), *p;
	size_t len;

	if (dir == NULL || key->path == NULL) {
		free(dir);
		return (NULL);
	}
	cache_entry_name(key, name);
	len = strlen(dir) + 1 + strlen(name) + 1;
	p = xmalloc(len);
	(void) snprintf(p, len, "%s/%s", dir, name);
	free(dir);
	return (p);
}

static int
is_hex16(const char *s)
{
	int i;

	for (i = 0; i < 16; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return (0);
	return (1);
}

/* 1 for an entry's name, 2 for a temporary file's, 0 for anything else. */
int
cache_name_kind(const char *name)
{
	size_t len = strlen(name);

	if (len == 20 && is_hex16(name) && strcmp(name + 16, ".smc") == 0)
		return (1);
	if (len == 41 && is_hex16(name) &&
	    strncmp(name + 16, ".smc.", 5) == 0 && is_hex16(name + 21) &&
	    strcmp(name + 37, ".tmp") == 0)
		return (2);
	return (0);
}

/* ---- the header ---- */

void
cache_key_to_header(const cache_key *key, header *h)
{
	h->src_size = key->size;
	h->src_mtime_sec = key->mtime_sec;
	h->src_mtime_nsec = key->mtime_nsec;
	h->src_ctime_sec = key->ctime_sec;
	h->src_ctime_nsec = key->ctime_nsec;
	h->src_dev = key->dev;
	h->src_ino = key->ino;
	h->src_head = key->head;
	h->src_tail = key->tail;
}

int
cache_header_has_key(const header *h, const cache_key *key)
{
	header want;

	cache_key_to_header(key, &want);
	return (h->src_size == want.src_size &&
	    h->src_mtime_sec == want.src_mtime_sec &&
	    h->src_mtime_nsec == want.src_mtime_nsec &&
	    h->src_ctime_sec == want.src_ctime_sec &&
	    h->src_ctime_nsec == want.src_ctime_nsec &&
	    h->src_dev == want.src_dev && h->src_ino == want.src_ino &&
	    h->src_head == want.src_head && h->src_tail == want.src_tail);
}

/* The header as it is hashed: its checksum read as 0.  Returns that. */
uint64_t
cache_header_for_hash(const void *from, header *h)
{
	uint64_t sum;

	memcpy(h, from, sizeof (*h));
	sum = h->checksum;
	h->checksum = 0;
	return (sum);
}

/* ---- the layout, which writer and reader both compute ---- */

/*
 * Moves *off to the next multiple of 8 (returned) and past count items
 * of size bytes; -1 if that would go beyond max.
 */
int
cache_advance(uint64_t *off, uint64_t count, uint64_t size, uint64_t max,
    uint64_t *at)
{
	uint64_t a;

	if (*off > max || max - *off < 7)
		return (-1);
	a = (*off + 7) & ~(uint64_t)7;
	if (count > (max - a) / size)
		return (-1);
	*at = a;
	*off = a + count * size;
	return (0);
}

/*
 * Lays an entry out: the header, the catalog (catalog_file.h; meta_len
 * bytes), the table of h->ncols column descriptors, then each entity's
 * times, states, tags, depths (nested entities), value times and values
 * (value entities) in entity order, each 8-aligned.  Fills the
 * offsets in h and cols from the lengths, the counts and which columns
 * have tags (tag_off != 0); -1 if the whole would be bigger than max.
 * There is one layout for a given content, so that a reader can ask for
 * exactly it, and check offsets by comparing them.
 */
int
cache_lay_out(header *h, col_desc *cols, uint64_t max)
{
	uint64_t off = sizeof (header), i;

	if (cache_advance(&off, h->meta_len, 1, max, &h->meta_off) != 0 ||
	    cache_advance(&off, h->ncols, sizeof (col_desc), max,
	    &h->cols_off) != 0)
		return (-1);
	for (i = 0; i < h->ncols; i++) {
		col_desc *c = &cols[i];
		int tagged = c->tag_off != 0;

		c->time_off = c->state_off = c->tag_off = c->depth_off = 0;
		c->vtime_off = c->value_off = 0;
		if (c->count > 0 &&
		    (cache_advance(&off, c->count, 8, max, &c->time_off) != 0 ||
		    cache_advance(&off, c->count, 2, max, &c->state_off) != 0 ||
		    (tagged &&
		    cache_advance(&off, c->count, 4, max, &c->tag_off) != 0) ||
		    (c->kind == STORE_NESTED &&
		    cache_advance(&off, c->count, 2, max, &c->depth_off) != 0)))
			return (-1);
		if (c->vcount > 0 &&
		    (cache_advance(&off, c->vcount, 8, max,
		    &c->vtime_off) != 0 ||
		    cache_advance(&off, c->vcount, 8, max,
		    &c->value_off) != 0))
			return (-1);
	}
	h->file_size = off;
	return (0);
}

/* ---- made-up entries, for tests ---- */

void
cache_seal(unsigned char *entry, size_t len, const cache_key *key)
{
	XXH3_state_t hash;
	header h;

	if (len < sizeof (h))
		return;
	(void) cache_header_for_hash(entry, &h);
	cache_key_to_header(key, &h);
	XXH3_64bits_reset(&hash);
	XXH3_64bits_update(&hash, &h, sizeof (h));
	XXH3_64bits_update(&hash, entry + sizeof (h), len - sizeof (h));
	h.checksum = XXH3_64bits_digest(&hash);
	memcpy(entry, &h, sizeof (h));
}
