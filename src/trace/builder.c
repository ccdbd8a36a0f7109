#include "trace/builder.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/util.h"

/* What an entity's data have made it, as in records.c. */
enum {
	KIND_NEW,		/* no datum yet */
	KIND_STATES,		/* states (plain or nested) */
	KIND_VALUES,		/* values, all none so far */
	KIND_NUMBERS,
	KIND_STRINGS
};

struct builder {
	catalog *cat;
	store *st;
	uint64_t *last_time;	/* per entity */
	uint8_t *kind;		/* per entity */
	uint8_t *bottom_pushed;	/* per entity: its stack's bottom pushed */
	size_t cap;
	uint64_t latest;	/* the latest time of any datum */
	uint64_t limit;		/* the latest time the start allows */
	char error[512];
};

static int
fail(builder *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->error, sizeof (b->error), fmt, ap);
	va_end(ap);
	return (-1);
}

/*
 * Refuses len bytes at s (NULL: none given) that are not valid UTF-8,
 * saying what they are: the writers put names as they are into XML and
 * JSON, and a file's are checked by its parser before they reach them.
 */
static int
check_text(builder *b, const char *s, size_t len, const char *what)
{
	if (s == NULL || utf8_valid(s, len))
		return (0);
	return (fail(b, "%s is not valid UTF-8 text", what));
}

static int
check_cstring(builder *b, const char *s, const char *what)
{
	return (check_text(b, s, s == NULL ? 0 : strlen(s), what));
}

builder *
builder_new(const char *name, catalog_state *states, uint32_t n,
    const char **why)
{
	builder *b;
	uint32_t i;

	for (i = 0; i < n; i++) {
		const char *c = states[i].color_text;

		if (!utf8_valid(states[i].name, states[i].name_len)) {
			*why = "a state name is not valid UTF-8 text";
			goto bad;
		}
		if (c != NULL && !color_parse(c, strlen(c), &states[i].color)) {
			*why = "a colour is not #rrggbb, #rgb or a CSS colour "
			    "name";
			goto bad;
		}
	}
	if (n == 0 || n > STORE_MAX_STATES) {
		*why = n == 0 ? "a trace needs at least one state" :
		    "too many states (at most 65535)";
		goto bad;
	}
	b = xcalloc(1, sizeof (*b));
	b->cat = catalog_new(name);
	b->cat->states = states;
	b->cat->nstates = n;
	if (catalog_index_states(b->cat) != 0) {
		*why = "two states have one name";
		builder_free(b);
		return (NULL);
	}
	catalog_assign_colors(b->cat);
	b->cat->have_start = 1;
	b->limit = INT64_MAX;	/* the start is 0 until builder_meta */
	b->st = store_new(n);
	/* Pops read the columns as they grow: they stay in memory. */
	store_in_memory(b->st);
	return (b);
bad:
	for (i = 0; i < n; i++) {
		free(states[i].name);
		free(states[i].color_text);
	}
	free(states);
	return (NULL);
}

void
builder_free(builder *b)
{
	if (b == NULL)
		return;
	catalog_free(b->cat);
	store_free(b->st);
	free(b->last_time);
	free(b->kind);
	free(b->bottom_pushed);
	free(b);
}

const char *
builder_error(const builder *b)
{
	return (b->error);
}

int
builder_meta(builder *b, const char *title, const char *host,
    const char *entity_kind, uint64_t start_sec, uint64_t start_nsec)
{
	int64_t limit = catalog_time_limit(start_sec, start_nsec);

	if (check_cstring(b, title, "the title") != 0 ||
	    check_cstring(b, host, "the host") != 0 ||
	    check_cstring(b, entity_kind, "the entity kind") != 0)
		return (-1);

	/* As a file's "start" (records_metadata.c). */
	if (limit < 0)
		return (fail(b, "start {%" PRIu64 ", %" PRIu64 "} is past "
		    "2^63 - 1 ns since the epoch (in the year 2262): a start "
		    "and the times after it are 64-bit nanoseconds",
		    start_sec, start_nsec));
	if (entity_kind != NULL) {
		free(b->cat->entity_kind);
		b->cat->entity_kind = xstrndup(entity_kind,
		    strlen(entity_kind));
	}
	if (title != NULL) {
		free(b->cat->title);
		b->cat->title = xstrndup(title, strlen(title));
	}
	if (host != NULL) {
		free(b->cat->host);
		b->cat->host = xstrndup(host, strlen(host));
	}
	b->cat->start_sec = start_sec;
	b->cat->start_nsec = start_nsec;
	b->limit = (uint64_t)limit;
	return (0);
}

