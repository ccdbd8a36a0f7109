#include "output/jsonout.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"
#include "trace/flows.h"

static void
write_cstring(FILE *out, const char *s)
{
	if (s == NULL)
		fputs("null", out);
	else
		json_write_string(out, s, strlen(s));
}

static void
write_states(FILE *out, const catalog *cat)
{
	uint32_t i;

	fputs("  \"states\": [", out);
	for (i = 0; i < cat->nstates; i++) {
		const catalog_state *st = &cat->states[i];
		char hex[8];

		color_format(st->color, hex);
		fprintf(out, "%s\n   {\"name\": ", i > 0 ? "," : "");
		json_write_string(out, st->name, st->name_len);
		fprintf(out, ", \"value\": %u, \"color\": ", i);
		if (st->color_text != NULL)
			json_write_string(out, st->color_text,
			    strlen(st->color_text));
		else
			fprintf(out, "\"%s\"", hex);
		fputc('}', out);
	}
	fputs("],\n", out);
}

static void
write_tags(FILE *out, const catalog *cat)
{
	uint32_t i, n = catalog_ntags(cat);

	fputs("  \"tags\": [", out);
	for (i = 0; i < n; i++) {
		const catalog_tag *tag = &cat->tags[i];
		size_t len;
		const char *name = intern_name(cat->tag_names, tag->name, &len);

		fprintf(out, "%s\n   {\"id\": %u, \"state\": %u, \"tag\": ",
		    i > 0 ? "," : "", i, tag->state);
		json_write_string(out, name, len);
		/* The definition's own members apart, so that one named like
		 * ours ("id") can never make a key appear twice. */
		fprintf(out, ", \"members\": {%s}}", tag->members != NULL ?
		    tag->members : "");
	}
	fputs("],\n", out);
}

/*
 * A tag's key in a rectangle's "tags", with the separator before it
 * (`, "17": `), in a slot of its own, written whole: a tagged trace's
 * rectangles list hundreds of tags each, and a key copied is a number
 * less to format.  Keys of ids up to 9 digits fit a slot (6 bytes
 * besides the digits, and snprintf's NUL); longer ones, made of an id
 * no catalog reaches, are formatted.
 */
#define TAG_KEY_BYTES	16
#define TAG_KEY_IDS	1000000000u
/* How many of a rectangle's tags ahead their keys are asked for. */
#define TAG_KEYS_AHEAD	8

struct jsonout_names {
	char **text;		/* "\"name\": " for each state */
	size_t *len;
	uint32_t n;
	char *tag_keys;		/* TAG_KEY_BYTES for each tag id known */
	uint8_t *tag_key_len;
	uint32_t ntags;
};

static void names_add_tag_keys(jsonout_names *names, const catalog *cat);

jsonout_names *
jsonout_names_new(const catalog *cat, int with_tag_keys)
{
	jsonout_names *names = xcalloc(1, sizeof (*names));
	uint32_t s;

	names->n = cat->nstates;
	names->text = xcalloc(cat->nstates + 1, sizeof (char *));
	names->len = xcalloc(cat->nstates + 1, sizeof (size_t));
	for (s = 0; s < cat->nstates; s++) {
		FILE *out = open_memstream(&names->text[s], &names->len[s]);

		if (out == NULL)
			out_of_memory(0);
		json_write_string(out, cat->states[s].name,
		    cat->states[s].name_len);
		fputs(": ", out);
		if (fclose(out) != 0)
			out_of_memory(names->len[s]);
	}
	if (with_tag_keys)
		names_add_tag_keys(names, cat);
	return (names);
}

/* Makes the keys of every tag of cat (see jsonout_names_new). */
static void
names_add_tag_keys(jsonout_names *names, const catalog *cat)
{
	uint32_t id;

	names->ntags = catalog_ntags(cat);
	if (names->ntags > TAG_KEY_IDS)
		names->ntags = TAG_KEY_IDS;
	names->tag_keys = xcalloc((size_t)names->ntags + 1, TAG_KEY_BYTES);
	names->tag_key_len = xcalloc((size_t)names->ntags + 1, 1);
	for (id = 0; id < names->ntags; id++)
		names->tag_key_len[id] = (uint8_t)snprintf(names->tag_keys +
		    (size_t)id * TAG_KEY_BYTES, TAG_KEY_BYTES, ", \"%u\": ", id);
}

