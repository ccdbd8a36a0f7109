#include "base/batch_queue.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/util.h"

/*
 * Batches of a few thousand items, so that locking costs nothing per
 * item, and enough of them (a quarter of a million items, 6 MB of the
 * classic command's 24-byte data) that the parser can run ahead of a
 * consumer that is slow for a while: the coalescer's first tenth of a
 * trace costs it half its heap work, and with four batches the parsing
 * threads sat idle through it.  Memory stays flat whatever the input
 * size.  On big.out: 0.92 of the wall time at -c 100000 and at the
 * default budget (farm-bench, 15 pairs), for 5 MB more at the peak.
 */
#define NBATCH		32
#define BATCH_ITEMS	8192

struct batch_queue {
	size_t item_size;
	batch_queue_consume_fn consume;
	void *ctx;
	char *batch[NBATCH];
	size_t count[NBATCH];
	size_t fill;		/* the batch the producer fills */
	size_t take;		/* the consumer's next batch */
	size_t nready;		/* batches handed over, not yet consumed */
	int threaded, done, finished;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t ready, space;
};

static void *
consumer(void *arg)
{
	batch_queue *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		size_t b;

		while (q->nready == 0 && !q->done)
			pthread_cond_wait(&q->ready, &q->lock);
		if (q->nready == 0)
			break;
		b = q->take;
		pthread_mutex_unlock(&q->lock);
		q->consume(q->ctx, q->batch[b], q->count[b]);
		pthread_mutex_lock(&q->lock);
		q->take = (b + 1) % NBATCH;
		q->nready--;
		pthread_cond_signal(&q->space);
	}
	pthread_mutex_unlock(&q->lock);
	return (NULL);
}

batch_queue *
batch_queue_new(size_t item_size, int threads, batch_queue_consume_fn consume,
    void *ctx)
{
	batch_queue *q = xcalloc(1, sizeof (*q));
	size_t i;

	q->item_size = item_size;
	q->consume = consume;
	q->ctx = ctx;
	for (i = 0; i < NBATCH; i++)
		q->batch[i] = xmalloc(BATCH_ITEMS * item_size);
	if (threads < 2)
		return (q);
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->ready, NULL);
	pthread_cond_init(&q->space, NULL);
	/* Without a thread the queue still works: inline, same result. */
	q->threaded = pthread_create(&q->thread, NULL, consumer, q) == 0;
	if (!q->threaded) {
		pthread_mutex_destroy(&q->lock);
		pthread_cond_destroy(&q->ready);
		pthread_cond_destroy(&q->space);
	}
	return (q);
}

/* Hands the batch being filled to the consumer and takes a free one. */
static void
submit(batch_queue *q)
{
	if (!q->threaded) {
		q->consume(q->ctx, q->batch[q->fill], q->count[q->fill]);
		q->count[q->fill] = 0;
		return;
	}
	pthread_mutex_lock(&q->lock);
	q->nready++;
	pthread_cond_signal(&q->ready);
	while (q->nready == NBATCH)
		pthread_cond_wait(&q->space, &q->lock);
	pthread_mutex_unlock(&q->lock);
	q->fill = (q->fill + 1) % NBATCH;
	q->count[q->fill] = 0;
}

void *
batch_queue_slot(batch_queue *q)
{
	if (q->count[q->fill] == BATCH_ITEMS)
		submit(q);
	return (q->batch[q->fill] + q->count[q->fill]++ * q->item_size);
}

void
batch_queue_finish(batch_queue *q)
{
	if (q->finished)
		return;
	q->finished = 1;
	if (q->count[q->fill] > 0)
		submit(q);
	if (!q->threaded)
		return;
	pthread_mutex_lock(&q->lock);
	q->done = 1;
	pthread_cond_signal(&q->ready);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->ready);
	pthread_cond_destroy(&q->space);
}

void
batch_queue_free(batch_queue *q)
{
	size_t i;

	if (q == NULL)
		return;
	batch_queue_finish(q);
	for (i = 0; i < NBATCH; i++)
		free(q->batch[i]);
	free(q);
}