/* A time past what the start allows (builder.limit): -1, else 0. */
static int
past_limit(builder *b, const char *what, uint64_t time)
{
	if (time <= b->limit)
		return (0);
	return (fail(b, "%s %" PRIu64 " after the start {%" PRIu64 ", %"
	    PRIu64 "} is past 2^63 - 1 ns since the epoch: the start plus "
	    "any time of the trace must stay below 2^63 ns", what, time,
	    b->cat->start_sec, b->cat->start_nsec));
}

int64_t
builder_state(const builder *b, const char *name, size_t len)
{
	return (catalog_state_by_name(b->cat, name, len));
}

uint32_t
builder_nstates(const builder *b)
{
	return (b->cat->nstates);
}

size_t
builder_memory(const builder *b)
{
	return (store_memory(b->st) + b->cap * (sizeof (uint64_t) + 1));
}

/* Room in the per-entity fields for entity e. */
static void
room_for(builder *b, uint32_t e)
{
	if (e >= b->cap) {
		size_t cap = b->cap == 0 ? 64 : b->cap * 2;

		while (cap <= e)
			cap *= 2;
		b->last_time = xrealloc(b->last_time, cap * sizeof (uint64_t));
		b->kind = xrealloc(b->kind, cap);
		b->bottom_pushed = xrealloc(b->bottom_pushed, cap);
		memset(b->bottom_pushed + b->cap, 0, cap - b->cap);
		memset(b->last_time + b->cap, 0, (cap - b->cap) *
		    sizeof (uint64_t));
		memset(b->kind + b->cap, KIND_NEW, cap - b->cap);
		b->cap = cap;
	}
}

/* The entity's id, with room for its per-entity fields. */
static uint32_t
entity_of(builder *b, const char *name, size_t len)
{
	uint32_t e = catalog_entity(b->cat, name, len);

	room_for(b, e);
	return (e);
}

/*
 * Checks a datum's time and kind for entity e (named name, len), which
 * the builder has: want is KIND_STATES or a value kind.  Returns e, or
 * UINT32_MAX.
 */
static uint32_t
check_kind(builder *b, uint64_t time, uint32_t e, const char *name,
    size_t len, int want)
{
	int k = b->kind[e];

	if (k != KIND_NEW && time < b->last_time[e]) {
		fail(b, "time %" PRIu64 " for entity \"%.*s\" is before its "
		    "previous time %" PRIu64 ": time must not go backwards "
		    "for an entity", time, (int)len, name, b->last_time[e]);
		return (UINT32_MAX);
	}
	if (k == KIND_NEW || k == want)
		return (e);
	if (k == KIND_STATES || want == KIND_STATES) {
		fail(b, "entity \"%.*s\" has %s, so it cannot take %s: an "
		    "entity is a value entity or a state entity, not both",
		    (int)len, name, k == KIND_STATES ? "states" : "values",
		    want == KIND_STATES ? "a state" : "a value");
		return (UINT32_MAX);
	}
	/* Values: none goes with either kind, and sets neither. */
	if (k == KIND_VALUES || want == KIND_VALUES)
		return (e);
	fail(b, "entity \"%.*s\" has %s values, so a value of it is %s or "
	    "nil", (int)len, name, k == KIND_NUMBERS ? "number" : "string",
	    k == KIND_NUMBERS ? "a number" : "a string");
	return (UINT32_MAX);
}

/* The same for an entity named name, len, added if new. */
static uint32_t
check(builder *b, uint64_t time, const char *name, size_t len, int want)
{
	/* Before the entity is added: a refused call changes nothing. */
	if (past_limit(b, "time", time) != 0)
		return (UINT32_MAX);
	return (check_kind(b, time, entity_of(b, name, len), name, len,
	    want));
}

