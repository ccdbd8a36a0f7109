/*
 * scan_internal.h: private to the files of the scanner, whose contract is
 * scan.h:
 *
 *   scan_members.c  a datum read member by member, each value by the rule
 *                   for its member (digits, names, numbers): the reading
 *                   every other one answers as
 *   scan_shapes.c   the layouts of data learnt, and a datum read by one
 *   scan_quick.c    a layout read quickly, without bound checks, and the
 *                   shaped scans that try it first
 *
 * Each reads the bytes with the word-at-a-time helpers here.  There is no
 * scan.c: in the layers check it would be one module with scan.h, which
 * every file here includes, so it could call none of them without a
 * circle.
 */
#ifndef SM_SCAN_INTERNAL_H
#define SM_SCAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ingest/scan.h"

/* The members of a datum, as a shape's kinds of value and as bits. */
enum {
	SCAN_TIME = 1, SCAN_ENTITY = 2, SCAN_STATE = 4, SCAN_TAG = 8,
	SCAN_VALUE = 16, SCAN_PUSH = 32, SCAN_POP = 64	/* scan_record's */
};
#define SCAN_OPS	(SCAN_STATE | SCAN_VALUE | SCAN_PUSH | SCAN_POP)

#define ONES	0x0101010101010101ULL
#define HIGHS	(0x80 * ONES)

/*
 * Eight input bytes as a number whose low byte is the first of them, on
 * any machine: the scanner's word-at-a-time code counts bytes from the
 * low end.
 */
static inline uint64_t
scan_load_le64(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof (w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return (w);
}

/* The index of the first byte whose high bit is set in flags (not 0). */
static inline unsigned
scan_first_flagged(uint64_t flags)
{
	return ((unsigned)__builtin_ctzll(flags) / 8);
}

/*
 * How many of the bytes of w, from the first, are ASCII digits.  A digit
 * is 0x30..0x39: high nibble 3, and a low nibble that stays below 16 when
 * 6 is added.  Adding 6 to a byte of 0xfa or more carries into the next
 * byte, but only after a byte that is not a digit, so the count of those
 * before it is still right.
 */
static inline unsigned
scan_leading_digits(uint64_t w)
{
	uint64_t nibbles = (w & (0xf0 * ONES)) |
	    (((w + 0x06 * ONES) & (0xf0 * ONES)) >> 4);
	uint64_t other = (nibbles ^ (0x33 * ONES)) & (0xff * ONES);

	if (other == 0)
		return (8);
	return ((unsigned)__builtin_ctzll(other) / 8);
}

/*
 * The value of the first n (1 to 8) digits of w: shifted so that the
 * missing digits are leading zeros, then combined in pairs, fours and
 * eights, each step one multiply that works on every lane at once.
 */
static inline uint64_t
scan_digits_value(uint64_t w, unsigned n)
{
	uint64_t v = (w & (0x0f * ONES)) << (8 * (8 - n));

	v = (v * 10 + (v >> 8)) & 0x00ff00ff00ff00ffULL;
	v = (v * 100 + (v >> 16)) & 0x0000ffff0000ffffULL;
	v = (v * 10000 + (v >> 32)) & 0x00000000ffffffffULL;
	return (v);
}

static const uint64_t scan_powers_of_ten[9] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000
};

static const double scan_exact_powers_of_ten[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/*
 * How many bytes from p are plain name bytes: printable ASCII (0x20 to
 * 0x7e) other than '"' and '\\'.  A word at a time, each test flagging
 * the high bit of the bytes that fail it; a test may also flag bytes
 * after one that truly fails (a borrow or carry runs on), never before,
 * so the first flag is exact.
 */
static inline size_t
scan_plain_bytes(const char *p, const char *end)
{
	const char *q = p;

	while (end - q >= 8) {
		uint64_t w = scan_load_le64(q), quote = w ^ (0x22 * ONES),
		    backslash = w ^ (0x5c * ONES);
		uint64_t bad = ((w - 0x20 * ONES) & ~w) |	/* below 0x20 */
		    w | (w + ONES) |				/* 0x7f and up */
		    ((quote - ONES) & ~quote) |			/* '"' */
		    ((backslash - ONES) & ~backslash);		/* '\\' */

		bad &= HIGHS;
		if (bad != 0)
			return ((size_t)(q - p) + scan_first_flagged(bad));
		q += 8;
	}
	while (q < end && (unsigned char)*q >= 0x20 &&
	    (unsigned char)*q < 0x7f && *q != '"' && *q != '\\')
		q++;
	return ((size_t)(q - p));
}

/* What the readings of a value return for one they do not accept. */
#define NO_VALUE	SIZE_MAX

/* What a scan starts from: no tag, a plain state. */
static inline void
scanned_init(scanned *d)
{
	d->tag = NULL;
	d->tag_len = 0;
	d->op = SCAN_OP_STATE;	/* str, value, str_len: the op's reading */
}

/*
 * The longest literal a shape read quickly may have (see scan_quick.c);
 * a shape with a longer one is learnt as not quick.
 */
#define QUICK_LITERAL	16

/* scan_members.c */

/*
 * A datum at buf[pos], of the generic state system's too if ops: 1 and d
 * filled, or 0 (scan_datum and scan_record).
 */
int scan_members(const char *buf, size_t len, size_t pos, uint32_t nstates,
    scanned *d, int ops);

/*
 * The value of a member of this kind at p, by the rule for that member,
 * as both scans read it: fills d (and *state) and returns its length, or
 * NO_VALUE.  scan_read_op_value reads that of a "value", "push" or "pop".
 */
size_t scan_read_value(unsigned kind, const char *p, const char *end,
    uint32_t nstates, scanned *d, uint64_t *state);
size_t scan_read_op_value(unsigned kind, const char *p, const char *end,
    uint32_t nstates, scanned *d, uint64_t *state);

/* scan_shapes.c */

/*
 * The datum at pos by the shapes in set (a bit for each), else by
 * scan_members, its shape then learnt: 1 and d filled, or 0.
 */
int scan_shaped_from(scan_shapes *s, unsigned set, const char *buf,
    size_t len, size_t pos, uint32_t nstates, scanned *d, int ops);

#endif
