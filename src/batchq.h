/*
 * batchq.h: hands fixed-size items from one thread to a consumer running
 * on another, in file order, so that parsing and what follows it (the
 * coalescer) run on two cores at once.
 *
 * The producer fills batches of items; each full batch goes to a
 * consumer thread that calls consume(ctx, items, n) on it.  Items are
 * consumed exactly in the order they were pushed, so the result is the
 * same as calling consume inline, which is what happens when the queue
 * is made with threads < 2 (and the way tests compare the two).
 *
 * Ownership: the queue owns its batches and its thread; batchq_finish
 * waits for every item to be consumed and joins the thread, and must be
 * called before the consumer's context is read or freed.
 */
#ifndef SM_BATCHQ_H
#define SM_BATCHQ_H

#include <stddef.h>

typedef struct batchq batchq;

typedef void (*batchq_consume_fn)(void *ctx, const void *items, size_t n);

/* A queue of items of item_size bytes; threads < 2 consumes inline. */
batchq *batchq_new(size_t item_size, int threads, batchq_consume_fn consume,
    void *ctx);

/*
 * The slot for the next item, to be filled before the next call to
 * batchq_slot or batchq_finish.  May block while the consumer catches up.
 */
void *batchq_slot(batchq *q);

/* Consumes everything pushed so far and stops the consumer thread. */
void batchq_finish(batchq *q);

/* Finishes (if not yet finished) and frees. */
void batchq_free(batchq *q);

#endif
