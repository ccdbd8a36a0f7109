/*
 * outcheck.c: an XML well-formedness checker and JSON duplicate-key walk
 * for the fuzz harnesses (see outcheck.h).  Nothing here uses the code
 * it checks but the JSON tree type: UTF-8 is decoded here, and the XML
 * grammar is followed from the XML 1.0 recommendation's productions
 * (their names are given in the comments).
 */
#include "outcheck.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- characters ---- */

/*
 * The code point of the character at s (n > 0 bytes available) and its
 * length, or 0 if the bytes there are not valid UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF, nothing cut).
 */
static size_t
decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t need, i;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return (1);
	}
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		return (0);
	}
	if (n < need)
		return (0);
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return (0);
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return (0);
	*cp = v;
	return (need);
}

/* [2] Char */
static int
is_char(uint32_t c)
{
	return (c == 0x9 || c == 0xa || c == 0xd ||
	    (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) ||
	    (c >= 0x10000 && c <= 0x10ffff));
}

/* [3] S */
static int
is_space(uint32_t c)
{
	return (c == 0x20 || c == 0x9 || c == 0xd || c == 0xa);
}

/* [4] NameStartChar */
static int
is_name_start(uint32_t c)
{
	return (c == ':' || c == '_' || (c >= 'A' && c <= 'Z') ||
	    (c >= 'a' && c <= 'z') || (c >= 0xc0 && c <= 0xd6) ||
	    (c >= 0xd8 && c <= 0xf6) || (c >= 0xf8 && c <= 0x2ff) ||
	    (c >= 0x370 && c <= 0x37d) || (c >= 0x37f && c <= 0x1fff) ||
	    (c >= 0x200c && c <= 0x200d) || (c >= 0x2070 && c <= 0x218f) ||
	    (c >= 0x2c00 && c <= 0x2fef) || (c >= 0x3001 && c <= 0xd7ff) ||
	    (c >= 0xf900 && c <= 0xfdcf) || (c >= 0xfdf0 && c <= 0xfffd) ||
	    (c >= 0x10000 && c <= 0xeffff));
}

/* [4a] NameChar */
static int
is_name_char(uint32_t c)
{
	return (is_name_start(c) || c == '-' || c == '.' ||
	    (c >= '0' && c <= '9') || c == 0xb7 ||
	    (c >= 0x300 && c <= 0x36f) || (c >= 0x203f && c <= 0x2040));
}

/* ---- the scanner ---- */

typedef struct span {
	size_t at, len;
} span;

typedef struct xml {
	const unsigned char *s;
	size_t len, pos;
	const char *why;	/* the first problem, or NULL */
	size_t where;
	span *open;		/* names of the open elements, innermost last */
	size_t nopen, cap;
} xml;

static int
fail(xml *x, size_t at, const char *why)
{
	if (x->why == NULL) {
		x->why = why;
		x->where = at;
	}
	return (-1);
}

/* Whether the bytes at pos begin with lit. */
static int
at(const xml *x, const char *lit)
{
	size_t n = strlen(lit);

	return (x->len - x->pos >= n && memcmp(x->s + x->pos, lit, n) == 0);
}

/* The character at pos without taking it: 0, or -1 at the end or on
 * bytes that are not a legal XML character. */
static int
peek(xml *x, uint32_t *c, size_t *n)
{
	if (x->pos >= x->len)
		return (fail(x, x->pos, "unexpected end of the document"));
	if ((*n = decode(x->s + x->pos, x->len - x->pos, c)) == 0)
		return (fail(x, x->pos, "invalid UTF-8"));
	if (!is_char(*c))
		return (fail(x, x->pos, "a character XML does not allow"));
	return (0);
}

static int
take(xml *x, uint32_t *c)
{
	size_t n;

	if (peek(x, c, &n) != 0)
		return (-1);
	x->pos += n;
	return (0);
}

