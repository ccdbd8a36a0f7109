#include "base/json.h"

#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/util.h"

/* ---- the arena ---- */

#define ARENA_MIN	(64 * 1024)

typedef struct chunk {
	struct chunk *next;
	size_t size;
	char data[];
} chunk;

struct json_arena {
	chunk *chunks;		/* newest first; the newest is in use */
	size_t used;		/* bytes used in the newest chunk */
	size_t total;		/* sum of chunk sizes */
};

json_arena *
json_arena_new(void)
{
	return (xcalloc(1, sizeof (json_arena)));
}

void
json_arena_free(json_arena *a)
{
	chunk *c, *next;

	if (a == NULL)
		return;
	for (c = a->chunks; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

/*
 * Keeps one chunk as large as everything used so far, so a stream of
 * records settles into a single chunk and no further allocation.
 */
void
json_arena_reset(json_arena *a)
{
	chunk *c, *next;

	if (a->chunks != NULL && a->chunks->next != NULL) {
		size_t total = a->total;

		for (c = a->chunks; c != NULL; c = next) {
			next = c->next;
			free(c);
		}
		a->chunks = xmalloc(sizeof (chunk) + total);
		a->chunks->next = NULL;
		a->chunks->size = total;
	}
	a->used = 0;
}

static void *
arena_alloc(json_arena *a, size_t size)
{
	chunk *c = a->chunks;
	void *p;

	size = (size + 15) & ~(size_t)15;
	if (c == NULL || c->size - a->used < size) {
		size_t want = a->total < ARENA_MIN ? ARENA_MIN : a->total;

		if (want < size)
			want = size;
		c = xmalloc(sizeof (chunk) + want);
		c->size = want;
		c->next = a->chunks;
		a->chunks = c;
		a->total += want;
		a->used = 0;
	}
	p = c->data + a->used;
	a->used += size;
	return (p);
}

/* ---- the parser ---- */

typedef struct parser {
	json_arena *arena;
	const char *buf;
	size_t len, pos;
	json_error *err;
	unsigned depth;
	int document;		/* a number may end at the end of input */
} parser;

/*
 * Byte classes for the string scanner: a constant table, so that parsers
 * on several threads share it without any initialisation to race on.
 */
enum { PLAIN = 0, QUOTE, BACKSLASH, CONTROL, HIGH };
#define Q QUOTE
#define B BACKSLASH
#define C CONTROL
#define H HIGH
static const unsigned char string_class[256] = {
	C, C, C, C, C, C, C, C, C, C, C, C, C, C, C, C,
	C, C, C, C, C, C, C, C, C, C, C, C, C, C, C, C,
	0, 0, Q, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, B, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
	H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
	H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
	H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
	H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
	H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
	H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
	H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
};
#undef Q
#undef B
#undef C
#undef H

static void
describe(char *out, size_t size, const parser *p, size_t at)
{
	unsigned char c = (unsigned char)p->buf[at];

	if (c > 0x20 && c < 0x7f)
		snprintf(out, size, "'%c'", c);
	else if (c == ' ')
		snprintf(out, size, "a space");
	else if (c == '\n')
		snprintf(out, size, "a newline");
	else
		snprintf(out, size, "byte 0x%02x", c);
}

static json_value *
fail_at(parser *p, size_t at, const char *msg)
{
	p->err->offset = at;
	p->err->incomplete = 0;
	snprintf(p->err->message, sizeof (p->err->message), "%s", msg);
	return (NULL);
}

static json_value *
fail_found(parser *p, size_t at, const char *expected)
{
	char found[32];

	describe(found, sizeof (found), p, at);
	p->err->offset = at;
	p->err->incomplete = 0;
	snprintf(p->err->message, sizeof (p->err->message),
	    "expected %s but found %s", expected, found);
	return (NULL);
}

static json_value *
fail_end(parser *p, const char *inside)
{
	p->err->offset = p->len;
	p->err->incomplete = 1;
	snprintf(p->err->message, sizeof (p->err->message),
	    "unexpected end of input %s", inside);
	return (NULL);
}

static json_value *
new_value(parser *p, json_type type, size_t offset)
{
	json_value *v = arena_alloc(p->arena, sizeof (json_value));

	memset(v, 0, sizeof (*v));
	v->type = type;
	v->offset = offset;
	return (v);
}

int
json_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

/* Reads 4 hex digits at p->buf[at]; -1 on error (reported), -2 at end. */
static long
read_hex4(parser *p, size_t at)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		int h;

		if (at + (size_t)i >= p->len) {
			fail_end(p, "inside a \\u escape");
			return (-2);
		}
		if ((h = json_hex_digit((unsigned char)p->buf[at + (size_t)i])) < 0) {
			fail_found(p, at + (size_t)i, "a hex digit in a \\u "
			    "escape");
			return (-1);
		}
		v = v * 16 + h;
	}
	return (v);
}

