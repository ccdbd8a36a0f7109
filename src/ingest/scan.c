#include "ingest/scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/json.h"
#include "store/value.h"

enum {
	SCAN_TIME = 1, SCAN_ENTITY = 2, SCAN_STATE = 4, SCAN_TAG = 8,
	SCAN_VALUE = 16, SCAN_PUSH = 32, SCAN_POP = 64	/* scan_record's */
};
#define SCAN_OPS	(SCAN_STATE | SCAN_VALUE | SCAN_PUSH | SCAN_POP)

#define ONES	0x0101010101010101ULL
#define HIGHS	(0x80 * ONES)

/*
 * Eight input bytes as a number whose low byte is the first of them, on
 * any machine: the word-at-a-time code below counts bytes from the low
 * end.
 */
static uint64_t
load_le64(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof (w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return (w);
}

/* The index of the first byte whose high bit is set in flags (not 0). */
static unsigned
first_flagged(uint64_t flags)
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
static unsigned
leading_digits(uint64_t w)
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
static uint64_t
digits_value(uint64_t w, unsigned n)
{
	uint64_t v = (w & (0x0f * ONES)) << (8 * (8 - n));

	v = (v * 10 + (v >> 8)) & 0x00ff00ff00ff00ffULL;
	v = (v * 100 + (v >> 16)) & 0x0000ffff0000ffffULL;
	v = (v * 10000 + (v >> 32)) & 0x00000000ffffffffULL;
	return (v);
}

static const uint64_t powers_of_ten[9] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000
};

size_t
scan_digits(const char *p, const char *end, uint64_t *out)
{
	const char *q = p;
	uint64_t v = 0;
	size_t n;

	/* 19 digits always fit in 64 bits; 20 may not, so none are taken. */
	for (;;) {
		unsigned k;
		uint64_t w;

		if (end - q < 8) {
			while (q < end && (unsigned)(*q - '0') <= 9 &&
			    q - p <= 19) {
				v = v * 10 + (uint64_t)(*q - '0');
				q++;
			}
			if (q == end)
				return (0);
			break;
		}
		w = load_le64(q);
		k = leading_digits(w);
		if (k > 0)
			v = v * powers_of_ten[k] + digits_value(w, k);
		q += k;
		if (k < 8 || q - p > 19)
			break;
	}
	n = (size_t)(q - p);
	if (n == 0 || n > 19 || (*p == '0' && n > 1))
		return (0);
	*out = v;
	return (n);
}

/*
 * How many bytes from p are plain name bytes: printable ASCII (0x20 to
 * 0x7e) other than '"' and '\\'.  A word at a time, each test flagging
 * the high bit of the bytes that fail it; a test may also flag bytes
 * after one that truly fails (a borrow or carry runs on), never before,
 * so the first flag is exact.
 */
static size_t
plain_bytes(const char *p, const char *end)
{
	const char *q = p;

	while (end - q >= 8) {
		uint64_t w = load_le64(q), quote = w ^ (0x22 * ONES),
		    backslash = w ^ (0x5c * ONES);
		uint64_t bad = ((w - 0x20 * ONES) & ~w) |	/* below 0x20 */
		    w | (w + ONES) |				/* 0x7f and up */
		    ((quote - ONES) & ~quote) |			/* '"' */
		    ((backslash - ONES) & ~backslash);		/* '\\' */

		bad &= HIGHS;
		if (bad != 0)
			return ((size_t)(q - p) + first_flagged(bad));
		q += 8;
	}
	while (q < end && (unsigned char)*q >= 0x20 &&
	    (unsigned char)*q < 0x7f && *q != '"' && *q != '\\')
		q++;
	return ((size_t)(q - p));
}

/* Spaces from p, as JSON has them. */
static const char *
skip_spaces(const char *buf, const char *p, const char *end)
{
	return (buf + json_skip_space(buf, (size_t)(end - buf),
	    (size_t)(p - buf)));
}

#define NO_VALUE	SIZE_MAX

/* ---- the generic state system's data (scan_record) ---- */

