#include "ingest/records.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/color.h"
#include "store/store.h"
#include "base/util.h"

/* The metadata fields, each of which may be given once. */
enum {
	META_START = 1 << 0,
	META_STATES = 1 << 1,
	META_TITLE = 1 << 2,
	META_HOST = 1 << 3,
	META_KIND = 1 << 4
};

/* ---- errors ---- */

static int
vfail(records *r, size_t offset, const char *fmt, va_list ap)
{
	uint64_t line, col;
	char msg[sizeof (r->err->message)];

	vsnprintf(msg, sizeof (msg), fmt, ap);
	reader_position(r->rd, offset, &line, &col);
	error_at(r->err, r->name, line, col, "%s", msg);
	return (-1);
}

static int __attribute__((format(printf, 3, 4)))
fail(records *r, size_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(r, offset, fmt, ap);
	va_end(ap);
	return (-1);
}

int
records_fail(records *r, size_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(r, offset, fmt, ap);
	va_end(ap);
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
expect_type(records *r, const json_value *v, json_type t, const char *what)
{
	if (v->type == t)
		return (0);
	return (fail(r, v->offset, "%s must be %s but is %s", what,
	    type_name(t), type_name(v->type)));
}

/* ---- members of a record ---- */

typedef struct fields {
	json_value *time, *entity, *state, *tag, *event, *target;
	json_value *description, *start, *states, *title, *host, *kind;
	json_value *value, *push, *pop;	/* the generic state system's */
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
		FIELD("pop", pop);
		break;
	case 4:
		FIELD("time", time);
		FIELD("host", host);
		FIELD("push", push);
		break;
	case 5:
		FIELD("state", state);
		FIELD("event", event);
		FIELD("start", start);
		FIELD("title", title);
		FIELD("value", value);
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
collect_fields(records *r, const json_value *obj, fields *f)
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
			return (fail(r, m->key_offset,
			    "member %s appears twice in one record",
			    quoted(q, sizeof (q), m->key, m->key_len)));
		}
		*slot = (json_value *)m;
	}
	return (0);
}

/* Fails on the first member that is set but not allowed in this kind. */
static int
only_members(records *r, const fields *f, const char *kind,
    const json_value *const *allowed, size_t nallowed)
{
	const json_value *all[] = { f->time, f->entity, f->state, f->tag,
	    f->event, f->target, f->description, f->start, f->states,
	    f->title, f->host, f->kind, f->value, f->push, f->pop, f->other };
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
	return (fail(r, worst->key_offset, "unexpected member %s in %s",
	    quoted(q, sizeof (q), worst->key, worst->key_len), kind));
}

static int
need_member(records *r, const json_value *obj, const json_value *m,
    const char *name, const char *kind)
{
	if (m != NULL)
		return (0);
	return (fail(r, obj->offset, "%s is missing member \"%s\"", kind,
	    name));
}

/* ---- values ---- */

/* A time member (what names it in errors: "time", "end"). */
static int
parse_time_of(records *r, const json_value *v, const char *what,
    uint64_t *out)
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
		return (fail(r, v->offset, "%s %s is not a non-negative "
		    "integer number of nanoseconds below 2^63", what,
		    quoted(q, sizeof (q), v->str, v->len)));
	}
	if (v->type == JSON_NUMBER) {
		if (json_number_u64(v, out) && *out <= (uint64_t)INT64_MAX)
			return (0);
		return (fail(r, v->offset, "%s %.*s is not a non-negative "
		    "integer number of nanoseconds below 2^63", what,
		    (int)(v->len > 40 ? 40 : v->len), v->str));
	}
	return (fail(r, v->offset, "%s must be a string of digits or a "
	    "number but is %s", what, type_name(v->type)));
}

static int
parse_time(records *r, const json_value *v, uint64_t *out)
{
	return (parse_time_of(r, v, "time", out));
}

static int
parse_state(records *r, const json_value *v, uint32_t *out)
{
	uint64_t s;

	if (expect_type(r, v, JSON_NUMBER, "state") != 0)
		return (-1);
	if (!json_number_u64(v, &s)) {
		return (fail(r, v->offset, "state %.*s is not a state value "
		    "(a non-negative integer)",
		    (int)(v->len > 40 ? 40 : v->len), v->str));
	}
	if (s >= r->cat->nstates) {
		return (fail(r, v->offset, "state %llu is not defined: the "
		    "metadata defines states 0 to %u",
		    (unsigned long long)s, r->cat->nstates - 1));
	}
	*out = (uint32_t)s;
	return (0);
}

/*
 * For each member of an object, in order, whether it is the last with
 * its key (malloc'd).  A member given twice keeps its last value, as
 * JSON readers do, so that no output ever holds a key twice: the keys
 * are counted first, and a member is written only at its key's last use.
 */
static unsigned char *
last_uses(const json_value *obj)
{
	const json_value *m;
	intern *keys = intern_new();
	size_t *uses = NULL, uses_cap = 0, n = 0, i;
	unsigned char *last;

	for (m = obj->child; m != NULL; m = m->next, n++) {
		int added = 0;
		uint32_t id = intern_add(keys, m->key, m->key_len, &added);

		grow_array(&uses, &uses_cap, (size_t)id + 1, sizeof (size_t));
		if (added)
			uses[id] = 0;
		uses[id]++;
	}
	last = xcalloc(n + 1, 1);
	for (m = obj->child, i = 0; m != NULL; m = m->next, i++)
		last[i] = --uses[intern_find(keys, m->key, m->key_len)] == 0;
	free(uses);
	intern_free(keys);
	return (last);
}

