/*
 * Tests for deflate_rle: what it writes inflates (zlib) back to what it
 * was given, alone and as streams laid end to end; runs shrink, and
 * bytes that are noise do not grow by much.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/deflate_rle.h"
#include "unit.h"

/* Inflates raw deflate data; returns the bytes out, or -1 if bad. */
static long
inflate_raw(const unsigned char *in, size_t n, unsigned char *out,
    size_t cap)
{
	z_stream s;
	long got;
	int rv;

	memset(&s, 0, sizeof (s));
	if (inflateInit2(&s, -15) != Z_OK)
		return (-1);
	s.next_in = (unsigned char *)(uintptr_t)in;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	rv = inflate(&s, Z_FINISH);
	got = rv == Z_STREAM_END && s.avail_in == 0 ? (long)s.total_out : -1;
	inflateEnd(&s);
	return (got);
}

/*
 * Compresses the parts of data (cut at the offsets in cuts, ncuts of
 * them) as separate streams, each written in pieces of step bytes, lays
 * them end to end and inflates them: whether that gives data back.  The
 * size of the whole goes to *size.
 */
static int
round_trip(const unsigned char *data, size_t n, const size_t *cuts,
    size_t ncuts, size_t step, size_t *size)
{
	unsigned char *all = NULL, *back = malloc(n + 1);
	size_t total = 0, from = 0, k;
	long got;

	for (k = 0; k <= ncuts; k++) {
		size_t to = k < ncuts ? cuts[k] : n, off, len;
		deflate_rle *z = deflate_rle_new();
		unsigned char *out;

		for (off = from; off < to; off += step)
			deflate_rle_write(z, data + off,
			    to - off < step ? to - off : step);
		out = deflate_rle_finish(z, k == ncuts, &len);
		deflate_rle_free(z);
		all = realloc(all, total + len);
		memcpy(all + total, out, len);
		total += len;
		free(out);
		from = to;
	}
	got = inflate_raw(all, total, back, n + 1);
	*size = total;
	k = got == (long)n && memcmp(back, data, n) == 0;
	free(all);
	free(back);
	return ((int)k);
}

/* data compressed as one stream written in pieces of step bytes. */
static unsigned char *
deflate_pieces(const unsigned char *data, size_t n, size_t step,
    size_t *len)
{
	deflate_rle *z = deflate_rle_new();
	unsigned char *out;
	size_t off;

	for (off = 0; off < n; off += step)
		deflate_rle_write(z, data + off, n - off < step ? n - off :
		    step);
	out = deflate_rle_finish(z, 1, len);
	deflate_rle_free(z);
	return (out);
}

/*
 * Whether data compress to the same bytes whatever pieces they are
 * written in: a run that goes on across writes, or past the longest
 * match, is the same symbols.
 */
static int
same_in_pieces(const unsigned char *data, size_t n)
{
	static const size_t steps[] = { 1, 7, 8, 9, 257, 999 };
	size_t whole_len, len, i;
	unsigned char *whole = deflate_pieces(data, n, n > 0 ? n : 1,
	    &whole_len);
	int same = 1;

	for (i = 0; i < sizeof (steps) / sizeof (steps[0]); i++) {
		unsigned char *out = deflate_pieces(data, n, steps[i], &len);

		same = same && len == whole_len &&
		    memcmp(out, whole, len) == 0;
		free(out);
	}
	free(whole);
	return (same);
}

static uint32_t seed = 12345;

static unsigned
rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 16);
}

