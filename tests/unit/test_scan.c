/*
 * Tests for the scanner (src/ingest/scan.h): digits read a word at a time
 * against a plain digit loop; the bytes names may hold; and the shaped
 * scan against scan_datum on a hundred thousand generated records, whole
 * and cut short, most of them in layouts seen before; and the quick
 * reading of a layout against the unshaped scans, on each side of its
 * limits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/scan.h"
#include "store/value.h"
#include "unit.h"

/* The rule for digits, written the obvious way. */
static size_t
naive_digits(const char *p, const char *end, uint64_t *out)
{
	size_t n = 0;
	uint64_t v = 0;

	while (p + n < end && p[n] >= '0' && p[n] <= '9') {
		v = v * 10 + (uint64_t)(p[n] - '0');
		n++;
	}
	if (n == 0 || n > 19 || p + n == end || (p[0] == '0' && n > 1))
		return (0);
	*out = v;
	return (n);
}

/* scan_digits over all of s, to its terminating NUL. */
static size_t
scan_whole(const char *s, uint64_t *out)
{
	return (scan_digits(s, s + strlen(s), out));
}

static void
check_digits(void)
{
	char buf[64];
	uint64_t got, want;
	size_t n, w;
	int len, stop, lead, bad = 0, cases = 0;
	const char stops[] = "\",} x/:";

	/* Every length 0..24, each stop byte or the end, at 0..9 bytes in. */
	for (len = 0; len <= 24; len++) {
		for (stop = 0; stop <= (int)strlen(stops); stop++) {
			for (lead = 0; lead < 2; lead++) {
				int i;

				for (i = 0; i < len; i++)
					buf[i] = (char)('0' + (i * 7 + 3) % 10);
				if (lead && len > 0)
					buf[0] = '0';
				if (stop < (int)strlen(stops))
					buf[len] = stops[stop];
				n = (size_t)len + (stop < (int)strlen(stops));
				got = want = 0;
				w = naive_digits(buf, buf + n, &want);
				cases++;
				if (scan_digits(buf, buf + n, &got) != w ||
				    got != want)
					bad++;
			}
		}
	}
	CHECK_INT("scan_digits agrees with a digit loop on every length",
	    bad, 0);
	CHECK("scan_digits cases", cases > 300);
	CHECK_INT("scan_digits 19 nines",
	    scan_whole("9999999999999999999,", &got), 19);
	CHECK_U64("scan_digits 19 nines value", got, 9999999999999999999ULL);
	CHECK_INT("scan_digits 20 digits are left to the parser",
	    scan_whole("18446744073709551615,", &got), 0);
	CHECK_INT("scan_digits 8 digits then a quote",
	    scan_whole("12345678\"", &got), 8);
	CHECK_U64("scan_digits 8 digits value", got, 12345678);
	CHECK_INT("scan_digits 8 digits at the end",
	    scan_whole("12345678", &got), 0);
	CHECK_INT("scan_digits a lone zero", scan_whole("0}", &got),
	    1);
	CHECK_INT("scan_digits a leading zero",
	    scan_whole("0123456789,", &got), 0);
	/* Bytes just around '0' and '9', and 0xfa..0xff (a carry), after. */
	{
		const unsigned char odd[] = { '/', ':', 0xfa, 0xff, 0x00, 0xb0 };
		size_t k;

		bad = 0;
		for (k = 0; k < sizeof (odd); k++) {
			int at;

			for (at = 1; at < 12; at++) {
				memset(buf, '5', 16);
				buf[at] = (char)odd[k];
				buf[16] = ',';
				if (scan_digits(buf, buf + 17, &got) !=
				    (size_t)at ||
				    naive_digits(buf, buf + 17, &want) !=
				    (size_t)at || got != want)
					bad++;
			}
		}
		CHECK_INT("scan_digits stops at the first byte that is no digit",
		    bad, 0);
	}
}

/* A datum with the entity name given, scanned; 1 if it is plain. */
static int
scan_name(const char *name, size_t len, size_t *got_len)
{
	char buf[128];
	size_t n = 0;
	scanned d;

	n += (size_t)sprintf(buf, "{\"time\": 1, \"entity\": \"");
	memcpy(buf + n, name, len);
	n += len;
	n += (size_t)sprintf(buf + n, "\", \"state\": 0}");
	if (!scan_datum(buf, n, 0, 1, &d))
		return (0);
	*got_len = d.entity_len;
	return (d.entity == buf + 23 && d.next == n);
}

static void
check_names(void)
{
	char name[24];
	size_t got;
	int b, at, len, bad = 0;

	for (len = 1; len <= 20; len++) {
		memset(name, 'a', sizeof (name));
		if (!scan_name(name, (size_t)len, &got) || got != (size_t)len)
			bad++;
	}
	CHECK_INT("scan names of 1 to 20 plain bytes", bad, 0);
	for (b = 0; b < 256; b++) {
		int plain = b >= 0x20 && b < 0x7f && b != '"' && b != '\\';

		for (at = 0; at < 18; at++) {
			memset(name, 'x', sizeof (name));
			name[at] = (char)b;
			if (scan_name(name, 18, &got) != plain)
				bad++;
		}
	}
	CHECK_INT("scan names: every byte at every place of a word", bad, 0);
	CHECK_INT("scan an empty entity is left to the parser",
	    scan_name("", 0, &got), 0);
}