/*
 * Writes a parsed value back out as compact JSON, strings made safe; in
 * an object, a key given twice keeps its last value (last_uses).
 */
static void
write_value(FILE *out, const json_value *v)
{
	const json_value *m;
	unsigned char *last = NULL;
	size_t i;
	int n = 0;

	switch (v->type) {
	case JSON_NULL: fputs("null", out); break;
	case JSON_TRUE: fputs("true", out); break;
	case JSON_FALSE: fputs("false", out); break;
	case JSON_NUMBER: fwrite(v->str, 1, v->len, out); break;
	case JSON_STRING: json_write_string(out, v->str, v->len); break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		if (v->type == JSON_OBJECT)
			last = last_uses(v);
		fputc(v->type == JSON_ARRAY ? '[' : '{', out);
		for (m = v->child, i = 0; m != NULL; m = m->next, i++) {
			if (last != NULL && !last[i])
				continue;
			if (n++ > 0)
				fputc(',', out);
			if (v->type == JSON_OBJECT) {
				json_write_string(out, m->key, m->key_len);
				fputc(':', out);
			}
			write_value(out, m);
		}
		fputc(v->type == JSON_ARRAY ? ']' : '}', out);
		free(last);
		break;
	}
}

/* ---- records ---- */

static int
need_metadata(records *r, const json_value *obj, const char *kind)
{
	if (!(r->meta_seen & META_STATES)) {
		return (fail(r, obj->offset, "%s before the metadata: "
		    "expected an object with \"states\" first", kind));
	}
	if (!(r->meta_seen & META_START)) {
		return (fail(r, obj->offset, "%s before the metadata: "
		    "expected an object with \"start\" first", kind));
	}
	return (0);
}

/* ---- nested states and values ---- */

/* The states pushed on a nested entity, above the one a datum gave it. */
typedef struct records_stack {
	uint16_t *states;
	uint32_t n, cap;
} records_stack;

/* Room for a stack per entity, the new ones (from old) empty. */
static void
grow_stacks(records *r, size_t old)
{
	r->stacks = xrealloc(r->stacks, r->last_time_cap *
	    sizeof (records_stack));
	memset(r->stacks + old, 0, (r->last_time_cap - old) *
	    sizeof (records_stack));
}

uint32_t
records_entity(records *r, const char *name, size_t len)
{
	catalog *cat = r->cat;
	uint32_t id = intern_find(cat->entities, name, len);

	if (id != INTERN_NONE)
		return (id);	/* known: its arrays are already sized */
	if (r->opts->filter != NULL) {
		uint32_t seen;
		const char *s;

		if (intern_find(r->rejected, name, len) != INTERN_NONE)
			return (CATALOG_NO_ENTITY);
		/* intern copies are NUL-terminated, as regexec needs. */
		seen = intern_add(r->rejected, name, len, NULL);
		s = intern_name(r->rejected, seen, NULL);
		if (regexec(r->opts->filter, s, 0, NULL, 0) != 0)
			return (CATALOG_NO_ENTITY);
	}
	id = catalog_entity(cat, name, len);
	if (id >= r->last_time_cap) {
		size_t old = r->last_time_cap;

		grow_array(&r->last_time, &r->last_time_cap, (size_t)id + 1,
		    sizeof (uint64_t));
		memset(r->last_time + old, 0,
		    (r->last_time_cap - old) * sizeof (uint64_t));
		r->kind = xrealloc(r->kind, r->last_time_cap);
		memset(r->kind + old, RECORDS_NEW, r->last_time_cap - old);
		if (r->stacks != NULL)
			grow_stacks(r, old);
	}
	return (id);
}

static int wrong_kind(records *r, const json_value *m,
    const json_value *name);
static void set_nested(records *r, uint32_t entity, uint64_t time,
    uint32_t state, const char *tag, size_t tag_len);

/*
 * A datum at time counted, and its entity's id in *entity, checked for
 * time going backwards: 1, or 0 for a datum to skip (an entity that -f
 * leaves out), or -1 with the error set.
 */
static int
datum_entity(records *r, const fields *f, uint64_t time, uint32_t *entity)
{
	catalog *cat = r->cat;
	char q[96];

	cat->ndata++;
	cat->have_data = 1;
	cat->last_time = time;
	*entity = records_entity(r, f->entity->str, f->entity->len);
	if (*entity == CATALOG_NO_ENTITY)
		return (0);
	if (time < r->last_time[*entity]) {
		return (fail(r, f->time->offset, "time %llu for entity %s is "
		    "before its previous time %llu: time must not go "
		    "backwards for an entity", (unsigned long long)time,
		    quoted(q, sizeof (q), f->entity->str, f->entity->len),
		    (unsigned long long)r->last_time[*entity]));
	}
	return (1);
}

