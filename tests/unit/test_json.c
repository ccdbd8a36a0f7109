/*
 * Tests for src/base/json.c: the RFC 8259 parser (values, escapes, UTF-8,
 * errors with offsets, incomplete input, depth) and the safe string
 * writer, plus the JSONTestSuite conformance files: every y_ accepted,
 * every n_ rejected, every i_ survived.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "unit.h"

static json_arena *arena;

static json_value *
parse(const char *text, json_error *err)
{
	json_arena_reset(arena);
	return (json_parse_document(arena, text, strlen(text), err));
}

static void
test_values(void)
{
	json_error err;
	json_value *v, *m;
	uint64_t u;

	v = parse(" {\"a\": [1, -2.5e3, true, false, null], \"b\": \"x\"} ",
	    &err);
	CHECK("json object with every kind of value", v != NULL &&
	    v->type == JSON_OBJECT && v->len == 2);
	m = json_object_get(v, "a");
	CHECK("json_object_get and array members", m != NULL &&
	    m->type == JSON_ARRAY && m->len == 5 &&
	    m->child->type == JSON_NUMBER && m->child->next->len == 6 &&
	    memcmp(m->child->next->str, "-2.5e3", 6) == 0 &&
	    m->child->next->next->type == JSON_TRUE &&
	    m->child->next->next->next->next->type == JSON_NULL);
	CHECK("json key offsets", json_object_get(v, "b") != NULL &&
	    json_object_get(v, "b")->key_offset == 39);
	CHECK("json number as double", m != NULL &&
	    json_number_double(m->child->next) == -2500.0);

	v = parse("\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud834\\udd1e\"", &err);
	CHECK("json every escape, surrogate pair to UTF-8", v != NULL &&
	    v->len == 15 && memcmp(v->str,
	    "a\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9d\x84\x9e", 15) == 0);
	v = parse("\"nul\\u0000inside\"", &err);
	CHECK("json \\u0000 keeps its length", v != NULL && v->len == 10);
	{
		const char *text = "\"plain\"";

		json_arena_reset(arena);
		v = json_parse_document(arena, text, strlen(text), &err);
		CHECK("json strings without escapes point into the input",
		    v != NULL && v->str == text + 1);
	}

	v = parse("18446744073709551615", &err);
	CHECK("json_number_u64 max", v != NULL && json_number_u64(v, &u) &&
	    u == UINT64_MAX);
	v = parse("18446744073709551616", &err);
	CHECK("json_number_u64 overflow", v != NULL && !json_number_u64(v, &u));
	v = parse("-1", &err);
	CHECK("json_number_u64 negative", v != NULL && !json_number_u64(v, &u));
	v = parse("1.0", &err);
	CHECK("json_number_u64 fraction", v != NULL && !json_number_u64(v, &u));
	v = parse("1e3", &err);
	CHECK("json_number_u64 exponent", v != NULL && !json_number_u64(v, &u));
}

typedef struct bad {
	const char *text;
	size_t offset;
	int incomplete;
	const char *message;
} bad;

static void
test_errors(void)
{
	static const bad cases[] = {
		{ "{\"a\" 1}", 5, 0, "expected ':' after the member name but "
		    "found '1'" },
		{ "[1, 2", 5, 1, "unexpected end of input inside an array" },
		{ "{\"a\": \"xy", 9, 1, "unexpected end of input inside a "
		    "string" },
		{ "[01]", 2, 0, "expected ',' or ']'" },
		{ "[1.]", 3, 0, "a digit after the decimal point" },
		{ "[.5]", 1, 0, "expected a JSON value" },
		{ "[+1]", 1, 0, "expected a JSON value" },
		{ "\"\\x\"", 2, 0, "expected an escape" },
		{ "\"\\u12G4\"", 5, 0, "a hex digit" },
		{ "\"a\tb\"", 2, 0, "control characters must be escaped" },
		{ "\"\xc3\x28\"", 1, 0, "invalid UTF-8" },
		{ "\"\xed\xa0\x80\"", 1, 0, "invalid UTF-8" },
		{ "\"\\ud800\"", 1, 0, "high surrogate" },
		{ "\"\\udc00\"", 1, 0, "low surrogate" },
		{ "[1] x", 4, 0, "unexpected 'x' after the JSON value" },
		{ "\xef\xbb\xbf{}", 0, 0, "byte-order mark" },
		{ "tru", 3, 1, "inside a literal" },
		{ "nul!", 3, 0, "expected null" },
		{ "", 0, 1, "where a value was expected" },
		{ "{\"a\": 1,}", 8, 0, "member name" },
	};
	size_t i;

	for (i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
		json_error err;
		char name[96];
		json_value *v = parse(cases[i].text, &err);

		snprintf(name, sizeof (name), "json error #%zu: %s", i,
		    cases[i].message);
		UNIT_REPORT(v == NULL && err.offset == cases[i].offset &&
		    err.incomplete == cases[i].incomplete &&
		    strstr(err.message, cases[i].message) != NULL, name,
		    "got %s at %zu (incomplete %d) \"%s\"", v ? "a value" :
		    "an error", err.offset, err.incomplete, err.message);
	}
}

static void
test_stream(void)
{
	const char *text = "{\"a\":1} {\"b\":2}\n[3]{\"c\":";
	size_t len = strlen(text), pos = 0;
	json_error err;
	json_value *v;
	int n = 0;

	for (;;) {
		json_arena_reset(arena);
		pos = json_skip_space(text, len, pos);
		if ((v = json_parse_value(arena, text, len, &pos, &err)) == NULL)
			break;
		n++;
	}
	CHECK("json stream of concatenated values", n == 3);
	CHECK("json stream: a cut-off value is incomplete", err.incomplete &&
	    err.offset == len);

	/* A number at the end of a stream buffer may continue. */
	pos = 0;
	json_arena_reset(arena);
	CHECK("json value: number at end of buffer is incomplete",
	    json_parse_value(arena, "12", 2, &pos, &err) == NULL &&
	    err.incomplete);
	CHECK("json document: number at end is complete",
	    parse("12", &err) != NULL);
}

