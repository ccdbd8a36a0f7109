#include "base/small_pool.h"

#include <stdlib.h>
#include <string.h>

#define STEP		16
#define NCLASSES	(SMALL_POOL_MAX / STEP)
#define CHUNK_BYTES	((size_t)64 << 10)

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
			free(ptr);
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
	b = new_size <= SMALL_POOL_MAX ? take(p, new_size) : malloc(new_size);
	if (b == NULL)
		return (NULL);
	if (old_size > 0) {
		memcpy(b, ptr, old_size < new_size ? old_size : new_size);
		if (old_size > SMALL_POOL_MAX)
			free(ptr);
		else
			give_back(p, ptr, old_size);
	}
	return (b);
}