static int
do_datum(records *r, const json_value *obj, const fields *f)
{
	const json_value *allowed[] = { f->time, f->entity, f->state, f->tag };
	catalog *cat = r->cat;
	uint64_t time;
	uint32_t entity, state;
	const char *tag = NULL;
	size_t tag_len = 0;
	int rv;

	if (only_members(r, f, "a datum", allowed, 4) != 0 ||
	    need_member(r, obj, f->entity, "entity", "datum") != 0 ||
	    need_member(r, obj, f->state, "state", "datum") != 0 ||
	    need_metadata(r, obj, "datum") != 0 ||
	    parse_time(r, f->time, &time) != 0 ||
	    expect_type(r, f->entity, JSON_STRING, "entity") != 0 ||
	    parse_state(r, f->state, &state) != 0)
		return (-1);
	if (f->tag != NULL && f->tag->type != JSON_NULL &&
	    expect_type(r, f->tag, JSON_STRING, "tag") != 0)
		return (-1);

	if ((rv = datum_entity(r, f, time, &entity)) <= 0)
		return (rv);
	if (r->kind[entity] >= RECORDS_VALUES)
		return (wrong_kind(r, f->state, f->entity));
	r->last_time[entity] = time;
	if (f->tag != NULL && f->tag->type == JSON_STRING &&
	    !r->opts->ignore_tags) {
		tag = f->tag->str;
		tag_len = f->tag->len;
	}
	if (r->kind[entity] == RECORDS_NESTED) {
		set_nested(r, entity, time, state, tag, tag_len);
		return (0);
	}
	r->kind[entity] = RECORDS_PLAIN;
	r->datum(r->ctx, cat, entity, time, state, tag == NULL ?
	    CATALOG_NO_TAG : catalog_tag_name(cat, tag, tag_len));
	return (0);
}

/*
 * A value (a number, a string or null: value.h).  Numbers must be
 * finite: NaN cannot be written in JSON, and 1e999 overflows a double.
 */
static int
parse_value(records *r, const json_value *v, sm_value *out)
{
	double d;

	switch (v->type) {
	case JSON_NULL:
		*out = VALUE_NONE;
		return (0);
	case JSON_NUMBER:
		d = json_number_double(v);
		if (!isfinite(d))
			return (fail(r, v->offset, "value %.*s is beyond the "
			    "largest number (about 1.8e308)",
			    (int)(v->len > 40 ? 40 : v->len), v->str));
		*out = value_number(d);
		return (0);
	case JSON_STRING:
		*out = value_string(intern_add(r->cat->value_strings, v->str,
		    v->len, NULL));
		return (0);
	default:
		return (fail(r, v->offset, "value must be a number, a string "
		    "or null but is %s", type_name(v->type)));
	}
}

/* The state a push or pop names: its value, or its name. */
static int
parse_stack_state(records *r, const json_value *v, const char *what,
    uint32_t *out)
{
	char q[96];
	int64_t s;

	if (v->type == JSON_NUMBER)
		return (parse_state(r, v, out));
	if (v->type != JSON_STRING)
		return (fail(r, v->offset, "%s must be a state (its value or "
		    "its name) but is %s", what, type_name(v->type)));
	s = catalog_state_by_name(r->cat, v->str, v->len);
	if (s < 0)
		return (fail(r, v->offset, "state %s is not defined: the "
		    "metadata defines no state of that name",
		    quoted(q, sizeof (q), v->str, v->len)));
	*out = (uint32_t)s;
	return (0);
}

/* A datum member (m) that does not fit what the entity's data are. */
static int
wrong_kind(records *r, const json_value *m, const json_value *name)
{
	uint32_t e = intern_find(r->cat->entities, name->str, name->len);
	uint8_t k = r->kind[e];
	char q[96], key[32];

	quoted(key, sizeof (key), m->key, m->key_len);
	quoted(q, sizeof (q), name->str, name->len);
	if (k >= RECORDS_VALUES)
		return (fail(r, m->key_offset, "entity %s has values, so a "
		    "datum of it has \"value\", not %s: an entity is a value "
		    "entity or a state entity, not both", q, key));
	return (fail(r, m->key_offset, "entity %s has states, so a datum of "
	    "it has \"state\", \"push\" or \"pop\", not %s: an entity is a "
	    "value entity or a state entity, not both", q, key));
}

static const char *
state_quoted(records *r, uint32_t s, char *q, size_t size)
{
	return (quoted(q, size, r->cat->states[s].name,
	    r->cat->states[s].name_len));
}

/* Pops the top state (which is state) of a checked nested entity. */
static void
pop_state(records *r, uint32_t entity, uint64_t time, uint32_t state)
{
	r->stacks[entity].n--;
	r->last_time[entity] = time;
	r->opts->nested(r->ctx, r->cat, entity, time, INGEST_POP, state,
	    NULL, 0);
}

/* Pushes state on a checked entity that has a state (tag as a datum's). */
static void
push_state(records *r, uint32_t entity, uint64_t time, uint32_t state,
    const char *tag, size_t tag_len)
{
	records_stack *st = &r->stacks[entity];

	if (st->n == st->cap) {
		st->cap = st->cap == 0 ? 8 : st->cap * 2;
		st->states = xrealloc(st->states, st->cap * sizeof (uint16_t));
	}
	st->states[st->n++] = (uint16_t)state;
	r->kind[entity] = RECORDS_NESTED;
	r->last_time[entity] = time;
	if (r->opts->ignore_tags)
		tag = NULL;
	r->opts->nested(r->ctx, r->cat, entity, time, INGEST_PUSH, state,
	    tag, tag == NULL ? 0 : tag_len);
}

/* A plain datum of a nested entity: it replaces the whole stack. */
static void
set_nested(records *r, uint32_t entity, uint64_t time, uint32_t state,
    const char *tag, size_t tag_len)
{
	r->stacks[entity].n = 0;
	r->last_time[entity] = time;
	r->opts->nested(r->ctx, r->cat, entity, time, INGEST_SET, state,
	    tag, tag_len);
}

