/*
 * Tests for src/base/arena.c: alignment, no overlap between allocations, room
 * for one larger than a block, and the accounting.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "unit.h"

#define N	2000

int
main(void)
{
	arena *a = arena_new();
	static unsigned char *p[N];
	static size_t size[N];
	size_t i, k, used = 0;
	int aligned = 1, intact = 1;
	unsigned char *big;

	for (i = 0; i < N; i++) {
		size[i] = 1 + (i * 104729) % 70000;
		p[i] = arena_alloc(a, size[i]);
		aligned &= ((uintptr_t)p[i] & 63) == 0;
		memset(p[i], (int)(i & 0xff), size[i]);
		used += (size[i] + 63) & ~(size_t)63;
	}
	/* Every byte still holds what its own allocation wrote. */
	for (i = 0; i < N; i++) {
		for (k = 0; k < size[i]; k++)
			intact &= p[i][k] == (i & 0xff);
	}
	CHECK("arena_alloc: aligned to 64 bytes", aligned);
	CHECK("arena_alloc: allocations do not overlap", intact);
	CHECK_U64("arena_used counts what was handed out, rounded up",
	    arena_used(a), used);
	CHECK("arena_reserved: whole 2 MiB pages, at least what is used",
	    arena_reserved(a) >= arena_used(a) &&
	    arena_reserved(a) % ((size_t)2 << 20) == 0);

	big = arena_alloc(a, (size_t)100 << 20);
	big[0] = 1;
	big[((size_t)100 << 20) - 1] = 2;
	CHECK("arena_alloc: larger than a block gets a block of its own",
	    ((uintptr_t)big & (((uintptr_t)2 << 20) - 1)) == 0 &&
	    arena_reserved(a) >= arena_used(a) &&
	    big[0] == 1 && big[((size_t)100 << 20) - 1] == 2);
	CHECK("arena_alloc: earlier allocations untouched by it",
	    p[N - 1][0] == ((N - 1) & 0xff));
	arena_free(a);
	arena_free(NULL);
	return (unit_exit());
}