static void
taken(builder *b, uint32_t e, uint64_t time, int kind)
{
	b->last_time[e] = time;
	if (b->kind[e] == KIND_NEW || b->kind[e] == KIND_VALUES)
		b->kind[e] = (uint8_t)kind;
	if (time > b->latest)
		b->latest = time;
	b->cat->ndata++;
	b->cat->nrecords++;
	b->cat->have_data = 1;
}

static uint32_t
tag_of(builder *b, uint32_t state, const char *tag, size_t len)
{
	return (tag == NULL ? STORE_NONE :
	    catalog_tag_id(b->cat, state, tag, len));
}

/* A checked plain datum: e's whole stack is now state (tag an id). */
static void
set_state(builder *b, uint32_t e, uint64_t time, uint32_t state, uint32_t tag)
{
	store_append(b->st, e, time, state, tag);
	b->bottom_pushed[e] = 0;
	taken(b, e, time, KIND_STATES);
}

int
builder_set(builder *b, uint64_t time, const char *entity, size_t len,
    uint32_t state, const char *tag, size_t tag_len)
{
	uint32_t e;

	if (check_text(b, entity, len, "the entity name") != 0 ||
	    check_text(b, tag, tag_len, "the tag") != 0)
		return (-1);
	if ((e = check(b, time, entity, len, KIND_STATES)) == UINT32_MAX)
		return (-1);
	set_state(b, e, time, state, tag_of(b, state, tag, tag_len));
	return (0);
}

int
builder_set_ids(builder *b, uint64_t time, uint32_t e, uint32_t state,
    uint32_t tag_name)
{
	const char *name;
	size_t len;

	if (e >= catalog_nentities(b->cat) || state >= b->cat->nstates ||
	    (tag_name != CATALOG_NO_TAG &&
	    tag_name >= intern_count(b->cat->tag_names)))
		return (fail(b, "an entity, state or tag id the builder does "
		    "not have (an internal error)"));
	name = intern_name(b->cat->entities, e, &len);
	room_for(b, e);
	if (past_limit(b, "time", time) != 0 ||
	    check_kind(b, time, e, name, len, KIND_STATES) == UINT32_MAX)
		return (-1);
	set_state(b, e, time, state, tag_name == CATALOG_NO_TAG ?
	    STORE_NONE : catalog_tag_id_named(b->cat, state, tag_name));
	return (0);
}

uint32_t
builder_tag_name(const builder *b, const char *tag, size_t len)
{
	uint32_t id = intern_find(b->cat->tag_names, tag, len);

	return (id == INTERN_NONE ? CATALOG_NO_TAG : id);
}

int
builder_push(builder *b, uint64_t time, const char *entity, size_t len,
    uint32_t state, const char *tag, size_t tag_len)
{
	uint32_t e, depth;

	if (check_text(b, entity, len, "the entity name") != 0 ||
	    check_text(b, tag, tag_len, "the tag") != 0)
		return (-1);
	/* A push on an entity with no state starts its stack (depth 1). */
	if ((e = check(b, time, entity, len, KIND_STATES)) == UINT32_MAX)
		return (-1);
	depth = store_depth_now(b->st, e);
	if (depth >= STORE_MAX_DEPTH)
		return (fail(b, "entity \"%.*s\" would be %u states deep: "
		    "at most %u are supported", (int)len, entity,
		    depth + 1, (unsigned)STORE_MAX_DEPTH));
	store_push(b->st, e, time, state, tag_of(b, state, tag, tag_len));
	if (depth == 0)
		b->bottom_pushed[e] = 1;
	taken(b, e, time, KIND_STATES);
	return (0);
}