/*
 * What a value of an entity whose data have made it k makes it
 * (RECORDS_VALUES...), or RECORDS_NEW if the value does not fit it.
 */
static uint8_t
value_kind(uint8_t k, sm_value v)
{
	uint8_t want;

	if (k != RECORDS_NEW && k < RECORDS_VALUES)
		return (RECORDS_NEW);
	want = value_is_number(v) ? RECORDS_NUMBERS : value_is_string(v) ?
	    RECORDS_STRINGS : k == RECORDS_NEW ? RECORDS_VALUES : k;
	return (k > RECORDS_VALUES && want != k ? RECORDS_NEW : want);
}

/* A checked value, which makes its entity want (value_kind). */
static void
set_value(records *r, uint32_t entity, uint64_t time, sm_value v,
    uint8_t want)
{
	r->kind[entity] = want;
	r->last_time[entity] = time;
	r->opts->value(r->ctx, r->cat, entity, time, v);
}

/* A push or pop of a state entity: checked against its stack. */
static int
nest(records *r, const fields *f, uint32_t entity, uint64_t time,
    uint32_t state)
{
	records_stack *st;
	const char *tag = NULL;
	size_t tag_len = 0;
	char q[96], q2[96], q3[96];

	if (r->kind[entity] >= RECORDS_VALUES)
		return (wrong_kind(r, f->push != NULL ? f->push : f->pop,
		    f->entity));
	quoted(q, sizeof (q), f->entity->str, f->entity->len);
	if (r->kind[entity] == RECORDS_NEW)
		return (fail(r, (f->push != NULL ? f->push : f->pop)->key_offset,
		    "%s on entity %s, which has no state yet: a push enters "
		    "a state on top of another, so give the entity its first "
		    "state with a datum (\"state\")",
		    f->push != NULL ? "push" : "pop", q));
	if (r->stacks == NULL)
		grow_stacks(r, 0);
	st = &r->stacks[entity];
	if (f->pop != NULL) {
		if (r->kind[entity] == RECORDS_PLAIN || st->n == 0)
			return (fail(r, f->pop->key_offset, "pop on entity %s, "
			    "which has nothing pushed: a state a datum gave "
			    "is replaced by another datum, not popped", q));
		if (st->states[st->n - 1] != state)
			return (fail(r, f->pop->offset, "pop of state %s on "
			    "entity %s, whose top state is %s",
			    state_quoted(r, state, q2, sizeof (q2)), q,
			    state_quoted(r, st->states[st->n - 1], q3,
			    sizeof (q3))));
		pop_state(r, entity, time, state);
		return (0);
	}
	if (st->n + 1 >= STORE_MAX_DEPTH)
		return (fail(r, f->push->key_offset, "push on entity %s would "
		    "make its stack %u states deep: at most %u are supported",
		    q, st->n + 2, STORE_MAX_DEPTH));
	if (f->tag != NULL && f->tag->type == JSON_STRING) {
		tag = f->tag->str;
		tag_len = f->tag->len;
	}
	push_state(r, entity, time, state, tag, tag_len);
	return (0);
}

/* A value of a value entity: numbers or strings, not both. */
static int
take_value(records *r, const fields *f, uint32_t entity, uint64_t time,
    sm_value v)
{
	uint8_t k = r->kind[entity], want;
	char q[96];

	if (k != RECORDS_NEW && k < RECORDS_VALUES)
		return (wrong_kind(r, f->value, f->entity));
	if ((want = value_kind(k, v)) == RECORDS_NEW)
		return (fail(r, f->value->offset, "entity %s has %s values, so "
		    "a value of it is %s or null, not %s",
		    quoted(q, sizeof (q), f->entity->str, f->entity->len),
		    k == RECORDS_NUMBERS ? "number" : "string",
		    k == RECORDS_NUMBERS ? "a number" : "a string",
		    value_is_number(v) ? "a number" : "a string"));
	set_value(r, entity, time, v, want);
	return (0);
}

/* A datum with "value", "push" or "pop" instead of "state". */
static int
do_special(records *r, const json_value *obj, const fields *f)
{
	const json_value *all[] = { f->state, f->value, f->push, f->pop };
	const json_value *first = NULL, *second = NULL, *op;
	const json_value *allowed[] = { f->time, f->entity, NULL, NULL };
	const char *kind;
	uint64_t time;
	uint32_t entity, state = 0;
	sm_value v = VALUE_NONE;
	size_t i;
	int rv;
	char q[96], q2[96];

	for (i = 0; i < 4; i++) {
		if (all[i] == NULL)
			continue;
		if (first == NULL || all[i]->key_offset < first->key_offset) {
			second = first;
			first = all[i];
		} else if (second == NULL ||
		    all[i]->key_offset < second->key_offset) {
			second = all[i];
		}
	}
	if (second != NULL)
		return (fail(r, second->key_offset, "a datum has one of "
		    "\"state\", \"value\", \"push\" and \"pop\", but this one "
		    "has %s and %s", quoted(q, sizeof (q), first->key,
		    first->key_len), quoted(q2, sizeof (q2), second->key,
		    second->key_len)));
	op = first;
	allowed[2] = op;
	kind = op == f->value ? "a value datum" : op == f->push ? "a push" :
	    "a pop";
	if (op == f->push)
		allowed[3] = f->tag;
	if (only_members(r, f, kind, allowed, 4) != 0 ||
	    need_member(r, obj, f->entity, "entity", kind + 2) != 0 ||
	    need_metadata(r, obj, kind + 2) != 0 ||
	    parse_time(r, f->time, &time) != 0 ||
	    expect_type(r, f->entity, JSON_STRING, "entity") != 0)
		return (-1);
	if (op == f->value) {
		if (parse_value(r, op, &v) != 0)
			return (-1);
	} else if (parse_stack_state(r, op, op == f->push ? "push" : "pop",
	    &state) != 0) {
		return (-1);
	}
	if (f->tag != NULL && f->tag->type != JSON_NULL &&
	    expect_type(r, f->tag, JSON_STRING, "tag") != 0)
		return (-1);
	if (op == f->value ? r->opts->value == NULL : r->opts->nested == NULL)
		return (fail(r, op->key_offset, "%s are not drawn by the "
		    "classic statemap yet: read this trace with a script "
		    "(statemap.load)", op == f->value ? "values" :
		    "nested states"));

	if ((rv = datum_entity(r, f, time, &entity)) <= 0)
		return (rv);
	if (op == f->value)
		return (take_value(r, f, entity, time, v));
	return (nest(r, f, entity, time, state));
}

