/*
 * libFuzzer harness for src/base/json.c: any bytes as a document and as a
 * stream of values; and every string the parser accepts, written back
 * with json_write_string, must parse to the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

static json_arena *arena;

static void
round_trip(const json_value *v)
{
	const json_value *m;
	char *buf = NULL;
	size_t size = 0;
	FILE *out;
	json_value *back;
	json_error err;

	if (v->type == JSON_ARRAY || v->type == JSON_OBJECT) {
		for (m = v->child; m != NULL; m = m->next)
			round_trip(m);
		return;
	}
	if (v->type != JSON_STRING)
		return;
	out = open_memstream(&buf, &size);
	json_write_string(out, v->str, v->len);
	fclose(out);
	{
		json_arena *a = json_arena_new();

		back = json_parse_document(a, buf, size, &err);
		if (back == NULL || back->type != JSON_STRING ||
		    back->len != v->len || memcmp(back->str, v->str, v->len))
			abort();
		json_arena_free(a);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *buf = (const char *)data;
	json_error err;
	json_value *v;
	size_t pos = 0;

	if (arena == NULL)
		arena = json_arena_new();
	json_arena_reset(arena);
	if ((v = json_parse_document(arena, buf, size, &err)) != NULL)
		round_trip(v);
	else if (err.offset > size)
		abort();
	for (;;) {
		json_arena_reset(arena);
		pos = json_skip_space(buf, size, pos);
		if (pos >= size ||
		    json_parse_value(arena, buf, size, &pos, &err) == NULL)
			break;
	}
	return (0);
}