static size_t
put_utf8(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return (1);
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return (2);
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return (3);
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return (4);
}

/*
 * Decodes the escapes of a string body [start, end) known to be well
 * formed except for surrogates, which are checked here.
 */
static int
decode_string(parser *p, size_t start, size_t end, const char **out,
    size_t *outlen)
{
	char *dst = arena_alloc(p->arena, end - start + 1), *d = dst;
	size_t i = start;

	while (i < end) {
		const char *bs = memchr(p->buf + i, '\\', end - i);
		size_t run = bs != NULL ? (size_t)(bs - (p->buf + i)) : end - i;
		unsigned long cp;

		memcpy(d, p->buf + i, run);
		d += run;
		i += run;
		if (i >= end)
			break;
		switch (p->buf[i + 1]) {
		case '"': *d++ = '"'; i += 2; continue;
		case '\\': *d++ = '\\'; i += 2; continue;
		case '/': *d++ = '/'; i += 2; continue;
		case 'b': *d++ = '\b'; i += 2; continue;
		case 'f': *d++ = '\f'; i += 2; continue;
		case 'n': *d++ = '\n'; i += 2; continue;
		case 'r': *d++ = '\r'; i += 2; continue;
		case 't': *d++ = '\t'; i += 2; continue;
		default: break;
		}
		cp = (unsigned long)read_hex4(p, i + 2);
		if (cp >= 0xdc00 && cp <= 0xdfff) {
			fail_at(p, i, "invalid \\u escape: a low surrogate "
			    "without a high one before it");
			return (-1);
		}
		if (cp >= 0xd800 && cp <= 0xdbff) {
			long low = -1;

			if (i + 12 <= end && p->buf[i + 6] == '\\' &&
			    p->buf[i + 7] == 'u')
				low = read_hex4(p, i + 8);
			if (low < 0xdc00 || low > 0xdfff) {
				fail_at(p, i, "invalid \\u escape: a high "
				    "surrogate must be followed by a low one");
				return (-1);
			}
			cp = 0x10000 + ((cp - 0xd800) << 10) +
			    ((unsigned long)low - 0xdc00);
			i += 6;
		}
		d += put_utf8(d, cp);
		i += 6;
	}
	*d = '\0';
	*out = dst;
	*outlen = (size_t)(d - dst);
	return (0);
}