/*
 * The members of an event besides time, entity, event and target: "end"
 * (when a message was received: a time, not before "time"), "id" (a
 * non-empty string matching the parts of one message) and any others,
 * written as JSON object members like a tag definition's (a member given
 * twice keeps its last value).  *members is malloc'd, or NULL if none.
 */
static int
event_extra(records *r, const json_value *obj, const fields *f,
    uint64_t time, uint64_t *end, const json_value **id, char **members,
    size_t *members_len)
{
	const json_value *m, *end_v = NULL;
	unsigned char *last;
	FILE *out = NULL;
	size_t i;
	int n = 0;
	char q[96];

	*end = CATALOG_NO_END;
	*id = NULL;
	*members = NULL;
	*members_len = 0;
	if (f->other == NULL && f->state == NULL && f->tag == NULL &&
	    f->description == NULL && f->start == NULL && f->states == NULL &&
	    f->title == NULL && f->host == NULL && f->kind == NULL &&
	    f->value == NULL && f->push == NULL && f->pop == NULL)
		return (0);	/* a plain event, as every event used to be */
	for (m = obj->child; m != NULL; m = m->next) {
		const json_value **slot = key_is(m, "id", 2) ? id :
		    key_is(m, "end", 3) ? &end_v : NULL;

		if (slot == NULL)
			continue;
		if (*slot != NULL)
			return (fail(r, m->key_offset, "member %s appears "
			    "twice in one record", quoted(q, sizeof (q),
			    m->key, m->key_len)));
		*slot = m;
	}
	if (*id != NULL && (*id)->type == JSON_NULL)
		*id = NULL;
	if (*id != NULL && expect_type(r, *id, JSON_STRING,
	    "the event's \"id\"") != 0)
		return (-1);
	if (*id != NULL && (*id)->len == 0)
		return (fail(r, (*id)->offset, "the event's \"id\" is empty: "
		    "an id names a message"));
	if (end_v != NULL && end_v->type != JSON_NULL) {
		if (parse_time_of(r, end_v, "end", end) != 0)
			return (-1);
		if (*end < time)
			return (fail(r, end_v->offset, "end %llu is before "
			    "time %llu: a message is received (end) after it "
			    "is sent (time)", (unsigned long long)*end,
			    (unsigned long long)time));
	}
	last = last_uses(obj);
	for (m = obj->child, i = 0; m != NULL; m = m->next, i++) {
		if (!last[i] || m == f->time || m == f->entity ||
		    m == f->event || m == f->target || key_is(m, "id", 2) ||
		    key_is(m, "end", 3))
			continue;
		if (out == NULL &&
		    (out = open_memstream(members, members_len)) == NULL) {
			free(last);
			error_set(r->err, "out of memory");
			return (-1);
		}
		if (n++ > 0)
			fputs(", ", out);
		json_write_string(out, m->key, m->key_len);
		fputs(": ", out);
		write_value(out, m);
	}
	free(last);
	if (out != NULL)
		fclose(out);
	return (0);
}

static int
do_event(records *r, const json_value *obj, const fields *f)
{
	uint64_t time, end;
	const json_value *id;
	char *members;
	size_t members_len;

	if (need_member(r, obj, f->entity, "entity", "event") != 0 ||
	    need_metadata(r, obj, "event") != 0 ||
	    parse_time(r, f->time, &time) != 0 ||
	    expect_type(r, f->entity, JSON_STRING, "entity") != 0 ||
	    expect_type(r, f->event, JSON_STRING, "event") != 0)
		return (-1);
	if (f->target != NULL && f->target->type != JSON_NULL &&
	    expect_type(r, f->target, JSON_STRING, "target") != 0)
		return (-1);
	if (event_extra(r, obj, f, time, &end, &id, &members,
	    &members_len) != 0)
		return (-1);
	catalog_add_event(r->cat, time, f->entity->str, f->entity->len,
	    f->event->str, f->event->len,
	    f->target != NULL && f->target->type == JSON_STRING ?
	    f->target->str : NULL, f->target != NULL ? f->target->len : 0);
	catalog_set_event_extra(r->cat, end, id != NULL ? id->str : NULL,
	    id != NULL ? id->len : 0, members, members_len);
	free(members);
	return (0);
}

