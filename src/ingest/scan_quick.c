/*
 * scan_quick.c: the shapes read quickly, and the shaped scans of scan.h,
 * which try them first.  With room around the record, a shape whose
 * literals are short is read without a bound check per step: each
 * literal compared as two masked words, each value read inline by the
 * rule scan_members.c has for it, the usual layouts written out step by
 * step.  Anything else goes to scan_shapes.c.
 */
#include "ingest/scan.h"

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/json.h"
#include "ingest/scan_internal.h"
#include "store/value.h"

/*
 * Most shapes are read without a bound check per step: their literals
 * are at most QUICK_LITERAL bytes (scan_internal.h), and the values read
 * quickly at most QUICK_VALUE (a longer one is left to shape_scan, which
 * reads any).  With QUICK_ROOM bytes from the start of the record, every
 * 16-byte load of the five literals and four values stays inside the
 * input, and every value has a byte after it (scan_digits refuses digits
 * that run to the end: with this much room they never do).
 */
#define QUICK_VALUE	15
#define QUICK_ROOM	(5 * QUICK_LITERAL + 4 * QUICK_VALUE + 16)
#define QUICK_BEFORE	16	/* readable before the record: see quick_digits */

enum { QUICK_NO, QUICK_YES, QUICK_UNSURE };

#if defined(__SSE2__)
/* How many bytes from p, of 16, are ASCII digits (16: all of them). */
static inline unsigned
sse2_leading_digits(const char *p)
{
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);
	/* Signed bytes: 0x80 and up are below '0'. */
	__m128i digit = _mm_and_si128(_mm_cmpgt_epi8(b, _mm_set1_epi8('0' - 1)),
	    _mm_cmplt_epi8(b, _mm_set1_epi8('9' + 1)));

	return ((unsigned)__builtin_ctz(~(unsigned)_mm_movemask_epi8(digit)));
}

/*
 * The value of the n (1 to 15) digits at p, from the 16 bytes that end
 * with them (p + n - 16 must be readable), the bytes before the digits
 * cleared: digits paired, then fours, then eights, each step one
 * multiply(-add) on every lane at once, and the two eights joined.
 */
static inline uint64_t
sse2_digits_value(const char *p, unsigned n)
{
	const __m128i lane = _mm_set_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
	    5, 4, 3, 2, 1, 0);
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)
	    (p + n - 16));

	x = _mm_and_si128(_mm_sub_epi8(x, _mm_set1_epi8('0')),
	    _mm_cmpgt_epi8(lane, _mm_set1_epi8((char)(15 - n))));
	/* Little-endian 16-bit lanes: the tens are the low byte. */
	x = _mm_add_epi16(_mm_mullo_epi16(_mm_and_si128(x,
	    _mm_set1_epi16(0xff)), _mm_set1_epi16(10)), _mm_srli_epi16(x, 8));
	x = _mm_madd_epi16(x, _mm_set1_epi32(1 << 16 | 100));
	x = _mm_packs_epi32(x, x);	/* below 10000: no saturation */
	x = _mm_madd_epi16(x, _mm_set1_epi32(1 << 16 | 10000));
	return ((uint64_t)(uint32_t)_mm_cvtsi128_si32(x) * 100000000 +
	    (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(x, 4)));
}
#endif

/*
 * The digits at p, as scan_digits reads them, if at most QUICK_VALUE:
 * how many (0 where scan_digits refuses them), their value in *out; or
 * 16 for more, for scan_digits to read.  16 bytes from p are readable,
 * and 15 before it.
 */
static inline __attribute__((always_inline)) unsigned
quick_digits(const char *p, uint64_t *out)
{
	unsigned n;

	/* One digit, as nearly every state is, in two compares. */
	if ((unsigned)(p[0] - '0') <= 9 && (unsigned)(p[1] - '0') > 9) {
		*out = (uint64_t)(p[0] - '0');
		return (1);
	}
#if defined(__SSE2__)
	n = sse2_leading_digits(p);
	if (n == 0 || n == 16)
		return (n);
	if (*p == '0')
		return (0);	/* a leading zero: one digit is done above */
	*out = sse2_digits_value(p, n);
#else
	{
		uint64_t w = scan_load_le64(p);

		n = scan_leading_digits(w);
		if (n == 8) {
			uint64_t w2 = scan_load_le64(p + 8);
			unsigned k = scan_leading_digits(w2);

			if (k == 8)
				return (16);
			*out = scan_digits_value(w, 8);
			if (k > 0)
				*out = *out * scan_powers_of_ten[k] +
				    scan_digits_value(w2, k);
			n += k;
		} else if (n > 0) {
			*out = scan_digits_value(w, n);
		}
		if (*p == '0' && n > 1)
			return (0);
	}
#endif
	return (n);
}