void
jsonout_names_free(jsonout_names *names)
{
	uint32_t s;

	if (names == NULL)
		return;
	for (s = 0; s < names->n; s++)
		free(names->text[s]);
	free(names->text);
	free(names->len);
	free(names->tag_keys);
	free(names->tag_key_len);
	free(names);
}

/*
 * A rectangle is put together here and written when it is full or done.
 * A tagged trace's rectangles list hundreds of tags each, so numbers are
 * formatted in place, eight digits a word, with no call per piece.
 */
typedef struct line {
	FILE *out;
	size_t len;
	char buf[4096];
} line;

/* Makes room for need bytes (at most the buffer) after what is there. */
static void
room(line *l, size_t need)
{
	if (l->len + need > sizeof (l->buf)) {
		fwrite(l->buf, 1, l->len, l->out);
		l->len = 0;
	}
}

static void
put(line *l, const char *s, size_t len)
{
	if (len > sizeof (l->buf)) {
		room(l, sizeof (l->buf));
		fwrite(s, 1, len, l->out);
		return;
	}
	room(l, len);
	memcpy(l->buf + l->len, s, len);
	l->len += len;
}

#define PUT(l, literal)	put((l), (literal), sizeof (literal) - 1)

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

static const uint64_t powers_of_ten[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL
};

/* How many decimal digits v has: from its bit length, then one compare. */
static size_t
decimal_digits(uint64_t v)
{
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);
	unsigned guess = (bits * 1233) >> 12;	/* 1233 / 4096 ~ log10(2) */

	return (guess + (v >= powers_of_ten[guess]) + (guess == 0 && v < 1));
}

/*
 * The eight digits of v (below 10^8, leading zeros included) as the
 * bytes of a word, the first digit in the lowest byte: four pairs from
 * two divisions, none waiting on another.  Built in a register, so that
 * storing it costs no reload of bytes just stored (which a CPU cannot
 * forward from several small stores to one wide load).
 */
static inline uint64_t
digit_pair(uint32_t v)
{
	uint16_t pair;

	memcpy(&pair, digit_pairs + 2 * v, 2);
	return (pair);
}

static inline uint64_t
eight_digits(uint32_t v)
{
	uint32_t high = v / 10000, low = v % 10000;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (digit_pair(high / 100) << 48 | digit_pair(high % 100) << 32 |
	    digit_pair(low / 100) << 16 | digit_pair(low % 100));
#else
	return (digit_pair(high / 100) | digit_pair(high % 100) << 16 |
	    digit_pair(low / 100) << 32 | digit_pair(low % 100) << 48);
#endif
}

/* Puts the last n (1 to 8) of the eight digits in w, writing 8 bytes. */
static inline void
put_digits(line *l, uint64_t w, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w <<= 8 * (8 - n);	/* the first digit is the highest byte */
#else
	w >>= 8 * (8 - n);
#endif
	memcpy(l->buf + l->len, &w, 8);	/* room was made: see put_u64 */
	l->len += n;
}

static void
put_u64(line *l, uint64_t v)
{
	size_t n = decimal_digits(v);

	/* Each put writes 8 bytes, what is past its digits overwritten next. */
	room(l, 24);
	if (n <= 8) {
		put_digits(l, eight_digits((uint32_t)v), n);
	} else if (n <= 16) {
		put_digits(l, eight_digits((uint32_t)(v / 100000000)), n - 8);
		put_digits(l, eight_digits((uint32_t)(v % 100000000)), 8);
	} else {
		put_digits(l, eight_digits((uint32_t)(v / 10000000000000000ULL)),
		    n - 16);
		put_digits(l, eight_digits((uint32_t)(v / 100000000 %
		    100000000)), 8);
		put_digits(l, eight_digits((uint32_t)(v % 100000000)), 8);
	}
}

