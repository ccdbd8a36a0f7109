#include "ingest.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "color.h"
#include "debug.h"
#include "json.h"
#include "progress.h"
#include "scan.h"
#include "source.h"
#include "threads.h"
#include "util.h"

#define READ_CHUNK	(4 << 20)
#define RELEASE_CHUNK	((size_t)8 << 20)

/* The metadata fields, each of which may be given once. */
enum {
	META_START = 1 << 0,
	META_STATES = 1 << 1,
	META_TITLE = 1 << 2,
	META_HOST = 1 << 3,
	META_KIND = 1 << 4
};

/*
 * The window of input being parsed.  A mapped file is one window; a
 * stream keeps the unparsed tail in a buffer it refills, and remembers
 * where that buffer starts in lines and columns for error positions.
 */
typedef struct reader {
	source *src;		/* NULL for a buffer given by the caller */
	const char *buf;
	size_t len;
	int mapped;		/* buf is the source's mapping */
	char *mem;		/* the stream buffer, if streaming */
	size_t cap;
	uint64_t base;		/* input offset of buf[0] */
	int eof;
	size_t released;	/* mapped bytes handed back to the kernel */
	uint64_t line_base;	/* newlines before buf[0] */
	uint64_t col_base;	/* characters after the last of them */
} reader;

typedef struct ingest {
	const char *name;
	reader rd;
	catalog *cat;
	const ingest_options *opts;
	ingest_datum_fn datum;
	void *ctx;
	sm_error *err;
	json_arena *arena;
	unsigned meta_seen;
	int any_record;
	uint64_t *last_time;	/* per entity, for the ordering check */
	size_t last_time_cap;
	intern *rejected;	/* entity names the filter dropped */
	progress *progress;	/* NULL unless a display is wanted */
	uint32_t tick;		/* records since the last progress update */
	scan_shapes shapes;	/* the layouts of the data read here */
	uint64_t threaded;	/* data taken as the scanning threads read them */
	uint64_t nchunks;	/* chunks they read */
} ingest;

/* ---- positions and errors ---- */

static int
is_continuation(unsigned char c)
{
	return ((c & 0xc0) == 0x80);
}

static void
position(const ingest *in, size_t offset, uint64_t *line, uint64_t *col)
{
	const char *p = in->rd.buf, *end = in->rd.buf + offset, *nl;
	uint64_t l = in->rd.line_base, c = in->rd.col_base;

	while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		l++;
		c = 0;
		p = nl + 1;
	}
	for (; p < end; p++) {
		if (!is_continuation((unsigned char)*p))
			c++;
	}
	*line = l + 1;
	*col = c + 1;
}

static int __attribute__((format(printf, 3, 4)))
fail(ingest *in, size_t offset, const char *fmt, ...)
{
	uint64_t line, col;
	va_list ap;
	char msg[sizeof (in->err->message)];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof (msg), fmt, ap);
	va_end(ap);
	position(in, offset, &line, &col);
	error_at(in->err, in->name, line, col, "%s", msg);
	return (-1);
}

/*
 * Quotes a string from the input for an error message: escaped, and cut
 * short so one huge name cannot drown the message.
 */
