/*
 * json.h: an RFC 8259 JSON parser and string writer.
 *
 * The parser reads one value from a byte buffer into a tree of json_value
 * nodes allocated from a json_arena.  Resetting the arena between records
 * makes parsing a stream of small objects allocation-free once the arena
 * has grown to fit the largest record.
 *
 * Strings (values and keys) are always valid UTF-8: the parser rejects
 * invalid UTF-8, unescaped control characters and lone surrogates
 * (\uD800 without its pair).  A string without escapes points into the
 * input buffer; one with escapes is decoded into the arena.  Strings carry
 * a length, are not NUL-terminated and may contain NUL (from \u0000).
 * Numbers are checked against the RFC grammar and kept as their text.
 *
 * Nesting deeper than JSON_MAX_DEPTH is an error, so hostile input cannot
 * exhaust the stack.  A leading byte-order mark is an error.
 *
 * Ownership: the tree and decoded strings belong to the arena and live
 * until its next reset or free; undecoded strings borrow the input buffer.
 */
#ifndef SM_JSON_H
#define SM_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	1000

typedef enum json_type {
	JSON_NULL,
	JSON_FALSE,
	JSON_TRUE,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT
} json_type;

typedef struct json_value json_value;
struct json_value {
	json_type type;
	const char *str;	/* STRING: decoded bytes; NUMBER: its text */
	size_t len;		/* bytes in str; ARRAY/OBJECT: member count */
	const char *key;	/* object members: decoded key, else NULL */
	size_t key_len;
	size_t offset;		/* input offset of the value's first byte */
	size_t key_offset;	/* input offset of the key's opening quote */
	json_value *child;	/* ARRAY/OBJECT: first member, in order */
	json_value *next;	/* next member of the enclosing container */
};

typedef struct json_arena json_arena;

json_arena *json_arena_new(void);
void json_arena_reset(json_arena *arena);
void json_arena_free(json_arena *arena);

typedef struct json_error {
	size_t offset;		/* input offset where the problem was seen */
	int incomplete;		/* 1 if the input ended inside the value */
	char message[256];	/* e.g. "expected ',' or '}' but found 'x'" */
} json_error;

/*
 * Skips whitespace (space, tab, newline, carriage return) from pos and
 * returns the offset of the next other byte, or len.  Inline: the
 * parsing threads call it between every two records.
 */
static inline size_t
json_skip_space(const char *buf, size_t len, size_t pos)
{
	while (pos < len && (buf[pos] == ' ' || buf[pos] == '\n' ||
	    buf[pos] == '\r' || buf[pos] == '\t'))
		pos++;
	return (pos);
}

/*
 * Parses one value that starts at buf[*pos] (leading whitespace allowed).
 * On success returns the root and sets *pos just past the value (trailing
 * whitespace is not consumed).  On failure returns NULL and fills err; if
 * the buffer ended before the value did, err->incomplete is set, so a
 * streaming reader can read more input and try again.  Calling it at the
 * end of the input (only whitespace left) is an incomplete error.
 */
json_value *json_parse_value(json_arena *arena, const char *buf, size_t len,
    size_t *pos, json_error *err);

/*
 * Parses a whole document: exactly one value, optionally surrounded by
 * whitespace, and nothing else.
 */
json_value *json_parse_document(json_arena *arena, const char *buf,
    size_t len, json_error *err);

/* The member of an object with the given NUL-terminated key, or NULL. */
json_value *json_object_get(const json_value *object, const char *key);

/*
 * If v is a NUMBER that is a non-negative integer (no fraction, no
 * exponent, no minus sign) that fits in 64 bits, stores it and returns 1;
 * otherwise returns 0.
 */
int json_number_u64(const json_value *v, uint64_t *out);

/*
 * Whether a NUMBER is written as an integer (no fraction, no exponent):
 * 0 if not; else 1 with the integer in *out, or -1 if it is beyond 64
 * bits (outside -2^63 to 2^63 - 1).
 */
int json_number_i64(const json_value *v, int64_t *out);

/* The value of a NUMBER as a double (strtod semantics; may be inf). */
double json_number_double(const json_value *v);

/*
 * Converts an input offset to a 1-based line and column (the column counts
 * UTF-8 characters, not bytes) by scanning buf from its start.
 */
void json_line_column(const char *buf, size_t offset, uint64_t *line,
    uint64_t *column);

/*
 * Writes s (len bytes of UTF-8) as a quoted JSON string.  Besides the
 * escapes JSON requires, it escapes '<', '>', '&', '\'' and U+2028/U+2029
 * as \uXXXX, so the result is also safe inside HTML, an XML CDATA section
 * and a JavaScript string literal.  Bytes that are not valid UTF-8 are
 * written as U+FFFD.
 */
void json_write_string(FILE *out, const char *s, size_t len);

/* The value of a hexadecimal digit (either case), or -1. */
int json_hex_digit(int c);

#endif
