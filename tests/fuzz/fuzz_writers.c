/*
 * libFuzzer harness for what the writers write: any bytes as a trace,
 * read through the coalescer as the classic command reads a file, then
 * written as -T json and as SVG, and the output checked:
 *
 *   - the -T json document parses (src/base/json.h) and no object in it holds
 *     a key twice;
 *   - the SVG is well-formed XML (outcheck.c, a checker of our own);
 *   - its data block (the JSON in the CDATA section the viewer reads)
 *     parses, holds no key twice, and is the -T json document, string
 *     for string once decoded (the block writes U+FFFE and U+FFFF as
 *     escapes, which XML needs and JSON does not).
 *
 * A problem is printed with the output around it, and aborts.
 *
 * An input may begin with a line of options: '#' and up to 9 bytes, each
 * chosen by its value (see read_options); the trace is what follows the
 * line.  Without one (as with the seeds of fuzz_ingest), the options are
 * the defaults of the command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "coalesce/coalesce.h"
#include "ingest/ingest.h"
#include "output/jsonout.h"
#include "output/smap_json.h"
#include "outcheck.h"
#include "coalesce/smap.h"
#include "output/svg.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

typedef struct options {
	svg_options svg;
	uint64_t budget;	/* -c */
	int ignore_tags;	/* -i */
	int sort;		/* -s: 0 none, 1 entity, 2 a state */
	uint32_t sort_state;	/* its value, modulo the number of states */
	int stack_sort;		/* -S by that state */
	int stacked;		/* a second statemap of the same trace */
	int64_t begin, end;	/* the first one's bounds (-b, -e) */
	int64_t begin2, end2;	/* the second's, as if its start differed */
} options;

/*
 * The option line: byte i (after '#') sets
 *   0 the strip height (1 to 32), 1 the label mode, 2 the rectangle
 *   budget, 3 ignore tags, 4 the sort (and 5 its state), 6 stacking and
 *   stack sort, 7 and 8 the bounds.
 * Returns where the trace starts.
 */
static size_t
read_options(const unsigned char *data, size_t size, options *o)
{
	static const uint64_t budgets[] = { 25000, 4, 1, 2, 30, 500 };
	unsigned char b[9];
	size_t n = 0, start = 0;

	memset(o, 0, sizeof (*o));
	svg_defaults(&o->svg);
	o->budget = 25000;
	if (size == 0 || data[0] != '#')
		return (0);
	memset(b, 0, sizeof (b));
	for (start = 1; start < size && data[start] != '\n'; start++) {
		if (n < sizeof (b))
			b[n++] = data[start];
	}
	if (start < size)
		start++;		/* the newline */
	if (n > 0)
		o->svg.strip_height = b[0] % 32 + 1;
	o->svg.labels = (label_mode)(b[1] % 3);
	o->budget = budgets[b[2] % (sizeof (budgets) / sizeof (budgets[0]))];
	o->ignore_tags = b[3] & 1;
	o->sort = b[4] % 3;
	o->sort_state = b[5];
	o->stacked = b[6] & 1;
	o->stack_sort = (b[6] >> 1) & 1;
	/* Bounds in steps of 100 ns: data in seeds use small times. */
	o->begin = (int64_t)(b[7] & 0x0f) * 100;
	o->end = (b[7] >> 4) == 0 ? 0 : o->begin + (int64_t)(b[7] >> 4) * 100;
	o->begin2 = (int64_t)(signed char)b[8] * 100;
	o->end2 = o->begin2 + (int64_t)(b[8] % 16 + 1) * 300;
	if (o->end2 == 0)
		o->end2 = 1;	/* 0 would mean no end at all */
	return (start);
}

/* ---- reading, as classic.c does (without its threads) ---- */

typedef struct reader {
	smap *map;
	uint64_t budget;
	int64_t begin, end;
} reader;

static void
on_datum(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag_name)
{
	reader *r = ctx;

	if (r->map->co == NULL)
		r->map->co = coalesce_new(cat->nstates, r->budget, r->begin,
		    r->end);
	/* Data past the end number no tags, as in classic.c. */
	if (!coalesce_in_bounds(r->map->co, time))
		return;
	coalesce_datum(r->map->co, entity, time, state,
	    tag_name == CATALOG_NO_TAG ? COALESCE_NO_TAG :
	    catalog_tag_id_named(cat, state, tag_name));
}

static int
read_map(smap *m, const char *buf, size_t len, const options *o,
    int64_t begin, int64_t end)
{
	ingest_options io = { .ignore_tags = o->ignore_tags };
	reader r = { m, o->budget, begin, end };
	sm_error err;

	m->cat = catalog_new("fuzz.out");
	if (ingest_buffer("fuzz.out", buf, len, m->cat, &io, on_datum, &r,
	    &err) != 0)
		return (-1);
	if (m->co == NULL)
		m->co = coalesce_new(m->cat->nstates, o->budget, begin, end);
	coalesce_finish(m->co, m->cat->last_time);
	m->begin = begin;
	m->end = coalesce_end(m->co);
	m->end_bound = end;
	m->nentities = catalog_nentities(m->cat);
	return (0);
}