static const char *
quoted(char *buf, size_t size, const char *s, size_t len)
{
	size_t i, o = 0;

	buf[o++] = '"';
	for (i = 0; i < len && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	if (i < len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return (buf);
}

static const char *
type_name(json_type t)
{
	switch (t) {
	case JSON_NULL: return ("null");
	case JSON_FALSE:
	case JSON_TRUE: return ("a boolean");
	case JSON_NUMBER: return ("a number");
	case JSON_STRING: return ("a string");
	case JSON_ARRAY: return ("an array");
	case JSON_OBJECT: return ("an object");
	}
	return ("a value");
}

static int
expect_type(ingest *in, const json_value *v, json_type t, const char *what)
{
	if (v->type == t)
		return (0);
	return (fail(in, v->offset, "%s must be %s but is %s", what,
	    type_name(t), type_name(v->type)));
}

/* ---- the reader ---- */

static int
reader_open(ingest *in, const char *path)
{
	reader *rd = &in->rd;

	memset(rd, 0, sizeof (*rd));
	if ((rd->src = source_open(path, in->name, in->err)) == NULL)
		return (-1);
	if (source_map(rd->src, &rd->buf, &rd->len)) {
		rd->mapped = 1;
		rd->eof = 1;
		return (0);
	}
	rd->cap = READ_CHUNK;
	rd->mem = xmalloc(rd->cap);
	rd->buf = rd->mem;
	return (0);
}

static void
reader_close(reader *rd)
{
	free(rd->mem);
	source_close(rd->src);
}

/*
 * Drops the consumed bytes before *pos and reads more.  Returns 1 if more
 * input arrived, 0 at the end of input, -1 on a read error.
 */
static int
reader_refill(ingest *in, size_t *pos)
{
	reader *rd = &in->rd;
	long n;

	if (rd->eof)
		return (0);
	if (*pos > 0) {
		uint64_t line, col;

		position(in, *pos, &line, &col);
		rd->line_base = line - 1;
		rd->col_base = col - 1;
		memmove(rd->mem, rd->mem + *pos, rd->len - *pos);
		rd->len -= *pos;
		rd->base += *pos;
		*pos = 0;
	}
	if (rd->cap - rd->len < READ_CHUNK / 2) {
		rd->cap *= 2;
		rd->mem = xrealloc(rd->mem, rd->cap);
	}
	rd->buf = rd->mem;
	n = source_read(rd->src, rd->mem + rd->len, rd->cap - rd->len,
	    in->err);
	if (n < 0)
		return (-1);
	if (n == 0) {
		rd->eof = 1;
		return (0);
	}
	rd->len += (size_t)n;
	return (1);
}

/*
 * Gives back the pages of a mapped file that have been parsed, so memory
 * stays bounded by entities and rectangles, not by the size of the input.
 * Nothing points into parsed records (names are copied), and an error
 * position that needs them again just faults them back in.
 */
static void
reader_release(reader *rd, size_t pos)
{
	size_t page = 4096, end;

	if (!rd->mapped || pos - rd->released < RELEASE_CHUNK)
		return;
	end = pos & ~(page - 1);
	(void) madvise((char *)rd->buf + rd->released, end - rd->released,
	    MADV_DONTNEED);
	rd->released = end;
}

/* ---- members of a record ---- */

typedef struct fields {
	json_value *time, *entity, *state, *tag, *event, *target;
	json_value *description, *start, *states, *title, *host, *kind;
	json_value *other;	/* the first member of no known name */
	int nother;
} fields;

static int
key_is(const json_value *m, const char *name, size_t len)
{
	return (m->key_len == len && memcmp(m->key, name, len) == 0);
}

static json_value **
field_slot(fields *f, const json_value *m)
{
#define	FIELD(name, slot) if (key_is(m, name, sizeof (name) - 1)) return (&f->slot)
	switch (m->key_len) {
	case 3:
		FIELD("tag", tag);
		break;
	case 4:
		FIELD("time", time);
		FIELD("host", host);
		break;
	case 5:
		FIELD("state", state);
		FIELD("event", event);
		FIELD("start", start);
		FIELD("title", title);
		break;
	case 6:
		FIELD("entity", entity);
		FIELD("target", target);
		FIELD("states", states);
		break;
	case 10:
		FIELD("entityKind", kind);
		break;
	case 11:
		FIELD("description", description);
		break;
	}
#undef FIELD
	return (NULL);
}

static int
collect_fields(ingest *in, const json_value *obj, fields *f)
{
	const json_value *m;
	char q[96];

	memset(f, 0, sizeof (*f));
	for (m = obj->child; m != NULL; m = m->next) {
		json_value **slot = field_slot(f, m);

		if (slot == NULL) {
			if (f->other == NULL)
				f->other = (json_value *)m;
			f->nother++;
			continue;
		}
		if (*slot != NULL) {
			return (fail(in, m->key_offset,
			    "member %s appears twice in one record",
			    quoted(q, sizeof (q), m->key, m->key_len)));
		}
		*slot = (json_value *)m;
	}
	return (0);
}

/* Fails on the first member that is set but not allowed in this kind. */
static int
only_members(ingest *in, const fields *f, const char *kind,
    const json_value *const *allowed, size_t nallowed)
{
	const json_value *all[] = { f->time, f->entity, f->state, f->tag,
	    f->event, f->target, f->description, f->start, f->states,
	    f->title, f->host, f->kind, f->other };
	const json_value *worst = NULL;
	char q[96];
	size_t i, j;

	for (i = 0; i < sizeof (all) / sizeof (all[0]); i++) {
		int ok = 0;

		if (all[i] == NULL)
			continue;
		for (j = 0; j < nallowed; j++)
			ok |= (all[i] == allowed[j]);
		if (!ok && (worst == NULL || all[i]->key_offset <
		    worst->key_offset))
			worst = all[i];
	}
	if (worst == NULL)
		return (0);
	return (fail(in, worst->key_offset, "unexpected member %s in %s",
	    quoted(q, sizeof (q), worst->key, worst->key_len), kind));
}

static int
need_member(ingest *in, const json_value *obj, const json_value *m,
    const char *name, const char *kind)
{
	if (m != NULL)
		return (0);
	return (fail(in, obj->offset, "%s is missing member \"%s\"", kind,
	    name));
}

/* ---- values ---- */

static int
parse_time(ingest *in, const json_value *v, uint64_t *out)
{
	char q[96];

	if (v->type == JSON_STRING) {
		const char *s = v->str;
		uint64_t t = 0;
		size_t i;

		for (i = 0; i < v->len; i++) {
			unsigned d = (unsigned char)s[i] - '0';

			if (d > 9 || t > (UINT64_MAX - d) / 10)
				break;
			t = t * 10 + d;
		}
		if (i == v->len && i > 0 && t <= (uint64_t)INT64_MAX) {
			*out = t;
			return (0);
		}
		return (fail(in, v->offset, "time %s is not a non-negative "
		    "integer number of nanoseconds below 2^63",
		    quoted(q, sizeof (q), v->str, v->len)));
	}
	if (v->type == JSON_NUMBER) {
		if (json_number_u64(v, out) && *out <= (uint64_t)INT64_MAX)
			return (0);
		return (fail(in, v->offset, "time %.*s is not a non-negative "
		    "integer number of nanoseconds below 2^63",
		    (int)(v->len > 40 ? 40 : v->len), v->str));
	}
	return (fail(in, v->offset, "time must be a string of digits or a "
	    "number but is %s", type_name(v->type)));
}

static int
parse_state(ingest *in, const json_value *v, uint32_t *out)
{
	uint64_t s;

	if (expect_type(in, v, JSON_NUMBER, "state") != 0)
		return (-1);
	if (!json_number_u64(v, &s)) {
		return (fail(in, v->offset, "state %.*s is not a state value "
		    "(a non-negative integer)",
		    (int)(v->len > 40 ? 40 : v->len), v->str));
	}
	if (s >= in->cat->nstates) {
		return (fail(in, v->offset, "state %llu is not defined: the "
		    "metadata defines states 0 to %u",
		    (unsigned long long)s, in->cat->nstates - 1));
	}
	*out = (uint32_t)s;
	return (0);
}

/* Writes a parsed value back out as compact JSON, strings made safe. */
static void
write_value(FILE *out, const json_value *v)
{
	const json_value *m;

	switch (v->type) {
	case JSON_NULL: fputs("null", out); break;
	case JSON_TRUE: fputs("true", out); break;
	case JSON_FALSE: fputs("false", out); break;
	case JSON_NUMBER: fwrite(v->str, 1, v->len, out); break;
	case JSON_STRING: json_write_string(out, v->str, v->len); break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		fputc(v->type == JSON_ARRAY ? '[' : '{', out);
		for (m = v->child; m != NULL; m = m->next) {
			if (m != v->child)
				fputc(',', out);
			if (v->type == JSON_OBJECT) {
				json_write_string(out, m->key, m->key_len);
				fputc(':', out);
			}
			write_value(out, m);
		}
		fputc(v->type == JSON_ARRAY ? ']' : '}', out);
		break;
	}
}

/* ---- records ---- */

static int
need_metadata(ingest *in, const json_value *obj, const char *kind)
{
	if (!(in->meta_seen & META_STATES)) {
		return (fail(in, obj->offset, "%s before the metadata: "
		    "expected an object with \"states\" first", kind));
	}
	if (!(in->meta_seen & META_START)) {
		return (fail(in, obj->offset, "%s before the metadata: "
		    "expected an object with \"start\" first", kind));
	}
	return (0);
}

static uint32_t
entity_id(ingest *in, const char *name, size_t len)
{
	catalog *cat = in->cat;
	uint32_t id = intern_find(cat->entities, name, len);

	if (id != INTERN_NONE)
		return (id);	/* known: its arrays are already sized */
	if (in->opts->filter != NULL) {
		uint32_t r;
		const char *s;

		if (intern_find(in->rejected, name, len) != INTERN_NONE)
			return (CATALOG_NO_ENTITY);
		/* intern copies are NUL-terminated, as regexec needs. */
		r = intern_add(in->rejected, name, len, NULL);
		s = intern_name(in->rejected, r, NULL);
		if (regexec(in->opts->filter, s, 0, NULL, 0) != 0)
			return (CATALOG_NO_ENTITY);
	}
	id = catalog_entity(cat, name, len);
	if (id >= in->last_time_cap) {
		size_t old = in->last_time_cap;

		grow_array(&in->last_time, &in->last_time_cap, (size_t)id + 1,
		    sizeof (uint64_t));
		memset(in->last_time + old, 0,
		    (in->last_time_cap - old) * sizeof (uint64_t));
	}
	return (id);
}

static int
do_datum(ingest *in, const json_value *obj, const fields *f)
{
	const json_value *allowed[] = { f->time, f->entity, f->state, f->tag };
	catalog *cat = in->cat;
	uint64_t time;
	uint32_t entity, state;
	const char *tag = NULL;
	size_t tag_len = 0;
	char q[96];

	if (only_members(in, f, "a datum", allowed, 4) != 0 ||
	    need_member(in, obj, f->entity, "entity", "datum") != 0 ||
	    need_member(in, obj, f->state, "state", "datum") != 0 ||
	    need_metadata(in, obj, "datum") != 0 ||
	    parse_time(in, f->time, &time) != 0 ||
	    expect_type(in, f->entity, JSON_STRING, "entity") != 0 ||
	    parse_state(in, f->state, &state) != 0)
		return (-1);
	if (f->tag != NULL && f->tag->type != JSON_NULL &&
	    expect_type(in, f->tag, JSON_STRING, "tag") != 0)
		return (-1);

	cat->ndata++;
	cat->have_data = 1;
	cat->last_time = time;
	entity = entity_id(in, f->entity->str, f->entity->len);
	if (entity == CATALOG_NO_ENTITY)
		return (0);
	if (time < in->last_time[entity]) {
		return (fail(in, f->time->offset, "time %llu for entity %s is "
		    "before its previous time %llu: time must not go "
		    "backwards for an entity", (unsigned long long)time,
		    quoted(q, sizeof (q), f->entity->str, f->entity->len),
		    (unsigned long long)in->last_time[entity]));
	}
	in->last_time[entity] = time;
	if (f->tag != NULL && f->tag->type == JSON_STRING &&
	    !in->opts->ignore_tags) {
		tag = f->tag->str;
		tag_len = f->tag->len;
	}
	in->datum(in->ctx, cat, entity, time, state, tag, tag_len);
	return (0);
}

static int
do_event(ingest *in, const json_value *obj, const fields *f)
{
	const json_value *allowed[] = { f->time, f->entity, f->event,
	    f->target };
	uint64_t time;

	if (only_members(in, f, "an event", allowed, 4) != 0 ||
	    need_member(in, obj, f->entity, "entity", "event") != 0 ||
	    need_metadata(in, obj, "event") != 0 ||
	    parse_time(in, f->time, &time) != 0 ||
	    expect_type(in, f->entity, JSON_STRING, "entity") != 0 ||
	    expect_type(in, f->event, JSON_STRING, "event") != 0)
		return (-1);
	if (f->target != NULL && f->target->type != JSON_NULL &&
	    expect_type(in, f->target, JSON_STRING, "target") != 0)
		return (-1);
	catalog_add_event(in->cat, time, f->entity->str, f->entity->len,
	    f->event->str, f->event->len,
	    f->target != NULL && f->target->type == JSON_STRING ?
	    f->target->str : NULL, f->target != NULL ? f->target->len : 0);
	return (0);
}

static int
do_description(ingest *in, const json_value *obj, const fields *f)
{
	const json_value *allowed[] = { f->entity, f->description };
	uint32_t entity;

	if (only_members(in, f, "an entity description", allowed, 2) != 0 ||
	    need_member(in, obj, f->entity, "entity", "entity description")
	    != 0 ||
	    expect_type(in, f->entity, JSON_STRING, "entity") != 0 ||
	    expect_type(in, f->description, JSON_STRING, "description") != 0)
		return (-1);
	entity = entity_id(in, f->entity->str, f->entity->len);
	if (entity != CATALOG_NO_ENTITY)
		catalog_set_description(in->cat, entity, f->description->str,
		    f->description->len);
	return (0);
}

static int
do_tag_definition(ingest *in, const json_value *obj, const fields *f)
{
	const json_value *m;
	uint32_t state, tag;
	char *members = NULL;
	size_t size = 0, *uses, uses_cap = 0;
	intern *keys;
	FILE *out;
	int n = 0;

	if (need_metadata(in, obj, "tag definition") != 0 ||
	    parse_state(in, f->state, &state) != 0 ||
	    expect_type(in, f->tag, JSON_STRING, "tag") != 0)
		return (-1);
	if (in->opts->ignore_tags)
		return (0);
	tag = catalog_tag_id(in->cat, state, f->tag->str, f->tag->len);
	if ((out = open_memstream(&members, &size)) == NULL) {
		error_set(in->err, "out of memory");
		return (-1);
	}
	/*
	 * A member given twice keeps its last value, as JSON readers do,
	 * so that no output ever holds a key twice: the keys are counted
	 * first, and each member is written only at its key's last use.
	 */
	keys = intern_new();
	uses = NULL;
	for (m = obj->child; m != NULL; m = m->next) {
		uint32_t id = intern_add(keys, m->key, m->key_len, NULL);

		grow_array(&uses, &uses_cap, (size_t)id + 1, sizeof (size_t));
		if (id + 1 == intern_count(keys))
			uses[id] = 0;
		uses[id]++;
	}
	for (m = obj->child; m != NULL; m = m->next) {
		uint32_t id = intern_find(keys, m->key, m->key_len);

		if (--uses[id] > 0 || m == f->state || m == f->tag)
			continue;
		if (n++ > 0)
			fputs(", ", out);
		json_write_string(out, m->key, m->key_len);
		fputs(": ", out);
		write_value(out, m);
	}
	free(uses);
	intern_free(keys);
	fclose(out);
	catalog_define_tag(in->cat, tag, members);
	return (0);
}

static int
set_string(ingest *in, const json_value *v, char **slot, const char *what)
{
	if (expect_type(in, v, JSON_STRING, what) != 0)
		return (-1);
	free(*slot);
	*slot = xstrndup(v->str, v->len);
	return (0);
}

static int
do_start(ingest *in, const json_value *v)
{
	const json_value *sec, *nsec;
	uint64_t s, ns;

	if (expect_type(in, v, JSON_ARRAY, "\"start\"") != 0)
		return (-1);
	if (v->len != 2) {
		return (fail(in, v->offset, "\"start\" must be [seconds, "
		    "nanoseconds] but has %zu elements", v->len));
	}
	sec = v->child;
	nsec = sec->next;
	if (sec->type != JSON_NUMBER || !json_number_u64(sec, &s))
		return (fail(in, sec->offset, "\"start\" seconds must be a "
		    "non-negative integer"));
	if (nsec->type != JSON_NUMBER || !json_number_u64(nsec, &ns))
		return (fail(in, nsec->offset, "\"start\" nanoseconds must be "
		    "a non-negative integer"));
	in->cat->start_sec = s;
	in->cat->start_nsec = ns;
	in->cat->have_start = 1;
	return (0);
}

static int
do_states(ingest *in, const json_value *v)
{
	catalog *cat = in->cat;
	const json_value *m, *f;
	catalog_state *states;
	size_t n = v->len;
	char q[96], q2[96];

	if (expect_type(in, v, JSON_OBJECT, "\"states\"") != 0)
		return (-1);
	if (n == 0)
		return (fail(in, v->offset, "\"states\" is empty: a statemap "
		    "needs at least one state"));
	if (n > CATALOG_MAX_STATES)
		return (fail(in, v->offset, "\"states\" defines %zu states; "
		    "at most %d are supported", n, CATALOG_MAX_STATES));
	states = xcalloc(n, sizeof (catalog_state));
	cat->states = states;
	cat->nstates = (uint32_t)n;
	/* Names in file order, to find one given twice; then by value. */
	cat->state_names = intern_new();
	for (m = v->child; m != NULL; m = m->next) {
		const json_value *value = NULL, *colour = NULL;
		uint64_t val;

		if (expect_type(in, m, JSON_OBJECT, "a state") != 0)
			return (-1);
		for (f = m->child; f != NULL; f = f->next) {
			if (key_is(f, "value", 5) && value == NULL) {
				value = f;
			} else if (key_is(f, "color", 5) && colour == NULL) {
				colour = f;
			} else {
				return (fail(in, f->key_offset, "unexpected "
				    "member %s in state %s: a state has "
				    "\"value\" and \"color\"",
				    quoted(q, sizeof (q), f->key, f->key_len),
				    quoted(q2, sizeof (q2), m->key,
				    m->key_len)));
			}
		}
		if (value == NULL)
			return (fail(in, m->offset, "state %s is missing "
			    "member \"value\"",
			    quoted(q, sizeof (q), m->key, m->key_len)));
		if (value->type != JSON_NUMBER ||
		    !json_number_u64(value, &val))
			return (fail(in, value->offset, "value of state %s "
			    "must be a non-negative integer",
			    quoted(q, sizeof (q), m->key, m->key_len)));
		if (val >= n)
			return (fail(in, value->offset, "state %s has value "
			    "%llu, but with %zu states values must be 0 to "
			    "%zu", quoted(q, sizeof (q), m->key, m->key_len),
			    (unsigned long long)val, n, n - 1));
		if (states[val].name != NULL)
			return (fail(in, value->offset, "state %s has value "
			    "%llu, which state %s already has",
			    quoted(q, sizeof (q), m->key, m->key_len),
			    (unsigned long long)val,
			    quoted(q2, sizeof (q2), states[val].name,
			    states[val].name_len)));
		if (intern_find(cat->state_names, m->key, m->key_len) !=
		    INTERN_NONE)
			return (fail(in, m->key_offset, "state %s is defined "
			    "twice", quoted(q, sizeof (q), m->key,
			    m->key_len)));
		intern_add(cat->state_names, m->key, m->key_len, NULL);
		if (colour != NULL && colour->type != JSON_NULL) {
			if (expect_type(in, colour, JSON_STRING, "a colour"))
				return (-1);
			if (!color_parse(colour->str, colour->len,
			    &states[val].color))
				return (fail(in, colour->offset, "colour %s of "
				    "state %s is not a colour: use #rrggbb or "
				    "a CSS colour name",
				    quoted(q, sizeof (q), colour->str,
				    colour->len),
				    quoted(q2, sizeof (q2), m->key,
				    m->key_len)));
			states[val].color_text = xstrndup(colour->str,
			    colour->len);
		}
		states[val].name = xstrndup(m->key, m->key_len);
		states[val].name_len = m->key_len;
	}
	catalog_assign_colors(cat);
	catalog_index_states(cat);
	return (0);
}

static int
do_metadata(ingest *in, const fields *f)
{
	struct {
		json_value *v;
		unsigned bit;
	} given[] = {
		{ f->start, META_START }, { f->states, META_STATES },
		{ f->title, META_TITLE }, { f->host, META_HOST },
		{ f->kind, META_KIND }
	};
	char q[96];
	size_t i;

	for (i = 0; i < sizeof (given) / sizeof (given[0]); i++) {
		json_value *v = given[i].v;

		if (v == NULL)
			continue;
		if (in->meta_seen & given[i].bit)
			return (fail(in, v->key_offset, "metadata field %s is "
			    "given twice", quoted(q, sizeof (q), v->key,
			    v->key_len)));
		in->meta_seen |= given[i].bit;
	}
	if ((f->start != NULL && do_start(in, f->start) != 0) ||
	    (f->states != NULL && do_states(in, f->states) != 0) ||
	    (f->title != NULL &&
	    set_string(in, f->title, &in->cat->title, "\"title\"") != 0) ||
	    (f->host != NULL &&
	    set_string(in, f->host, &in->cat->host, "\"host\"") != 0) ||
	    (f->kind != NULL && set_string(in, f->kind,
	    &in->cat->entity_kind, "\"entityKind\"") != 0))
		return (-1);
	return (0);
}

static int
do_record(ingest *in, const json_value *obj)
{
	fields f;
	char q[96];

	if (obj->type != JSON_OBJECT)
		return (fail(in, obj->offset, "expected a JSON object (a "
		    "record) but found %s", type_name(obj->type)));
	if (collect_fields(in, obj, &f) != 0)
		return (-1);
	in->any_record = 1;

	if (f.time != NULL && f.event == NULL && f.state != NULL) {
		in->cat->nrecords++;
		return (do_datum(in, obj, &f));
	}
	if (f.time != NULL && f.event != NULL) {
		in->cat->nrecords++;
		return (do_event(in, obj, &f));
	}
	if (f.time != NULL) {
		return (fail(in, obj->offset, "a record with \"time\" must "
		    "have \"state\" (a datum) or \"event\" (an event)"));
	}
	if (f.description != NULL) {
		in->cat->nrecords++;
		return (do_description(in, obj, &f));
	}
	if (f.tag != NULL && f.state != NULL) {
		in->cat->nrecords++;
		return (do_tag_definition(in, obj, &f));
	}
	if (f.other == NULL && f.entity == NULL && f.state == NULL &&
	    f.tag == NULL && f.event == NULL && f.target == NULL &&
	    obj->child != NULL)
		return (do_metadata(in, &f));
	if (f.other != NULL)
		return (fail(in, f.other->key_offset, "unrecognized record: "
		    "member %s is not part of a datum, event, description, "
		    "tag definition or metadata",
		    quoted(q, sizeof (q), f.other->key, f.other->key_len)));
	return (fail(in, obj->offset, "unrecognized record: expected a "
	    "datum, event, entity description, tag definition or metadata"));
}

/* ---- the fast path for plain data (scan.h) ---- */

static int
metadata_complete(const ingest *in)
{
	return ((in->meta_seen & (META_START | META_STATES)) ==
	    (META_START | META_STATES));
}

/* Counts n data taken, the last of them at time last. */
static void
count_data(ingest *in, uint64_t n, uint64_t last)
{
	in->any_record = 1;
	in->cat->nrecords += n;
	in->cat->ndata += n;
	in->cat->have_data = 1;
	in->cat->last_time = last;
}

/*
 * Takes a scanned datum of a known entity as the general path would.
 * Returns 0, having changed nothing, if its time goes backwards: the
 * general path then reports it.
 */
static int
deliver_datum(ingest *in, uint32_t entity, uint64_t time, uint32_t state,
    const char *tag, size_t tag_len)
{
	catalog *cat = in->cat;

	if (entity != CATALOG_NO_ENTITY && time < in->last_time[entity])
		return (0);
	count_data(in, 1, time);
	if (entity == CATALOG_NO_ENTITY)
		return (1);
	in->last_time[entity] = time;
	if (in->opts->ignore_tags)
		tag = NULL;
	in->datum(in->ctx, cat, entity, time, state, tag, tag_len);
	return (1);
}

/*
 * Tries the record at pos as a plain datum.  Returns 1 with *next past
 * its closing brace if it was consumed, 0 to leave it to the general
 * parser.
 */
static int
fast_datum(ingest *in, size_t pos, size_t *next)
{
	scanned d;

	if (!metadata_complete(in) || !scan_datum_shaped(&in->shapes,
	    in->rd.buf, in->rd.len, pos, in->cat->nstates, &d))
		return (0);
	if (!deliver_datum(in, entity_id(in, d.entity, d.entity_len), d.time,
	    d.state, d.tag, d.tag_len))
		return (0);
	*next = d.next;
	return (1);
}

/* ---- the loop ---- */

/* The progress display, and whether the consumer wants to go on. */
static int
checkpoint(ingest *in, size_t pos)
{
	reader *rd = &in->rd;
	const char *why = NULL;

	if (in->progress != NULL)
		progress_update(in->progress, rd->mapped || rd->src == NULL ?
		    rd->base + pos : source_consumed(rd->src), rd->base + pos,
		    in->cat->nrecords);
	if (in->opts->keep_going != NULL &&
	    in->opts->keep_going(in->ctx, &why) != 0) {
		error_at(in->err, in->name, 0, 0, "%s", why);
		return (-1);
	}
	return (0);
}

/* Every 64 K records: cheap enough to leave on for every load. */
static int
report(ingest *in, size_t pos)
{
	if ((++in->tick & 0xffff) != 0)
		return (0);
	return (checkpoint(in, pos));
}

/*
 * Parses the records that start before limit (or all of them), leaving
 * *pos at the next record, past any spaces.  Returns 0, or -1 on error.
 */
static int
parse_records(ingest *in, size_t *pos, size_t limit)
{
	reader *rd = &in->rd;
	json_error jerr;

	for (;;) {
		json_value *v;
		size_t next;

		*pos = json_skip_space(rd->buf, rd->len, *pos);
		if (*pos == rd->len) {
			int r = reader_refill(in, pos);

			if (r < 0)
				return (-1);
			if (r == 0)
				return (0);
			continue;
		}
		if (*pos >= limit)
			return (0);
		if (fast_datum(in, *pos, &next)) {
			*pos = next;
			reader_release(rd, *pos);
			if (report(in, *pos) != 0)
				return (-1);
			continue;
		}
		json_arena_reset(in->arena);
		next = *pos;
		v = json_parse_value(in->arena, rd->buf, rd->len, &next,
		    &jerr);
		if (v == NULL) {
			if (jerr.incomplete && !rd->eof) {
				if (reader_refill(in, pos) < 0)
					return (-1);
				continue;
			}
			return (fail(in, jerr.offset, "%s", jerr.message));
		}
		if (do_record(in, v) != 0)
			return (-1);
		*pos = next;
		reader_release(rd, *pos);
		if (report(in, *pos) != 0)
			return (-1);
	}
}

/* ---- parsing a mapped file on several threads ---- */

/*
 * A mapped file is cut into chunks at line ends, which threads scan for
 * plain data while this one takes their results in file order.  A cut can
 * fall inside a record (records may span lines), and a thread knows
 * nothing of what came before its chunk, so what it finds is only a
 * proposal: runs of consecutive plain data, each starting at an offset
 * where it saw a record begin.  This thread keeps its own position and
 * uses a run only if it starts exactly there; everything else (other
 * kinds of records, anything a thread could not scan, runs that do not
 * line up, a time going backwards) it parses itself, with the serial
 * code.  So the result, errors included, is the serial one by
 * construction, whatever the input and wherever the cuts fall.
 */
#define CHUNK_BYTES	((size_t)4 << 20)
#define MAX_RECORD	UINT16_MAX	/* longer records are left to us */
#define UNMAPPED	(UINT32_MAX - 1)

/*
 * Scanning threads read their chunks through a window of this size, a
 * buffer of their own that stays in the core's cache, refilled when less
 * than a sixteenth of it is left ahead (see source_copy).  A record that
 * does not fit in what is left gets a full window before it is judged;
 * one longer than the window is left to the serial parse.
 */
#define WINDOW_BYTES	((size_t)256 << 10)
#define WINDOW_LOW(size)	((size) / 16 + 1)

/*
 * A size from the environment variable name, or dflt: for tests that want
 * many chunks, and windows that slide often, in a small file.
 */
static size_t
size_from_env(const char *name, size_t dflt)
{
	const char *env = getenv(name);
	char *end;
	unsigned long long n;

	if (env == NULL || *env == '\0')
		return (dflt);
	n = strtoull(env, &end, 10);
	return (*end == '\0' && n > 0 && n <= dflt * 64 ? n : dflt);
}

typedef struct chunk_datum {
	uint64_t time;
	uint32_t record;	/* the record's offset in the chunk */
	uint32_t entity;	/* the chunk's own number for the name */
	uint32_t tag_len;
	uint16_t state;
	uint16_t tag;		/* the tag's offset in the record; 0: none */
} chunk_datum;

typedef struct chunk_run {
	size_t start, end;	/* its first record; past its last, spaces too */
	size_t first, count;	/* its data */
	size_t group, ngroups;	/* its entities, if sorted for bulk */
} chunk_run;

/*
 * For a consumer that takes data in bulk, a run without tags is also
 * sorted by entity (stably, so each entity's data stay in file order),
 * its entities in the order they first appear in it.
 */
typedef struct chunk_group {
	uint32_t entity;	/* the chunk's number */
	size_t first, count;	/* in the chunk's sorted times and states */
} chunk_group;

typedef struct chunk {
	size_t seq;		/* which chunk of the file */
	size_t start, end;	/* records starting in [start, end) */
	int done;		/* scanned, ready to be taken */
	chunk_datum *data;
	size_t ndata, data_cap;
	chunk_run *runs;
	size_t nruns, runs_cap;
	intern *names;		/* entity names by the chunk's numbers */
	uint32_t *ids;		/* their ids in the trace, or UNMAPPED */
	size_t ids_cap;
	chunk_group *groups;	/* the runs' entities, when sorted */
	size_t ngroups, groups_cap;
	uint64_t *times;	/* the sorted data, parallel to data */
	uint16_t *states;
	size_t sorted_cap;
	uint64_t *short_keys;	/* names of up to 8 bytes, as numbers... */
	uint32_t *short_ids;	/* ...and their numbers: a cache of names */
	size_t nshort;
	size_t *slot_of;	/* scratch: an entity's group in a run... */
	size_t *seen_in;	/* ...valid if seen_in is that run + 1 */
	size_t scratch_cap;
	scan_shapes shapes;	/* the layouts of its data */
} chunk;

typedef struct window {
	char *buf;
	size_t size;		/* of buf */
	size_t len;		/* bytes in it */
	size_t base;		/* the input offset of buf[0] */
	int end;		/* it reaches the end of the input */
} window;

typedef struct scanner {
	const source *src;
	const char *buf;	/* the input, mapped: for its length and lines */
	size_t len;
	uint32_t nstates;
	int bulk;		/* sort untagged runs by entity */
	size_t chunk_bytes;
	size_t window_bytes;
	chunk *slots;		/* chunk seq is in slots[seq % nslots] */
	size_t nslots;
	size_t next_seq;	/* the next chunk to hand out */
	size_t next_start;	/* and where it starts */
	int stop;
	pthread_mutex_t lock;
	pthread_cond_t work;	/* a slot was freed, or stop */
	pthread_cond_t ready;	/* a chunk was scanned */
} scanner;

static void
add_run(chunk *c, size_t start, size_t end, size_t first)
{
	if (c->ndata == first)
		return;
	grow_array(&c->runs, &c->runs_cap, c->nruns + 1, sizeof (chunk_run));
	c->runs[c->nruns].start = start;
	c->runs[c->nruns].end = end;
	c->runs[c->nruns].first = first;
	c->runs[c->nruns].count = c->ndata - first;
	c->runs[c->nruns].ngroups = 0;
	c->nruns++;
}

/*
 * Sorts run i by entity for bulk delivery, unless it has a tag or an
 * entity's time goes backwards in it (the serial code reports that).
 */
static void
sort_run(chunk *c, size_t i)
{
	chunk_run *r = &c->runs[i];
	size_t k, g;

	for (k = r->first; k < r->first + r->count; k++) {
		if (c->data[k].tag != 0)
			return;
	}
	r->group = c->ngroups;
	for (k = r->first; k < r->first + r->count; k++) {
		uint32_t e = c->data[k].entity;

		if (c->seen_in[e] != i + 1) {
			c->seen_in[e] = i + 1;
			c->slot_of[e] = c->ngroups;
			grow_array(&c->groups, &c->groups_cap, c->ngroups + 1,
			    sizeof (chunk_group));
			c->groups[c->ngroups].entity = e;
			c->groups[c->ngroups].count = 0;
			c->ngroups++;
		}
		c->groups[c->slot_of[e]].count++;
	}
	for (g = r->group, k = r->first; g < c->ngroups; g++) {
		c->groups[g].first = k;
		k += c->groups[g].count;
		c->groups[g].count = 0;
	}
	for (k = r->first; k < r->first + r->count; k++) {
		const chunk_datum *cd = &c->data[k];
		chunk_group *grp = &c->groups[c->slot_of[cd->entity]];
		size_t at = grp->first + grp->count++;

		if (grp->count > 1 && cd->time < c->times[at - 1]) {
			c->ngroups = r->group;	/* one by one, then */
			return;
		}
		c->times[at] = cd->time;
		c->states[at] = cd->state;
	}
	r->ngroups = c->ngroups - r->group;
}

/*
 * The chunk's number for an entity name.  Names are mostly short (thread
 * and CPU ids), and a name of up to 8 bytes with no NUL in it (a plain
 * string has none) is one 64-bit number: one multiply and a compare
 * find it, where the names table hashes and compares bytes.
 */
#define SHORT_BITS	12
#define SHORT_SLOTS	((size_t)1 << SHORT_BITS)

static uint32_t
chunk_name(chunk *c, const char *name, size_t len, const char *end)
{
	uint64_t key;
	uint32_t id;
	size_t i;

	if (len > 8 || end - name < 8)
		return (intern_add(c->names, name, len, NULL));
	memcpy(&key, name, sizeof (key));
	if (len < 8)
		key &= ((uint64_t)1 << (8 * len)) - 1;
	i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - SHORT_BITS));
	while (c->short_keys[i] != 0) {
		if (c->short_keys[i] == key)
			return (c->short_ids[i]);
		i = (i + 1) & (SHORT_SLOTS - 1);
	}
	id = intern_add(c->names, name, len, NULL);
	if (c->nshort < SHORT_SLOTS / 2) {	/* else the table still works */
		c->short_keys[i] = key;
		c->short_ids[i] = id;
		c->nshort++;
	}
	return (id);
}

