#include "base/small_pool.h"

#include <stdlib.h>
#include <string.h>

#define STEP		16
#define NCLASSES	(SMALL_POOL_MAX / STEP)
#define CHUNK_BYTES	((size_t)64 << 10)

/* Large blocks kept when freed (small_pool.h): how many, and bytes. */

/* A chunk's header, kept to STEP bytes so that blocks stay aligned. */
typedef union chunk {
	union chunk *next;
	char align[STEP];
} chunk;

struct small_pool {
	void *free[NCLASSES];	/* each block's first word is the next */
	char *cur, *end;	/* the rest of the newest chunk */
	chunk *chunks;
	int plain;
	/* Large blocks freed and kept, and the sizes they were asked for. */
	void *kept[SMALL_POOL_KEEP_BLOCKS];
	size_t kept_size[SMALL_POOL_KEEP_BLOCKS];
	size_t nkept, kept_bytes;
};

small_pool *
small_pool_new(int plain)
{
	small_pool *p = calloc(1, sizeof (*p));

	if (p != NULL)
		p->plain = plain;
	return (p);
}

void
small_pool_free(small_pool *p)
{
	chunk *c, *next;

	if (p == NULL)
		return;
	while (p->nkept > 0)
		free(p->kept[--p->nkept]);
	for (c = p->chunks; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	free(p);
}

/* The class of a size from 1 to SMALL_POOL_MAX. */
static size_t
class_of(size_t size)
{
	return ((size - 1) / STEP);
}

static void *
take(small_pool *p, size_t size)
{
	size_t k = class_of(size), bytes = (k + 1) * STEP;
	void *b = p->free[k];
	chunk *c;

	if (b != NULL) {
		memcpy(&p->free[k], b, sizeof (void *));
		return (b);
	}
	if ((size_t)(p->end - p->cur) < bytes) {
		if ((c = malloc(CHUNK_BYTES)) == NULL)
			return (NULL);
		c->next = p->chunks;
		p->chunks = c;
		p->cur = (char *)(c + 1);
		p->end = (char *)c + CHUNK_BYTES;
	}
	b = p->cur;
	p->cur += bytes;
	return (b);
}

static void
give_back(small_pool *p, void *b, size_t size)
{
	size_t k = class_of(size);

	memcpy(b, &p->free[k], sizeof (void *));
	p->free[k] = b;
}

/*
 * A new large block: a kept one of at least size bytes and at most twice
 * that (the smallest such), else malloc's.
 */
static void *
large_block(small_pool *p, size_t size)
{
	size_t i, best = p->nkept;
	void *b;

	for (i = 0; i < p->nkept; i++)
		if (p->kept_size[i] >= size && p->kept_size[i] / 2 <= size &&
		    (best == p->nkept || p->kept_size[i] < p->kept_size[best]))
			best = i;
	if (best == p->nkept)
		return (malloc(size));
	b = p->kept[best];
	p->kept_bytes -= p->kept_size[best];
	p->nkept--;
	p->kept[best] = p->kept[p->nkept];
	p->kept_size[best] = p->kept_size[p->nkept];
	return (b);
}

/* Frees a large block of size bytes, or keeps it if there is room. */
static void
free_large(small_pool *p, void *b, size_t size)
{
	if (size < SMALL_POOL_KEEP || p->nkept == SMALL_POOL_KEEP_BLOCKS ||
	    p->kept_bytes + size > SMALL_POOL_KEEP_BYTES) {
		free(b);
		return;
	}
	p->kept[p->nkept] = b;
	p->kept_size[p->nkept++] = size;
	p->kept_bytes += size;
}

void *
small_pool_realloc(small_pool *p, void *ptr, size_t old_size,
    size_t new_size)
{
	void *b;

	if (p->plain) {
		if (new_size == 0) {
			free(ptr);
			return (NULL);
		}
		return (realloc(ptr, new_size));
	}
	if (ptr == NULL)
		old_size = 0;
	if (new_size == 0) {
		if (old_size > SMALL_POOL_MAX)
			free_large(p, ptr, old_size);
		else if (old_size > 0)
			give_back(p, ptr, old_size);
		return (NULL);
	}
	if (old_size > SMALL_POOL_MAX && new_size > SMALL_POOL_MAX)
		return (realloc(ptr, new_size));
	if (old_size > 0 && old_size <= SMALL_POOL_MAX &&
	    new_size <= SMALL_POOL_MAX && class_of(old_size) ==
	    class_of(new_size))
		return (ptr);
	b = new_size <= SMALL_POOL_MAX ? take(p, new_size) :
	    new_size >= SMALL_POOL_KEEP ? large_block(p, new_size) :
	    malloc(new_size);
	if (b == NULL)
		return (NULL);
	if (old_size > 0) {
		memcpy(b, ptr, old_size < new_size ? old_size : new_size);
		if (old_size > SMALL_POOL_MAX)
			free_large(p, ptr, old_size);
		else
			give_back(p, ptr, old_size);
	}
	return (b);
}

size_t
small_pool_kept_bytes(const small_pool *p)
{
	return (p->kept_bytes);
}