/* ---- generated records ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/*
 * Draws are one to a statement wherever their order matters: the order in
 * which a call's arguments, or an operator's operands, are evaluated is
 * unspecified, and gcc and clang would make different records.
 */
static uint32_t
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((uint32_t)(rng >> 16));
}

static int
chance(int percent)
{
	return ((int)(next_random() % 100) < percent);
}

/* Whether generated records are all plain data in the first layout. */
static int calm;

/* A rare oddity in a generated record: never when calm. */
static int
oddity(int percent)
{
	return (!calm && chance(percent));
}

static const char *
space(int layout)
{
	static const char *spaces[] = { "", " ", "  ", "\t", "\n " };

	return (spaces[((unsigned)layout + (oddity(3) ? next_random() : 0)) %
	    5]);
}

static size_t
put_digits(char *p, int max)
{
	int n = 1 + (int)(next_random() % (unsigned)max), i;

	for (i = 0; i < n; i++)
		p[i] = (char)('0' + next_random() % 10);
	if (n > 1 && chance(95) && p[0] == '0')
		p[0] = '1';
	return ((size_t)n);
}

static size_t
put_name(char *p)
{
	int n = 0, i;

	if (!oddity(2)) {
		uint32_t r = next_random();

		/* Now and then past 16 bytes, where the quick reading stops. */
		n = 1 + (int)(r % (chance(10) ? 24 : 11));
	}
	for (i = 0; i < n; i++)
		p[i] = (char)('a' + next_random() % 26);
	if (oddity(2) && n > 0) {
		uint32_t at = next_random() % (unsigned)n;

		p[at] = "\"\\\x01\x7f\xc3 "[next_random() % 6];
	}
	return ((size_t)n);
}

/*
 * One record into p: mostly in one of six layouts, the members of each
 * in its own order, with its own spaces; now and then something else.
 */
