/*
 * byte_size.h: a size in bytes as a person writes it, "512M" or "1.5G":
 * digits, an optional fraction, then optionally K, M, G or T (powers of
 * 1024, either case), an optional "i" after it and an optional B ("2GiB",
 * "2gb"), and nothing else: no sign, no spaces.  STATEMAP_CACHE_SIZE and
 * STATEMAP_SPILL_BYTES take sizes so.
 */
#ifndef SM_BYTE_SIZE_H
#define SM_BYTE_SIZE_H

#include <stdint.h>

/* The largest size taken: sums of a few such sizes stay exact. */
#define BYTE_SIZE_MAX	((uint64_t)1 << 62)

/*
 * Reads s into *out (a fraction of a byte dropped): 0, or -1 if s is not
 * a size or is more than BYTE_SIZE_MAX.
 */
int byte_size_parse(const char *s, uint64_t *out);

#endif