/* ---- checks ---- */

/* Prints the problem and the output about where it is, and aborts. */
static void
report(const char *what, const char *why, const char *doc, size_t len,
    size_t where)
{
	size_t from = where > 200 ? where - 200 : 0;
	size_t to = len - where > 200 ? where + 200 : len;

	fprintf(stderr, "\nfuzz_writers: %s: %s at byte %zu of %zu; around "
	    "it (marked >>><<<):\n", what, why, where, len);
	fwrite(doc + from, 1, where - from, stderr);
	fputs(">>><<<", stderr);
	fwrite(doc + where, 1, to - where, stderr);
	fputs("\n", stderr);
	abort();
}

/*
 * The JSON at doc (len bytes, a part of out) must parse and hold no key
 * twice.  Returns its tree (in arena), or NULL if it nests deeper than
 * the parser goes (see below).
 */
static const json_value *
check_json(json_arena *arena, const char *what, const char *out,
    size_t outlen, const char *doc, size_t len)
{
	json_error err;
	json_value *v = json_parse_document(arena, doc, len, &err);
	json_dup dup;

	if (v == NULL) {
		/*
		 * A tag definition's member may nest as deep as a record
		 * may (JSON_MAX_DEPTH), and lands three levels deeper in
		 * the output: valid JSON, but more than our parser takes.
		 * Not a writer's mistake; nothing more can be checked.
		 */
		if (strncmp(err.message, "nesting too deep", 16) == 0)
			return (NULL);
		report(what, err.message, out, outlen,
		    (size_t)(doc - out) + err.offset);
	}
	if (json_find_duplicate(v, NULL, &dup))
		report(what, "an object holds a key twice", out, outlen,
		    (size_t)(doc - out) + dup.member->key_offset);
	return (v);
}

static void
check_output(const smap *maps, size_t n, const size_t *order,
    const svg_options *so)
{
	static const char mark[] = "<script type=\"application/json\" "
	    "id=\"statemap-data\"><![CDATA[";
	char *json = NULL, *svg = NULL;
	size_t jlen = 0, slen = 0, where;
	const char *why, *data, *end;
	const json_value *a, *b;
	json_arena *ja = json_arena_new(), *sa = json_arena_new();
	FILE *f;

	if ((f = open_memstream(&json, &jlen)) == NULL)
		abort();
	smap_json_write(f, maps, n, order);
	fclose(f);
	a = check_json(ja, "-T json", json, jlen, json, jlen);

	if ((f = open_memstream(&svg, &slen)) == NULL)
		abort();
	svg_write(f, maps, n, order, so);
	fclose(f);
	if ((why = xml_check(svg, slen, &where)) != NULL)
		report("SVG", why, svg, slen, where);
	/* Well-formed, so the first "]]>" after the mark ends the block. */
	if ((data = memmem(svg, slen, mark, sizeof (mark) - 1)) == NULL)
		report("SVG", "no data block", svg, slen, 0);
	data += sizeof (mark) - 1;
	end = memmem(data, slen - (size_t)(data - svg), "]]>", 3);
	b = check_json(sa, "SVG data block", svg, slen, data,
	    (size_t)(end - data));
	if (a != NULL && b != NULL && !json_same(a, b))
		report("SVG data block", "differs from the -T json document",
		    svg, slen, (size_t)(data - svg));
	json_arena_free(ja);
	json_arena_free(sa);
	free(json);
	free(svg);
}

static const char *
state_name(const smap *m, uint32_t pick)
{
	if (m->cat->nstates == 0)
		return (NULL);
	return (m->cat->states[pick % m->cat->nstates].name);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	options o;
	size_t start = read_options(data, size, &o), order[2] = { 0, 1 };
	const char *trace = (const char *)data + start;
	size_t len = size - start, n = 1, i;
	smap maps[2];
	sm_error err;

	memset(maps, 0, sizeof (maps));
	if (read_map(&maps[0], trace, len, &o, o.begin, o.end) != 0)
		goto out;
	if (o.stacked) {
		if (read_map(&maps[1], trace, len, &o, o.begin2, o.end2) != 0)
			goto out;
		n = 2;
	}
	for (i = 0; i < n; i++) {
		const char *by = o.sort == 0 ? NULL : o.sort == 1 ? "entity" :
		    state_name(&maps[i], o.sort_state);

		/* No such state (a name with a NUL): then by name. */
		if (smap_sort(&maps[i], by, &err) != 0 &&
		    smap_sort(&maps[i], NULL, &err) != 0)
			abort();
	}
	if (!o.stack_sort || smap_stack_sort(maps, n,
	    state_name(&maps[0], o.sort_state), order, &err) != 0) {
		order[0] = 0;
		order[1] = 1;
	}
	check_output(maps, n, order, &o.svg);
out:
	smap_free(&maps[0]);
	smap_free(&maps[1]);
	return (0);
}