int
main(void)
{
	size_t n = (size_t)1 << 20, i, size, cuts[3];
	unsigned char *data = calloc(n, 1);
	char name[96];
	/* Run lengths about every code's edges, and past the longest. */
	static const size_t runs[] = { 1, 2, 3, 4, 10, 11, 12, 257, 258, 259,
	    260, 516, 517, 1000 };

	CHECK("deflate_rle: nothing", round_trip(data, 0, NULL, 0, 1,
	    &size));
	data[0] = 'x';
	CHECK("deflate_rle: one byte", round_trip(data, 1, NULL, 0, 1,
	    &size));
	for (i = 0; i < sizeof (runs) / sizeof (runs[0]); i++) {
		memset(data, 7, runs[i]);
		data[runs[i]] = 8;
		snprintf(name, sizeof (name), "deflate_rle: a run of %zu, "
		    "then another byte", runs[i]);
		CHECK(name, round_trip(data, runs[i] + 1, NULL, 0, 3, &size));
	}
	/* Zeros: runs of the longest, a few bits each. */
	memset(data, 0, n);
	CHECK("deflate_rle: a megabyte of zeros", round_trip(data, n, NULL,
	    0, 4096, &size));
	CHECK("deflate_rle: zeros shrink a hundredfold", size < n / 100);
	/* Noise: every symbol, several blocks, codes near flat. */
	for (i = 0; i < n; i++)
		data[i] = (unsigned char)rnd();
	CHECK("deflate_rle: a megabyte of noise", round_trip(data, n, NULL,
	    0, 1 << 16, &size));
	CHECK("deflate_rle: noise grows by under 1%", size < n + n / 100);
	/* Skewed bytes (codes at the 15-bit limit), with runs. */
	for (i = 0; i < n; i++) {
		unsigned r = rnd(), b = 0;

		while (b < 40 && (r & 1)) {
			b++;
			r = (r >> 1) | (rnd() << 14);
		}
		data[i] = (unsigned char)b;
		if (rnd() % 16 == 0) {
			size_t len = rnd() % 600;

			memset(data + i, data[i], len < n - i ? len : n - i);
			i += len < n - i ? len : n - i;
		}
	}
	CHECK("deflate_rle: skewed bytes and runs", round_trip(data, n, NULL,
	    0, 999, &size));
	CHECK("deflate_rle: skewed bytes and runs, the same bytes in pieces "
	    "of 1 to 999", same_in_pieces(data, 200000));
	/*
	 * Within one block, 18 bytes that come 1, 2, 3, 5, 8, ... 4181
	 * times (the end of the block once more), never twice in a row (no
	 * runs to change their counts): each node of the Huffman tree is the
	 * last one and a byte, 18 bits deep, so the lengths must be limited
	 * to 15.
	 */
	{
		size_t left[18], f0 = 1, f1 = 2, at = 0;
		unsigned sym, prev = 18;

		for (sym = 0; sym < 18; sym++) {
			left[sym] = f0;
			f0 = f1;
			f1 += left[sym];
		}
		for (;;) {
			unsigned best = 18;

			for (sym = 0; sym < 18; sym++)
				if (sym != prev && left[sym] > 0 && (best == 18 ||
				    left[sym] > left[best]))
					best = sym;
			if (best == 18)
				break;
			left[best]--;
			data[at++] = (unsigned char)(best * 13);
			prev = best;
		}
		CHECK_INT("deflate_rle: Fibonacci frequencies, all placed",
		    (long long)at, 10944);
		CHECK("deflate_rle: Fibonacci frequencies, codes limited",
		    round_trip(data, at, NULL, 0, 1 << 20, &size));
	}
	/* Streams laid end to end: the bands of a PNG. */
	for (i = 0; i < n; i++)
		data[i] = (unsigned char)(rnd() % 8 == 0 ? rnd() : 0);
	cuts[0] = 1;
	cuts[1] = 100000;
	cuts[2] = 700001;
	CHECK("deflate_rle: four streams end to end", round_trip(data, n,
	    cuts, 3, 777, &size));
	cuts[0] = 0;
	cuts[1] = 0;
	CHECK("deflate_rle: empty streams end to end", round_trip(data, 5000,
	    cuts, 2, 10, &size));
	free(data);
	return (unit_exit());
}