/* Parses a string at p->pos (the opening quote). */
static int
parse_string(parser *p, const char **out, size_t *outlen)
{
	const unsigned char *b = (const unsigned char *)p->buf;
	size_t start = p->pos + 1, i = start;
	int escaped = 0;

	for (;;) {
		int n;

		while (i < p->len && string_class[b[i]] == PLAIN)
			i++;
		if (i >= p->len) {
			fail_end(p, "inside a string");
			return (-1);
		}
		switch (string_class[b[i]]) {
		case QUOTE:
			goto done;
		case CONTROL:
			fail_found(p, i, "a character (control characters "
			    "must be escaped in strings)");
			return (-1);
		case BACKSLASH:
			escaped = 1;
			if (i + 1 >= p->len) {
				fail_end(p, "inside a string escape");
				return (-1);
			}
			switch (b[i + 1]) {
			case '"': case '\\': case '/': case 'b': case 'f':
			case 'n': case 'r': case 't':
				i += 2;
				continue;
			case 'u':
				if (read_hex4(p, i + 2) < 0)
					return (-1);
				i += 6;
				continue;
			default:
				fail_found(p, i + 1, "an escape (one of "
				    "\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
				return (-1);
			}
		case HIGH:
			n = utf8_char(b + i, p->len - i);
			if (n < 0) {
				fail_end(p, "inside a UTF-8 character");
				return (-1);
			}
			if (n == 0) {
				fail_at(p, i, "invalid UTF-8 in string");
				return (-1);
			}
			i += (size_t)n;
			continue;
		}
	}
done:
	p->pos = i + 1;
	if (!escaped) {
		*out = p->buf + start;
		*outlen = i - start;
		return (0);
	}
	return (decode_string(p, start, i, out, outlen));
}

static int
is_digit(char c)
{
	return (c >= '0' && c <= '9');
}

static json_value *
parse_number(parser *p)
{
	const char *b = p->buf;
	size_t start = p->pos, i = start;
	json_value *v;

#define	AT_END()	(i >= p->len)
#define	NEED_MORE()	do {						\
	if (AT_END()) {							\
		if (p->document)					\
			goto end;					\
		return (fail_end(p, "inside a number"));		\
	}								\
} while (0)

	if (b[i] == '-') {
		i++;
		if (AT_END())
			return (fail_end(p, "inside a number"));
	}
	if (b[i] == '0') {
		i++;
	} else if (b[i] >= '1' && b[i] <= '9') {
		while (i < p->len && is_digit(b[i]))
			i++;
	} else {
		return (fail_found(p, i, "a digit"));
	}
	NEED_MORE();
	if (b[i] == '.') {
		i++;
		if (AT_END())
			return (fail_end(p, "inside a number"));
		if (!is_digit(b[i]))
			return (fail_found(p, i, "a digit after the decimal "
			    "point"));
		while (i < p->len && is_digit(b[i]))
			i++;
		NEED_MORE();
	}
	if (b[i] == 'e' || b[i] == 'E') {
		i++;
		if (AT_END())
			return (fail_end(p, "inside a number"));
		if (b[i] == '+' || b[i] == '-')
			i++;
		if (AT_END())
			return (fail_end(p, "inside a number"));
		if (!is_digit(b[i]))
			return (fail_found(p, i, "a digit in the exponent"));
		while (i < p->len && is_digit(b[i]))
			i++;
		NEED_MORE();
	}
end:
#undef AT_END
#undef NEED_MORE
	v = new_value(p, JSON_NUMBER, start);
	v->str = b + start;
	v->len = i - start;
	p->pos = i;
	return (v);
}

static json_value *
parse_literal(parser *p, const char *word, json_type type)
{
	size_t n = strlen(word), i;

	for (i = 0; i < n; i++) {
		if (p->pos + i >= p->len)
			return (fail_end(p, "inside a literal"));
		if (p->buf[p->pos + i] != word[i])
			return (fail_found(p, p->pos + i, word[0] == 't' ?
			    "true" : word[0] == 'f' ? "false" : "null"));
	}
	p->pos += n;
	return (new_value(p, type, p->pos - n));
}

static json_value *parse_value(parser *p);

/* Skips whitespace to the next token; fails if the input ends first. */
static int
next_token(parser *p, size_t from, const char *inside)
{
	p->pos = json_skip_space(p->buf, p->len, from);
	if (p->pos < p->len)
		return (0);
	fail_end(p, inside);
	return (-1);
}