static void
test_depth(void)
{
	size_t n = 100000, i;
	char *deep = malloc(2 * n + 1);
	json_error err;

	for (i = 0; i < n; i++) {
		deep[i] = '[';
		deep[n + i] = ']';
	}
	deep[2 * n] = '\0';
	CHECK("json 100000-deep nesting is an error, not a crash",
	    parse(deep, &err) == NULL &&
	    strstr(err.message, "nesting too deep") != NULL);
	deep[JSON_MAX_DEPTH] = '\0';
	memset(deep + JSON_MAX_DEPTH / 2, ']', JSON_MAX_DEPTH / 2);
	CHECK("json nesting at the limit is fine", parse(deep, &err) != NULL);
	free(deep);
}

static void
test_line_column(void)
{
	const char *text = "ab\n\xc3\xa9x\ny";
	uint64_t line, col;

	json_line_column(text, 6, &line, &col);
	CHECK("json_line_column counts characters", line == 2 && col == 3);
	json_line_column(text, 0, &line, &col);
	CHECK("json_line_column start", line == 1 && col == 1);
	json_line_column(text, 7, &line, &col);
	CHECK("json_line_column after a newline", line == 3 && col == 1);
}

static void
test_write(void)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "</script>", 9, "\"\\u003c/script\\u003e\"" },
		{ "]]>", 3, "\"]]\\u003e\"" },
		{ "a\"b\\c'd&e", 9, "\"a\\\"b\\\\c\\u0027d\\u0026e\"" },
		{ "\n\t\x01\x7f", 4, "\"\\n\\t\\u0001\\u007f\"" },
		{ "x\xe2\x80\xa8y", 5, "\"x\\u2028y\"" },
		{ "\xc3\xa9", 2, "\"\xc3\xa9\"" },
		{ "bad\xff", 4, "\"bad\\ufffd\"" },
		{ "a\0b", 3, "\"a\\u0000b\"" },
	};
	size_t i;

	for (i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
		char *buf = NULL, name[64];
		size_t size = 0;
		FILE *out = open_memstream(&buf, &size);

		json_write_string(out, cases[i].in, cases[i].len);
		fclose(out);
		snprintf(name, sizeof (name), "json_write_string #%zu", i);
		CHECK_STR(name, buf, cases[i].out);
		free(buf);
	}
}

static char *
read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL)
		return (NULL);
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return (buf);
}

static void
test_conformance(void)
{
	const char *dir = getenv("SM_CONFORMANCE");
	struct dirent *e;
	DIR *d;
	int files = 0;

	if (dir == NULL)
		dir = "../shared/conformance/json";
	if ((d = opendir(dir)) == NULL) {
		/* The corpus lies outside the repository: a plain clone has
		 * none, and CI (REQUIRE_CONFORMANCE=1) must. */
		if (getenv("REQUIRE_CONFORMANCE") != NULL &&
		    strcmp(getenv("REQUIRE_CONFORMANCE"), "") != 0)
			UNIT_REPORT(0, "json conformance", "cannot open %s "
			    "(REQUIRE_CONFORMANCE is set)", dir);
		else
			SKIP("json conformance", "no JSONTestSuite files in "
			    "%s (set SM_CONFORMANCE)", dir);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char path[1024], name[300];
		size_t len, n = strlen(e->d_name);
		json_error err;
		json_value *v;
		char *buf;
		char kind = e->d_name[0];

		if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0 ||
		    e->d_name[1] != '_')
			continue;
		snprintf(path, sizeof (path), "%s/%s", dir, e->d_name);
		snprintf(name, sizeof (name), "json conformance %s",
		    e->d_name);
		if ((buf = read_all(path, &len)) == NULL) {
			UNIT_REPORT(0, name, "cannot read %s", path);
			continue;
		}
		json_arena_reset(arena);
		v = json_parse_document(arena, buf, len, &err);
		if (kind == 'y')
			UNIT_REPORT(v != NULL, name, "rejected: %s at %zu",
			    err.message, err.offset);
		else if (kind == 'n')
			UNIT_REPORT(v == NULL, name, "accepted");
		else
			UNIT_REPORT(1, name, "survived");
		files++;
		free(buf);
	}
	closedir(d);
	UNIT_REPORT(files > 300, "json conformance corpus is all there",
	    "only %d files in %s", files, dir);
}

int
main(void)
{
	arena = json_arena_new();
	test_values();
	test_errors();
	test_stream();
	test_depth();
	test_line_column();
	test_write();
	test_conformance();
	json_arena_free(arena);
	return (unit_exit());
}
