/*
 * pngout.h: an opaque picture written as a PNG file, quickly.
 *
 * Cairo writes PNG at zlib's default effort, trying each row filter in
 * turn, which for a statemap costs as much as drawing it.  A statemap is
 * long runs of a few colours, and rows of one strip repeat: filtered
 * Sub or Up, row by row, those are runs of zeros, which zlib's
 * run-length strategy finds in less time than any level of its LZ77
 * (pngout.c).  Compression is still a large part of the time, so the
 * rows are cut into bands deflated side by side, one thread per core,
 * into one zlib stream.  No PNG library can do that, so the file
 * (signature, IHDR, IDAT, IEND, each with its CRC) is written here, with
 * zlib for deflate and the checksums.  The pixels are the same (PNG is
 * lossless), and so are the bytes, whatever the number of threads.
 */
#ifndef SM_PNGOUT_H
#define SM_PNGOUT_H

#include <stdio.h>

/*
 * Writes the pixels of a Cairo CAIRO_FORMAT_RGB24 image (32 bits a pixel,
 * 0xXXRRGGBB in native order; rows stride bytes apart) to fp as an
 * 8-bit RGB PNG.  Returns 0, or -1 with *why set to a static message.
 */
int pngout_write_rgb24(FILE *fp, const unsigned char *data, int width,
    int height, int stride, const char **why);

#endif
