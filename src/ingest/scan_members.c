/*
 * scan_members.c: a datum read member by member, in any order, each
 * value by the rule for its member: digits a word at a time (times and
 * states), names of plain bytes, numbers as strtod reads them.  The
 * shaped scans (scan_shapes.c, scan_quick.c) accept only what this does,
 * with the same result.
 */
#include "ingest/scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "ingest/scan_internal.h"
#include "store/value.h"

/* ---- digits ---- */

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
		w = scan_load_le64(q);
		k = scan_leading_digits(w);
		if (k > 0)
			v = v * scan_powers_of_ten[k] + scan_digits_value(w, k);
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

/* Spaces from p, as JSON has them. */
static const char *
skip_spaces(const char *buf, const char *p, const char *end)
{
	return (buf + json_skip_space(buf, (size_t)(end - buf),
	    (size_t)(p - buf)));
}

/* ---- numbers ---- */

/* Digits from q: how many, their value in *m while it has room. */
static const char *
number_digits(const char *q, const char *end, uint64_t *m, int *ndigits,
    int *scale, int *slow)
{
	/* A word at a time while eight more digits would still fit. */
	while (end - q >= 8 && *ndigits <= 11) {
		uint64_t w = scan_load_le64(q);
		unsigned k = scan_leading_digits(w);

		if (k > 0)
			*m = *m * scan_powers_of_ten[k] +
			    scan_digits_value(w, k);
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
	uint64_t w = scan_load_le64(q), m;
	unsigned k = scan_leading_digits(w), f = 0;
	double d;

	if (k == 0 || k == 8 || (*q == '0' && k > 1))
		return (0);
	m = scan_digits_value(w, k);
	if (q[k] == '.') {
		w = scan_load_le64(q + k + 1);
		f = scan_leading_digits(w);
		if (f == 0 || f == 8)
			return (0);
		m = m * scan_powers_of_ten[f] + scan_digits_value(w, f);
	}
	if (q[k + (f > 0) + f] == 'e' || q[k + (f > 0) + f] == 'E')
		return (0);
	if (f == 0) {
		/* Up to 7 digits: below 2^47. */
		*out = value_small_int(neg ? -(int64_t)m : (int64_t)m);
		return (k);
	}
	d = f > 0 ? (double)m / scan_exact_powers_of_ten[f] : (double)m;
	*out = value_number(neg ? -d : d);
	return (k + (f > 0) + f);
}

size_t
scan_number(const char *p, const char *end, uint64_t *out)
{
	const char *q = p, *at;
	uint64_t m = 0;
	int ndigits = 0, scale = 0, slow = 0, neg = 0, ignored = 0;
	int fraction = 0, exponent = 0;
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
		fraction = 1;
		at = ++q;
		q = number_digits(q, end, &m, &ndigits, &scale, &slow);
		if (q == at)
			return (0);
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		exponent = 1;
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
	if (!fraction && !exponent) {
		/*
		 * An integer: the scanner's own word (value.h) if below
		 * 2^47, else left to the JSON parser, which keeps 64 bits.
		 */
		if (slow || m >= (uint64_t)VALUE_SMALL_LIMIT)
			return (0);
		*out = value_small_int(neg ? -(int64_t)m : (int64_t)m);
		return ((size_t)(q - p));
	}
	exp = exp * exp_sign - scale;
	/*
	 * A whole number below 2^53 and a power of ten up to 10^22 are
	 * both exact doubles, so one multiplication or division, correctly
	 * rounded, gives the correctly rounded result, as strtod does.
	 */
	if (!slow && m <= ((uint64_t)1 << 53) && exp >= -22 && exp <= 22) {
		d = (double)m;
		d = exp < 0 ? d / scan_exact_powers_of_ten[-exp] :
		    d * scan_exact_powers_of_ten[exp];
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

/* ---- members ---- */

/*
 * The value of a "value", "push" or "pop" member at p: a string (p
 * follows its opening quote) of plain bytes, or for a value a number or
 * null, for a push or pop a state's digits.
 */
__attribute__((noinline)) size_t
scan_read_op_value(unsigned kind, const char *p, const char *end,
    uint32_t nstates, scanned *d, uint64_t *state)
{
	size_t n;

	d->op = kind == SCAN_VALUE ? SCAN_OP_VALUE : kind == SCAN_PUSH ?
	    SCAN_OP_PUSH : SCAN_OP_POP;
	d->value = 0;
	d->str = NULL;
	d->str_len = 0;
	if (p[-1] == '"') {
		n = scan_plain_bytes(p, end);
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

/*
 * The value of a member at p, by the rule for that member: digits for a
 * time or a state (below nstates), plain bytes for an entity (at least
 * one) or a tag.  A string's quotes, and a quoted time's, are the
 * caller's.  Fills d (and *state) and returns the value's length, or
 * NO_VALUE.  Both scans read every value here, so they accept the same.
 */
size_t
scan_read_value(unsigned kind, const char *p, const char *end,
    uint32_t nstates, scanned *d, uint64_t *state)
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
		if ((n = scan_plain_bytes(p, end)) == 0)
			return (NO_VALUE);
		d->entity = p;
		d->entity_len = n;
		return (n);
	case SCAN_TAG:
		n = scan_plain_bytes(p, end);
		d->tag = p;
		d->tag_len = n;
		return (n);
	default:
		return (scan_read_op_value(kind, p, end, nstates, d, state));
	}
}

/* A datum, of the generic state system's too if ops. */
int
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
		if ((n = scan_read_value(bit, p, end, nstates, d, &state)) ==
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