/*
 * How many plain name bytes (as scan_plain_bytes counts them) start at p, up
 * to 16; 16 bytes from p are readable.
 */
static inline unsigned
quick_name(const char *p)
{
#if defined(__SSE2__)
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);
	/* Signed bytes: above 0x1f is 0x20 to 0x7f; 0x80 and up are below. */
	__m128i printable = _mm_cmpgt_epi8(b, _mm_set1_epi8(0x1f));
	__m128i other = _mm_or_si128(_mm_or_si128(
	    _mm_cmpeq_epi8(b, _mm_set1_epi8('"')),
	    _mm_cmpeq_epi8(b, _mm_set1_epi8('\\'))),
	    _mm_cmpeq_epi8(b, _mm_set1_epi8(0x7f)));
	unsigned plain = (unsigned)_mm_movemask_epi8(
	    _mm_andnot_si128(other, printable));

	return ((unsigned)__builtin_ctz(~plain));	/* bit 16 is clear */
#else
	return ((unsigned)scan_plain_bytes(p, p + 16));
#endif
}

/* Whether the bytes at p are the literal of st. */
static inline int
quick_literal(const scan_step *st, const char *p)
{
	return ((((scan_load_le64(p) ^ st->lit[0]) & st->mask[0]) |
	    ((scan_load_le64(p + 8) ^ st->lit[1]) & st->mask[1])) == 0);
}

/*
 * A value's number at p as counters write them, read inline: an optional
 * minus, up to 15 digits, and a fraction of up to 7, no exponent.  Below
 * 2^53 with a power of ten up to 10^22, one division is correctly rounded,
 * so the bits are those scan_number gives (its own fast way); an integer
 * below 2^47 is the scanner's value_small_int, as there.  Returns
 * the length, or 0 for anything else, which scan_read_op_value reads.
 */
static inline __attribute__((always_inline)) size_t
quick_value_number(const char *p, uint64_t *out)
{
	const char *q = p + (*p == '-');
	uint64_t m, w;
	unsigned n = quick_digits(q, &m), f;
	double d;

	if (n == 0 || n > 15)
		return (0);
	q += n;
	if (*q == '.') {
		w = scan_load_le64(q + 1);
		f = scan_leading_digits(w);
		if (f == 0 || f == 8 || n + f > 15)
			return (0);
		m = m * scan_powers_of_ten[f] + scan_digits_value(w, f);
		d = (double)m / scan_exact_powers_of_ten[f];
		q += 1 + f;
	} else {
		/* An integer: the scanner's own word (value.h), if small. */
		if (*q == 'e' || *q == 'E' || m >= (uint64_t)VALUE_SMALL_LIMIT)
			return (0);
		*out = value_small_int(*p == '-' ? -(int64_t)m : (int64_t)m);
		return ((size_t)(q - p));
	}
	if (*q == 'e' || *q == 'E')
		return (0);
	*out = value_number(*p == '-' ? -d : d);
	return ((size_t)(q - p));
}

/*
 * The value of a member of this kind at p, by scan_read_value's rule for it:
 * its length if at most QUICK_VALUE, NO_VALUE if scan_read_value would say
 * no, or another length above QUICK_VALUE for shape_scan to read.
 */