static int
do_description(records *r, const json_value *obj, const fields *f)
{
	const json_value *allowed[] = { f->entity, f->description };
	uint32_t entity;

	if (only_members(r, f, "an entity description", allowed, 2) != 0 ||
	    need_member(r, obj, f->entity, "entity", "entity description")
	    != 0 ||
	    expect_type(r, f->entity, JSON_STRING, "entity") != 0 ||
	    expect_type(r, f->description, JSON_STRING, "description") != 0)
		return (-1);
	entity = records_entity(r, f->entity->str, f->entity->len);
	if (entity != CATALOG_NO_ENTITY)
		catalog_set_description(r->cat, entity, f->description->str,
		    f->description->len);
	return (0);
}

static int
do_tag_definition(records *r, const json_value *obj, const fields *f)
{
	const json_value *m;
	uint32_t state, tag;
	char *members = NULL;
	unsigned char *last;
	size_t size = 0, i;
	FILE *out;
	int n = 0;

	if (need_metadata(r, obj, "tag definition") != 0 ||
	    parse_state(r, f->state, &state) != 0 ||
	    expect_type(r, f->tag, JSON_STRING, "tag") != 0)
		return (-1);
	if (r->opts->ignore_tags)
		return (0);
	tag = catalog_tag_id(r->cat, state, f->tag->str, f->tag->len);
	if ((out = open_memstream(&members, &size)) == NULL) {
		error_set(r->err, "out of memory");
		return (-1);
	}
	last = last_uses(obj);
	for (m = obj->child, i = 0; m != NULL; m = m->next, i++) {
		if (!last[i] || m == f->state || m == f->tag)
			continue;
		if (n++ > 0)
			fputs(", ", out);
		json_write_string(out, m->key, m->key_len);
		fputs(": ", out);
		write_value(out, m);
	}
	free(last);
	fclose(out);
	catalog_define_tag(r->cat, tag, members);
	return (0);
}

static int
set_string(records *r, const json_value *v, char **slot, const char *what)
{
	if (expect_type(r, v, JSON_STRING, what) != 0)
		return (-1);
	free(*slot);
	*slot = xstrndup(v->str, v->len);
	return (0);
}

static int
do_start(records *r, const json_value *v)
{
	const json_value *sec, *nsec;
	uint64_t s, ns;

	if (expect_type(r, v, JSON_ARRAY, "\"start\"") != 0)
		return (-1);
	if (v->len != 2) {
		return (fail(r, v->offset, "\"start\" must be [seconds, "
		    "nanoseconds] but has %zu elements", v->len));
	}
	sec = v->child;
	nsec = sec->next;
	if (sec->type != JSON_NUMBER || !json_number_u64(sec, &s))
		return (fail(r, sec->offset, "\"start\" seconds must be a "
		    "non-negative integer"));
	if (nsec->type != JSON_NUMBER || !json_number_u64(nsec, &ns))
		return (fail(r, nsec->offset, "\"start\" nanoseconds must be "
		    "a non-negative integer"));
	r->cat->start_sec = s;
	r->cat->start_nsec = ns;
	r->cat->have_start = 1;
	return (0);
}

