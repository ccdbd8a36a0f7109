/*
 * shapes.c: see shapes.h.
 *
 * An input that is a shape reads:
 *
 *   SHAPE_MARK, kind, n (two bytes, big-endian), variant, tail...
 *
 * kind 0  a stack n deep (up to 20,000), pushed one frame a nanosecond,
 *         popped back some way and pushed again as variant's bits say,
 *         then replaced by a plain datum; a second, plain entity
 * kind 1  many states times many entities: about sqrt(n) * 4 of each (up
 *         to 4096 and 4096), each entity entering a few states
 * kind 2  long path names: entities named by n components (up to 400),
 *         a few of them, differing near the end
 * kind 3  many entities (up to 8,000), one or two data each
 *
 * The text is written with the digits the format asks for, so every shape
 * is a good trace; the fuzzer's mutations of the marker's bytes change
 * the shape, and of the tail what the fuzzer does with it.
 */
#include "shapes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text {
	char *buf;
	size_t len, cap;
} text;

static void
put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
put(text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap * 2 + (size_t)n + 64;
		if ((t->buf = realloc(t->buf, t->cap)) == NULL)
			abort();
	}
	t->len += (size_t)n;
}

static void
metadata(text *t, unsigned nstates)
{
	unsigned s;

	put(t, "{\"start\": [0, 0], \"states\": {");
	for (s = 0; s < nstates; s++)
		put(t, "%s\"s%u\": {\"value\": %u}", s > 0 ? ", " : "", s, s);
	put(t, "}}\n");
}

static void
datum(text *t, uint64_t time, const char *entity, const char *what,
    unsigned state)
{
	put(t, "{\"time\": \"%llu\", \"entity\": \"%s\", \"%s\": %u}\n",
	    (unsigned long long)time, entity, what, state);
}

static void
deep_stack(text *t, unsigned n, unsigned variant)
{
	unsigned depth = 1 + n % 20000, d, i;
	uint64_t time = 0;

	metadata(t, 4);
	datum(t, time++, "deep", "state", 0);
	for (d = 1; d < depth; d++)
		datum(t, time++, "deep", "push", d % 3 + 1);
	/* Back down some way and up again, as the variant's bits say. */
	for (i = 0; i < 4 && (variant >> i) & 1; i++) {
		unsigned back = (depth - 1) >> (i + 1);

		for (d = 0; d < back; d++)
			datum(t, time++, "deep", "pop",
			    (depth - 1 - d) % 3 + 1);
		for (d = 0; d < back; d++)
			datum(t, time++, "deep", "push", (depth - back + d) %
			    3 + 1);
	}
	datum(t, time++, "deep", "state", 1);
	datum(t, time, "plain", "state", 2);
}

static void
many_states(text *t, unsigned n, unsigned variant)
{
	unsigned side = 4, e, k;
	char name[32];
	uint64_t time = 0;

	while (side * side < (unsigned)n * 256 && side < 4096)
		side *= 2;
	metadata(t, side);
	for (e = 0; e < side; e++) {
		snprintf(name, sizeof (name), "e%u", e);
		for (k = 0; k < 1 + variant % 3; k++)
			datum(t, time++, name, "state",
			    (e * 7 + k * 131) % side);
	}
	datum(t, time, "e0", "state", side - 1);
}

static void
long_paths(text *t, unsigned n, unsigned variant)
{
	unsigned parts = 1 + n % 400, e, c;
	uint64_t time = 0;

	metadata(t, 2);
	for (e = 0; e < 1 + variant % 8; e++) {
		put(t, "{\"time\": \"%llu\", \"entity\": \"",
		    (unsigned long long)time++);
		for (c = 0; c < parts; c++)
			put(t, "%sp%u", c > 0 ? "/" : "", c + 1 == parts ?
			    e : c % 5);
		put(t, "\", \"state\": %u}\n", e % 2);
	}
}

static void
many_entities(text *t, unsigned n, unsigned variant)
{
	unsigned count = 1 + n % 8000, e;
	char name[32];

	metadata(t, 3);
	for (e = 0; e < count; e++) {
		snprintf(name, sizeof (name), "%s%u", variant & 1 ? "cpu/" :
		    "t", e);
		datum(t, e, name, "state", e % 3);
		if ((variant >> 1) & 1)
			datum(t, e + count, name, "state", (e + 1) % 3);
	}
}

char *
shape_make(const unsigned char *data, size_t size, size_t *len,
    const unsigned char **tail, size_t *tail_len)
{
	text t = { NULL, 0, 4096 };
	unsigned kind, n, variant;

	if (size < 5 || data[0] != SHAPE_MARK)
		return (NULL);
	if ((t.buf = malloc(t.cap)) == NULL)
		abort();
	kind = data[1] % 4;
	n = (unsigned)data[2] << 8 | data[3];
	variant = data[4];
	switch (kind) {
	case 0: deep_stack(&t, n, variant); break;
	case 1: many_states(&t, n, variant); break;
	case 2: long_paths(&t, n, variant); break;
	default: many_entities(&t, n, variant); break;
	}
	*len = t.len;
	*tail = data + 5;
	*tail_len = size - 5;
	return (t.buf);
}

/*
 * The budgets.  A step is one turn of a counted loop, and a trace of L
 * bytes holds at most L / 30 or so data: 16 steps a byte leaves room for
 * hundreds a datum, while a walk of the whole stack at every transition
 * of a 20,000-deep one (under 1 MB) takes 200 million.  Bytes: 64 handed
 * out for every byte read (the store takes about 16), over fixed costs
 * that do not grow with the input: a page of output and the coalescer's
 * dense arrays, a word per state for every entity and every rectangle
 * while they stay under DENSE_WORDS (coalesce_state.h: 64 MB each, and
 * counted again as they double on the way, so 256 MB), then the logs
 * that grow with the data.
 */
uint64_t
shape_step_budget(size_t len)
{
	return (100000 + 16 * (uint64_t)len);
}

uint64_t
shape_byte_budget(size_t len)
{
	return ((320ull << 20) + 64 * (uint64_t)len);
}

void
shape_over_budget(const char *what, uint64_t limit)
{
	fprintf(stderr, "fuzz: over budget: more than %llu %s for this input "
	    "(work out of proportion to its size)\n",
	    (unsigned long long)limit, what);
	abort();
}
