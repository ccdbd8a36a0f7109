#include "scan.h"

#include <string.h>

#include "json.h"

enum { SCAN_TIME = 1, SCAN_ENTITY = 2, SCAN_STATE = 4, SCAN_TAG = 8 };

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
	default:
		n = plain_bytes(p, end);
		d->tag = p;
		d->tag_len = n;
		return (n);
	}
}

int
scan_datum(const char *buf, size_t len, size_t pos, uint32_t nstates,
    scanned *d)
{
	const char *p = buf + pos, *end = buf + len;
	size_t n;
	uint64_t state = 0;
	unsigned seen = 0, bit;
	int quoted;

	if (*p != '{')
		return (0);
	d->tag = NULL;
	d->tag_len = 0;
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
	if ((seen & (SCAN_TIME | SCAN_ENTITY | SCAN_STATE)) !=
	    (SCAN_TIME | SCAN_ENTITY | SCAN_STATE))
		return (0);
	d->state = (uint32_t)state;
	d->next = (size_t)(p + 1 - buf);
	return (1);
}

/* ---- shapes ---- */

void
scan_shapes_init(scan_shapes *s)
{
	memset(s, 0, sizeof (*s));
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
	v[n++] = (struct value){ d->state_at, d->state_len, SCAN_STATE };
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
		if (i < n) {
			sh->kind[i] = v[i].kind;
			p = v[i].at + v[i].len;
		}
	}
	sh->nvalues = n;
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

	d->tag = NULL;
	d->tag_len = 0;
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

int
scan_datum_shaped(scan_shapes *s, const char *buf, size_t len, size_t pos,
    uint32_t nstates, scanned *d)
{
	int i;

	for (i = 0; i < SCAN_SHAPES; i++) {
		if (s->shape[i].nvalues > 0 &&
		    shape_scan(&s->shape[i], buf, len, pos, nstates, d)) {
			s->victim = (i + 1) % SCAN_SHAPES;
			return (1);
		}
	}
	if (!scan_datum(buf, len, pos, nstates, d))
		return (0);
	shape_learn(&s->shape[s->victim], buf + pos, buf + d->next, d);
	s->victim = (s->victim + 1) % SCAN_SHAPES;
	return (1);
}