/* Skips S; returns how many bytes it skipped. */
static size_t
skip_space(xml *x)
{
	size_t from = x->pos;

	while (x->pos < x->len && is_space(x->s[x->pos]))
		x->pos++;
	return (x->pos - from);
}

static int
expect(xml *x, const char *lit, const char *why)
{
	if (!at(x, lit))
		return (fail(x, x->pos, why));
	x->pos += strlen(lit);
	return (0);
}

/* [5] Name */
static int
name(xml *x, span *sp)
{
	uint32_t c;
	size_t n;

	sp->at = x->pos;
	if (peek(x, &c, &n) != 0)
		return (-1);
	if (!is_name_start(c))
		return (fail(x, x->pos, "a name must start with a letter, "
		    "'_' or ':'"));
	x->pos += n;
	while (x->pos < x->len) {
		if ((n = decode(x->s + x->pos, x->len - x->pos, &c)) == 0 ||
		    !is_name_char(c))
			break;
		x->pos += n;
	}
	sp->len = x->pos - sp->at;
	return (0);
}

static int
same_span(const xml *x, span a, span b)
{
	return (a.len == b.len && memcmp(x->s + a.at, x->s + b.at,
	    a.len) == 0);
}

/*
 * [66] CharRef and [68] EntityRef, at '&'.  Without a DTD only the five
 * predefined entities exist; a character reference must be to a Char.
 */
static int
reference(xml *x)
{
	size_t start = x->pos;

	x->pos++;
	if (at(x, "#")) {
		int hex, digits = 0;
		uint32_t v = 0;

		x->pos++;
		hex = at(x, "x");
		x->pos += (size_t)hex;
		for (; x->pos < x->len; x->pos++, digits++) {
			unsigned char c = x->s[x->pos];
			unsigned d;

			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (hex && c >= 'a' && c <= 'f')
				d = c - 'a' + 10;
			else if (hex && c >= 'A' && c <= 'F')
				d = c - 'A' + 10;
			else
				break;
			v = v * (hex ? 16 : 10) + d;
			if (v > 0x10ffff)
				v = 0x110000;	/* stays out of range */
		}
		if (digits == 0 || expect(x, ";", "a character reference "
		    "must end with ';'") != 0)
			return (fail(x, start, "bad character reference"));
		if (!is_char(v))
			return (fail(x, start, "a character reference to a "
			    "character XML does not allow"));
		return (0);
	} else {
		static const char *const predefined[] = { "lt", "gt", "amp",
		    "apos", "quot" };
		span sp;
		size_t i;

		if (name(x, &sp) != 0 || expect(x, ";", "an entity "
		    "reference must end with ';'") != 0)
			return (fail(x, start, "bare '&'"));
		for (i = 0; i < 5; i++) {
			if (sp.len == strlen(predefined[i]) &&
			    memcmp(x->s + sp.at, predefined[i], sp.len) == 0)
				return (0);
		}
		return (fail(x, start, "a reference to an undeclared entity"));
	}
}

/* [10] AttValue */
static int
att_value(xml *x)
{
	unsigned char q;
	uint32_t c;

	if (!at(x, "\"") && !at(x, "'"))
		return (fail(x, x->pos, "an attribute value must be quoted"));
	q = x->s[x->pos++];
	for (;;) {
		if (x->pos >= x->len)
			return (fail(x, x->pos, "unterminated attribute value"));
		if (x->s[x->pos] == q) {
			x->pos++;
			return (0);
		}
		if (x->s[x->pos] == '<')
			return (fail(x, x->pos, "'<' in an attribute value"));
		if (x->s[x->pos] == '&') {
			if (reference(x) != 0)
				return (-1);
			continue;
		}
		if (take(x, &c) != 0)
			return (-1);
	}
}

/* [15] Comment, after "<!--". */
static int
comment(xml *x)
{
	uint32_t c;

	for (;;) {
		if (at(x, "--")) {
			if (at(x, "-->")) {
				x->pos += 3;
				return (0);
			}
			return (fail(x, x->pos, "\"--\" inside a comment"));
		}
		if (x->pos >= x->len)
			return (fail(x, x->pos, "unterminated comment"));
		if (take(x, &c) != 0)
			return (-1);
	}
}