static json_value *
parse_container(parser *p, int object)
{
	json_value *v = new_value(p, object ? JSON_OBJECT : JSON_ARRAY, p->pos);
	json_value *tail = NULL;
	char close = object ? '}' : ']';
	const char *inside = object ? "inside an object" : "inside an array";

	if (++p->depth > JSON_MAX_DEPTH)
		return (fail_at(p, p->pos, "nesting too deep: more than "
		    "1000 levels of arrays and objects"));
	if (next_token(p, p->pos + 1, inside) != 0)
		return (NULL);
	if (p->buf[p->pos] == close) {
		p->pos++;
		p->depth--;
		return (v);
	}
	for (;;) {
		json_value *m;
		const char *key = NULL;
		size_t key_len = 0, key_offset = p->pos;

		if (object) {
			if (p->buf[p->pos] != '"')
				return (fail_found(p, p->pos, v->len == 0 ?
				    "'\"' (a member name) or '}'" :
				    "'\"' (a member name)"));
			if (parse_string(p, &key, &key_len) != 0)
				return (NULL);
			if (next_token(p, p->pos, inside) != 0)
				return (NULL);
			if (p->buf[p->pos] != ':')
				return (fail_found(p, p->pos, "':' after the "
				    "member name"));
			p->pos = json_skip_space(p->buf, p->len, p->pos + 1);
		}
		if ((m = parse_value(p)) == NULL)
			return (NULL);
		m->key = key;
		m->key_len = key_len;
		m->key_offset = key_offset;
		if (tail == NULL)
			v->child = m;
		else
			tail->next = m;
		tail = m;
		v->len++;
		if (next_token(p, p->pos, inside) != 0)
			return (NULL);
		if (p->buf[p->pos] == close) {
			p->pos++;
			p->depth--;
			return (v);
		}
		if (p->buf[p->pos] != ',')
			return (fail_found(p, p->pos, object ?
			    "',' or '}' after an object member" :
			    "',' or ']' after an array element"));
		if (next_token(p, p->pos + 1, inside) != 0)
			return (NULL);
	}
}

static json_value *
parse_value(parser *p)
{
	size_t start;
	json_value *v;

	if (p->pos >= p->len)
		return (fail_end(p, "where a value was expected"));
	switch (p->buf[p->pos]) {
	case '{':
		return (parse_container(p, 1));
	case '[':
		return (parse_container(p, 0));
	case '"':
		start = p->pos;
		v = new_value(p, JSON_STRING, start);
		if (parse_string(p, &v->str, &v->len) != 0)
			return (NULL);
		return (v);
	case 't':
		return (parse_literal(p, "true", JSON_TRUE));
	case 'f':
		return (parse_literal(p, "false", JSON_FALSE));
	case 'n':
		return (parse_literal(p, "null", JSON_NULL));
	default:
		if (p->buf[p->pos] == '-' || is_digit(p->buf[p->pos]))
			return (parse_number(p));
		return (fail_found(p, p->pos, "a JSON value"));
	}
}

static json_value *
parse_top(json_arena *arena, const char *buf, size_t len, size_t *pos,
    json_error *err, int document)
{
	parser p;

	memset(err, 0, sizeof (*err));
	p.arena = arena;
	p.buf = buf;
	p.len = len;
	p.err = err;
	p.depth = 0;
	p.document = document;
	p.pos = json_skip_space(buf, len, *pos);
	if (p.pos + 3 <= len && memcmp(buf + p.pos, "\xef\xbb\xbf", 3) == 0)
		return (fail_at(&p, p.pos, "unexpected byte-order mark: "
		    "JSON text must not start with one"));
	{
		json_value *v = parse_value(&p);

		if (v != NULL)
			*pos = p.pos;
		return (v);
	}
}

json_value *
json_parse_value(json_arena *arena, const char *buf, size_t len, size_t *pos,
    json_error *err)
{
	return (parse_top(arena, buf, len, pos, err, 0));
}

json_value *
json_parse_document(json_arena *arena, const char *buf, size_t len,
    json_error *err)
{
	size_t pos = 0;
	json_value *v = parse_top(arena, buf, len, &pos, err, 1);

	if (v == NULL)
		return (NULL);
	pos = json_skip_space(buf, len, pos);
	if (pos < len) {
		char msg[64];
		parser p = { arena, buf, len, pos, err, 0, 1 };

		describe(msg, sizeof (msg), &p, pos);
		err->offset = pos;
		err->incomplete = 0;
		snprintf(err->message, sizeof (err->message),
		    "unexpected %s after the JSON value", msg);
		return (NULL);
	}
	return (v);
}