static int
do_states(records *r, const json_value *v)
{
	catalog *cat = r->cat;
	const json_value *m, *f;
	catalog_state *states;
	size_t n = v->len;
	char q[96], q2[96];

	if (expect_type(r, v, JSON_OBJECT, "\"states\"") != 0)
		return (-1);
	if (n == 0)
		return (fail(r, v->offset, "\"states\" is empty: a statemap "
		    "needs at least one state"));
	/* So that any trace can be loaded into a store. */
	if (n > STORE_MAX_STATES)
		return (fail(r, v->offset, "\"states\" defines %zu "
		    "states; at most %d are supported", n, STORE_MAX_STATES));
	states = xcalloc(n, sizeof (catalog_state));
	cat->states = states;
	cat->nstates = (uint32_t)n;
	/* Names in file order, to find one given twice; then by value. */
	cat->state_names = intern_new();
	for (m = v->child; m != NULL; m = m->next) {
		const json_value *value = NULL, *colour = NULL;
		uint64_t val;

		if (expect_type(r, m, JSON_OBJECT, "a state") != 0)
			return (-1);
		for (f = m->child; f != NULL; f = f->next) {
			if (key_is(f, "value", 5) && value == NULL) {
				value = f;
			} else if (key_is(f, "color", 5) && colour == NULL) {
				colour = f;
			} else {
				return (fail(r, f->key_offset, "unexpected "
				    "member %s in state %s: a state has "
				    "\"value\" and \"color\"",
				    quoted(q, sizeof (q), f->key, f->key_len),
				    quoted(q2, sizeof (q2), m->key,
				    m->key_len)));
			}
		}
		if (value == NULL)
			return (fail(r, m->offset, "state %s is missing "
			    "member \"value\"",
			    quoted(q, sizeof (q), m->key, m->key_len)));
		if (value->type != JSON_NUMBER ||
		    !json_number_u64(value, &val))
			return (fail(r, value->offset, "value of state %s "
			    "must be a non-negative integer",
			    quoted(q, sizeof (q), m->key, m->key_len)));
		if (val >= n)
			return (fail(r, value->offset, "state %s has value "
			    "%llu, but with %zu states values must be 0 to "
			    "%zu", quoted(q, sizeof (q), m->key, m->key_len),
			    (unsigned long long)val, n, n - 1));
		if (states[val].name != NULL)
			return (fail(r, value->offset, "state %s has value "
			    "%llu, which state %s already has",
			    quoted(q, sizeof (q), m->key, m->key_len),
			    (unsigned long long)val,
			    quoted(q2, sizeof (q2), states[val].name,
			    states[val].name_len)));
		if (intern_find(cat->state_names, m->key, m->key_len) !=
		    INTERN_NONE)
			return (fail(r, m->key_offset, "state %s is defined "
			    "twice", quoted(q, sizeof (q), m->key,
			    m->key_len)));
		intern_add(cat->state_names, m->key, m->key_len, NULL);
		if (colour != NULL && colour->type != JSON_NULL) {
			if (expect_type(r, colour, JSON_STRING, "a colour"))
				return (-1);
			if (!color_parse(colour->str, colour->len,
			    &states[val].color))
				return (fail(r, colour->offset, "colour %s of "
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
do_metadata(records *r, const fields *f)
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
		if (r->meta_seen & given[i].bit)
			return (fail(r, v->key_offset, "metadata field %s is "
			    "given twice", quoted(q, sizeof (q), v->key,
			    v->key_len)));
		r->meta_seen |= given[i].bit;
	}
	if ((f->start != NULL && do_start(r, f->start) != 0) ||
	    (f->states != NULL && do_states(r, f->states) != 0) ||
	    (f->title != NULL &&
	    set_string(r, f->title, &r->cat->title, "\"title\"") != 0) ||
	    (f->host != NULL &&
	    set_string(r, f->host, &r->cat->host, "\"host\"") != 0) ||
	    (f->kind != NULL && set_string(r, f->kind,
	    &r->cat->entity_kind, "\"entityKind\"") != 0))
		return (-1);
	return (0);
}

int
records_take(records *r, const json_value *obj)
{
	fields f;
	char q[96];

	if (obj->type != JSON_OBJECT)
		return (fail(r, obj->offset, "expected a JSON object (a "
		    "record) but found %s", type_name(obj->type)));
	if (collect_fields(r, obj, &f) != 0)
		return (-1);
	r->any_record = 1;

	if (f.time != NULL && f.event == NULL && f.state != NULL &&
	    f.value == NULL && f.push == NULL && f.pop == NULL) {
		r->cat->nrecords++;
		return (do_datum(r, obj, &f));
	}
	if (f.time != NULL && f.event == NULL && (f.state != NULL ||
	    f.value != NULL || f.push != NULL || f.pop != NULL)) {
		r->cat->nrecords++;
		return (do_special(r, obj, &f));
	}
	if (f.time != NULL && f.event != NULL) {
		r->cat->nrecords++;
		return (do_event(r, obj, &f));
	}
	if (f.time != NULL) {
		return (fail(r, obj->offset, "a record with \"time\" must "
		    "have \"state\" (a datum) or \"event\" (an event)"));
	}
	if (f.description != NULL) {
		r->cat->nrecords++;
		return (do_description(r, obj, &f));
	}
	if (f.tag != NULL && f.state != NULL) {
		r->cat->nrecords++;
		return (do_tag_definition(r, obj, &f));
	}
	if (f.value != NULL || f.push != NULL || f.pop != NULL)
		return (fail(r, obj->offset, "a datum with %s is missing "
		    "member \"time\"", f.value != NULL ? "\"value\"" :
		    f.push != NULL ? "\"push\"" : "\"pop\""));

	if (f.other == NULL && f.entity == NULL && f.state == NULL &&
	    f.tag == NULL && f.event == NULL && f.target == NULL &&
	    f.value == NULL && f.push == NULL && f.pop == NULL &&
	    obj->child != NULL)
		return (do_metadata(r, &f));
	if (f.other != NULL)
		return (fail(r, f.other->key_offset, "unrecognized record: "
		    "member %s is not part of a datum, event, description, "
		    "tag definition or metadata",
		    quoted(q, sizeof (q), f.other->key, f.other->key_len)));
	return (fail(r, obj->offset, "unrecognized record: expected a "
	    "datum, event, entity description, tag definition or metadata"));
}

/* ---- data scanned by the fast path ---- */

int
records_deliver_value(records *r, uint32_t entity, uint64_t time,
    sm_value v, const char *str, size_t str_len)
{
	uint8_t want = RECORDS_NEW;

	if (r->opts->value == NULL)
		return (0);
	if (entity != CATALOG_NO_ENTITY && (time < r->last_time[entity] ||
	    (want = value_kind(r->kind[entity], v)) == RECORDS_NEW))
		return (0);
	/* Interned even for an entity left out, as parse_value does. */
	if (str != NULL)
		v = value_string(intern_add(r->cat->value_strings, str,
		    str_len, NULL));
	records_count(r, 1, time);
	if (entity != CATALOG_NO_ENTITY)
		set_value(r, entity, time, v, want);
	return (1);
}

int
records_deliver_stack(records *r, uint32_t entity, uint64_t time,
    ingest_op op, uint32_t state, const char *name, size_t name_len,
    const char *tag, size_t tag_len)
{
	const records_stack *st;
	int64_t named;
	uint8_t k;

	if (r->opts->nested == NULL)
		return (0);
	if (name != NULL) {
		if ((named = catalog_state_by_name(r->cat, name, name_len)) < 0)
			return (0);
		state = (uint32_t)named;
	}
	if (entity != CATALOG_NO_ENTITY) {
		k = r->kind[entity];
		if (time < r->last_time[entity] || k == RECORDS_NEW ||
		    k >= RECORDS_VALUES || (op == INGEST_SET &&
		    k != RECORDS_NESTED))
			return (0);
		if (r->stacks == NULL)
			grow_stacks(r, 0);
		st = &r->stacks[entity];
		if (op == INGEST_POP && (k == RECORDS_PLAIN || st->n == 0 ||
		    st->states[st->n - 1] != state))
			return (0);
		if (op == INGEST_PUSH && st->n + 1 >= STORE_MAX_DEPTH)
			return (0);
	}
	records_count(r, 1, time);
	if (entity == CATALOG_NO_ENTITY)
		return (1);
	if (op == INGEST_POP)
		pop_state(r, entity, time, state);
	else if (op == INGEST_PUSH)
		push_state(r, entity, time, state, tag, tag_len);
	else
		set_nested(r, entity, time, state, r->opts->ignore_tags ?
		    NULL : tag, tag_len);
	return (1);
}


uint64_t
records_last_time(const records *r, uint32_t entity)
{
	return (r->last_time[entity]);
}

void
records_deliver_many(records *r, uint32_t entity, const uint64_t *times,
    const uint16_t *states, size_t n, double done)
{
	r->opts->data(r->ctx, r->cat, entity, times, states, n, done);
	r->last_time[entity] = times[n - 1];
	r->kind[entity] = RECORDS_PLAIN;
}

void
records_deliver_numbers(records *r, uint32_t entity, const uint64_t *times,
    const sm_value *values, size_t n, int numbers, double done)
{
	r->opts->values(r->ctx, r->cat, entity, times, values, n, done);
	r->last_time[entity] = times[n - 1];
	if (numbers)
		r->kind[entity] = RECORDS_NUMBERS;
	else if (r->kind[entity] == RECORDS_NEW)
		r->kind[entity] = RECORDS_VALUES;
}

int
records_takes_stacked(records *r, uint32_t entity, const uint64_t *times,
    const uint8_t *ops, const uint16_t *states, size_t n)
{
	const records_stack *st;
	uint32_t kept;		/* the entity's stack still under the run's */
	size_t top = 0, i;	/* the run's own pushes, in pushed[0..top) */

	if (r->opts->stack == NULL || r->kind[entity] != RECORDS_NESTED ||
	    times[0] < r->last_time[entity])
		return (0);
	st = &r->stacks[entity];
	kept = st->n;
	if (r->pushed_cap < n)
		grow_array(&r->pushed, &r->pushed_cap, n, sizeof (uint16_t));
	for (i = 0; i < n; i++) {
		switch (ops[i]) {
		case INGEST_SET:
			kept = 0;
			top = 0;
			break;
		case INGEST_PUSH:
			if (kept + top + 1 >= STORE_MAX_DEPTH)
				return (0);
			r->pushed[top++] = states[i];
			break;
		default:
			if (top > 0 ? r->pushed[top - 1] != states[i] :
			    kept == 0 || st->states[kept - 1] != states[i])
				return (0);
			if (top > 0)
				top--;
			else
				kept--;
			break;
		}
	}
	return (1);
}

void
records_deliver_stacked(records *r, uint32_t entity, const uint64_t *times,
    const uint8_t *ops, const uint16_t *states, size_t n, double done)
{
	records_stack *st = &r->stacks[entity];
	size_t i;

	for (i = 0; i < n; i++) {
		if (ops[i] == INGEST_SET) {
			st->n = 0;
		} else if (ops[i] == INGEST_POP) {
			st->n--;
		} else {
			if (st->n == st->cap) {
				st->cap = st->cap == 0 ? 8 : st->cap * 2;
				st->states = xrealloc(st->states,
				    st->cap * sizeof (uint16_t));
			}
			st->states[st->n++] = states[i];
		}
	}
	r->last_time[entity] = times[n - 1];
	r->opts->stack(r->ctx, r->cat, entity, times, ops, states, n, done);
}

/* ---- the whole input ---- */

int
records_metadata_complete(const records *r)
{
	return ((r->meta_seen & (META_START | META_STATES)) ==
	    (META_START | META_STATES));
}

void
records_init(records *r, const char *name, catalog *cat, const reader *rd,
    const ingest_options *opts, ingest_datum_fn datum, void *ctx,
    sm_error *err)
{
	memset(r, 0, sizeof (*r));
	r->name = name;
	r->cat = cat;
	r->rd = rd;
	r->opts = opts;
	r->datum = datum;
	r->ctx = ctx;
	r->err = err;
	r->rejected = intern_new();
}

void
records_fini(records *r)
{
	size_t i;

	intern_free(r->rejected);
	free(r->pushed);
	free(r->last_time);
	free(r->kind);
	if (r->stacks != NULL) {
		for (i = 0; i < r->last_time_cap; i++)
			free(r->stacks[i].states);
		free(r->stacks);
	}
}

int
records_finish(records *r, size_t pos)
{
	if (!r->any_record)
		return (fail(r, pos, "empty input: expected a metadata "
		    "object with \"start\" and \"states\""));
	if (!(r->meta_seen & META_STATES))
		return (fail(r, pos, "input ended without metadata "
		    "field \"states\""));
	if (!(r->meta_seen & META_START))
		return (fail(r, pos, "input ended without metadata "
		    "field \"start\""));
	return (0);
}