static inline __attribute__((always_inline)) size_t
quick_value(unsigned kind, const char *p, const char *end,
    uint32_t nstates, scanned *d, uint64_t *state)
{
	size_t n;

	switch (kind) {
	case SCAN_TIME:
		/* Fewer than 16 digits are below 2^63. */
		if ((n = quick_digits(p, &d->time)) == 0)
			return (NO_VALUE);
		d->time_at = p;
		d->time_len = n;
		return (n);
	case SCAN_STATE:
		if ((n = quick_digits(p, state)) == 0 ||
		    (n <= QUICK_VALUE && *state >= nstates))
			return (NO_VALUE);
		d->state_at = p;
		d->state_len = n;
		return (n);
	case SCAN_ENTITY:
		if ((n = quick_name(p)) == 0)
			return (NO_VALUE);
		d->entity = p;
		d->entity_len = n;
		return (n);
	case SCAN_TAG:
		n = quick_name(p);
		d->tag = p;
		d->tag_len = n;
		return (n);
	case SCAN_VALUE:
		/* Unquoted: a number, the usual case, or null. */
		if (p[-1] != '"' &&
		    (n = quick_value_number(p, &d->value)) != 0) {
			d->op = SCAN_OP_VALUE;
			d->str = NULL;
			d->str_len = 0;
			d->state_at = p;
			d->state_len = n;
			return (n);
		}
		return (scan_read_op_value(kind, p, end, nstates, d, state));
	default:
		/* A push or pop: a state's name, or its digits. */
		d->op = kind == SCAN_PUSH ? SCAN_OP_PUSH : SCAN_OP_POP;
		if (p[-1] == '"') {
			if ((n = quick_name(p)) == 0)
				return (NO_VALUE);
			d->str = p;
			d->str_len = n;
			d->value = VALUE_STRING;
			*state = SCAN_STATE_NAMED;
		} else {
			if ((n = quick_digits(p, state)) == 0 ||
			    (n <= QUICK_VALUE && *state >= nstates))
				return (NO_VALUE);
			d->str = NULL;
			d->str_len = 0;
			d->value = 0;
		}
		d->state_at = p;
		d->state_len = n;
		return (n);
	}
}

/*
 * One step of a quick shape at *p: its literal, then a value of this
 * kind, read by the rule scan_read_value has for it.  QUICK_YES and *p past
 * the value, QUICK_NO where shape_scan says no, or QUICK_UNSURE for a
 * value too long to read here.
 */
static inline __attribute__((always_inline)) int
quick_step(const scan_step *st, unsigned kind, const char **p,
    const char *end, uint32_t nstates, scanned *d, uint64_t *state)
{
	size_t n;

	if (!quick_literal(st, *p))
		return (QUICK_NO);
	*p += st->len;
	n = quick_value(kind, *p, end, nstates, d, state);
	if (n > QUICK_VALUE)
		return (n == NO_VALUE ? QUICK_NO : QUICK_UNSURE);
	*p += n;
	return (QUICK_YES);
}

/*
 * The head of a quick shape that has one: its time and entity, from *p,
 * left past them.  QUICK_YES, or what quick_step said.
 */
static inline __attribute__((always_inline)) int
quick_head(const scan_shape *sh, const char **p, const char *end,
    scanned *d)
{
	uint64_t unused = 0;
	int r;

	if ((r = quick_step(&sh->step[0], SCAN_TIME, p, end, 0, d,
	    &unused)) != QUICK_YES)
		return (r);
	return (quick_step(&sh->step[1], SCAN_ENTITY, p, end, 0, d, &unused));
}

/*
 * The rest of a datum of this quick shape from its step first, at p
 * (the steps before it read into d), QUICK_ROOM bytes or more from the
 * record's start before end: QUICK_YES and d filled, else what
 * quick_step said.  Where it answers, it answers as shape_scan does.
 * The usual layouts are written out step by step, with their kinds
 * constant, so each is straight code.
 */
static inline __attribute__((always_inline)) int
shape_scan_quick(const scan_shape *sh, int first, const char *p,
    const char *end, uint32_t nstates, scanned *d, const char **next)
{
	const scan_step *st = sh->step;
	uint64_t state = 0;
	int i, r = QUICK_YES;

	scanned_init(d);
	if (sh->usual >= 3 && first == 2) {
		if ((r = quick_step(&st[2], SCAN_STATE, &p, end, nstates, d,
		    &state)) != QUICK_YES ||
		    (sh->usual == 4 && (r = quick_step(&st[3], SCAN_TAG, &p,
		    end, nstates, d, &state)) != QUICK_YES))
			return (r);
	} else if (sh->counter && first == 2) {
		if ((r = quick_step(&st[2], SCAN_VALUE, &p, end, nstates, d,
		    &state)) != QUICK_YES)
			return (r);
	} else {
		for (i = first; i < sh->nvalues; i++) {
			if ((r = quick_step(&st[i], sh->kind[i], &p, end,
			    nstates, d, &state)) != QUICK_YES)
				return (r);
		}
	}
	if (!quick_literal(&st[sh->nvalues], p))
		return (QUICK_NO);
	d->state = (uint32_t)state;
	*next = p + st[sh->nvalues].len;
	return (QUICK_YES);
}

