/*
 * small_pool.h: small blocks for one Lua state, from free lists by size.
 *
 * A script that makes a table per event or per interval allocates and
 * frees millions of blocks of a few dozen bytes; glibc's malloc takes
 * about as long for each as building the table does.  A pool hands out
 * blocks of up to SMALL_POOL_MAX bytes, in classes of 16, carved from
 * 64 KB chunks; a freed block goes to the front of its class's list for
 * the next of that class.  Larger blocks are malloc's; of those of
 * SMALL_POOL_KEEP bytes or more, up to SMALL_POOL_KEEP_BLOCKS freed
 * ones, SMALL_POOL_KEEP_BYTES in all, are kept for the next ones asked
 * for of about their size (half to all of it).  Such blocks are mapped
 * anew by malloc each time, their pages faulted in and zeroed: a script
 * that makes a large table again and again (t:at over 100,000 entities,
 * a table of 3 MB a call) spent a quarter of its time so.  The collector
 * frees such tables a few at a time: with 4 kept (16 MB), that t:at
 * still faulted in 190 pages a call, against 37 with 8 (5% of its time).
 * (Kept blocks are not in the memory limit's count of Lua's heap: at
 * most SMALL_POOL_KEEP_BYTES more.)
 *
 * Memory: a class keeps the blocks of its busiest moment; the chunks go
 * back when the pool is freed.  Not thread-safe: one pool, one state
 * (a lua_State runs on one thread at a time).  A pool made with plain
 * set (small_pool_new(1)) only calls malloc, realloc and free, so that
 * valgrind and the sanitizers see every block.
 */
#ifndef SM_SMALL_POOL_H
#define SM_SMALL_POOL_H

#include <stddef.h>

#define SMALL_POOL_MAX	256
#define SMALL_POOL_KEEP	((size_t)256 << 10)
#define SMALL_POOL_KEEP_BLOCKS	8
#define SMALL_POOL_KEEP_BYTES	((size_t)32 << 20)

typedef struct small_pool small_pool;

/* A new pool, or NULL without memory; plain: malloc's blocks only. */
small_pool *small_pool_new(int plain);

/* Frees the pool and every block it gave out. */
void small_pool_free(small_pool *p);

/*
 * As Lua's allocator: new_size 0 frees ptr (of old_size bytes) and
 * returns NULL; otherwise ptr (NULL, or old_size bytes from this pool)
 * becomes a block of new_size bytes holding its first bytes, or NULL
 * when there is no memory (ptr is then unchanged).
 */
void *small_pool_realloc(small_pool *p, void *ptr, size_t old_size,
    size_t new_size);

/* The bytes of the large blocks freed and kept, as they were asked for. */
size_t small_pool_kept_bytes(const small_pool *p);

#endif
