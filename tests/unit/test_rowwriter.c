/*
 * Tests for rowwriter.h: rows formatted on two threads come out exactly
 * as rows written in turn, for every number of rows around the block
 * and slot sizes, rows of very different lengths (some far larger than
 * a stdio buffer, some empty), and each thread's scratch its own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/threads.h"
#include "output/rowwriter.h"
#include "unit.h"

typedef struct rows_ctx {
	size_t big_every;	/* every so many rows is ~100 KB long */
	int scratch_clobbered;
} rows_ctx;

/* Row k: a length and text that depend on k alone. */
static void
row_text(FILE *out, size_t k, void *scratch, void *ctx)
{
	rows_ctx *c = ctx;
	uint64_t *mark = scratch;
	size_t i, len = (k * 7919) % 300;

	/* Another thread's row in the same scratch would change this. */
	*mark = k;
	if (c->big_every > 0 && k % c->big_every == 3)
		len = 100000 + k;
	fprintf(out, "row %zu:", k);
	for (i = 0; i < len; i++)
		fputc('a' + (int)((k + i) % 26), out);
	if (*mark != k)
		c->scratch_clobbered = 1;
	if (k % 5 != 0)
		fputc('\n', out);	/* rows without a line end are rows too */
}

static char *
rows_via(int threaded, size_t nrows, rows_ctx *c, size_t *len)
{
	char *text = NULL;
	FILE *fp = open_memstream(&text, len);

	if (threaded) {
		rowwriter_run(fp, nrows, row_text, c, sizeof (uint64_t));
	} else {
		uint64_t scratch = 0;
		size_t k;

		for (k = 0; k < nrows; k++)
			row_text(fp, k, &scratch, c);
	}
	fclose(fp);
	return (text);
}

int
main(void)
{
	static const size_t counts[] = { 0, 1, 2, 15, 16, 17, 63, 64, 65,
	    127, 128, 129, 200, 1000, 4099 };
	size_t i, bad = 0, checked = 0;
	int clobbered = 0;
	rows_ctx c;
	char name[128];

	if (threads_count() < 2)
		SKIP("rowwriter: rows formatted on two threads", "one "
		    "processor here (or STATEMAP_THREADS=1): rows are written "
		    "in turn, checked below all the same");

	for (i = 0; i < sizeof (counts) / sizeof (counts[0]); i++) {
		size_t big;

		for (big = 0; big <= 7; big += 7) {
			size_t la, lb;
			char *a, *b;

			memset(&c, 0, sizeof (c));
			c.big_every = big;
			a = rows_via(1, counts[i], &c, &la);
			b = rows_via(0, counts[i], &c, &lb);
			checked++;
			if (la != lb || memcmp(a, b, la) != 0) {
				if (bad++ == 0) {
					snprintf(name, sizeof (name), "%zu rows "
					    "(big every %zu): %zu bytes, want "
					    "%zu", counts[i], big, la, lb);
				}
			}
			free(a);
			free(b);
			clobbered |= c.scratch_clobbered;
		}
	}
	CHECK_INT("rowwriter: each thread's scratch is its own", clobbered, 0);
	UNIT_REPORT(bad == 0, "rowwriter: the same bytes as rows written in "
	    "turn, 0 to 4099 rows, small, empty and 100 KB rows", "%zu of "
	    "%zu differ, first %s", bad, checked, name);
	return (unit_exit());
}