static size_t
put_record(char *p)
{
	int layout = calm ? 0 : (int)(next_random() % 6);
	int order[4] = { 0, 1, 2, 3 };
	int nmembers = (layout & 1) ? 4 : 3, i, quoted = layout < 4;
	size_t n = 0;

	for (i = 0; i < nmembers; i++) {
		int j = (i * (layout + 1) + layout) % nmembers, t;

		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	if (oddity(2))
		nmembers--;			/* a member missing */
	n += (size_t)sprintf(p + n, "{%s", space(layout));
	for (i = 0; i < nmembers; i++) {
		int m = oddity(1) ? (int)(next_random() % 4) : order[i];

		if (i > 0) {
			n += (size_t)sprintf(p + n, "%s,", space(layout));
			n += (size_t)sprintf(p + n, "%s", space(layout + 1));
		}
		switch (m) {
		case 0:
			n += (size_t)sprintf(p + n, "\"time\"%s:",
			    space(layout + 2));
			n += (size_t)sprintf(p + n, "%s", space(layout));
			if (quoted || chance(2))
				p[n++] = '"';
			n += put_digits(p + n, chance(5) ? 22 : 12);
			if (quoted && !oddity(1))
				p[n++] = '"';
			break;
		case 1:
			n += (size_t)sprintf(p + n, "\"entity\":%s\"",
			    space(layout));
			n += put_name(p + n);
			p[n++] = '"';
			break;
		case 2:
			n += (size_t)sprintf(p + n, "\"state\":%s",
			    space(layout + 3));
			n += put_digits(p + n, chance(5) ? 2 : 1);
			break;
		default:
			n += (size_t)sprintf(p + n, "\"tag\":%s\"",
			    space(layout));
			n += put_name(p + n);
			p[n++] = '"';
			break;
		}
	}
	n += (size_t)sprintf(p + n, "%s}", space(layout));
	if (oddity(1)) {
		size_t at = next_random() % n;

		p[at] = (char)next_random();	/* a bad byte */
	}
	return (n);
}

static int
same_scan(const char *buf, int r1, const scanned *a, int r2,
    const scanned *b)
{
	(void) buf;
	if (r1 != r2)
		return (0);
	if (!r1)
		return (1);
	return (a->time == b->time && a->state == b->state &&
	    a->entity == b->entity && a->entity_len == b->entity_len &&
	    a->tag == b->tag && a->tag_len == b->tag_len && a->next == b->next);
}

static void
check_shapes(void)
{
	enum { NRECORDS = 100000 };
	size_t cap = 32 << 20, len = 0, i;
	size_t *start = malloc((NRECORDS + 1) * sizeof (size_t));
	char *buf = malloc(cap);
	scan_shapes shapes;
	int bad = 0, cut_bad = 0, accepted = 0, rejected = 0;

	scan_shapes_init(&shapes);
	for (i = 0; i < NRECORDS; i++) {
		start[i] = len;
		len += put_record(buf + len);
		buf[len++] = '\n';
	}
	start[NRECORDS] = len;
	for (i = 0; i < NRECORDS; i++) {
		size_t pos = start[i], end = start[i + 1] - 1, k;
		scanned a, b;
		int r1, r2;

		/* In the middle of the data: more bytes follow the record. */
		r1 = scan_datum(buf, len, pos, 9, &a);
		r2 = scan_datum_shaped(&shapes, buf, len, pos, 9, &b);
		if (!same_scan(buf, r1, &a, r2, &b))
			bad++;
		if (r1)
			accepted++;
		else
			rejected++;
		/* At the end of the input, whole or cut short. */
		for (k = 0; k < 3 && k < end - pos; k++) {
			r1 = scan_datum(buf, end - k, pos, 9, &a);
			r2 = scan_datum_shaped(&shapes, buf, end - k, pos, 9,
			    &b);
			if (!same_scan(buf, r1, &a, r2, &b))
				cut_bad++;
		}
	}
	CHECK_INT("scan shaped agrees with scan_datum", bad, 0);
	CHECK_INT("scan shaped agrees at the end of the input", cut_bad, 0);
	CHECK("scan generated records: most plain", accepted > 70000);
	CHECK("scan generated records: some not", rejected > 1000);
	CHECK("scan shapes were learnt", shapes.shape[0].nvalues > 0 &&
	    shapes.shape[1].nvalues > 0);
	free(buf);
	free(start);
}

/* A shape learnt from one record reads the next of the same layout. */
static void
check_shape_reuse(void)
{
	const char *buf = "{\"time\": \"5\", \"entity\": \"cpu0\", \"state\": 2}\n"
	    "{\"time\": \"123456789012\", \"entity\": \"thread-17\", "
	    "\"state\": 1}\n{\"time\": \"7\", \"entity\": \"x\", \"state\": 9}\n"
	    "{\"time\": \"8\", \"entity\": \"\", \"state\": 1}\n";
	size_t len = strlen(buf), second = (size_t)(strchr(buf, '\n') + 1 - buf);
	size_t third = (size_t)(strchr(buf + second, '\n') + 1 - buf);
	size_t fourth = (size_t)(strchr(buf + third, '\n') + 1 - buf);
	scan_shapes s;
	scanned d;

	scan_shapes_init(&s);
	CHECK_INT("scan shape learnt", scan_datum_shaped(&s, buf, len, 0, 3,
	    &d), 1);
	CHECK_INT("scan shape one layout", s.shape[0].nvalues, 3);
	CHECK_INT("scan shape reused", scan_datum_shaped(&s, buf, len, second,
	    3, &d), 1);
	CHECK_U64("scan shape time", d.time, 123456789012ULL);
	CHECK_INT("scan shape entity", (int)d.entity_len, 9);
	CHECK("scan shape entity bytes", memcmp(d.entity, "thread-17", 9) == 0);
	CHECK_INT("scan shape state", (int)d.state, 1);
	CHECK_INT("scan shape next", (int)d.next, (int)third - 1);
	CHECK_INT("scan shape no second layout", s.shape[1].nvalues, 0);
	CHECK_INT("scan shape state out of range", scan_datum_shaped(&s, buf,
	    len, third, 3, &d), 0);
	CHECK_INT("scan shape empty entity", scan_datum_shaped(&s, buf, len,
	    fourth, 3, &d), 0);
}

/*
 * The quick reading of a shape (16-byte literals and values of at most
 * 15 bytes, with room after the record) and the values it leaves to
 * shape_scan: each case is a record scanned in the layout of the one
 * before it, then unshaped, and both must give the same answer.
 */
static int
same_record(int r1, const scanned *a, int r2, const scanned *b)
{
	if (!same_scan(NULL, r1, a, r2, b))
		return (0);
	return (!r1 || (a->op == b->op && (a->op == SCAN_OP_STATE ||
	    (a->value == b->value && a->str == b->str &&
	    a->str_len == b->str_len))));
}

/* How many layouts the last quick_case learnt: 1 if rec had learnt's. */
static int quick_layouts;

/*
 * Scans rec after learning the layout of learnt, with room (200 spaces)
 * after it or with the input ending cut bytes into it (cut > 0): the
 * shaped answer, -1 if it differs from the unshaped one.
 */
static int
quick_case(const char *learnt, const char *rec, size_t cut, int ops)
{
	char buf[1024];
	size_t at = strlen(learnt) + 1, len;
	scan_shapes s;
	scanned a, b;
	int r1, r2;

	snprintf(buf, sizeof (buf), "%s\n%s%200s", learnt, rec, "");
	len = cut > 0 ? at + cut : strlen(buf);
	scan_shapes_init(&s);
	if ((ops ? scan_record_shaped(&s, buf, len, 0, 6, &a) :
	    scan_datum_shaped(&s, buf, len, 0, 6, &a)) != 1 ||
	    s.shape[0].nvalues == 0)
		return (-1);
	r1 = ops ? scan_record(buf, len, at, 6, &a) :
	    scan_datum(buf, len, at, 6, &a);
	r2 = ops ? scan_record_shaped(&s, buf, len, at, 6, &b) :
	    scan_datum_shaped(&s, buf, len, at, 6, &b);
	quick_layouts = 1 + (s.shape[1].nvalues > 0);
	return (same_record(r1, &a, r2, &b) ? r2 : -1);
}

static void
check_quick_shapes(void)
{
	static const struct {
		const char *name, *rec;
		int want;
	} plain[] = {
		{ "quick: the usual datum",
		    "{\"time\": \"29997280504\", \"entity\": \"959\", \"state\": 4}", 1 },
		{ "quick: one digit, one byte",
		    "{\"time\": \"0\", \"entity\": \"x\", \"state\": 0}", 1 },
		{ "quick: 8 digits",
		    "{\"time\": \"12345678\", \"entity\": \"x\", \"state\": 5}", 1 },
		{ "quick: 15 digits",
		    "{\"time\": \"123456789012345\", \"entity\": \"x\", \"state\": 5}", 1 },
		{ "quick: 16 digits, left to shape_scan",
		    "{\"time\": \"1234567890123456\", \"entity\": \"x\", \"state\": 5}", 1 },
		{ "quick: 19 digits, left to shape_scan",
		    "{\"time\": \"1234567890123456789\", \"entity\": \"x\", \"state\": 5}", 1 },
		{ "quick: 2^63 is refused",
		    "{\"time\": \"9223372036854775808\", \"entity\": \"x\", \"state\": 5}", 0 },
		{ "quick: 20 digits are refused",
		    "{\"time\": \"12345678901234567890\", \"entity\": \"x\", \"state\": 5}", 0 },
		{ "quick: a leading zero",
		    "{\"time\": \"0123\", \"entity\": \"x\", \"state\": 5}", 0 },
		{ "quick: a leading zero of 9 digits",
		    "{\"time\": \"012345678\", \"entity\": \"x\", \"state\": 5}", 0 },
		{ "quick: no digits",
		    "{\"time\": \"\", \"entity\": \"x\", \"state\": 5}", 0 },
		{ "quick: a state of 6 states",
		    "{\"time\": \"1\", \"entity\": \"x\", \"state\": 6}", 0 },
		{ "quick: a state with a leading zero",
		    "{\"time\": \"1\", \"entity\": \"x\", \"state\": 01}", 0 },
		{ "quick: a state of 16 digits",
		    "{\"time\": \"1\", \"entity\": \"x\", \"state\": 1000000000000000}", 0 },
		{ "quick: an empty entity",
		    "{\"time\": \"1\", \"entity\": \"\", \"state\": 1}", 0 },
		{ "quick: an escape in the entity",
		    "{\"time\": \"1\", \"entity\": \"a\\\"b\", \"state\": 1}", 0 },
		{ "quick: a control byte in the entity",
		    "{\"time\": \"1\", \"entity\": \"a\tb\", \"state\": 1}", 0 },
		{ "quick: a byte above 0x7e in the entity",
		    "{\"time\": \"1\", \"entity\": \"a\x7f\", \"state\": 1}", 0 },
		{ "quick: UTF-8 in the entity",
		    "{\"time\": \"1\", \"entity\": \"caf\xc3\xa9\", \"state\": 1}", 0 },
		{ "quick: an entity of 15 bytes",
		    "{\"time\": \"1\", \"entity\": \"abcdefghijklmno\", \"state\": 1}", 1 },
		{ "quick: an entity of 16 bytes, left to shape_scan",
		    "{\"time\": \"1\", \"entity\": \"abcdefghijklmnop\", \"state\": 1}", 1 },
		{ "quick: an entity of 40 bytes",
		    "{\"time\": \"1\", \"entity\": \"abcdefghijklmnopqrstuvwxyz0123456789ABCD\", \"state\": 1}", 1 },
		{ "quick: an escape after 16 bytes of entity",
		    "{\"time\": \"1\", \"entity\": \"abcdefghijklmnopq\\n\", \"state\": 1}", 0 },
		{ "quick: another layout",
		    "{\"time\":\"1\",\"entity\":\"x\",\"state\":1}", 1 },
		{ "quick: a member more",
		    "{\"time\": \"1\", \"entity\": \"x\", \"state\": 1, \"tag\": \"t\"}", 1 },
		{ "quick: a brace less",
		    "{\"time\": \"1\", \"entity\": \"x\", \"state\": 1", 0 },
	};
	static const char *learnt =
	    "{\"time\": \"1325\", \"entity\": \"466\", \"state\": 0}";
	static const char *tagged =
	    "{\"time\": \"1325\", \"entity\": \"466\", \"state\": 0, \"tag\": \"t25\"}";
	size_t i, cut;
	int bad = 0;

	/*
	 * A datum of the layout learnt is read in that layout, not learnt
	 * again: the quick reading said no to none that shape_scan reads.
	 */
	for (i = 0; i < sizeof (plain) / sizeof (plain[0]); i++) {
		int same = strstr(plain[i].name, "layout") == NULL &&
		    strstr(plain[i].name, "member") == NULL;

		CHECK_INT(plain[i].name, quick_case(learnt, plain[i].rec, 0, 0),
		    plain[i].want);
		CHECK_INT(plain[i].name, quick_layouts,
		    plain[i].want && !same ? 2 : 1);
		CHECK_INT(plain[i].name, quick_case(learnt, plain[i].rec, 0, 1),
		    plain[i].want);
	}
	/* Cut short at every byte, and whole at the very end. */
	for (i = 0; i < sizeof (plain) / sizeof (plain[0]); i++) {
		size_t n = strlen(plain[i].rec);

		for (cut = 1; cut <= n + 1; cut++) {
			if (quick_case(learnt, plain[i].rec, cut, 1) !=
			    (cut > n - (plain[i].rec[n - 1] == '}') &&
			    plain[i].want))
				bad++;
		}
	}
	CHECK_INT("quick: records cut short at the end of the input", bad, 0);
	CHECK_INT("quick: a tag", quick_case(tagged, "{\"time\": \"7\", "
	    "\"entity\": \"5\", \"state\": 2, \"tag\": \"abc\"}", 0, 0), 1);
	CHECK_INT("quick: a tag in its layout", quick_layouts, 1);
	CHECK_INT("quick: an empty tag", quick_case(tagged, "{\"time\": \"7\", "
	    "\"entity\": \"5\", \"state\": 2, \"tag\": \"\"}", 0, 0), 1);
	CHECK_INT("quick: a tag of 16 bytes", quick_case(tagged, "{\"time\": "
	    "\"7\", \"entity\": \"5\", \"state\": 2, \"tag\": "
	    "\"0123456789abcdef\"}", 0, 0), 1);
	CHECK_INT("quick: a tag of 16 bytes in its layout", quick_layouts, 1);
	CHECK_INT("quick: an escape in the tag", quick_case(tagged, "{\"time\": "
	    "\"7\", \"entity\": \"5\", \"state\": 2, \"tag\": "
	    "\"a\\u0041\"}", 0, 0), 0);
	CHECK_INT("quick: a literal of 17 bytes is read by shape_scan",
	    quick_case("{\"time\": \"1\",          \"entity\": \"466\", "
	    "\"state\": 0}", "{\"time\": \"2\",          \"entity\": "
	    "\"466\", \"state\": 0}", 0, 0), 1);
	/* The generic state system's values, in a quick shape. */
	CHECK_INT("quick: a value", quick_case("{\"time\": \"1\", \"entity\": "
	    "\"a\", \"value\": 39753}", "{\"time\": \"2\", \"entity\": \"b\", "
	    "\"value\": -1.5e3}", 0, 1), 1);
	CHECK_INT("quick: a value in its layout", quick_layouts, 1);
	CHECK_INT("quick: a value of 16 bytes", quick_case("{\"time\": \"1\", "
	    "\"entity\": \"a\", \"value\": 39753}", "{\"time\": \"2\", "
	    "\"entity\": \"b\", \"value\": 1234567890.12345}", 0, 1), 1);
	CHECK_INT("quick: a value that is no number", quick_case("{\"time\": "
	    "\"1\", \"entity\": \"a\", \"value\": 39753}", "{\"time\": \"2\", "
	    "\"entity\": \"b\", \"value\": 1.}", 0, 1), 0);
	/* Numbers read in the counters' layout, each as strtod reads it. */
	{
		static const char *const numbers[] = {
			"0", "7", "39753", "26062.25", "0.05", "0.5", "1.00000001",
			"12345678.12345678", "1234567.123456789",
			"123456789012345", "1234567890123456", "99999999999999.9",
			"01.5", "00", "5.", "1e5", "1.5e3", "2.5E-3", "-2.5",
			"-0", "null", "\"str\"", "1.x", "3.14159265358979",
			"-0.0", "-39753.25", "-", "-01", "--1", "+1", ".5",
			"-.5", "0.0000001", "0.00000001", "123456789012.345",
			"1234567890123.456", "9007199254740993", "1E5", "12.5e",
			"999999999999999", "-999999999999999", "0.1", "0.3",
			"1e-400", "1e400", "90071992547409.93",
			"-90071992547409.93", "9007199254740.993"
		};
		size_t n;
		int ok = 1;

		for (n = 0; n < sizeof (numbers) / sizeof (numbers[0]); n++) {
			char rec[128];

			snprintf(rec, sizeof (rec), "{\"time\": \"2\", "
			    "\"entity\": \"b\", \"value\": %s}", numbers[n]);
			if (quick_case("{\"time\": \"1\", \"entity\": \"a\", "
			    "\"value\": 39753}", rec, 0, 1) < 0) {
				printf("# %s\n", numbers[n]);
				ok = 0;
			}
		}
		CHECK("quick: counters' numbers as the unshaped scan reads "
		    "them, bit for bit", ok);
	}
	/*
	 * And many more, of every length the quick reading takes and a
	 * little past: signs, fractions of up to 9 digits, exponents.
	 */
	{
		uint64_t seed = 12345;
		int r, ok = 1, quick = 0, big;

		for (r = 0; r < 20000 && ok; r++) {
			char num[64], rec[128];
			size_t k = 0, j, nint, nfrac;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			nint = 1 + (seed >> 33) % 17;
			nfrac = (seed >> 40) % 3 == 0 ? 0 : (seed >> 42) % 10;
			if ((seed >> 50) % 4 == 0)
				num[k++] = '-';
			for (j = 0; j < nint; j++) {
				seed = seed * 6364136223846793005ULL + 1;
				num[k++] = (char)('0' + (j == 0 && nint > 1 ?
				    1 + (seed >> 33) % 9 : (seed >> 33) % 10));
			}
			if (nfrac > 0) {
				num[k++] = '.';
				for (j = 0; j < nfrac; j++) {
					seed = seed * 6364136223846793005ULL + 1;
					num[k++] = (char)('0' + (seed >> 33) % 10);
				}
			}
			if ((seed >> 55) % 10 == 0)
				k += (size_t)sprintf(num + k, "e%d",
				    (int)((seed >> 20) % 40) - 20);
			num[k] = '\0';
			snprintf(rec, sizeof (rec), "{\"time\": \"2\", "
			    "\"entity\": \"b\", \"value\": %s}", num);
			/* An integer from 2^47 on is the JSON parser's. */
			big = strpbrk(num, ".e") == NULL &&
			    llabs(strtoll(num, NULL, 10)) >= (1LL << 47);
			if (quick_case("{\"time\": \"1\", \"entity\": \"a\", "
			    "\"value\": 39753}", rec, 0, 1) != !big) {
				printf("# %s\n", num);
				ok = 0;
			}
			quick += nint + nfrac <= 15 && nfrac <= 7 &&
			    strchr(num, 'e') == NULL && !big;
		}
		CHECK("quick: 20,000 random numbers as the unshaped scan "
		    "reads them, bit for bit", ok);
		CHECK("quick: most of them in the quick reading", quick > 5000);
	}
	CHECK_INT("quick: a push by name", quick_case("{\"time\": \"1\", "
	    "\"entity\": \"a\", \"push\": \"state3\"}", "{\"time\": \"2\", "
	    "\"entity\": \"b\", \"push\": \"a state of a long name\"}", 0, 1),
	    1);
	CHECK_INT("quick: a push by name in its layout", quick_layouts, 1);
	CHECK_INT("quick: a pop of 6 states", quick_case("{\"time\": \"1\", "
	    "\"entity\": \"a\", \"pop\": 0}", "{\"time\": \"2\", "
	    "\"entity\": \"b\", \"pop\": 6}", 0, 1), 0);
	/*
	 * Pushes and pops in their own layouts, by name and by value, read
	 * quickly: each as the unshaped scan reads it (6 states).
	 */
	{
		static const struct {
			const char *learnt, *value;
			int want;
		} ops[] = {
			{ "\"push\": \"s\"", "\"state3\"", 1 },
			{ "\"push\": \"s\"", "\"\"", 0 },
			{ "\"push\": \"s\"", "\"fifteen bytes..\"", 1 },
			{ "\"push\": \"s\"", "\"sixteen bytes...\"", 1 },
			{ "\"push\": \"s\"", "\"seventeen bytes..\"", 1 },
			{ "\"push\": \"s\"", "\"tab\there\"", 0 },
			{ "\"push\": \"s\"", "\"esc\\\"aped\"", 0 },
			{ "\"push\": \"s\"", "\"\x7f\"", 0 },
			{ "\"push\": \"s\"", "\"caf\xc3\xa9\"", 0 },
			{ "\"push\": 1", "5", 1 },
			{ "\"push\": 1", "6", 0 },
			{ "\"push\": 1", "05", 0 },
			{ "\"push\": 1", "00", 0 },
			{ "\"push\": 1", "10", 0 },
			{ "\"push\": 1", "-1", 0 },
			{ "\"push\": 1", "1.0", 0 },
			{ "\"push\": 1", "1e0", 0 },
			{ "\"push\": 1", "0000000000000001", 0 },
			{ "\"push\": 1", "99999999999999999999", 0 },
			{ "\"push\": 1", "null", 0 },
			{ "\"pop\": 1", "0", 1 },
			{ "\"pop\": 1", "7", 0 },
			{ "\"pop\": \"s\"", "\"a\"", 1 },
			{ "\"pop\": \"s\"", "\"\"", 0 },
		};
		size_t n;
		int ok = 1;

		for (n = 0; n < sizeof (ops) / sizeof (ops[0]); n++) {
			char learnt_rec[128], rec[128];
			int got;

			snprintf(learnt_rec, sizeof (learnt_rec), "{\"time\": "
			    "\"1\", \"entity\": \"a\", %s}", ops[n].learnt);
			snprintf(rec, sizeof (rec), "{\"time\": \"2\", "
			    "\"entity\": \"b\", \"%s\": %s}", ops[n].learnt[2] ==
			    'u' ? "push" : "pop", ops[n].value);
			if ((got = quick_case(learnt_rec, rec, 0, 1)) !=
			    ops[n].want) {
				printf("# %s: %d\n", rec, got);
				ok = 0;
			}
		}
		CHECK("quick: pushes and pops by name and by value as the "
		    "unshaped scan reads them", ok);
	}
	CHECK_INT("quick: a push is no plain datum", quick_case(learnt,
	    "{\"time\": \"2\", \"entity\": \"b\", \"push\": 1}", 0, 0), 0);
}

/*
 * scan_quick_run over records at start[0..n] in buf (start[n] is len),
 * as a scanning thread calls it: a run, then one record by
 * scan_record_shaped where a run stops.  Each datum of a run must be
 * what scan_record says of the record that starts where the run says,
 * the first record after spaces, and none at or past stop (every 97th
 * record).  Returns how many data disagree; *past_stop counts those at
 * or past stop, *in_runs and *calls the data read in runs and the calls
 * made before calm_end.
 */
static int
quick_run_against_scan_record(const char *buf, size_t len,
    const size_t *start, size_t nrecords, size_t calm_end, int *past_stop,
    size_t *in_runs, size_t *calls)
{
	enum { MAXRUN = 16 };
	size_t pos = 0, next_rec = 0, stop, stop_at = 97;
	scan_shapes shapes;
	scanned run[MAXRUN], ref;
	int bad = 0;

	scan_shapes_init(&shapes);
	*past_stop = 0;
	*in_runs = *calls = 0;
	stop = start[stop_at < nrecords ? stop_at : nrecords];
	while (next_rec < nrecords) {
		size_t n, k;
		scanned d;
		int in_calm = pos < calm_end;

		n = scan_quick_run(&shapes, buf, len, &pos, stop, 9, run,
		    MAXRUN);
		*calls += in_calm;
		for (k = 0; k < n; k++) {
			while (next_rec < nrecords && start[next_rec] < run[k].at)
				next_rec++;
			if (run[k].at != start[next_rec] ||
			    !scan_record(buf, len, run[k].at, 9, &ref) ||
			    !same_record(1, &run[k], 1, &ref))
				bad++;
			if (run[k].at >= stop)
				(*past_stop)++;
			next_rec++;
		}
		*in_runs += in_calm ? n : 0;
		if (n > 0 && pos != run[n - 1].next)
			bad++;
		if (n == MAXRUN)
			continue;
		/* The record it stopped before, one by one. */
		while (next_rec < nrecords && start[next_rec] < pos)
			next_rec++;
		if (next_rec == nrecords)
			break;
		if (start[next_rec] >= stop) {
			stop_at += 97;
			stop = stop_at < nrecords ? start[stop_at] : len;
		}
		if (scan_record_shaped(&shapes, buf, len, start[next_rec], 9, &d))
			pos = d.next;
		else
			pos = start[next_rec + 1];
		next_rec++;
	}
	return (bad);
}

static void
check_quick_run(void)
{
	enum { NRECORDS = 20000 };
	size_t cap = 8 << 20, len = 0, i;
	size_t *start = malloc((NRECORDS + 1) * sizeof (size_t));
	char *buf = malloc(cap);
	int bad, past_stop;
	size_t in_runs, calls;	/* in the calm half */

	/* Calm for the first half: plain data in one layout, in runs. */
	for (i = 0; i < NRECORDS; i++) {
		calm = i < NRECORDS / 2;
		start[i] = len;
		len += put_record(buf + len);
		buf[len++] = '\n';
	}
	calm = 0;
	start[NRECORDS] = len;
	bad = quick_run_against_scan_record(buf, len, start, NRECORDS,
	    start[NRECORDS / 2], &past_stop, &in_runs, &calls);
	CHECK_INT("scan_quick_run agrees with scan_record", bad, 0);
	CHECK_INT("scan_quick_run stops before stop", past_stop, 0);
	CHECK("scan_quick_run reads most calm data", in_runs > NRECORDS / 3);
	CHECK("scan_quick_run reads calm data in runs", in_runs > 3 * calls);
	free(buf);
	free(start);
}

/*
 * Layouts that begin alike and end otherwise, as a nested or mixed
 * trace's do: a record that fails one after its time and entity tries
 * the others from there (scan_shape's head), and must still be read as
 * scan_record reads it, with long times and names (left to shape_scan),
 * states out of range and bad bytes now and then.
 */
static void
check_shared_heads(void)
{
	enum { NRECORDS = 20000 };
	static const char *const tails[] = {
		"\"state\": %u}", "\"state\": %u, \"tag\": \"t%u\"}",
		"\"push\": %u}", "\"push\": \"s%u\"}", "\"pop\": %u}",
		"\"pop\": \"s%u\"}", "\"value\": %u.5}", "\"value\": \"v%u\"}",
	};
	size_t cap = 4 << 20, len = 0, i;
	size_t *start = malloc((NRECORDS + 1) * sizeof (size_t));
	char *buf = malloc(cap);
	int bad, past_stop;
	size_t in_runs, calls;

	for (i = 0; i < NRECORDS; i++) {
		unsigned tail = (unsigned)(next_random() % 8);
		unsigned v = (unsigned)next_random();
		const char *high, *name;
		unsigned id;
		size_t n;

		v %= chance(3) ? 20 : 9;
		high = chance(2) ? "123456789012345" : "";
		name = chance(2) ? "a name of seventeen" : "e";
		id = (unsigned)(next_random() % 50);
		start[i] = len;
		len += (size_t)sprintf(buf + len, "{\"time\": \"%s%zu\", "
		    "\"entity\": \"%s%u\", ", high, 1000 + i, name, id);
		n = (size_t)sprintf(buf + len, tails[tail], v, v);
		if (chance(1)) {
			size_t at = len + next_random() % n;

			buf[at] = (char)next_random();
		}
		len += n;
		buf[len++] = '\n';
	}
	start[NRECORDS] = len;
	bad = quick_run_against_scan_record(buf, len, start, NRECORDS, len,
	    &past_stop, &in_runs, &calls);
	CHECK_INT("shared heads: scan_quick_run agrees with scan_record",
	    bad, 0);
	CHECK_INT("shared heads: scan_quick_run stops before stop",
	    past_stop, 0);
	CHECK("shared heads: most data are read in runs",
	    in_runs > NRECORDS / 2);
	free(buf);
	free(start);
}

/* ---- numbers (scan_number) ---- */

/* A random JSON number: sign, digits, fraction, exponent, each maybe. */
static size_t
put_number(char *p)
{
	size_t n = 0;

	if (chance(30))
		p[n++] = '-';
	if (chance(15))
		p[n++] = '0';
	else {
		size_t k = put_digits(p + n, chance(10) ? 30 : 17);

		if (k > 1 && p[n] == '0')
			p[n] = '7';	/* no leading zero: not JSON */
		n += k;
	}
	if (chance(50)) {
		uint32_t r = next_random();
		int k = 1 + (int)(r % (chance(10) ? 30 : 8)), i;

		p[n++] = '.';
		for (i = 0; i < k; i++)
			p[n++] = (char)('0' + next_random() % 10);
	}
	if (chance(30)) {
		uint32_t r;

		p[n++] = chance(50) ? 'e' : 'E';
		if (chance(50))
			p[n++] = chance(50) ? '-' : '+';
		r = next_random();
		n += (size_t)snprintf(p + n, 8, "%u", r % (chance(20) ? 400 :
		    30));
	}
	return (n);
}

/*
 * scan_number against strtod (what the general parser uses) on random
 * numbers of every form, bit for bit; an integer (no fraction, no
 * exponent) as the scanner's own word (value_small_int) if below 2^47,
 * else left to the general parser (0 bytes); and what is not a JSON
 * number, or overflows, is refused.
 */
static void
check_numbers(void)
{
	static const char *const refused[] = { "01", "-", "1.", ".5", "+1",
	    "1e", "1e+", "-a", "1e999", "-1e400", "00", "1.e3", "0x10", "" };
	static const char *const exact[] = { "0", "-0", "0.1", "1e22",
	    "1e23", "9007199254740993", "5e-324", "2.2250738585072014e-308",
	    "123456789012345678901234", "1.7976931348623157e308",
	    "0.30000000000000004", "-0.0e-5", "1E2", "3.14159265358979323846" };
	char buf[128];
	uint64_t got, want;
	double d;
	size_t i, n, len, want_len;
	int bad = 0, cases = 0;

	for (i = 0; i < 200000 + sizeof (exact) / sizeof (exact[0]); i++) {
		if (i < sizeof (exact) / sizeof (exact[0])) {
			len = strlen(exact[i]);
			memcpy(buf, exact[i], len);
		} else {
			len = put_number(buf);
		}
		buf[len] = '\0';
		d = strtod(buf, NULL);
		if (!isfinite(d))
			continue;
		memcpy(&want, &d, sizeof (want));
		want_len = len;
		if (strpbrk(buf, ".eE") == NULL) {	/* strtoll saturates */
			long long ll = strtoll(buf, NULL, 10);

			if (ll > -(1LL << 47) && ll < (1LL << 47))
				want = value_small_int(ll);
			else
				want_len = 0;
		}
		buf[len] = '}';
		n = scan_number(buf, buf + len + 1, &got);
		cases++;
		if (n != want_len || (want_len > 0 && got != want)) {
			if (bad++ < 5) {
				buf[len] = '\0';
				fprintf(stderr, "scan_number %s: %zu bytes, %016llx, "
				    "want %016llx\n", buf, n,
				    (unsigned long long)got,
				    (unsigned long long)want);
			}
		}
	}
	CHECK_INT("scan numbers: bit for bit as strtod, integers as integers",
	    bad, 0);
	CHECK("scan numbers: many cases", cases > 150000);
	for (i = 0, bad = 0; i < sizeof (refused) / sizeof (refused[0]); i++) {
		len = strlen(refused[i]);
		memcpy(buf, refused[i], len);
		buf[len] = '}';
		if (scan_number(buf, buf + len + 1, &got) == len && len > 0)
			bad++;
	}
	CHECK_INT("scan numbers: not JSON numbers, or too big, refused", bad,
	    0);
	memcpy(buf, "12", 2);
	CHECK_INT("scan numbers: nothing after them", scan_number(buf, buf + 2,
	    &got), 0);
}

int
main(void)
{
	check_numbers();
	check_digits();
	check_names();
	check_shape_reuse();
	check_shapes();
	check_quick_shapes();
	check_quick_run();
	check_shared_heads();
	return (unit_exit());
}