/*
 * Moves the window to start at its offset pos and fills it.  Returns 0 if
 * the input cannot be read (the serial parse will say why).
 */
static int
window_slide(const scanner *sc, window *w, size_t *pos)
{
	long n;

	memmove(w->buf, w->buf + *pos, w->len - *pos);
	w->base += *pos;
	w->len -= *pos;
	*pos = 0;
	n = source_copy(sc->src, w->base + w->len, w->buf + w->len,
	    w->size - w->len);
	if (n < 0)
		return (0);
	w->len += (size_t)n;
	w->end = w->base + w->len >= sc->len || w->len < w->size;
	return (1);
}

/* Proposes the runs of plain data in a chunk (see above). */
static void
scan_chunk(const scanner *sc, chunk *c, window *w, json_arena *arena)
{
	size_t pos = 0, run_start = SIZE_MAX, first = 0;

	c->ndata = c->nruns = 0;
	intern_free(c->names);
	c->names = intern_new();
	if (c->short_keys == NULL) {
		c->short_keys = xmalloc(SHORT_SLOTS * sizeof (uint64_t));
		c->short_ids = xmalloc(SHORT_SLOTS * sizeof (uint32_t));
	}
	memset(c->short_keys, 0, SHORT_SLOTS * sizeof (uint64_t));
	c->nshort = 0;
	w->base = c->start;
	w->len = 0;
	if (!window_slide(sc, w, &pos))
		return;
	for (;;) {
		scanned d;
		json_error jerr;
		size_t next;

		if (w->len - pos < WINDOW_LOW(w->size) && !w->end &&
		    !window_slide(sc, w, &pos))
			break;
		pos = json_skip_space(w->buf, w->len, pos);
		if (pos == w->len && !w->end)
			continue;
		if (w->base + pos >= c->end)
			break;
		if (run_start == SIZE_MAX)
			run_start = w->base + pos;
		if (scan_datum_shaped(&c->shapes, w->buf, w->len, pos,
		    sc->nstates, &d) &&
		    d.next - pos <= MAX_RECORD) {
			chunk_datum *cd;

			if (c->ndata == c->data_cap)
				grow_array(&c->data, &c->data_cap, c->ndata + 1,
				    sizeof (chunk_datum));
			cd = &c->data[c->ndata++];
			cd->time = d.time;
			cd->record = (uint32_t)(w->base + pos - c->start);
			cd->entity = chunk_name(c, d.entity, d.entity_len,
			    w->buf + w->len);
			cd->state = (uint16_t)d.state;
			cd->tag = d.tag == NULL ? 0 :
			    (uint16_t)(d.tag - (w->buf + pos));
			cd->tag_len = (uint32_t)d.tag_len;
			pos = d.next;
			continue;
		}
		/* It may only be cut short by the window: see it whole. */
		if (!w->end && pos > 0 && w->len - pos <= MAX_RECORD) {
			if (!window_slide(sc, w, &pos))
				break;
			continue;
		}
		/* Anything else ends the run; step over it if we can. */
		add_run(c, run_start, w->base + pos, first);
		json_arena_reset(arena);
		next = pos;
		if (json_parse_value(arena, w->buf, w->len, &next, &jerr) ==
		    NULL)
			break;	/* the rest is for the serial parse to judge */
		pos = next;
		run_start = SIZE_MAX;	/* where the next record is */
		first = c->ndata;
	}
	add_run(c, run_start, w->base + pos, first);
}

