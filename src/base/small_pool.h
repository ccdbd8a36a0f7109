/*
 * small_pool.h: small blocks for one Lua state, from free lists by size.
 *
 * A script that makes a table per event or per interval allocates and
 * frees millions of blocks of a few dozen bytes; glibc's malloc takes
 * about as long for each as building the table does.  A pool hands out
 * blocks of up to SMALL_POOL_MAX bytes, in classes of 16, carved from
 * 64 KB chunks; a freed block goes to the front of its class's list for
 * the next of that class.  Larger blocks are malloc's.
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

#endif