/* ---- accessors ---- */

json_value *
json_object_get(const json_value *object, const char *key)
{
	size_t n = strlen(key);
	json_value *m;

	if (object == NULL || object->type != JSON_OBJECT)
		return (NULL);
	for (m = object->child; m != NULL; m = m->next) {
		if (m->key_len == n && memcmp(m->key, key, n) == 0)
			return (m);
	}
	return (NULL);
}

int
json_number_u64(const json_value *v, uint64_t *out)
{
	uint64_t n = 0;
	size_t i;

	if (v == NULL || v->type != JSON_NUMBER || v->len == 0)
		return (0);
	for (i = 0; i < v->len; i++) {
		unsigned d = (unsigned char)v->str[i] - '0';

		if (d > 9 || n > (UINT64_MAX - d) / 10)
			return (0);
		n = n * 10 + d;
	}
	*out = n;
	return (1);
}

int
json_number_i64(const json_value *v, int64_t *out)
{
	uint64_t n = 0, limit;
	size_t i;
	int neg, over = 0;

	if (v == NULL || v->type != JSON_NUMBER || v->len == 0)
		return (0);
	neg = v->str[0] == '-';
	/* The magnitude's limit: 2^63 for a negative, 2^63 - 1 else. */
	limit = neg ? (uint64_t)1 << 63 : ((uint64_t)1 << 63) - 1;
	for (i = (size_t)neg; i < v->len; i++) {
		unsigned d = (unsigned char)v->str[i] - '0';

		if (d > 9)
			return (0);
		if (n > (limit - d) / 10)
			over = 1;
		else
			n = n * 10 + d;
	}
	if (over)
		return (-1);
	*out = neg ? (int64_t)(0 - n) : (int64_t)n;
	return (1);
}

double
json_number_double(const json_value *v)
{
	char small[64], *text = small;
	double d;

	if (v == NULL || v->type != JSON_NUMBER)
		return (0);
	if (v->len >= sizeof (small))
		text = xmalloc(v->len + 1);
	memcpy(text, v->str, v->len);
	text[v->len] = '\0';
	d = strtod(text, NULL);
	if (text != small)
		free(text);
	return (d);
}

void
json_line_column(const char *buf, size_t offset, uint64_t *line,
    uint64_t *column)
{
	const char *p = buf, *end = buf + offset, *nl;
	uint64_t l = 1, c = 1;

	while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		l++;
		p = nl + 1;
	}
	*line = l;
	*column = c + utf8_count(p, (size_t)(end - p), SIZE_MAX);
}

/* ---- writing ---- */

void
json_write_string(FILE *out, const char *s, size_t len)
{
	const unsigned char *b = (const unsigned char *)s;
	size_t i = 0, run = 0;

	fputc('"', out);
	while (i < len) {
		unsigned char c = b[i];
		int n;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
		    c != '<' && c != '>' && c != '&' && c != '\'') {
			i++;
			continue;
		}
		if (c >= 0x80) {
			n = utf8_char(b + i, len - i);
			/* U+2028 and U+2029 end lines in JavaScript. */
			if (n == 3 && c == 0xe2 && b[i + 1] == 0x80 &&
			    (b[i + 2] == 0xa8 || b[i + 2] == 0xa9)) {
				fwrite(s + run, 1, i - run, out);
				fprintf(out, "\\u%04x", 0x2000 | (b[i + 2] ==
				    0xa8 ? 0x28 : 0x29));
				i += 3;
				run = i;
				continue;
			}
			if (n > 0) {
				i += (size_t)n;
				continue;
			}
			fwrite(s + run, 1, i - run, out);
			fputs("\\ufffd", out);
			i++;
			run = i;
			continue;
		}
		fwrite(s + run, 1, i - run, out);
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		default: fprintf(out, "\\u%04x", c); break;
		}
		i++;
		run = i;
	}
	fwrite(s + run, 1, i - run, out);
	fputc('"', out);
}