/* [16] PI, after "<?". */
static int
pi(xml *x)
{
	span target;
	uint32_t c;

	if (name(x, &target) != 0)
		return (-1);
	if (target.len == 3 && (x->s[target.at] | 0x20) == 'x' &&
	    (x->s[target.at + 1] | 0x20) == 'm' &&
	    (x->s[target.at + 2] | 0x20) == 'l')
		return (fail(x, target.at, "an XML declaration (or a "
		    "processing instruction named xml) not at the start"));
	if (at(x, "?>")) {
		x->pos += 2;
		return (0);
	}
	if (skip_space(x) == 0)
		return (fail(x, x->pos, "expected whitespace or \"?>\" after "
		    "a processing instruction's target"));
	for (;;) {
		if (at(x, "?>")) {
			x->pos += 2;
			return (0);
		}
		if (x->pos >= x->len)
			return (fail(x, x->pos, "unterminated processing "
			    "instruction"));
		if (take(x, &c) != 0)
			return (-1);
	}
}

/* A pseudo-attribute of the XML declaration: S name Eq quoted value. */
static int
decl_field(xml *x, const char *key, span *value)
{
	size_t save = x->pos;
	unsigned char q;

	if (skip_space(x) == 0 || !at(x, key)) {
		x->pos = save;
		return (1);	/* not there */
	}
	x->pos += strlen(key);
	skip_space(x);
	if (expect(x, "=", "expected '=' in the XML declaration") != 0)
		return (-1);
	skip_space(x);
	if (!at(x, "\"") && !at(x, "'"))
		return (fail(x, x->pos, "a value in the XML declaration must "
		    "be quoted"));
	q = x->s[x->pos++];
	value->at = x->pos;
	while (x->pos < x->len && x->s[x->pos] != q) {
		unsigned char c = x->s[x->pos];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		    c == '-'))
			return (fail(x, x->pos, "a bad character in the XML "
			    "declaration"));
		x->pos++;
	}
	if (x->pos >= x->len)
		return (fail(x, x->pos, "unterminated XML declaration"));
	value->len = x->pos - value->at;
	x->pos++;
	return (0);
}

/* [23] XMLDecl, after "<?xml" (which must be followed by S). */
static int
xml_decl(xml *x)
{
	span v;
	int r;
	size_t i;

	if ((r = decl_field(x, "version", &v)) != 0)
		return (r < 0 ? -1 : fail(x, x->pos, "the XML declaration "
		    "needs a version"));
	/* [26] VersionNum: '1.' [0-9]+ */
	if (v.len < 3 || memcmp(x->s + v.at, "1.", 2) != 0)
		return (fail(x, v.at, "not XML version 1.x"));
	for (i = 2; i < v.len; i++) {
		if (x->s[v.at + i] < '0' || x->s[v.at + i] > '9')
			return (fail(x, v.at, "not XML version 1.x"));
	}
	if ((r = decl_field(x, "encoding", &v)) < 0)
		return (-1);
	/* The bytes are checked as UTF-8: it must say so. */
	if (r == 0 && !(v.len == 5 && strncasecmp((const char *)x->s + v.at,
	    "utf-8", 5) == 0))
		return (fail(x, v.at, "an encoding other than UTF-8"));
	if ((r = decl_field(x, "standalone", &v)) < 0)
		return (-1);
	if (r == 0 && !(v.len == 3 && memcmp(x->s + v.at, "yes", 3) == 0) &&
	    !(v.len == 2 && memcmp(x->s + v.at, "no", 2) == 0))
		return (fail(x, v.at, "standalone must be yes or no"));
	skip_space(x);
	return (expect(x, "?>", "expected \"?>\" to end the XML "
	    "declaration"));
}