/* Scans a chunk, then sorts its runs for a consumer that takes bulk. */
static void
scan_and_sort(const scanner *sc, chunk *c, window *w, json_arena *arena)
{
	size_t i, nnames;

	scan_chunk(sc, c, w, arena);
	nnames = intern_count(c->names);
	c->ngroups = 0;
	if (!sc->bulk)
		return;
	if (c->sorted_cap < c->ndata) {
		c->sorted_cap = c->data_cap;
		c->times = xrealloc(c->times, c->sorted_cap * sizeof (uint64_t));
		c->states = xrealloc(c->states,
		    c->sorted_cap * sizeof (uint16_t));
	}
	if (c->scratch_cap < nnames) {
		c->scratch_cap = nnames;
		c->slot_of = xrealloc(c->slot_of, nnames * sizeof (size_t));
		c->seen_in = xrealloc(c->seen_in, nnames * sizeof (size_t));
	}
	if (nnames > 0)
		memset(c->seen_in, 0, nnames * sizeof (size_t));
	for (i = 0; i < c->nruns; i++)
		sort_run(c, i);
}

/* The end of a chunk that starts at start: just past a line end. */
static size_t
chunk_end(const scanner *sc, size_t start)
{
	const char *nl;

	if (sc->len - start <= sc->chunk_bytes)
		return (sc->len);
	nl = memchr(sc->buf + start + sc->chunk_bytes, '\n',
	    sc->len - start - sc->chunk_bytes);
	return (nl == NULL ? sc->len : (size_t)(nl + 1 - sc->buf));
}

