/*
 * scanrate: how long the scanner (scan.h) takes per record of a trace,
 * alone: the first 64 MiB of the file read into memory, then scanned as a
 * scanning thread scans it (scan_quick_run, and scan_record_shaped where a
 * run stops), several times over; prints the best pass in ns a record.
 * A record neither reads is skipped to the next line and counted (the
 * load gives it to the general parser: its cost is not in the figure).
 *
 * The load's own figures on this machine swing with how fast fresh memory
 * comes from the host (bench/README.md); this one touches no fresh
 * memory, so it shows what reading each kind of record costs, and what a
 * change to the scanner buys.
 *
 *	build/scanrate FILE...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "ingest/scan.h"

#define BYTES	((size_t)64 << 20)
#define PASSES	9
#define RUN	32	/* as chunks_scan.c reads them */

/* What was read, kept where the compiler cannot drop the reading. */
static volatile uint64_t observed;

static double
clock_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
}

/*
 * One pass over buf[start, stop): how many records, *left of them left
 * to the general parser (skipped here, to the next line).
 */
static size_t
scan_pass(const char *buf, size_t len, size_t start, size_t stop,
    uint64_t *sink, size_t *left)
{
	scan_shapes shapes;
	scanned run[RUN], d;
	size_t pos = start, n = 0, k, i;
	const char *nl;

	*left = 0;
	scan_shapes_init(&shapes);
	for (;;) {
		k = scan_quick_run(&shapes, buf, len, &pos, stop, 64, run, RUN);
		for (i = 0; i < k; i++)
			*sink += run[i].time ^ run[i].value ^ run[i].state;
		n += k;
		if (k > 0)
			continue;
		pos = json_skip_space(buf, len, pos);
		if (pos >= stop)
			return (n);
		n++;
		if (!scan_record_shaped(&shapes, buf, len, pos, 64, &d)) {
			nl = memchr(buf + pos, '\n', stop - pos);
			if (nl == NULL)
				return (n);
			pos = (size_t)(nl + 1 - buf);
			(*left)++;
			continue;
		}
		*sink += d.time ^ d.value;
		pos = d.next;
	}
}

static int
scan_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf, *nl;
	size_t len, start, stop, n = 0, left = 0;
	double best = 0;
	uint64_t sink = 0;
	int pass;

	if (f == NULL) {
		perror(path);
		return (1);
	}
	buf = malloc(BYTES);
	if (buf == NULL) {
		fclose(f);
		return (1);
	}
	len = fread(buf, 1, BYTES, f);
	fclose(f);
	/* From the first datum (after the metadata line) to a line end. */
	nl = memchr(buf, '\n', len);
	while (len > 0 && buf[len - 1] != '\n')
		len--;
	if (nl == NULL || len == 0) {
		fprintf(stderr, "scanrate: %s: no records\n", path);
		free(buf);
		return (1);
	}
	start = (size_t)(nl + 1 - buf);
	stop = len;
	for (pass = 0; pass < PASSES; pass++) {
		double t = clock_seconds();

		n = scan_pass(buf, len, start, stop, &sink, &left);
		t = clock_seconds() - t;
		observed = sink;
		if (pass == 0 || t < best)
			best = t;
	}
	if (left > 0)
		printf("%.2f (%zu of %zu records left to the parser)\n",
		    best * 1e9 / (double)n, left, n);
	else
		printf("%.2f\n", best * 1e9 / (double)n);
	free(buf);
	return (0);
}

int
main(int argc, char **argv)
{
	int i, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: scanrate FILE...\n");
		return (2);
	}
	for (i = 1; i < argc; i++)
		bad |= scan_file(argv[i]);
	return (bad);
}