/* [18] CDSect, after "<![CDATA[": anything but "]]>", which ends it. */
static int
cdata(xml *x)
{
	uint32_t c;

	for (;;) {
		if (at(x, "]]>")) {
			x->pos += 3;
			return (0);
		}
		if (x->pos >= x->len)
			return (fail(x, x->pos, "unterminated CDATA section"));
		if (take(x, &c) != 0)
			return (-1);
	}
}

/*
 * [40] STag or [44] EmptyElemTag, after '<': the name, attributes (each
 * name once: the Unique Att Spec constraint), then "/>" or '>' (the
 * element is then open).
 */
static int
start_tag(xml *x)
{
	span el, *attrs = NULL;
	size_t nattrs = 0, i;
	int rv = -1;

	if (name(x, &el) != 0)
		return (-1);
	for (;;) {
		size_t space = skip_space(x);
		span a;

		if (at(x, "/>")) {
			x->pos += 2;
			rv = 0;
			break;
		}
		if (at(x, ">")) {
			x->pos++;
			if (x->nopen == x->cap) {
				x->cap = x->cap ? 2 * x->cap : 16;
				x->open = realloc(x->open,
				    x->cap * sizeof (span));
				if (x->open == NULL)
					abort();
			}
			x->open[x->nopen++] = el;
			rv = 0;
			break;
		}
		if (space == 0) {
			fail(x, x->pos, "expected whitespace, '>' or \"/>\" "
			    "in a tag");
			break;
		}
		if (name(x, &a) != 0)
			break;
		for (i = 0; i < nattrs; i++) {
			if (same_span(x, attrs[i], a))
				break;
		}
		if (i < nattrs) {
			fail(x, a.at, "an attribute given twice in one tag");
			break;
		}
		if ((attrs = realloc(attrs, (nattrs + 1) *
		    sizeof (span))) == NULL)
			abort();
		attrs[nattrs++] = a;
		skip_space(x);
		if (expect(x, "=", "expected '=' after an attribute name") !=
		    0)
			break;
		skip_space(x);
		if (att_value(x) != 0)
			break;
	}
	free(attrs);
	return (rv);
}

/* [42] ETag, after "</": must close the innermost open element. */
static int
end_tag(xml *x)
{
	size_t start = x->pos - 2;
	span el;

	if (name(x, &el) != 0)
		return (-1);
	skip_space(x);
	if (expect(x, ">", "expected '>' to end a closing tag") != 0)
		return (-1);
	if (x->nopen == 0)
		return (fail(x, start, "a closing tag with no element open"));
	if (!same_span(x, x->open[x->nopen - 1], el))
		return (fail(x, start, "a closing tag that does not match "
		    "the open element"));
	x->nopen--;
	return (0);
}

/* Markup at '<', in content or (top) outside the root element. */
static int
markup(xml *x, int top, int *roots)
{
	if (at(x, "<!--")) {
		x->pos += 4;
		return (comment(x));
	}
	if (at(x, "<?")) {
		x->pos += 2;
		return (pi(x));
	}
	if (at(x, "<![CDATA[")) {
		if (top)
			return (fail(x, x->pos, "a CDATA section outside the "
			    "root element"));
		x->pos += 9;
		return (cdata(x));
	}
	if (at(x, "<!DOCTYPE"))
		return (fail(x, x->pos, "a document type declaration (not "
		    "supported)"));
	if (at(x, "<!"))
		return (fail(x, x->pos, "unknown markup \"<!\""));
	if (at(x, "</")) {
		x->pos += 2;
		return (end_tag(x));
	}
	if (top && (*roots)++ > 0)
		return (fail(x, x->pos, "a second root element"));
	x->pos++;
	return (start_tag(x));
}

