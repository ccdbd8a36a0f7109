/*
 * Tests for src/base/small_pool.c: blocks of every size hold their bytes
 * through growing and shrinking across the classes and into malloc's
 * sizes; a freed small block is handed out again for its class; a freed
 * large block is kept and handed out again for a block of about its
 * size, and only so many, so large; a plain pool behaves the same.  The
 * sanitizers and valgrind (make check-asan) see every block freed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/small_pool.h"
#include "unit.h"

static void
fill(unsigned char *b, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 31 + seed);
}

static int
holds(const unsigned char *b, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != (unsigned char)(i * 31 + seed))
			return (0);
	return (1);
}

/* Sizes through the classes and beyond, each block grown and shrunk. */
static int
sizes_hold(int plain)
{
	static const size_t sizes[] = { 1, 15, 16, 17, 100, 255, 256, 257,
	    4000, SMALL_POOL_KEEP, SMALL_POOL_KEEP + 1, 3 << 20 };
	size_t n = sizeof (sizes) / sizeof (sizes[0]), i, j;
	small_pool *p = small_pool_new(plain);
	int ok = p != NULL;

	for (i = 0; ok && i < n; i++)
		for (j = 0; ok && j < n; j++) {
			size_t keep = sizes[i] < sizes[j] ? sizes[i] : sizes[j];
			unsigned char *b = small_pool_realloc(p, NULL, 0,
			    sizes[i]);

			if (b == NULL)
				return (0);
			fill(b, sizes[i], (unsigned)(i + j));
			b = small_pool_realloc(p, b, sizes[i], sizes[j]);
			ok = b != NULL && holds(b, keep, (unsigned)(i + j));
			(void)small_pool_realloc(p, b, sizes[j], 0);
		}
	small_pool_free(p);
	return (ok);
}

int
main(void)
{
	small_pool *p = small_pool_new(0);
	void *a, *b, *big[SMALL_POOL_KEEP_BLOCKS + 2], *again;
	size_t i;

	CHECK("small_pool: every size holds its bytes", sizes_hold(0));
	CHECK("small_pool: plain, every size holds its bytes",
	    sizes_hold(1));

	a = small_pool_realloc(p, NULL, 0, 40);
	(void)small_pool_realloc(p, a, 40, 0);
	b = small_pool_realloc(p, NULL, 0, 36);
	CHECK("small_pool: a freed block serves its class again", a == b);
	(void)small_pool_realloc(p, b, 36, 0);

	/* Large blocks: one freed is handed out again for a block of
	 * three quarters its size, not for one of a third. */
	a = small_pool_realloc(p, NULL, 0, 4 * SMALL_POOL_KEEP);
	(void)small_pool_realloc(p, a, 4 * SMALL_POOL_KEEP, 0);
	b = small_pool_realloc(p, NULL, 0, SMALL_POOL_KEEP + 1);
	CHECK("small_pool: a kept block is not handed out far too large",
	    b != a);
	again = small_pool_realloc(p, NULL, 0, 3 * SMALL_POOL_KEEP);
	CHECK("small_pool: a kept large block serves one of about its size",
	    again == a);
	memset(again, 7, 3 * SMALL_POOL_KEEP);
	(void)small_pool_realloc(p, b, SMALL_POOL_KEEP + 1, 0);
	(void)small_pool_realloc(p, again, 3 * SMALL_POOL_KEEP, 0);
	small_pool_free(p);

	/* Two more freed than are kept. */
	p = small_pool_new(0);
	for (i = 0; i < SMALL_POOL_KEEP_BLOCKS + 2; i++)
		big[i] = small_pool_realloc(p, NULL, 0, SMALL_POOL_KEEP);
	for (i = 0; i < SMALL_POOL_KEEP_BLOCKS + 2; i++)
		(void)small_pool_realloc(p, big[i], SMALL_POOL_KEEP, 0);
	CHECK("small_pool: at most SMALL_POOL_KEEP_BLOCKS large blocks are "
	    "kept", small_pool_kept_bytes(p) == SMALL_POOL_KEEP_BLOCKS *
	    SMALL_POOL_KEEP);
	for (i = 0; i < SMALL_POOL_KEEP_BLOCKS; i++)
		big[i] = small_pool_realloc(p, NULL, 0, SMALL_POOL_KEEP);
	CHECK("small_pool: kept blocks are handed out again",
	    small_pool_kept_bytes(p) == 0);
	for (i = 0; i < SMALL_POOL_KEEP_BLOCKS; i++)
		(void)small_pool_realloc(p, big[i], SMALL_POOL_KEEP, 0);
	/* Freed with blocks still kept: nothing leaks (ASan, valgrind). */
	small_pool_free(p);

	/* SMALL_POOL_KEEP_BYTES in all. */
	p = small_pool_new(0);
	a = small_pool_realloc(p, NULL, 0, SMALL_POOL_KEEP_BYTES -
	    ((size_t)1 << 20));
	b = small_pool_realloc(p, NULL, 0, (size_t)2 << 20);
	(void)small_pool_realloc(p, b, (size_t)2 << 20, 0);
	(void)small_pool_realloc(p, a, SMALL_POOL_KEEP_BYTES -
	    ((size_t)1 << 20), 0);
	CHECK("small_pool: no more than SMALL_POOL_KEEP_BYTES are kept",
	    small_pool_kept_bytes(p) == (size_t)2 << 20);
	small_pool_free(p);

	/* A plain pool keeps nothing. */
	p = small_pool_new(1);
	a = small_pool_realloc(p, NULL, 0, SMALL_POOL_KEEP);
	(void)small_pool_realloc(p, a, SMALL_POOL_KEEP, 0);
	CHECK("small_pool: a plain pool keeps nothing",
	    small_pool_kept_bytes(p) == 0);
	small_pool_free(p);
	return (unit_exit());
}