#define ALL_SHAPES	((1u << SCAN_SHAPES) - 1)

/*
 * The quick shapes, each read quickly, for a record at pos with the
 * room that needs: 0 if one of them matched (d filled, d->next set),
 * else the set of shapes left for shape_scan to try (those not quick,
 * and those that left a value to it).  Any shape that matches gives the
 * answer scan_members gives, so which of them is tried first changes
 * nothing but which is kept longest.
 */
static inline __attribute__((always_inline)) unsigned
quick_shapes(scan_shapes *s, const char *buf, size_t len, size_t pos,
    uint32_t nstates, scanned *d)
{
	const char *rec = buf + pos, *end = buf + len, *after_head = rec;
	unsigned left = 0;
	int i, head = -1, head_read = QUICK_NO;

	for (i = 0; i < SCAN_SHAPES; i++) {
		const scan_shape *sh = &s->shape[i];
		const char *next;
		int r;

		if (sh->nvalues == 0)
			continue;
		if (!sh->quick) {
			left |= 1u << i;
			continue;
		}
		if (sh->head < 0) {
			head = -1;	/* d's time and entity are this one's */
			r = shape_scan_quick(sh, 0, rec, end, nstates, d,
			    &next);
		} else {
			/* A head read for an earlier shape holds for this. */
			if (sh->head != head) {
				head = sh->head;
				after_head = rec;
				head_read = quick_head(sh, &after_head, end, d);
			}
			r = head_read != QUICK_YES ? head_read :
			    shape_scan_quick(sh, 2, after_head, end, nstates, d,
			    &next);
		}
		if (r == QUICK_UNSURE)
			left |= 1u << i;
		if (r == QUICK_YES) {
			d->next = (size_t)(next - buf);
			s->victim = (i + 1) % SCAN_SHAPES;
			return (0);
		}
	}
	return (left | (1u << SCAN_SHAPES));	/* never 0 */
}

/* Whether a record at pos has the room for the quick reading. */
static inline int
quick_room(size_t len, size_t pos)
{
	return (len - pos >= QUICK_ROOM && pos >= QUICK_BEFORE);
}

static inline __attribute__((always_inline)) int
scan_shaped(scan_shapes *s, const char *buf, size_t len, size_t pos,
    uint32_t nstates, scanned *d, int ops)
{
	unsigned left = ALL_SHAPES;

	if (quick_room(len, pos) &&
	    (left = quick_shapes(s, buf, len, pos, nstates, d)) == 0)
		return (1);
	return (scan_shaped_from(s, left, buf, len, pos, nstates, d, ops));
}

size_t
scan_quick_run(scan_shapes *s, const char *buf, size_t len, size_t *pos,
    size_t stop, uint32_t nstates, scanned *d, size_t max)
{
	size_t n = 0, at = *pos;

	while (n < max) {
		at = json_skip_space(buf, len, at);
		if (at >= stop || !quick_room(len, at) ||
		    quick_shapes(s, buf, len, at, nstates, &d[n]) != 0)
			break;
		d[n].at = at;
		at = d[n].next;
		*pos = at;
		n++;
	}
	return (n);
}

int
scan_datum_shaped(scan_shapes *s, const char *buf, size_t len, size_t pos,
    uint32_t nstates, scanned *d)
{
	return (scan_shaped(s, buf, len, pos, nstates, d, 0) &&
	    d->op == SCAN_OP_STATE);
}

int
scan_record_shaped(scan_shapes *s, const char *buf, size_t len, size_t pos,
    uint32_t nstates, scanned *d)
{
	return (scan_shaped(s, buf, len, pos, nstates, d, 1));
}