static const double exact_powers_of_ten[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* Digits from q: how many, their value in *m while it has room. */
static const char *
number_digits(const char *q, const char *end, uint64_t *m, int *ndigits,
    int *scale, int *slow)
{
	/* A word at a time while eight more digits would still fit. */
	while (end - q >= 8 && *ndigits <= 11) {
		uint64_t w = load_le64(q);
		unsigned k = leading_digits(w);

		if (k > 0)
			*m = *m * powers_of_ten[k] + digits_value(w, k);
		*ndigits += (int)k;
		*scale += (int)k;
		q += k;
		if (k < 8)
			return (q);
	}
	for (; q < end && (unsigned)(*q - '0') <= 9; q++) {
		if (*ndigits < 19) {
			*m = *m * 10 + (uint64_t)(*q - '0');
			(*ndigits)++;
			(*scale)++;
		} else {
			*slow = 1;
		}
	}
	return (q);
}

/*
 * The usual number, at q with at least 18 bytes after it: up to 7
 * digits, and a fraction of up to 7, read a word each; no exponent.  At
 * most 14 digits are below 2^53, so one division by an exact power of
 * ten is correctly rounded.  Returns its length, or 0 for scan_number's
 * general way.
 */
static size_t
quick_number(const char *q, int neg, uint64_t *out)
{
	uint64_t w = load_le64(q), m;
	unsigned k = leading_digits(w), f = 0;
	double d;

	if (k == 0 || k == 8 || (*q == '0' && k > 1))
		return (0);
	m = digits_value(w, k);
	if (q[k] == '.') {
		w = load_le64(q + k + 1);
		f = leading_digits(w);
		if (f == 0 || f == 8)
			return (0);
		m = m * powers_of_ten[f] + digits_value(w, f);
	}
	if (q[k + (f > 0) + f] == 'e' || q[k + (f > 0) + f] == 'E')
		return (0);
	d = f > 0 ? (double)m / exact_powers_of_ten[f] : (double)m;
	*out = value_number(neg ? -d : d);
	return (k + (f > 0) + f);
}

size_t
scan_number(const char *p, const char *end, uint64_t *out)
{
	const char *q = p, *at;
	uint64_t m = 0;
	int ndigits = 0, scale = 0, slow = 0, neg = 0, ignored = 0;
	int64_t exp = 0, exp_sign = 1;
	double d;

	/* The JSON grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
	if (q < end && *q == '-') {
		neg = 1;
		q++;
	}
	if (end - q >= 18) {
		size_t quick = quick_number(q, neg, out);

		if (quick > 0)
			return (quick + (size_t)neg);
	}
	if (q == end || (unsigned)(*q - '0') > 9)
		return (0);
	if (*q == '0')
		q++;
	else
		q = number_digits(q, end, &m, &ndigits, &ignored, &slow);
	if (q < end && (unsigned)(*q - '0') <= 9)
		return (0);	/* a leading zero */
	if (q < end && *q == '.') {
		at = ++q;
		q = number_digits(q, end, &m, &ndigits, &scale, &slow);
		if (q == at)
			return (0);
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			exp_sign = *q++ == '-' ? -1 : 1;
		at = q;
		for (; q < end && (unsigned)(*q - '0') <= 9; q++) {
			if (exp < 100000)
				exp = exp * 10 + (*q - '0');
		}
		if (q == at)
			return (0);
	}
	if (q == end)
		return (0);
	exp = exp * exp_sign - scale;
	/*
	 * A whole number below 2^53 and a power of ten up to 10^22 are
	 * both exact doubles, so one multiplication or division, correctly
	 * rounded, gives the correctly rounded result, as strtod does.
	 */
	if (!slow && m <= ((uint64_t)1 << 53) && exp >= -22 && exp <= 22) {
		d = (double)m;
		d = exp < 0 ? d / exact_powers_of_ten[-exp] :
		    d * exact_powers_of_ten[exp];
		if (neg)
			d = -d;
	} else {
		char text[64];

		if ((size_t)(q - p) >= sizeof (text))
			return (0);
		memcpy(text, p, (size_t)(q - p));
		text[q - p] = '\0';
		d = strtod(text, NULL);
	}
	if (!isfinite(d))
		return (0);
	*out = value_number(d);
	return ((size_t)(q - p));
}

/*
 * The value of a "value", "push" or "pop" member at p: a string (p
 * follows its opening quote) of plain bytes, or for a value a number or
 * null, for a push or pop a state's digits.
 */
static __attribute__((noinline)) size_t
read_op_value(unsigned kind, const char *p, const char *end,
    uint32_t nstates, scanned *d, uint64_t *state)
{
	size_t n;

	d->op = kind == SCAN_VALUE ? SCAN_OP_VALUE : kind == SCAN_PUSH ?
	    SCAN_OP_PUSH : SCAN_OP_POP;
	d->value = 0;
	d->str = NULL;
	d->str_len = 0;
	if (p[-1] == '"') {
		n = plain_bytes(p, end);
		if (n == 0 && kind != SCAN_VALUE)
			return (NO_VALUE);
		d->str = p;
		d->str_len = n;
		d->value = VALUE_STRING;
		*state = SCAN_STATE_NAMED;
	} else if (kind == SCAN_VALUE) {
		if (end - p > 4 && memcmp(p, "null", 4) == 0) {
			n = 4;
			d->value = VALUE_NONE;
		} else if ((n = scan_number(p, end, &d->value)) == 0) {
			return (NO_VALUE);
		}
	} else if ((n = scan_digits(p, end, state)) == 0 ||
	    *state >= nstates) {
		return (NO_VALUE);
	}
	d->state_at = p;
	d->state_len = n;
	return (n);
}

/* The member name at p (its opening quote) if scan_record reads it. */
static unsigned
op_member(const char *p, size_t *skip)
{
	if (memcmp(p + 1, "value\"", 6) == 0) {
		*skip = 7;
		return (SCAN_VALUE);
	}
	if (memcmp(p + 1, "push\"", 5) == 0) {
		*skip = 6;
		return (SCAN_PUSH);
	}
	if (memcmp(p + 1, "pop\"", 4) == 0) {
		*skip = 5;
		return (SCAN_POP);
	}
	return (0);
}

/*
 * Whether the members seen make a datum: time, entity and one op, and a
 * tag only with a state or a push.
 */
static int
members_make_datum(unsigned seen)
{
	unsigned ops = seen & SCAN_OPS;

	return ((seen & (SCAN_TIME | SCAN_ENTITY)) ==
	    (SCAN_TIME | SCAN_ENTITY) && ops != 0 && (ops & (ops - 1)) == 0 &&
	    (!(seen & SCAN_TAG) || (ops & (SCAN_STATE | SCAN_PUSH))));
}

/* The kind of value a scanned datum's op has, for learning its shape. */
static uint8_t
op_kind(const scanned *d)
{
	static const uint8_t kinds[] = { SCAN_STATE, SCAN_VALUE, SCAN_PUSH,
	    SCAN_POP };

	return (kinds[d->op]);
}

/*
 * The value of a member at p, by the rule for that member: digits for a
 * time or a state (below nstates), plain bytes for an entity (at least
 * one) or a tag.  A string's quotes, and a quoted time's, are the
 * caller's.  Fills d (and *state) and returns the value's length, or
 * NO_VALUE.  Both scans read every value here, so they accept the same.
 */
static size_t
read_value(unsigned kind, const char *p, const char *end, uint32_t nstates,
    scanned *d, uint64_t *state)
{
	size_t n;

	switch (kind) {
	case SCAN_TIME:
		/* Times of 2^63 and more are errors: the parser says so. */
		if ((n = scan_digits(p, end, &d->time)) == 0 ||
		    d->time > (uint64_t)INT64_MAX)
			return (NO_VALUE);
		d->time_at = p;
		d->time_len = n;
		return (n);
	case SCAN_STATE:
		if ((n = scan_digits(p, end, state)) == 0 || *state >= nstates)
			return (NO_VALUE);
		d->state_at = p;
		d->state_len = n;
		return (n);
	case SCAN_ENTITY:
		if ((n = plain_bytes(p, end)) == 0)
			return (NO_VALUE);
		d->entity = p;
		d->entity_len = n;
		return (n);
	case SCAN_TAG:
		n = plain_bytes(p, end);
		d->tag = p;
		d->tag_len = n;
		return (n);
	default:
		return (read_op_value(kind, p, end, nstates, d, state));
	}
}

/* What a scan starts from: no tag, a plain state. */
static void
scanned_init(scanned *d)
{
	d->tag = NULL;
	d->tag_len = 0;
	d->op = SCAN_OP_STATE;	/* str, value, str_len: read_op_value's */
}

/* A datum, of the generic state system's too if ops. */
static int
scan_members(const char *buf, size_t len, size_t pos, uint32_t nstates,
    scanned *d, int ops)
{
	const char *p = buf + pos, *end = buf + len;
	size_t n, skip;
	uint64_t state = 0;
	unsigned seen = 0, bit;
	int quoted;

	if (*p != '{')
		return (0);
	scanned_init(d);
	p++;
	for (;;) {
		p = skip_spaces(buf, p, end);
		if (end - p < 8 || *p != '"')
			return (0);
		/* The four names, each with its closing quote. */
		if (memcmp(p + 1, "time\"", 5) == 0) {
			bit = SCAN_TIME;
			p += 6;
		} else if (memcmp(p + 1, "entity\"", 7) == 0) {
			bit = SCAN_ENTITY;
			p += 8;
		} else if (memcmp(p + 1, "state\"", 6) == 0) {
			bit = SCAN_STATE;
			p += 7;
		} else if (memcmp(p + 1, "tag\"", 4) == 0) {
			bit = SCAN_TAG;
			p += 5;
		} else if (ops && (bit = op_member(p, &skip)) != 0) {
			p += skip;
		} else {
			return (0);
		}
		if (seen & bit)
			return (0);
		seen |= bit;
		p = skip_spaces(buf, p, end);
		if (p == end || *p++ != ':')
			return (0);
		p = skip_spaces(buf, p, end);
		if (p == end)
			return (0);
		/* Names are quoted, and times may be; states are not. */
		quoted = *p == '"' && bit != SCAN_STATE;
		if (!quoted && (bit == SCAN_ENTITY || bit == SCAN_TAG))
			return (0);
		p += quoted;
		if ((n = read_value(bit, p, end, nstates, d, &state)) ==
		    NO_VALUE)
			return (0);
		p += n;
		if (quoted && (p == end || *p++ != '"'))
			return (0);
		p = skip_spaces(buf, p, end);
		if (p == end)
			return (0);
		if (*p == '}')
			break;
		if (*p++ != ',')
			return (0);
	}
	if (!members_make_datum(seen))
		return (0);
	d->state = (uint32_t)state;
	d->next = (size_t)(p + 1 - buf);
	return (1);
}

int
scan_datum(const char *buf, size_t len, size_t pos, uint32_t nstates,
    scanned *d)
{
	return (scan_members(buf, len, pos, nstates, d, 0));
}

int
scan_record(const char *buf, size_t len, size_t pos, uint32_t nstates,
    scanned *d)
{
	return (scan_members(buf, len, pos, nstates, d, 1));
}

/* ---- shapes ---- */

void
scan_shapes_init(scan_shapes *s)
{
	int i;

	memset(s, 0, sizeof (*s));
	for (i = 0; i < SCAN_SHAPES; i++)
		s->shape[i].head = -1;
}

/* ---- the quick reading of a shape ---- */

/*
 * Most shapes are read without a bound check per step: their literals
 * are at most QUICK_LITERAL bytes, and the values read quickly at most
 * QUICK_VALUE (a longer one is left to shape_scan, which reads any).
 * With QUICK_ROOM bytes from the start of the record, every 16-byte load
 * of the five literals and four values stays inside the input, and every
 * value has a byte after it (scan_digits refuses digits that run to the
 * end: with this much room they never do).
 */
#define QUICK_LITERAL	16
#define QUICK_VALUE	15
#define QUICK_ROOM	(5 * QUICK_LITERAL + 4 * QUICK_VALUE + 16)
#define QUICK_BEFORE	16	/* readable before the record: see quick_digits */

enum { QUICK_NO, QUICK_YES, QUICK_UNSURE };

/* The masks and words of a literal of len bytes (lit: zero-padded). */
static void
step_learn(scan_step *st, const uint64_t *lit, size_t len, uint8_t kind)
{
	size_t i;

	st->len = (uint8_t)len;
	st->kind = kind;
	for (i = 0; i < 2; i++) {
		size_t in = len > 8 * i ? len - 8 * i : 0;

		st->lit[i] = lit[i];
		st->mask[i] = in >= 8 ? UINT64_MAX :
		    ((uint64_t)1 << (8 * in)) - 1;
	}
}

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
		uint64_t w = load_le64(p);

		n = leading_digits(w);
		if (n == 8) {
			uint64_t w2 = load_le64(p + 8);
			unsigned k = leading_digits(w2);

			if (k == 8)
				return (16);
			*out = digits_value(w, 8);
			if (k > 0)
				*out = *out * powers_of_ten[k] +
				    digits_value(w2, k);
			n += k;
		} else if (n > 0) {
			*out = digits_value(w, n);
		}
		if (*p == '0' && n > 1)
			return (0);
	}
