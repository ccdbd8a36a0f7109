/*
 * libFuzzer harness for the PNG's deflate encoder (src/base/deflate_rle.c):
 * the input's first two bytes say where to cut the rest into two streams
 * and in what pieces to write them; the two laid end to end must inflate
 * (zlib) to the rest exactly.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/deflate_rle.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Compresses p[0, n) as one stream in pieces of step bytes. */
static unsigned char *
deflate_stream(const unsigned char *p, size_t n, size_t step, int final,
    size_t *len)
{
	deflate_rle *z = deflate_rle_new();
	unsigned char *out;
	size_t off;

	for (off = 0; off < n; off += step)
		deflate_rle_write(z, p + off, n - off < step ? n - off : step);
	out = deflate_rle_finish(z, final, len);
	deflate_rle_free(z);
	return (out);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const unsigned char *rest = data + 2;
	size_t n, cut, step, alen, blen;
	unsigned char *a, *b, *both, *back;
	z_stream s;
	int rv;

	if (size < 2)
		return (0);
	n = size - 2;
	cut = n > 0 ? data[0] * n / 255 : 0;
	step = 1 + data[1] * 37;
	a = deflate_stream(rest, cut, step, 0, &alen);
	b = deflate_stream(rest + cut, n - cut, step, 1, &blen);
	both = malloc(alen + blen + 1);
	memcpy(both, a, alen);
	memcpy(both + alen, b, blen);
	back = malloc(n + 1);
	memset(&s, 0, sizeof (s));
	if (inflateInit2(&s, -15) != Z_OK)
		abort();
	s.next_in = both;
	s.avail_in = (uInt)(alen + blen);
	s.next_out = back;
	s.avail_out = (uInt)(n + 1);
	rv = inflate(&s, Z_FINISH);
	if (rv != Z_STREAM_END || s.avail_in != 0 || s.total_out != n ||
	    memcmp(back, rest, n) != 0)
		abort();
	inflateEnd(&s);
	free(a);
	free(b);
	free(both);
	free(back);
	return (0);
}