/* A tag's key, `, "17": ` (without the separator for the first). */
static void
put_tag_key(line *l, const jsonout_names *names, uint32_t tag, int first)
{
	size_t skip = first ? 2 : 0;

	if (tag >= names->ntags) {
		put(l, &", \""[skip], 3 - skip);
		put_u64(l, tag);
		PUT(l, "\": ");
		return;
	}
	/* A slot more than the ids is there: the copy may run into it. */
	room(l, TAG_KEY_BYTES);
	memcpy(l->buf + l->len, names->tag_keys + (size_t)tag * TAG_KEY_BYTES +
	    skip, TAG_KEY_BYTES);
	l->len += names->tag_key_len[tag] - skip;
}

void
jsonout_rect_write(FILE *out, const jsonout_names *names,
    const jsonout_rect *r, int first)
{
	line l;
	size_t i;

	l.out = out;
	l.len = 0;
	if (first)
		PUT(&l, "\n    {\"start\": ");
	else
		PUT(&l, ",\n    {\"start\": ");
	put_u64(&l, r->start);
	PUT(&l, ", \"duration\": ");
	put_u64(&l, r->duration);
	PUT(&l, ", \"states\": {");
	for (i = 0; i < r->nstates; i++) {
		if (i > 0)
			PUT(&l, ", ");
		put(&l, names->text[r->states[i]], names->len[r->states[i]]);
		put_u64(&l, r->times[i]);
	}
	PUT(&l, "}, \"tags\": {");
	for (i = 0; i < r->ntags; i++) {
		/*
		 * With many tags, their keys are out of the cache (1.6 MB for
		 * 100,000), and a rectangle's tags are in no order of theirs:
		 * asked for ahead, they come while the keys before are copied.
		 */
		if (i + TAG_KEYS_AHEAD < r->ntags &&
		    r->tags[i + TAG_KEYS_AHEAD].tag < names->ntags)
			__builtin_prefetch(names->tag_keys +
			    (size_t)r->tags[i + TAG_KEYS_AHEAD].tag *
			    TAG_KEY_BYTES);
		put_tag_key(&l, names, r->tags[i].tag, i == 0);
		put_u64(&l, r->tags[i].time);
	}
	if (r->count > 0) {
		PUT(&l, "}, \"n\": ");
		put_u64(&l, r->count);
		PUT(&l, "}");
	} else {
		PUT(&l, "}}");
	}
	fwrite(l.buf, 1, l.len, out);
}

void
jsonout_entity_open(FILE *out, const catalog *cat, uint32_t e, int first,
    const char *kind)
{
	const char *name;
	size_t len;

	name = catalog_entity_name(cat, e, &len);
	fputs(first ? "\n   {\"name\": " : ",\n   {\"name\": ", out);
	json_write_string(out, name, len);
	fputs(", \"description\": ", out);
	write_cstring(out, cat->descriptions[e]);
	if (kind != NULL)
		fprintf(out, ", \"kind\": \"%s\"", kind);
	fputs(", \"rects\": [", out);
}

void
jsonout_entity_close(FILE *out)
{
	fputs("]}", out);
}

/* jsonout_row_rects' writing, as a jsonout_row_each function. */
typedef struct row_writer {
	FILE *out;
	const jsonout_names *names;
	int n;
} row_writer;

static void
write_row_rect(void *ctx, const jsonout_rect *r)
{
	row_writer *w = ctx;

	jsonout_rect_write(w->out, w->names, r, w->n++ == 0);
}

void
jsonout_row_rects(FILE *out, const jsonout_names *names, const coalesce *co,
    uint32_t row, uint32_t nstates, uint32_t *ids, uint64_t *times,
    int skip_stateless)
{
	row_writer w = { out, names, 0 };

	jsonout_row_each(co, row, nstates, ids, times, skip_stateless,
	    write_row_rect, &w);
}