static void *
scan_thread(void *arg)
{
	scanner *sc = arg;
	json_arena *arena = json_arena_new();
	window w;

	w.size = sc->window_bytes;
	w.buf = xmalloc(w.size);
	pthread_mutex_lock(&sc->lock);
	for (;;) {
		chunk *c = &sc->slots[sc->next_seq % sc->nslots];

		if (sc->stop || sc->next_start >= sc->len)
			break;
		if (c->seq != SIZE_MAX) {	/* not yet taken */
			pthread_cond_wait(&sc->work, &sc->lock);
			continue;
		}
		c->seq = sc->next_seq++;
		c->done = 0;
		c->start = sc->next_start;
		c->end = chunk_end(sc, c->start);
		sc->next_start = c->end;
		pthread_mutex_unlock(&sc->lock);
		scan_and_sort(sc, c, &w, arena);
		pthread_mutex_lock(&sc->lock);
		c->done = 1;
		pthread_cond_broadcast(&sc->ready);
	}
	pthread_mutex_unlock(&sc->lock);
	json_arena_free(arena);
	free(w.buf);
	return (NULL);
}

/* The trace's id for a chunk's entity number, looked up on first use. */
static uint32_t
chunk_entity(ingest *in, chunk *c, uint32_t local)
{
	if (c->ids[local] == UNMAPPED) {
		size_t len;
		const char *name = intern_name(c->names, local, &len);

		c->ids[local] = entity_id(in, name, len);
	}
	return (c->ids[local]);
}