const char *
xml_check(const char *doc, size_t len, size_t *where)
{
	xml x;
	int roots = 0;

	memset(&x, 0, sizeof (x));
	x.s = (const unsigned char *)doc;
	x.len = len;
	if (at(&x, "\xef\xbb\xbf"))
		x.pos += 3;	/* a byte-order mark may come first */
	if (at(&x, "<?xml") && x.len - x.pos > 5 && is_space(x.s[x.pos + 5])) {
		x.pos += 5;
		(void) xml_decl(&x);
	}
	while (x.why == NULL && x.pos < x.len) {
		int top = x.nopen == 0;
		uint32_t c;

		if (x.s[x.pos] == '<') {
			(void) markup(&x, top, &roots);
		} else if (top) {
			/* [27] Misc: only whitespace outside the root. */
			if (skip_space(&x) == 0)
				(void) fail(&x, x.pos, "text outside the root "
				    "element");
		} else if (x.s[x.pos] == '&') {
			(void) reference(&x);
		} else if (at(&x, "]]>")) {
			/* [14] CharData may not hold "]]>". */
			(void) fail(&x, x.pos, "\"]]>\" in text");
		} else {
			(void) take(&x, &c);
		}
	}
	if (x.why == NULL && x.nopen > 0)
		(void) fail(&x, x.len, "an element is not closed");
	if (x.why == NULL && roots == 0)
		(void) fail(&x, x.len, "no root element");
	free(x.open);
	*where = x.where;
	return (x.why);
}

/* ---- JSON ---- */

static int
compare_keys(const void *pa, const void *pb)
{
	const json_value *a = *(const json_value *const *)pa;
	const json_value *b = *(const json_value *const *)pb;
	int r;

	if (a->key_len != b->key_len)
		return (a->key_len < b->key_len ? -1 : 1);
	if ((r = memcmp(a->key, b->key, a->key_len)) != 0)
		return (r);
	/* Equal keys stay in document order: the later one repeats. */
	return (a->key_offset < b->key_offset ? -1 :
	    a->key_offset > b->key_offset);
}

static int
find_in(const json_value *container, const json_value *v,
    int (*allow)(const json_dup *), json_dup *dup)
{
	const json_value *m;

	if (v->type == JSON_OBJECT) {
		const json_value **ms;
		size_t n = 0, i;

		for (m = v->child; m != NULL; m = m->next)
			n++;
		if ((ms = malloc((n + 1) * sizeof (*ms))) == NULL)
			abort();
		n = 0;
		for (m = v->child; m != NULL; m = m->next)
			ms[n++] = m;
		qsort(ms, n, sizeof (*ms), compare_keys);
		for (i = 1; i < n; i++) {
			if (ms[i]->key_len != ms[i - 1]->key_len ||
			    memcmp(ms[i]->key, ms[i - 1]->key,
			    ms[i]->key_len) != 0)
				continue;
			dup->container = container;
			dup->object = v;
			dup->member = ms[i];
			if (allow == NULL || !allow(dup)) {
				free(ms);
				return (1);
			}
		}
		free(ms);
	}
	if (v->type == JSON_OBJECT || v->type == JSON_ARRAY) {
		for (m = v->child; m != NULL; m = m->next) {
			if (find_in(v, m, allow, dup))
				return (1);
		}
	}
	return (0);
}

int
json_find_duplicate(const json_value *v, int (*allow)(const json_dup *),
    json_dup *dup)
{
	return (find_in(NULL, v, allow, dup));
}

int
json_same(const json_value *a, const json_value *b)
{
	const json_value *p, *q;

	if (a->type != b->type)
		return (0);
	switch (a->type) {
	case JSON_NUMBER:
	case JSON_STRING:
		return (a->len == b->len && memcmp(a->str, b->str, a->len) ==
		    0);
	case JSON_ARRAY:
	case JSON_OBJECT:
		for (p = a->child, q = b->child; p != NULL && q != NULL;
		    p = p->next, q = q->next) {
			if (a->type == JSON_OBJECT && (p->key_len !=
			    q->key_len || memcmp(p->key, q->key,
			    p->key_len) != 0))
				return (0);
			if (!json_same(p, q))
				return (0);
		}
		return (p == NULL && q == NULL);
	default:
		return (1);
	}
}