void
jsonout_row_each(const coalesce *co, uint32_t row, uint32_t nstates,
    uint32_t *ids, uint64_t *times, int skip_stateless, jsonout_rect_fn fn,
    void *ctx)
{
	coalesce_tag *tags = NULL;
	size_t tags_cap = 0;
	uint32_t r;

	for (r = coalesce_first(co, row); r != COALESCE_NONE;
	    r = coalesce_next(co, r)) {
		coalesce_rect rect;
		jsonout_rect jr;
		size_t i;

		coalesce_get(co, r, &rect);
		if (rect.duration == 0)
			continue;
		memset(&jr, 0, sizeof (jr));
		jr.start = rect.start;
		jr.duration = rect.duration;
		/*
		 * Its states with time, ascending: as they are, unless some
		 * are not to be written (a depth row's absent time).
		 */
		if (rect.nstates == 0 || rect.states[rect.nstates - 1] <
		    nstates) {
			jr.states = rect.states;
			jr.times = rect.times;
			jr.nstates = rect.nstates;
		} else {
			jr.states = ids;
			jr.times = times;
			for (i = 0; i < rect.nstates &&
			    rect.states[i] < nstates; i++) {
				ids[jr.nstates] = rect.states[i];
				times[jr.nstates++] = rect.times[i];
			}
		}
		/* (All no data, COALESCE_GAP, is never written.) */
		if (jr.nstates == 0 && (skip_stateless || rect.nstates == 0))
			continue;
		if (rect.ntags > 0)
			coalesce_tags(co, r, &tags, &tags_cap);
		jr.tags = tags;
		jr.ntags = rect.ntags;
		fn(ctx, &jr);
	}
	free(tags);
}

/*
 * A message event's "id", "end" and other members, only where it has
 * them (so every other event is written as it always was); the members
 * apart, in their own object, so that one named like ours never makes a
 * key appear twice.
 */
static void
write_event_extra(FILE *out, const catalog *cat, const catalog_event *ev)
{
	size_t len;
	const char *s;
	uint64_t end = catalog_event_end(cat, ev);

	if ((s = catalog_event_id(cat, ev, &len)) != NULL) {
		fputs(", \"id\": ", out);
		json_write_string(out, s, len);
	}
	if (end != CATALOG_NO_END)
		fprintf(out, ", \"end\": %" PRIu64, end);
	if ((s = catalog_event_members(cat, ev, &len)) != NULL) {
		fputs(", \"members\": {", out);
		fwrite(s, 1, len, out);
		fputc('}', out);
	}
}

/* A send and a receive matched with it (flows.h), by event index. */
typedef struct sent_pair {
	size_t send, receive;
} sent_pair;

static int
compare_sent_pairs(const void *pa, const void *pb)
{
	const sent_pair *a = pa, *b = pb;

	if (a->send != b->send)
		return (a->send < b->send ? -1 : 1);
	return (a->receive < b->receive ? -1 : a->receive > b->receive);
}

/*
 * The sends with an "id" that a receive in cat went with (matched, or
 * duplicated), by send then receive; none if there are none (whole
 * messages, with an "end", are not here: they say it themselves).
 */
struct jsonout_received {
	sent_pair *p;
	size_t n;
};

jsonout_received *
jsonout_received_new(const catalog *cat)
{
	jsonout_received *r = xcalloc(1, sizeof (*r));
	const char *why = NULL;
	flows *f;
	size_t i;

	if (!flows_any(cat) ||
	    (f = flows_match(cat, NULL, NULL, NULL, NULL, &why)) == NULL)
		return (r);
	r->p = xcalloc(f->n + 1, sizeof (sent_pair));
	for (i = 0; i < f->n; i++) {
		const flow *fl = &f->items[i];

		if ((fl->status == FLOW_MATCHED ||
		    fl->status == FLOW_DUPLICATE) && fl->send != FLOWS_NONE &&
		    fl->send != fl->receive) {
			r->p[r->n].send = fl->send;
			r->p[r->n].receive = fl->receive;
			r->n++;
		}
	}
	flows_free(f);
	qsort(r->p, r->n, sizeof (sent_pair), compare_sent_pairs);
	return (r);
}

void
jsonout_received_free(jsonout_received *r)
{
	if (r == NULL)
		return;
	free(r->p);
	free(r);
}

/*
 * A send's "received": where and when each receive matched with it was
 * logged, [{"entity", "time"}] (p from *at on are the sends from event k
 * on; *at moves past k's).
 */
