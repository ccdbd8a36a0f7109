/*
 * fixed.h: numbers written byte for byte as printf writes them, without
 * printf: unsigned integers ("%" PRIu64) and doubles with three decimals
 * ("%.3f").
 *
 * The SVG writers give every rectangle's position and width this way,
 * and at a hundred thousand rectangles printf's general conversion was
 * half of what the classic command did after its last datum.  Values
 * that need printf's care (negative, huge, not a number, or within a
 * hair of halfway between two thousandths, where printf rounds the exact
 * binary value to even) are handed to it.
 */
#ifndef SM_FIXED_H
#define SM_FIXED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Room for any double's "%.3f" and a NUL: 309 digits, sign, point, 3. */
#define FIXED3_MAX	320

/* Room for any uint64_t's digits (20); fixed_uint writes no NUL. */
#define FIXED_UINT_MAX	20

/* Writes v's decimal digits at buf (FIXED_UINT_MAX bytes); returns length. */
size_t fixed_uint(uint64_t v, char *buf);

/* Writes v as "%.3f" does into buf (FIXED3_MAX bytes); returns length. */
size_t fixed3_format(double v, char *buf);

/* Copies len bytes of text to p (a line built in a buffer); returns the end. */
static inline char *
fixed_append(char *p, const char *text, size_t len)
{
	memcpy(p, text, len);
	return (p + len);
}

#define FIXED_APPEND_LITERAL(p, s)	fixed_append((p), (s), sizeof (s) - 1)

/* Room for fixed_round_trip's text and a NUL. */
#define FIXED_G_MAX	32

/*
 * Writes finite v into buf (FIXED_G_MAX bytes) as the first of "%.15g",
 * "%.16g" and "%.17g" that strtod reads back as v, and returns the
 * length: the fewest of those digits that lose nothing.  printf is asked
 * once, for 17 digits, which are rounded to 15 and 16 here (where they
 * end in a half, printf rounds the exact binary value instead).
 */
size_t fixed_round_trip(double v, char *buf);

#endif
