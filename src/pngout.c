#include "pngout.h"

#include <errno.h>
#include <png.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Where the PNG goes, and what went wrong. */
typedef struct sink {
	FILE *fp;
	const char *why;
} sink;

/*
 * libpng reports errors by calling this, which must not return: it
 * jumps back to pngout_write_rgb24's setjmp.  Its own messages name
 * its internals; a failed write has said what failed already.
 */
static void
on_error(png_structp png, png_const_charp message)
{
	sink *out = png_get_error_ptr(png);

	(void) message;
	if (out->why == NULL)
		out->why = "the PNG encoder failed";
	png_longjmp(png, 1);
}

static void
on_warning(png_structp png, png_const_charp message)
{
	(void) png;
	(void) message;
}

static void
on_write(png_structp png, png_bytep data, size_t length)
{
	sink *out = png_get_io_ptr(png);

	if (fwrite(data, 1, length, out->fp) != length) {
		out->why = strerror(errno);
		png_error(png, "write");
	}
}

static void
on_flush(png_structp png)
{
	sink *out = png_get_io_ptr(png);

	if (fflush(out->fp) != 0) {
		out->why = strerror(errno);
		png_error(png, "write");
	}
}

int
pngout_write_rgb24(FILE *fp, const unsigned char *data, int width,
    int height, int stride, const char **why)
{
	sink out = { fp, NULL };
	png_structp png;
	png_infop info;
	unsigned char *volatile row = NULL;
	int y;

	*why = "out of memory";
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &out, on_error,
	    on_warning);
	if (png == NULL)
		return (-1);
	info = png_create_info_struct(png);
	if (info == NULL) {
		png_destroy_write_struct(&png, NULL);
		return (-1);
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		free(row);
		*why = out.why;
		return (-1);
	}
	row = xmalloc((size_t)width * 3);
	png_set_write_fn(png, &out, on_write, on_flush);
	png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
	    PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
	    PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	/*
	 * No filter, zlib's fastest level: rows of a statemap are long runs
	 * of few colours, which LZ77 finds as they are (and a strip's rows
	 * repeat whole); filters only blur them.  Files come out a quarter
	 * smaller than Cairo's, sooner.
	 */
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
	png_set_compression_level(png, 1);
	png_write_info(png, info);
	for (y = 0; y < height; y++) {
		const unsigned char *line = data + (size_t)y * (size_t)stride;
		int x;

		for (x = 0; x < width; x++) {
			uint32_t px;

			memcpy(&px, line + (size_t)x * 4, sizeof (px));
			row[3 * x] = (unsigned char)(px >> 16);
			row[3 * x + 1] = (unsigned char)(px >> 8);
			row[3 * x + 2] = (unsigned char)px;
		}
		png_write_row(png, row);
	}
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	free(row);
	return (0);
}
