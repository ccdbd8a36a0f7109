#include "output/rowwriter.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/threads.h"
#include "base/util.h"

/* Blocks of text the helper may hold: it runs at most this far ahead. */
#define ROWWRITER_SLOTS	4
/* About this many blocks in all: enough to even out rows' sizes. */
#define ROWWRITER_BLOCKS	64
/* Fewer rows than this are written in turn: no thread pays for them. */
#define ROWWRITER_MIN_ROWS	16

/* A block of the helper's text, in memory, through its own FILE. */
typedef struct slot {
	FILE *fp;
	char *text;
	size_t len, cap;
	size_t block;		/* which block it holds */
	int ready;		/* formatted, waiting to be written */
	int busy;		/* being filled or waiting: not free */
} slot;

typedef struct rowwriter {
	rowwriter_fn fn;
	void *ctx;
	size_t nrows, nblocks, rows_per_block;
	size_t scratch_bytes;

	pthread_mutex_t lock;
	pthread_cond_t changed;	/* a slot filled or emptied */
	slot slots[ROWWRITER_SLOTS];
} rowwriter;

static ssize_t
slot_write(void *cookie, const char *buf, size_t size)
{
	slot *s = cookie;

	if (s->len + size > s->cap)
		grow_array(&s->text, &s->cap, s->len + size, 1);
	memcpy(s->text + s->len, buf, size);
	s->len += size;
	return ((ssize_t)size);
}

static void
write_block(rowwriter *w, FILE *out, size_t block, void *scratch)
{
	size_t row = block * w->rows_per_block;
	size_t end = row + w->rows_per_block;

	if (end > w->nrows)
		end = w->nrows;
	for (; row < end; row++)
		w->fn(out, row, scratch, w->ctx);
}

/*
 * The helper formats the odd blocks, this thread the even ones: taken on
 * demand, the helper, always ahead, took every block while this thread
 * only waited and copied.
 */
static int
helpers_block(size_t b)
{
	return (b % 2 == 1);
}

static void *
helper_main(void *arg)
{
	rowwriter *w = arg;
	void *scratch = xcalloc(1, w->scratch_bytes > 0 ? w->scratch_bytes :
	    1);

	size_t b = 0;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		slot *s = NULL;
		size_t i;

		while (b < w->nblocks && !helpers_block(b))
			b++;
		if (b >= w->nblocks)
			break;
		for (i = 0; i < ROWWRITER_SLOTS && s == NULL; i++)
			if (!w->slots[i].busy)
				s = &w->slots[i];
		if (s == NULL) {
			pthread_cond_wait(&w->changed, &w->lock);
			continue;
		}
		s->busy = 1;
		s->block = b;
		pthread_mutex_unlock(&w->lock);

		write_block(w, s->fp, b, scratch);
		fflush(s->fp);

		pthread_mutex_lock(&w->lock);
		s->ready = 1;
		pthread_cond_broadcast(&w->changed);
		b++;
	}
	pthread_mutex_unlock(&w->lock);
	free(scratch);
	return (NULL);
}

/* The slot holding block b, once the helper has it ready. */
static slot *
wait_for_block(rowwriter *w, size_t b)
{
	for (;;) {
		size_t i;

		for (i = 0; i < ROWWRITER_SLOTS; i++) {
			slot *s = &w->slots[i];

			if (s->busy && s->ready && s->block == b)
				return (s);
		}
		pthread_cond_wait(&w->changed, &w->lock);
	}
}

static void
write_in_turn(FILE *out, size_t nrows, rowwriter_fn fn, void *ctx,
    size_t scratch_bytes)
{
	void *scratch = xcalloc(1, scratch_bytes > 0 ? scratch_bytes : 1);
	size_t row;

	for (row = 0; row < nrows; row++)
		fn(out, row, scratch, ctx);
	free(scratch);
}

void
rowwriter_run(FILE *out, size_t nrows, rowwriter_fn fn, void *ctx,
    size_t scratch_bytes)
{
	cookie_io_functions_t io = { NULL, slot_write, NULL, NULL };
	rowwriter w;
	pthread_t helper;
	void *scratch;
	size_t b, i;

	if (nrows < ROWWRITER_MIN_ROWS || threads_count() < 2) {
		write_in_turn(out, nrows, fn, ctx, scratch_bytes);
		return;
	}
	memset(&w, 0, sizeof (w));
	w.fn = fn;
	w.ctx = ctx;
	w.nrows = nrows;
	w.rows_per_block = (nrows + ROWWRITER_BLOCKS - 1) / ROWWRITER_BLOCKS;
	w.nblocks = (nrows + w.rows_per_block - 1) / w.rows_per_block;
	w.scratch_bytes = scratch_bytes;
	for (i = 0; i < ROWWRITER_SLOTS; i++) {
		if ((w.slots[i].fp = fopencookie(&w.slots[i], "w", io)) ==
		    NULL)
			out_of_memory(BUFSIZ);
	}
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.changed, NULL);
	if (pthread_create(&helper, NULL, helper_main, &w) != 0) {
		write_in_turn(out, nrows, fn, ctx, scratch_bytes);
		goto done;
	}

	scratch = xcalloc(1, scratch_bytes > 0 ? scratch_bytes : 1);
	pthread_mutex_lock(&w.lock);
	for (b = 0; b < w.nblocks; b++) {
		slot *s;

		if (!helpers_block(b)) {
			pthread_mutex_unlock(&w.lock);
			write_block(&w, out, b, scratch);
			pthread_mutex_lock(&w.lock);
			continue;
		}
		s = wait_for_block(&w, b);
		pthread_mutex_unlock(&w.lock);
		fwrite(s->text, 1, s->len, out);
		s->len = 0;
		pthread_mutex_lock(&w.lock);
		s->ready = 0;
		s->busy = 0;
		pthread_cond_broadcast(&w.changed);
	}
	pthread_mutex_unlock(&w.lock);
	pthread_join(helper, NULL);
	free(scratch);
done:
	for (i = 0; i < ROWWRITER_SLOTS; i++) {
		fclose(w.slots[i].fp);
		free(w.slots[i].text);
	}
	pthread_cond_destroy(&w.changed);
	pthread_mutex_destroy(&w.lock);
}