#endif
	return (n);
}

/*
 * How many plain name bytes (as plain_bytes counts them) start at p, up
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
	return ((unsigned)plain_bytes(p, p + 16));
#endif
}

/* Whether the bytes at p are the literal of st. */
static inline int
quick_literal(const scan_step *st, const char *p)
{
	return ((((load_le64(p) ^ st->lit[0]) & st->mask[0]) |
	    ((load_le64(p + 8) ^ st->lit[1]) & st->mask[1])) == 0);
}

/*
 * A value's number at p as counters write them, read inline: an optional
 * minus, up to 15 digits, and a fraction of up to 7, no exponent.  Below
 * 2^53 with a power of ten up to 10^22, one division is correctly rounded,
 * so the bits are those scan_number gives (its own fast way).  Returns
 * the length, or 0 for anything else, which read_op_value reads.
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
		w = load_le64(q + 1);
		f = leading_digits(w);
		if (f == 0 || f == 8 || n + f > 15)
			return (0);
		m = m * powers_of_ten[f] + digits_value(w, f);
		d = (double)m / exact_powers_of_ten[f];
		q += 1 + f;
	} else {
		d = (double)m;
	}
	if (*q == 'e' || *q == 'E')
		return (0);
	*out = value_number(*p == '-' ? -d : d);
	return ((size_t)(q - p));
}

/*
 * The value of a member of this kind at p, by read_value's rule for it:
 * its length if at most QUICK_VALUE, NO_VALUE if read_value would say
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
		return (read_op_value(kind, p, end, nstates, d, state));
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
 * kind, read by the rule read_value has for it.  QUICK_YES and *p past
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
 * The layouts every program writes: time, entity, state, maybe a tag; and
 * a counter's time, entity and value.
 */