/*
 * Takes a sorted run in bulk, all or nothing: returns 0, having taken
 * nothing, if an entity's first time in it goes back before its last one
 * (then one by one finds which datum does it).
 */
static int
take_sorted_run(ingest *in, chunk *c, const chunk_run *r, size_t at)
{
	catalog *cat = in->cat;
	double done = (double)r->end / (double)in->rd.len;
	size_t g;

	for (g = r->group; g < r->group + r->ngroups; g++) {
		const chunk_group *grp = &c->groups[g];
		uint32_t e = chunk_entity(in, c, grp->entity);

		if (e != CATALOG_NO_ENTITY &&
		    c->times[grp->first] < in->last_time[e])
			return (0);
	}
	for (g = r->group; g < r->group + r->ngroups; g++) {
		const chunk_group *grp = &c->groups[g];
		uint32_t e = c->ids[grp->entity];

		if (e == CATALOG_NO_ENTITY)
			continue;
		in->opts->data(in->ctx, cat, e, c->times + grp->first,
		    c->states + grp->first, grp->count, done);
		in->last_time[e] = c->times[grp->first + grp->count - 1];
	}
	count_data(in, r->count, c->data[r->first + r->count - 1].time);
	in->threaded += r->count;
	if (in->progress != NULL)
		progress_update(in->progress, at, at, cat->nrecords);
	return (1);
}

