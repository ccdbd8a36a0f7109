/*
 * arena.h: memory handed out by bumping a pointer through large blocks,
 * given back all at once.
 *
 * For arrays whose final size is known, or well estimated, when they are
 * made, and which live as long as their owner: the store's columns.  The
 * blocks are aligned to 2 MiB and the kernel is asked to back them with
 * huge pages where it can: first writes to fresh memory otherwise cost a
 * page fault per 4 KiB, which on virtual machines is several times the
 * cost of the writing (bench/README.md).  Where huge pages are not
 * to be had the memory is the same, only slower to fill.
 *
 * Memory grows with what is handed out (a block's pages come in as they
 * are first written); nothing is given back before arena_free.
 */
#ifndef SM_ARENA_H
#define SM_ARENA_H

#include <stddef.h>

typedef struct arena arena;

arena *arena_new(void);
void arena_free(arena *a);	/* every allocation with it; NULL is fine */

/* size bytes (> 0), aligned to 64; exits if out of memory. */
void *arena_alloc(arena *a, size_t size);

/* How many bytes were handed out, and how many the blocks hold. */
size_t arena_used(const arena *a);
size_t arena_reserved(const arena *a);

#endif