int
builder_pop(builder *b, uint64_t time, const char *entity, size_t len,
    uint32_t state)
{
	uint32_t e = UINT32_MAX, top;

	if (check_text(b, entity, len, "the entity name") != 0)
		return (-1);
	if (intern_find(b->cat->entities, entity, len) != INTERN_NONE &&
	    (e = check(b, time, entity, len, KIND_STATES)) == UINT32_MAX)
		return (-1);
	if (e != UINT32_MAX && b->kind[e] == KIND_STATES &&
	    store_depth_now(b->st, e) == 0)
		return (fail(b, "entity \"%.*s\" has no state (its data "
		    "ended): nothing to pop", (int)len, entity));
	/* The last state of a stack a push started: its data end. */
	if (e == UINT32_MAX || (store_depth_now(b->st, e) < 2 &&
	    !b->bottom_pushed[e]))
		return (fail(b, "entity \"%.*s\" has nothing pushed (pop of "
		    "an empty stack)", (int)len, entity));
	top = store_states(b->st, e)[store_count(b->st, e) - 1];
	if (state != UINT32_MAX && state != top)
		return (fail(b, "pop of state \"%s\" on entity \"%.*s\", "
		    "whose top state is \"%s\"", b->cat->states[state].name,
		    (int)len, entity, b->cat->states[top].name));
	store_pop(b->st, e, time);
	if (store_depth_now(b->st, e) == 0)
		b->bottom_pushed[e] = 0;
	taken(b, e, time, KIND_STATES);
	return (0);
}

static int
value(builder *b, uint64_t time, const char *entity, size_t len, int kind,
    sm_value v)
{
	uint32_t e = check(b, time, entity, len, kind);

	if (e == UINT32_MAX)
		return (-1);
	store_append_value(b->st, e, time, v);
	taken(b, e, time, kind);
	return (0);
}

/*
 * A number (integer: v is value_int's word), of the kind the entity's
 * numbers are (catalog_value_type), or of either if it is declared
 * numeric, whose integers are made doubles.
 */
static int
number(builder *b, uint64_t time, const char *entity, size_t len,
    int integer, sm_value v)
{
	uint32_t e = check(b, time, entity, len, KIND_NUMBERS);
	int have, type;

	if (e == UINT32_MAX)
		return (-1);
	have = catalog_value_type(b->cat, e);
	if ((type = catalog_value_type_after(have, integer)) ==
	    CATALOG_VALUES_UNSET)
		return (fail(b, "entity \"%.*s\" has %s values, so a value "
		    "of it is %s or nil, not %s; declare it numeric "
		    "(b:declare(entity, \"number\")) before its first value "
		    "for numbers of both kinds", (int)len, entity,
		    integer ? "float" : "integer", integer ? "a float" :
		    "an integer", integer ? "an integer" : "a float"));
	if (integer && type == CATALOG_VALUES_NUMBER)
		v = value_number((double)value_to_int(v));
	catalog_set_value_type(b->cat, e, type);
	store_append_value(b->st, e, time, v);
	taken(b, e, time, KIND_NUMBERS);
	return (0);
}

int
builder_number(builder *b, uint64_t time, const char *entity, size_t len,
    double v)
{
	if (check_text(b, entity, len, "the entity name") != 0)
		return (-1);
	if (!isfinite(v))
		return (fail(b, "a value is a finite number, a string or "
		    "nil, never NaN or an infinity (a file could not hold "
		    "it)"));
	return (number(b, time, entity, len, 0, value_number(v)));
}

int
builder_integer(builder *b, uint64_t time, const char *entity, size_t len,
    int64_t v)
{
	uint32_t e;

	if (check_text(b, entity, len, "the entity name") != 0)
		return (-1);
	if (v == VALUE_RESERVED_INT &&
	    ((e = intern_find(b->cat->entities, entity, len)) == INTERN_NONE ||
	    catalog_value_type(b->cat, e) != CATALOG_VALUES_NUMBER))
		return (fail(b, "%" PRId64 " is the one integer an integer "
		    "entity cannot hold (its bits are null's); declare the "
		    "entity numeric (b:declare(entity, \"number\")) to keep "
		    "it as a float", v));
	return (number(b, time, entity, len, 1, value_int(v)));
}