static const uint8_t usual_kinds[4] = {
	SCAN_TIME, SCAN_ENTITY, SCAN_STATE, SCAN_TAG
};
static const uint8_t counter_kinds[3] = { SCAN_TIME, SCAN_ENTITY, SCAN_VALUE };

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

/*
 * Keeps the layout of a datum scan_datum accepted at rec: its values
 * in the order they appear, and the bytes around them.
 */
static void
shape_learn(scan_shape *sh, const char *rec, const char *rec_end,
    const scanned *d)
{
	struct value { const char *at; size_t len; uint8_t kind; } v[4], t;
	const char *p = rec;
	int n = 0, i, j;

	v[n++] = (struct value){ d->time_at, d->time_len, SCAN_TIME };
	v[n++] = (struct value){ d->entity, d->entity_len, SCAN_ENTITY };
	v[n++] = (struct value){ d->state_at, d->state_len, op_kind(d) };
	if (d->tag != NULL)
		v[n++] = (struct value){ d->tag, d->tag_len, SCAN_TAG };
	for (i = 1; i < n; i++) {
		for (j = i; j > 0 && v[j - 1].at > v[j].at; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	}
	sh->nvalues = 0;
	sh->quick = 1;
	for (i = 0; i <= n; i++) {
		const char *lit_end = i < n ? v[i].at : rec_end;
		size_t len = (size_t)(lit_end - p);
		char bytes[SCAN_SHAPE_WORDS * 8];

		if (len > sizeof (bytes))
			return;		/* no shape: scan_datum it is */
		memset(bytes, 0, sizeof (bytes));
		memcpy(bytes, p, len);
		for (j = 0; j < SCAN_SHAPE_WORDS; j++)
			sh->lit[i][j] = load_le64(bytes + 8 * j);
		sh->lit_len[i] = (uint8_t)len;
		step_learn(&sh->step[i], sh->lit[i], len,
		    i < n ? v[i].kind : 0);
		if (len > QUICK_LITERAL)
			sh->quick = 0;
		if (i < n) {
			sh->kind[i] = v[i].kind;
			p = v[i].at + v[i].len;
		}
	}
	sh->nvalues = n;
	sh->usual = memcmp(sh->kind, usual_kinds, (size_t)n) == 0 ? n : 0;
	sh->counter = n == 3 && memcmp(sh->kind, counter_kinds, 3) == 0;
}

/* Whether the len bytes at p are those of lit. */
static int
literal_at(const uint64_t *lit, size_t len, const char *p, const char *end)
{
	size_t i;

	if ((size_t)(end - p) < SCAN_SHAPE_WORDS * 8) {
		char bytes[SCAN_SHAPE_WORDS * 8];

		if ((size_t)(end - p) < len)
			return (0);
		memset(bytes, 0, sizeof (bytes));
		memcpy(bytes, p, len);
		for (i = 0; i < SCAN_SHAPE_WORDS; i++) {
			if (load_le64(bytes + 8 * i) != lit[i])
				return (0);
		}
		return (1);
	}
	for (i = 0; len >= 8; i++, len -= 8) {
		if (load_le64(p + 8 * i) != lit[i])
			return (0);
	}
	return (len == 0 || (load_le64(p + 8 * i) &
	    (((uint64_t)1 << (8 * len)) - 1)) == lit[i]);
}

/*
 * The datum at pos if it has this shape.  The bytes between its values
 * are those of a datum scan_datum accepted, and each value is read by
 * read_value, as scan_datum reads it, so it accepts only what scan_datum
 * accepts, with the same result.
 */
static int
shape_scan(const scan_shape *sh, const char *buf, size_t len, size_t pos,
    uint32_t nstates, scanned *d)
{
	const char *p = buf + pos, *end = buf + len;
	uint64_t state = 0;
	size_t n;
	int i;

	scanned_init(d);
	for (i = 0;; i++) {
		if (!literal_at(sh->lit[i], sh->lit_len[i], p, end))
			return (0);
		p += sh->lit_len[i];
		if (i == sh->nvalues)
			break;
		if ((n = read_value(sh->kind[i], p, end, nstates, d,
		    &state)) == NO_VALUE)
			return (0);
		p += n;
	}
	d->state = (uint32_t)state;
	d->next = (size_t)(p - buf);
	return (1);
}

/* Whether two quick steps read the same literal before the same kind. */
static int
same_step(const scan_step *a, const scan_step *b)
{
	return (a->len == b->len && a->kind == b->kind &&
	    a->lit[0] == b->lit[0] && a->lit[1] == b->lit[1]);
}

/* Each shape's head (scan_shape), after one of them changed. */
static void
shapes_heads(scan_shapes *s)
{
	int i, j;

	for (i = 0; i < SCAN_SHAPES; i++) {
		scan_shape *sh = &s->shape[i];

		sh->head = -1;
		if (sh->nvalues < 2 || !sh->quick ||
		    sh->kind[0] != SCAN_TIME || sh->kind[1] != SCAN_ENTITY)
			continue;
		sh->head = i;
		for (j = 0; j < i; j++) {
			const scan_shape *other = &s->shape[j];

			if (other->head >= 0 &&
			    same_step(&sh->step[0], &other->step[0]) &&
			    same_step(&sh->step[1], &other->step[1])) {
				sh->head = other->head;
				break;
			}
		}
	}
}

/*
 * A shaped scan by shape_scan, trying the shapes in the set (a bit for
 * each); if none matches, scan_members, and the datum's shape learnt.
 * Shapes are learned only from what scan_members accepts with the same
 * ops, so a shape with the generic state system's members is learned
 * (and matched) only by scan_record_shaped.  Out of line, so that the
 * quick loop keeps its registers.
 */
static __attribute__((noinline)) int
scan_shaped_from(scan_shapes *s, unsigned set, const char *buf, size_t len,
    size_t pos, uint32_t nstates, scanned *d, int ops)
{
	int i;

	for (i = 0; i < SCAN_SHAPES; i++) {
		if ((set & (1u << i)) && s->shape[i].nvalues > 0 &&
		    shape_scan(&s->shape[i], buf, len, pos, nstates, d)) {
			s->victim = (i + 1) % SCAN_SHAPES;
			return (1);
		}
	}
	if (!scan_members(buf, len, pos, nstates, d, ops))
		return (0);
	shape_learn(&s->shape[s->victim], buf + pos, buf + d->next, d);
	shapes_heads(s);
	s->victim = (s->victim + 1) % SCAN_SHAPES;
	return (1);
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
