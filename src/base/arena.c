#include "base/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "base/util.h"
#include "base/work.h"

#define HUGE_PAGE	((size_t)2 << 20)
#define BLOCK_BYTES	((size_t)32 << 20)
#define ALIGN		((size_t)64)

typedef struct block {
	char *base;
	size_t size;
} block;

struct arena {
	block *blocks;
	size_t nblocks, cap;
	char *next, *end;	/* free space in the last block */
	size_t used, reserved;
};

arena *
arena_new(void)
{
	return (xcalloc(1, sizeof (arena)));
}

void
arena_free(arena *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->nblocks; i++)
		(void) munmap(a->blocks[i].base, a->blocks[i].size);
	free(a->blocks);
	free(a);
}

/*
 * A block of at least size bytes, on a huge page boundary: mapped with a
 * huge page to spare, and the spare cut off either side.
 */
static void
new_block(arena *a, size_t size)
{
	size_t bytes = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	char *map, *base;
	size_t head;

	if (bytes < BLOCK_BYTES)
		bytes = BLOCK_BYTES;
	map = mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		out_of_memory(bytes);
	base = (char *)(((uintptr_t)map + HUGE_PAGE - 1) &
	    ~(uintptr_t)(HUGE_PAGE - 1));
	head = (size_t)(base - map);
	if (head > 0)
		(void) munmap(map, head);
	if (HUGE_PAGE - head > 0)
		(void) munmap(base + bytes, HUGE_PAGE - head);
	/* Advice: without transparent huge pages it fails, and pages are small. */
	(void) madvise(base, bytes, MADV_HUGEPAGE);
	grow_array(&a->blocks, &a->cap, a->nblocks + 1, sizeof (block));
	a->blocks[a->nblocks].base = base;
	a->blocks[a->nblocks].size = bytes;
	a->nblocks++;
	a->next = base;
	a->end = base + bytes;
	a->reserved += bytes;
}

void *
arena_alloc(arena *a, size_t size)
{
	void *p;

	if (size > SIZE_MAX / 2)
		out_of_memory(size);
	size = (size + ALIGN - 1) & ~(ALIGN - 1);
	if (a->next == NULL || (size_t)(a->end - a->next) < size)
		new_block(a, size);
	p = a->next;
	a->next += size;
	a->used += size;
	work_bytes(size);
	return (p);
}

size_t
arena_used(const arena *a)
{
	return (a->used);
}

size_t
arena_reserved(const arena *a)
{
	return (a->reserved);
}