int
builder_declare_numeric(builder *b, const char *entity, size_t len)
{
	uint32_t e;

	if (check_text(b, entity, len, "the entity name") != 0)
		return (-1);
	e = entity_of(b, entity, len);
	if (b->kind[e] == KIND_STATES || b->kind[e] == KIND_STRINGS)
		return (fail(b, "entity \"%.*s\" has %s, so it cannot be "
		    "declared numeric", (int)len, entity, b->kind[e] ==
		    KIND_STATES ? "states" : "string values"));
	if (catalog_value_type(b->cat, e) == CATALOG_VALUES_INTEGER)
		return (fail(b, "entity \"%.*s\" has integer values already: "
		    "declare it numeric before its first value", (int)len,
		    entity));
	catalog_set_value_type(b->cat, e, CATALOG_VALUES_NUMBER);
	b->kind[e] = KIND_NUMBERS;
	return (0);
}

int
builder_string(builder *b, uint64_t time, const char *entity, size_t len,
    const char *s, size_t slen)
{
	uint32_t e;

	if (check_text(b, entity, len, "the entity name") != 0 ||
	    check_text(b, s, slen, "the value") != 0)
		return (-1);
	if ((e = check(b, time, entity, len, KIND_STRINGS)) == UINT32_MAX)
		return (-1);
	return (value(b, time, entity, len, KIND_STRINGS,
	    value_string(intern_add(b->cat->value_strings, s, slen, NULL))));
}

int
builder_none(builder *b, uint64_t time, const char *entity, size_t len)
{
	if (check_text(b, entity, len, "the entity name") != 0)
		return (-1);
	return (value(b, time, entity, len, KIND_VALUES, VALUE_NONE));
}

int
builder_increment(builder *b, uint64_t time, const char *entity,
    size_t len, int integer, int64_t iby, double by)
{
	uint32_t e = intern_find(b->cat->entities, entity, len);
	double base = 0;
	int64_t ibase = 0;

	if (check_text(b, entity, len, "the entity name") != 0)
		return (-1);
	if (!isfinite(by))
		return (fail(b, "the increment is a finite number"));
	if (e != INTERN_NONE && e < b->cap && b->kind[e] == KIND_STRINGS)
		return (fail(b, "entity \"%.*s\" has string values, so it "
		    "cannot be incremented", (int)len, entity));
	if (e != INTERN_NONE && store_value_count(b->st, e) > 0) {
		sm_value v = store_values(b->st, e)[
		    store_value_count(b->st, e) - 1];

		if (catalog_value_ints(b->cat, e) && !value_is_none(v)) {
			ibase = value_to_int(v);
		} else if (!catalog_value_ints(b->cat, e) &&
		    value_is_number(v)) {
			base = value_to_double(v);
		}
	}
	if (integer && (e == INTERN_NONE || catalog_value_type(b->cat, e) !=
	    CATALOG_VALUES_NUMBER)) {
		int64_t sum;

		if (__builtin_add_overflow(ibase, iby, &sum))
			return (fail(b, "entity \"%.*s\": %" PRId64 " + %"
			    PRId64 " is beyond 64 bits", (int)len, entity,
			    ibase, iby));
		return (builder_integer(b, time, entity, len, sum));
	}
	if (!isfinite(base + by))
		return (fail(b, "entity \"%.*s\": %g + %g is not a finite "
		    "number", (int)len, entity, base, by));
	return (builder_number(b, time, entity, len, base + by));
}

int
builder_remove(builder *b, uint64_t time, const char *entity, size_t len)
{
	uint32_t e = intern_find(b->cat->entities, entity, len);

	if (check_text(b, entity, len, "the entity name") != 0)
		return (-1);
	if (e != INTERN_NONE && e < b->cap && b->kind[e] == KIND_STATES)
		return (builder_end(b, time, entity, len));
	return (builder_none(b, time, entity, len));
}

int
builder_end(builder *b, uint64_t time, const char *entity, size_t len)
{
	uint32_t e;

	if (check_text(b, entity, len, "the entity name") != 0)
		return (-1);
	if ((e = check(b, time, entity, len, KIND_STATES)) == UINT32_MAX)
		return (-1);
	store_append(b->st, e, time, STORE_GAP, STORE_NONE);
	b->bottom_pushed[e] = 0;
	taken(b, e, time, KIND_STATES);
	return (0);
}

uint64_t
builder_current_end(const builder *b)
{
	return (b->latest);
}