static void
write_received(FILE *out, const catalog *cat, size_t k, const sent_pair *p,
    size_t n, size_t *at)
{
	int first = 1;

	while (*at < n && p[*at].send < k)
		(*at)++;
	for (; *at < n && p[*at].send == k; (*at)++) {
		const catalog_event *r = &cat->events[p[*at].receive];
		size_t len;
		const char *name = intern_name(cat->event_entities, r->entity,
		    &len);

		fputs(first ? ", \"received\": [" : ", ", out);
		first = 0;
		fputs("{\"entity\": ", out);
		json_write_string(out, name, len);
		fprintf(out, ", \"time\": %" PRIu64 "}", r->time);
	}
	if (!first)
		fputc(']', out);
}

/*
 * Events inside the window, in file order, at most JSONOUT_MAX_EVENTS of
 * them (a viewer draws each one; the rest are only counted).
 */
static void
write_events(FILE *out, const catalog *cat, int64_t begin, uint64_t end,
    int64_t end_bound, const jsonout_received *received)
{
	uint64_t omitted = 0;
	size_t k, n = 0, at = 0;
	jsonout_received *own = NULL;
	const sent_pair *pairs;
	size_t npairs;

	if (received == NULL && cat->nevents > 0)
		received = own = jsonout_received_new(cat);
	pairs = received != NULL ? received->p : NULL;
	npairs = received != NULL ? received->n : 0;

	if (end_bound > 0 && (uint64_t)end_bound > end)
		end = (uint64_t)end_bound;
	fputs(",\n  \"events\": [", out);
	for (k = 0; k < cat->nevents; k++) {
		const catalog_event *ev = &cat->events[k];
		const char *name;
		size_t len;

		if ((begin > 0 && ev->time < (uint64_t)begin) ||
		    ev->time > end)
			continue;
		if (n == JSONOUT_MAX_EVENTS) {
			omitted++;
			continue;
		}
		fputs(n++ > 0 ? ",\n   " : "\n   ", out);
		fprintf(out, "{\"time\": %" PRIu64 ", \"entity\": ", ev->time);
		name = intern_name(cat->event_entities, ev->entity, &len);
		json_write_string(out, name, len);
		fputs(", \"event\": ", out);
		name = intern_name(cat->event_kinds, ev->kind, &len);
		json_write_string(out, name, len);
		fputs(", \"target\": ", out);
		if (ev->target == CATALOG_NO_ENTITY) {
			fputs("null", out);
		} else {
			name = intern_name(cat->event_entities, ev->target,
			    &len);
			json_write_string(out, name, len);
		}
		write_event_extra(out, cat, ev);
		if (npairs > 0)
			write_received(out, cat, k, pairs, npairs, &at);
		fputc('}', out);
	}
	jsonout_received_free(own);
	fprintf(out, "], \"events_omitted\": %" PRIu64, omitted);
}

void
jsonout_open(FILE *out)
{
	fputs("{\"statemaps\": [", out);
}

void
jsonout_statemap_open(FILE *out, const catalog *cat, int64_t begin,
    uint64_t end, int first)
{
	fputs(first ? "\n {" : ",\n {", out);
	fputs("\"title\": ", out);
	write_cstring(out, cat->title);
	fputs(", \"host\": ", out);
	write_cstring(out, cat->host);
	fputs(", \"entityKind\": ", out);
	write_cstring(out, cat->entity_kind);
	fprintf(out, ", \"start\": [%" PRIu64 ", %" PRIu64 "]",
	    cat->start_sec, cat->start_nsec);
	fprintf(out, ", \"begin\": %" PRId64 ", \"end\": %" PRIu64 ",\n",
	    begin, end);
	write_states(out, cat);
	write_tags(out, cat);
	fputs("  \"entities\": [", out);
}

void
jsonout_statemap_close(FILE *out, const catalog *cat, int64_t begin,
    uint64_t end, int64_t end_bound, const jsonout_received *received)
{
	fputc(']', out);
	write_events(out, cat, begin, end, end_bound, received);
	fputc('}', out);
}

void
jsonout_close(FILE *out, const char *members)
{
	if (members != NULL)
		fprintf(out, "],\n %s}\n", members);
	else
		fputs("]}\n", out);
}
