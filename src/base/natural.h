/*
 * natural.h: "natural" ordering of names, in which digit runs compare as
 * numbers, so cpu2 sorts before cpu10.  It follows the strnatcmp rules
 * the reference tool uses (through Rust's natord): whitespace is skipped,
 * a digit run starting with 0 compares digit by digit (as a fraction),
 * other digit runs compare by length first, then by the first differing
 * digit.  Everything else compares by byte.
 */
#ifndef SM_NATURAL_H
#define SM_NATURAL_H

#include <stddef.h>

/* <0, 0 or >0 as a sorts before, with or after b. */
int natural_compare(const char *a, size_t alen, const char *b, size_t blen);

#endif
