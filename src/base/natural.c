#include "base/natural.h"

#include "base/work.h"

typedef struct cursor {
	const char *s;
	size_t len, i;
} cursor;

static int
at(const cursor *c)
{
	return (c->i < c->len ? (unsigned char)c->s[c->i] : 0);
}

static int
is_digit(int ch)
{
	return (ch >= '0' && ch <= '9');
}

static int
is_space(int ch)
{
	return (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
	    ch == '\f' || ch == '\v');
}

/*
 * Integers: the longer run is larger; on equal length the first
 * difference decides.  Consumes both runs.
 */
static int
compare_right(cursor *a, cursor *b)
{
	int bias = 0;

	for (;; a->i++, b->i++) {
		int ca = at(a), cb = at(b);
		int da = is_digit(ca), db = is_digit(cb);

		if (!da && !db)
			return (bias);
		if (!da)
			return (-1);
		if (!db)
			return (1);
		if (bias == 0)
			bias = ca < cb ? -1 : ca > cb ? 1 : 0;
	}
}

/* Fractions (a leading zero): the first difference decides. */
static int
compare_left(cursor *a, cursor *b)
{
	for (;; a->i++, b->i++) {
		int ca = at(a), cb = at(b);
		int da = is_digit(ca), db = is_digit(cb);

		if (!da && !db)
			return (0);
		if (!da)
			return (-1);
		if (!db)
			return (1);
		if (ca != cb)
			return (ca < cb ? -1 : 1);
	}
}

static int
compare(cursor *a, cursor *b)
{
	for (;;) {
		int ca, cb, r;

		while (is_space(at(a)) && a->i < a->len)
			a->i++;
		while (is_space(at(b)) && b->i < b->len)
			b->i++;
		ca = at(a);
		cb = at(b);
		if (a->i >= a->len || b->i >= b->len) {
			if (a->i >= a->len && b->i >= b->len)
				return (0);
			return (a->i >= a->len ? -1 : 1);
		}
		if (is_digit(ca) && is_digit(cb)) {
			r = (ca == '0' || cb == '0') ? compare_left(a, b) :
			    compare_right(a, b);
			if (r != 0)
				return (r);
			continue;
		}
		if (ca != cb)
			return (ca < cb ? -1 : 1);
		a->i++;
		b->i++;
	}
}

/*
 * A walk is as long as the common part of the two names: a long one is
 * counted as work (work.h), 64 bytes a step, so that comparing two long
 * names many times over (a sort by keys of 64 KB) is a finding, not a
 * hang.  Names of the usual lengths cost one comparison more.
 */
int
natural_compare(const char *sa, size_t alen, const char *sb, size_t blen)
{
	cursor a = { sa, alen, 0 }, b = { sb, blen, 0 };
	int r = compare(&a, &b);

	if (a.i > 256)
		work_steps(a.i / 64);
	return (r);
}