const catalog *
builder_catalog(const builder *b)
{
	return (b->cat);
}

uint32_t
builder_entity(const builder *b, const char *name, size_t len,
    store_kind *kind, size_t *count)
{
	uint32_t e = intern_find(b->cat->entities, name, len);

	if (e == INTERN_NONE)
		return (UINT32_MAX);
	*kind = store_kind_of(b->st, e);
	*count = *kind == STORE_VALUES ? store_value_count(b->st, e) :
	    store_count(b->st, e);
	return (e);
}

int
builder_at(const builder *b, uint32_t e, uint64_t time, store_interval *out)
{
	const uint64_t *times;
	size_t n, k;

	memset(out, 0, sizeof (*out));
	out->entity = e;
	if (store_kind_of(b->st, e) == STORE_VALUES) {
		n = store_value_count(b->st, e);
		times = store_value_times(b->st, e);
		if ((k = store_count_through(times, n, time)) == 0)
			return (0);
		out->state = out->tag = STORE_NONE;
		out->value = store_values(b->st, e)[k - 1];
	} else {
		const uint16_t *depths = store_depths(b->st, e);

		n = store_count(b->st, e);
		times = store_times(b->st, e);
		if ((k = store_count_through(times, n, time)) == 0)
			return (0);
		out->state = store_states(b->st, e)[k - 1];
		if (out->state == STORE_GAP)
			return (0);	/* its data ended */
		out->tag = store_has_tags(b->st, e) ?
		    store_tags(b->st, e)[k - 1] : STORE_NONE;
		out->depth = depths != NULL ? depths[k - 1] : 1;
	}
	out->start = times[k - 1];
	out->end = k < n ? times[k] : UINT64_MAX;
	return (1);
}

int
builder_describe(builder *b, const char *entity, size_t len,
    const char *text, size_t text_len)
{
	if (check_text(b, entity, len, "the entity name") != 0 ||
	    check_text(b, text, text_len, "the description") != 0)
		return (-1);
	catalog_set_description(b->cat, entity_of(b, entity, len), text,
	    text_len);
	b->cat->nrecords++;
	return (0);
}

int
builder_tag(builder *b, uint32_t state, const char *tag, size_t len,
    char *members)
{
	if (check_text(b, tag, len, "the tag") != 0 ||
	    check_cstring(b, members, "the tag's definition") != 0) {
		free(members);
		return (-1);
	}
	catalog_define_tag(b->cat, catalog_tag_id(b->cat, state, tag, len),
	    members);
	b->cat->nrecords++;
	return (0);
}

int
builder_event(builder *b, uint64_t time, const char *entity, size_t len,
    const char *kind, size_t kind_len, const char *target,
    size_t target_len, const builder_message *msg)
{
	if (check_text(b, entity, len, "the entity name") != 0 ||
	    check_text(b, kind, kind_len, "the event name") != 0 ||
	    check_text(b, target, target_len, "the target") != 0)
		return (-1);
	if (msg != NULL && (check_text(b, msg->id, msg->id_len,
	    "the event's id") != 0 || check_text(b, msg->members,
	    msg->members_len, "the event's fields") != 0))
		return (-1);
	if (past_limit(b, "time", time) != 0 || (msg != NULL &&
	    msg->end != CATALOG_NO_END && past_limit(b, "end", msg->end) != 0))
		return (-1);
	catalog_add_event(b->cat, time, entity, len, kind, kind_len, target,
	    target_len);
	if (msg != NULL)
		catalog_set_event_extra(b->cat, msg->end, msg->id, msg->id_len,
		    msg->members, msg->members_len);
	b->cat->nrecords++;
	return (0);
}

trace *
builder_finish(builder *b, int has_end, uint64_t end)
{
	trace *d;

	if (has_end && past_limit(b, "end", end) != 0)
		return (NULL);
	d = xcalloc(1, sizeof (*d));
	d->cat = b->cat;
	d->st = b->st;
	b->cat = NULL;
	b->st = NULL;
	d->cat->last_time = b->latest;
	d->begin = 0;
	d->end = has_end ? end : b->latest;
	store_finish(d->st, d->begin, d->end);
	return (d);
}