/*
 * Takes the runs of a scanned chunk that line up with *pos, and parses
 * everything else in it here.
 */
static int
take_chunk(ingest *in, chunk *c, size_t *pos)
{
	size_t i, k, n = intern_count(c->names);

	if (checkpoint(in, *pos) != 0)
		return (-1);
	grow_array(&c->ids, &c->ids_cap, n + 1, sizeof (uint32_t));
	for (k = 0; k < n; k++)
		c->ids[k] = UNMAPPED;
	for (i = 0; i < c->nruns; i++) {
		const chunk_run *r = &c->runs[i];

		if (r->start > *pos && parse_records(in, pos, r->start) != 0)
			return (-1);
		if (r->start != *pos)
			continue;
		if (r->ngroups > 0 && take_sorted_run(in, c, r, r->end)) {
			*pos = r->end;
			continue;
		}
		for (k = r->first; k < r->first + r->count; k++) {
			const chunk_datum *cd = &c->data[k];
			size_t at = c->start + cd->record;

			if (!deliver_datum(in, chunk_entity(in, c, cd->entity),
			    cd->time, cd->state, cd->tag == 0 ? NULL :
			    in->rd.buf + at + cd->tag, cd->tag_len)) {
				/* Backwards in time: the serial code says so. */
				*pos = at;
				return (parse_records(in, pos, c->end));
			}
			in->threaded++;
			if (report(in, at) != 0)
				return (-1);
		}
		*pos = r->end;
	}
	return (parse_records(in, pos, c->end));
}

