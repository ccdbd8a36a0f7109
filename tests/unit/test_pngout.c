/*
 * Tests for src/render/pngout.c: PNGs of several sizes, one band and many, read
 * back with Cairo (libpng, which checks every CRC and the zlib checksum)
 * must give back every pixel; a failed write is reported.
 */
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "render/pngout.h"
#include "unit.h"

static uint32_t
be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3]);
}

/*
 * The file as PNG, checked by hand rather than by a reader that stops
 * once it has the pixels: the signature, every chunk's CRC, IHDR first
 * and IEND last, and the IDATs' zlib stream whole, its checksum included,
 * inflating to exactly the rows, each with filter byte 1 (Sub) or 2 (Up,
 * not on the first row; how they unfilter, reading the pixels back
 * checks).
 */
static int
valid_png(const char *path, int width, int height)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *file, *idat, *rows;
	long len;
	size_t at = 8, nidat = 0, want = (size_t)height * (1 + 3 * (size_t)width);
	uLongf got = (uLongf)want + 1;
	int ok = 1, chunks = 0, ended = 0, y;

	if (fp == NULL)
		return (0);
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	file = malloc((size_t)len);
	idat = malloc((size_t)len);
	rows = malloc(want + 1);
	if (fread(file, 1, (size_t)len, fp) != (size_t)len ||
	    memcmp(file, "\x89PNG\r\n\x1a\n", 8) != 0)
		ok = 0;
	while (ok && !ended && at + 12 <= (size_t)len) {
		uint32_t n = be32(file + at);
		const unsigned char *type = file + at + 4;

		if (at + 12 + n > (size_t)len ||
		    be32(file + at + 8 + n) != (uint32_t)crc32(0, type, n + 4))
			ok = 0;
		else if (chunks == 0 && (memcmp(type, "IHDR", 4) != 0 ||
		    n != 13 || be32(type + 4) != (uint32_t)width ||
		    be32(type + 8) != (uint32_t)height || type[12] != 8 ||
		    type[13] != 2))
			ok = 0;
		else if (memcmp(type, "IDAT", 4) == 0) {
			memcpy(idat + nidat, type + 4, n);
			nidat += n;
		} else if (memcmp(type, "IEND", 4) == 0)
			ended = 1;
		chunks++;
		at += 12 + n;
	}
	ok &= ended && at == (size_t)len;
	/* uncompress checks the stream's adler32 and that it ends. */
	ok &= ok && uncompress(rows, &got, idat, (uLong)nidat) == Z_OK &&
	    got == want;
	for (y = 0; ok && y < height; y++) {
		unsigned char f = rows[(size_t)y * (1 + 3 * (size_t)width)];

		ok &= f == 1 || (f == 2 && y > 0);
	}
	fclose(fp);
	free(file);
	free(idat);
	free(rows);
	return (ok);
}

/* Runs of a few colours, as in a statemap, with noise in some rows. */
static uint32_t
pixel(int x, int y, unsigned seed)
{
	uint32_t palette[4] = { 0x2ca02c, 0xf9f9f9, 0xffc300, 0x581845 };

	if (y % 7 == 3)
		return ((uint32_t)(x * 2654435761u ^ y * 40503u ^ seed) &
		    0xffffff);
	return (palette[(x / (5 + y % 11) + seed) % 4]);
}

/*
 * Writes a width x height image, each row of pixel() repeated `repeat`
 * times (a strip that many pixels tall), and reads it back: 1 if
 * identical.
 */
static int
round_trip(int width, int height, unsigned seed, int repeat, long *size)
{
	int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, width);
	unsigned char *data = calloc((size_t)height, (size_t)stride);
	char path[] = "/tmp/sm-pngout-XXXXXX";
	int fd = mkstemp(path), x, y, same = 1;
	FILE *fp = fdopen(fd, "w");
	const char *why = NULL;
	cairo_surface_t *back;

	for (y = 0; y < height; y++)
		for (x = 0; x < width; x++) {
			uint32_t px = 0xff000000u | pixel(x, y / repeat, seed);

			memcpy(data + (size_t)y * stride + (size_t)x * 4, &px, 4);
		}
	if (pngout_write_rgb24(fp, data, width, height, stride, &why) != 0)
		same = 0;
	*size = ftell(fp);
	fclose(fp);
	same &= valid_png(path, width, height);
	back = cairo_image_surface_create_from_png(path);
	if (cairo_surface_status(back) != CAIRO_STATUS_SUCCESS ||
	    cairo_image_surface_get_width(back) != width ||
	    cairo_image_surface_get_height(back) != height)
		same = 0;
	for (y = 0; same && y < height; y++) {
		const unsigned char *row = cairo_image_surface_get_data(back) +
		    (size_t)y * cairo_image_surface_get_stride(back);

		for (x = 0; x < width; x++) {
			uint32_t got;

			memcpy(&got, row + (size_t)x * 4, 4);
			same &= (got & 0xffffff) == pixel(x, y / repeat, seed);
		}
	}
	cairo_surface_destroy(back);
	unlink(path);
	free(data);
	return (same);
}

int
main(void)
{
	long size;
	unsigned char px[4] = { 0 };
	const char *why = NULL;
	FILE *full;

	CHECK("pngout: 1x1", round_trip(1, 1, 1, 1, &size));
	CHECK("pngout: 5x3, one band", round_trip(5, 3, 2, 1, &size));
	CHECK("pngout: 300x130, three bands", round_trip(300, 130, 3, 1,
	    &size));
	CHECK("pngout: 1920x700, eight bands", round_trip(1920, 700, 4, 1,
	    &size));
	/* Mostly runs: it must compress, not just be valid. */
	CHECK("pngout: the runs compress", size > 0 &&
	    size < 1920L * 700 * 3 / 4);
	/* Strips 10 rows tall, a noisy one among seven: each row after
	 * a strip's first costs next to nothing. */
	CHECK("pngout: 1920x700, strips of 10 rows",
	    round_trip(1920, 700, 6, 10, &size));
	UNIT_REPORT(size > 0 && size < 1920L * 700 * 3 / 30,
	    "pngout: a strip's repeated rows compress", "%ld bytes", size);
	CHECK("pngout: 257x1000, rows not a multiple of the bands",
	    round_trip(257, 1000, 5, 1, &size));

	full = fopen("/dev/full", "w");
	if (full != NULL) {
		CHECK("pngout: a full disk is an error",
		    pngout_write_rgb24(full, px, 1, 1, 4, &why) != 0 &&
		    why != NULL && strstr(why, "space") != NULL);
		fclose(full);
	}
	return (unit_exit());
}
