/*
 * batch_queue.h: hands fixed-size items from one thread to a consumer running
 * on another, in file order, so that parsing and what follows it (the
 * coalescer) run on two cores at once.
 *
 * The producer fills batches of items; each full batch goes to a
 * consumer thread that calls consume(ctx, items, n) on it.  Items are
 * consumed exactly in the order they were pushed, so the result is the
 * same as calling consume inline, which is what happens when the queue
 * is made with threads < 2 (and the way tests compare the two).
 *
 * Ownership: the queue owns its batches and its thread; batch_queue_finish
 * waits for every item to be consumed and joins the thread, and must be
 * called before the consumer's context is read or freed.
 */
#ifndef SM_BATCH_QUEUE_H
#define SM_BATCH_QUEUE_H

#include <stddef.h>

typedef struct batch_queue batch_queue;

typedef void (*batch_queue_consume_fn)(void *ctx, const void *items, size_t n);

/* A queue of items of item_size bytes; threads < 2 consumes inline. */
batch_queue *batch_queue_new(size_t item_size, int threads, batch_queue_consume_fn consume,
    void *ctx);

/*
 * The slot for the next item, to be filled before the next call to
 * batch_queue_slot or batch_queue_finish.  May block while the consumer catches up.
 */
void *batch_queue_slot(batch_queue *q);

/* Consumes everything pushed so far and stops the consumer thread. */
void batch_queue_finish(batch_queue *q);

/* Finishes (if not yet finished) and frees. */
void batch_queue_free(batch_queue *q);

#endif