static void
free_chunk(chunk *c)
{
	free(c->data);
	free(c->runs);
	free(c->ids);
	intern_free(c->names);
	free(c->groups);
	free(c->times);
	free(c->states);
	free(c->slot_of);
	free(c->seen_in);
	free(c->short_keys);
	free(c->short_ids);
}

/* Parses from *pos to the end with nthreads scanning threads. */
static int
parse_parallel(ingest *in, size_t *pos, int nthreads, size_t chunk_bytes)
{
	scanner sc;
	pthread_t *threads = xcalloc((size_t)nthreads, sizeof (pthread_t));
	int started = 0, rv = 0;
	size_t seq, i;

	memset(&sc, 0, sizeof (sc));
	sc.src = in->rd.src;
	sc.buf = in->rd.buf;
	sc.len = in->rd.len;
	sc.nstates = in->cat->nstates;
	sc.bulk = in->opts->data != NULL;
	sc.chunk_bytes = chunk_bytes;
	sc.window_bytes = size_from_env("STATEMAP_WINDOW_BYTES", WINDOW_BYTES);
	sc.nslots = 2 * (size_t)nthreads + 2;
	sc.slots = xcalloc(sc.nslots, sizeof (chunk));
	for (i = 0; i < sc.nslots; i++)
		sc.slots[i].seq = SIZE_MAX;
	sc.next_start = *pos;
	pthread_mutex_init(&sc.lock, NULL);
	pthread_cond_init(&sc.work, NULL);
	pthread_cond_init(&sc.ready, NULL);
	while (started < nthreads && pthread_create(&threads[started], NULL,
	    scan_thread, &sc) == 0)
		started++;

	for (seq = 0; started > 0 && rv == 0; seq++) {
		chunk *c = &sc.slots[seq % sc.nslots];

		pthread_mutex_lock(&sc.lock);
		while (!(c->seq == seq && c->done) &&
		    !(seq >= sc.next_seq && sc.next_start >= sc.len))
			pthread_cond_wait(&sc.ready, &sc.lock);
		pthread_mutex_unlock(&sc.lock);
		if (!(c->seq == seq && c->done))
			break;		/* every chunk taken */
		rv = take_chunk(in, c, pos);
		in->nchunks++;
		reader_release(&in->rd, *pos);
		pthread_mutex_lock(&sc.lock);
		c->seq = SIZE_MAX;
		pthread_cond_broadcast(&sc.work);
		pthread_mutex_unlock(&sc.lock);
	}

	pthread_mutex_lock(&sc.lock);
	sc.stop = 1;
	pthread_cond_broadcast(&sc.work);
	pthread_mutex_unlock(&sc.lock);
	for (i = 0; i < (size_t)started; i++)
		pthread_join(threads[i], NULL);
	pthread_mutex_destroy(&sc.lock);
	pthread_cond_destroy(&sc.work);
	pthread_cond_destroy(&sc.ready);
	for (i = 0; i < sc.nslots; i++)
		free_chunk(&sc.slots[i]);
	free(sc.slots);
	free(threads);
	/* Whatever no chunk covered (all of it if no thread started). */
	return (rv != 0 ? -1 : parse_records(in, pos, SIZE_MAX));
}

/*
 * Parses the whole input: the metadata first, on this thread (scanning
 * needs the number of states), then the rest in parallel when the input
 * is a mapped file large enough for it to pay.
 */
static int
parse_all(ingest *in, size_t *pos)
{
	int nthreads = threads_count();
	size_t bytes = size_from_env("STATEMAP_CHUNK_BYTES", CHUNK_BYTES);

	if (!in->rd.mapped || nthreads < 2)
		return (parse_records(in, pos, SIZE_MAX));
	while (!metadata_complete(in)) {
		*pos = json_skip_space(in->rd.buf, in->rd.len, *pos);
		if (*pos == in->rd.len)
			break;
		if (parse_records(in, pos, *pos + 1) != 0)
			return (-1);
	}
	if (!metadata_complete(in) || in->rd.len - *pos < 2 * bytes)
		return (parse_records(in, pos, SIZE_MAX));
	return (parse_parallel(in, pos, nthreads, bytes));
}

static int
run(ingest *in)
{
	size_t pos = 0;

	if (parse_all(in, &pos) != 0)
		return (-1);
	/* For tests: that the threads do the work, not just get it right. */
	if (debug_on("scan"))
		fprintf(stderr, "%s: %" PRIu64 " of %" PRIu64 " data taken "
		    "from %" PRIu64 " chunks read by threads\n", in->name,
		    in->threaded, in->cat->ndata, in->nchunks);
	if (!in->any_record)
		return (fail(in, pos, "empty input: expected a metadata object "
		    "with \"start\" and \"states\""));
	if (!(in->meta_seen & META_STATES))
		return (fail(in, pos, "input ended without metadata field "
		    "\"states\""));
	if (!(in->meta_seen & META_START))
		return (fail(in, pos, "input ended without metadata field "
		    "\"start\""));
	return (0);
}

static void
ingest_init(ingest *in, const char *name, catalog *cat,
    const ingest_options *opts, ingest_datum_fn datum, void *ctx,
    sm_error *err)
{
	static const ingest_options defaults;

	memset(in, 0, sizeof (*in));
	in->name = name;
	in->cat = cat;
	in->opts = opts != NULL ? opts : &defaults;
	in->datum = datum;
	in->ctx = ctx;
	in->err = err;
	in->arena = json_arena_new();
	in->rejected = intern_new();
	scan_shapes_init(&in->shapes);
}

static void
ingest_fini(ingest *in)
{
	json_arena_free(in->arena);
	intern_free(in->rejected);
	free(in->last_time);
}

int
ingest_file(const char *path, catalog *cat, const ingest_options *opts,
    ingest_datum_fn datum, void *ctx, sm_error *err)
{
	ingest in;
	int rv = -1;

	ingest_init(&in, strcmp(path, "-") == 0 ? "<stdin>" : path, cat, opts,
	    datum, ctx, err);
	if (reader_open(&in, path) == 0) {
		in.progress = progress_new(in.name, source_size(in.rd.src));
		rv = run(&in);
		progress_end(in.progress);
	}
	reader_close(&in.rd);
	ingest_fini(&in);
	return (rv);
}

int
ingest_buffer(const char *name, const char *buf, size_t len, catalog *cat,
    const ingest_options *opts, ingest_datum_fn datum, void *ctx,
    sm_error *err)
{
	ingest in;
	int rv;

	ingest_init(&in, name, cat, opts, datum, ctx, err);
	in.rd.buf = buf;
	in.rd.len = len;
	in.rd.eof = 1;
	rv = run(&in);
	ingest_fini(&in);
	return (rv);
}
