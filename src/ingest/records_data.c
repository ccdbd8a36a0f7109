/*
 * records_data.c: data records read as JSON: the plain datum ("state"),
 * and the generic state system's ("value", "push", "pop"), each checked
 * against what its entity's data have made it.
 */
#include "ingest/records.h"

#include <math.h>
#include <stdint.h>

#include "base/intern.h"
#include "ingest/records_changes.h"
#include "ingest/records_internal.h"
#include "store/store.h"
#include "store/value.h"

static int wrong_kind(records *r, const json_value *m,
    const json_value *name);
static int end_data(records *r, const records_fields *f, uint64_t time);

/*
 * A datum at time counted, and its entity's id in *entity, checked for
 * time going backwards: 1, or 0 for a datum to skip (an entity that -f
 * leaves out), or -1 with the error set.
 */
static int
datum_entity(records *r, const records_fields *f, uint64_t time,
    uint32_t *entity)
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
		return (records_fail(r, f->time->offset, "time %llu for entity "
		    "%s is before its previous time %llu: time must not go "
		    "backwards for an entity", (unsigned long long)time,
		    records_quoted(q, sizeof (q), f->entity->str,
		    f->entity->len),
		    (unsigned long long)r->last_time[*entity]));
	}
	return (1);
}

int
records_take_datum(records *r, const json_value *obj,
    const records_fields *f)
{
	const json_value *allowed[] = { f->time, f->entity, f->state, f->tag };
	catalog *cat = r->cat;
	uint64_t time;
	uint32_t entity, state;
	const char *tag = NULL;
	size_t tag_len = 0;
	int rv;

	if (records_only_members(r, f, "a datum", allowed, 4) != 0 ||
	    records_need_member(r, obj, f->entity, "entity", "datum") != 0 ||
	    records_need_member(r, obj, f->state, "state", "datum") != 0 ||
	    records_need_metadata(r, obj, "datum") != 0 ||
	    records_parse_time(r, f->time, &time) != 0 ||
	    records_expect_type(r, f->entity, JSON_STRING, "entity") != 0)
		return (-1);
	if (f->state->type == JSON_NULL)
		return (end_data(r, f, time));
	if (records_parse_state(r, f->state, &state) != 0)
		return (-1);
	if (f->tag != NULL && f->tag->type != JSON_NULL &&
	    records_expect_type(r, f->tag, JSON_STRING, "tag") != 0)
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
		records_set_nested(r, entity, time, state, tag, tag_len);
		return (0);
	}
	r->kind[entity] = RECORDS_PLAIN;
	r->datum(r->ctx, cat, entity, time, state, tag == NULL ?
	    CATALOG_NO_TAG : catalog_tag_name(cat, tag, tag_len));
	return (0);
}

/* What parse_value read a number as. */
enum { READ_DOUBLE, READ_INTEGER, READ_WIDE };

/*
 * A value (a number, a string or null: value.h).  Numbers must be
 * finite: NaN cannot be written in JSON, and 1e999 overflows a double.
 * *read says what a number was written as: a double, an integer (*out
 * its value_int), or an integer that no integer entity can hold (beyond
 * 64 bits, or VALUE_RESERVED_INT; *out its double): take_value sorts
 * them out by the entity's type.
 */
static int
parse_value(records *r, const json_value *v, sm_value *out, int *read)
{
	double d;
	int64_t i;
	int integer;

	*read = READ_DOUBLE;
	switch (v->type) {
	case JSON_NULL:
		*out = VALUE_NONE;
		return (0);
	case JSON_NUMBER:
		if ((integer = json_number_i64(v, &i)) == 1 &&
		    i != VALUE_RESERVED_INT) {
			*out = value_int(i);
			*read = READ_INTEGER;
			return (0);
		}
		d = json_number_double(v);
		if (!isfinite(d))
			return (records_fail(r, v->offset, "value %.*s is "
			    "beyond the largest number (about 1.8e308)",
			    (int)(v->len > 40 ? 40 : v->len), v->str));
		*out = value_number(d);
		if (integer != 0)
			*read = READ_WIDE;
		return (0);
	case JSON_STRING:
		*out = value_string(intern_add(r->cat->value_strings, v->str,
		    v->len, NULL));
		return (0);
	default:
		return (records_fail(r, v->offset, "value must be a number, a "
		    "string or null but is %s", records_type_name(v->type)));
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
		return (records_parse_state(r, v, out));
	if (v->type != JSON_STRING)
		return (records_fail(r, v->offset, "%s must be a state (its "
		    "value or its name) but is %s", what,
		    records_type_name(v->type)));
	s = catalog_state_by_name(r->cat, v->str, v->len);
	if (s < 0)
		return (records_fail(r, v->offset, "state %s is not defined: "
		    "the metadata defines no state of that name",
		    records_quoted(q, sizeof (q), v->str, v->len)));
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

	records_quoted(key, sizeof (key), m->key, m->key_len);
	records_quoted(q, sizeof (q), name->str, name->len);
	if (k >= RECORDS_VALUES)
		return (records_fail(r, m->key_offset, "entity %s has values, "
		    "so a datum of it has \"value\", not %s: an entity is a "
		    "value entity or a state entity, not both", q, key));
	return (records_fail(r, m->key_offset, "entity %s has states, so a "
	    "datum of it has \"state\", \"push\" or \"pop\", not %s: an "
	    "entity is a value entity or a state entity, not both", q, key));
}

static const char *
state_quoted(records *r, uint32_t s, char *q, size_t size)
{
	return (records_quoted(q, size, r->cat->states[s].name,
	    r->cat->states[s].name_len));
}

/*
 * {"time": T, "entity": E, "state": null}: E has no state from T on
 * (STORE_GAP), until its next datum or push.  The entity is made nested
 * (records_stack), so that a push after it starts a new stack; its
 * consumer sees a plain datum of STORE_GAP (INGEST_SET).
 */
static int
end_data(records *r, const records_fields *f, uint64_t time)
{
	uint32_t entity;
	int rv;
	char q[96];

	if (f->tag != NULL && f->tag->type != JSON_NULL)
		return (records_fail(r, f->tag->key_offset, "a datum whose "
		    "state is null (no data from then on) has no tag"));
	if (r->opts->nested == NULL)
		return (records_fail(r, f->state->offset, "a null state (no "
		    "data) is not drawn by the classic statemap yet: read "
		    "this trace with a script (statemap.load)"));
	if ((rv = datum_entity(r, f, time, &entity)) <= 0)
		return (rv);
	if (r->kind[entity] >= RECORDS_VALUES)
		return (records_fail(r, f->state->offset, "entity %s has "
		    "values, so its data end with \"value\": null, not "
		    "\"state\": null", records_quoted(q, sizeof (q),
		    f->entity->str, f->entity->len)));
	if (r->stacks == NULL)
		records_grow_stacks(r, 0);
	r->kind[entity] = RECORDS_NESTED;
	records_set_nested(r, entity, time, STORE_GAP, NULL, 0);
	return (0);
}

/* A push or pop of a state entity: checked against its stack. */
static int
nest(records *r, const records_fields *f, uint32_t entity, uint64_t time,
    uint32_t state)
{
	records_stack *st;
	const char *tag = NULL;
	size_t tag_len = 0;
	char q[96], q2[96], q3[96];

	if (r->kind[entity] >= RECORDS_VALUES)
		return (wrong_kind(r, f->push != NULL ? f->push : f->pop,
		    f->entity));
	records_quoted(q, sizeof (q), f->entity->str, f->entity->len);
	if (f->pop != NULL && r->kind[entity] == RECORDS_NEW)
		return (records_fail(r, f->pop->key_offset, "pop on entity %s, "
		    "which has no state yet: nothing to pop", q));
	if (r->stacks == NULL)
		records_grow_stacks(r, 0);
	st = &r->stacks[entity];
	if (f->pop != NULL) {
		if (r->kind[entity] == RECORDS_NESTED && st->ended)
			return (records_fail(r, f->pop->key_offset, "pop on "
			    "entity %s, whose data have ended (it has no "
			    "state): nothing to pop", q));
		if (r->kind[entity] == RECORDS_NESTED && st->n == 0 &&
		    st->bottom_pushed) {
			/* The last state: the entity's data end. */
			if (st->bottom != state)
				return (records_fail(r, f->pop->offset, "pop "
				    "of state %s on entity %s, whose top "
				    "state is %s",
				    state_quoted(r, state, q2, sizeof (q2)), q,
				    state_quoted(r, st->bottom, q3,
				    sizeof (q3))));
			records_pop(r, entity, time, state);
			return (0);
		}
		if (r->kind[entity] == RECORDS_PLAIN || st->n == 0)
			return (records_fail(r, f->pop->key_offset, "pop on "
			    "entity %s, which has nothing pushed: a state a "
			    "datum gave is replaced by another datum, not "
			    "popped", q));
		if (st->states[st->n - 1] != state)
			return (records_fail(r, f->pop->offset, "pop of state "
			    "%s on entity %s, whose top state is %s",
			    state_quoted(r, state, q2, sizeof (q2)), q,
			    state_quoted(r, st->states[st->n - 1], q3,
			    sizeof (q3))));
		records_pop(r, entity, time, state);
		return (0);
	}
	if (st->n + 1 >= STORE_MAX_DEPTH)
		return (records_fail(r, f->push->key_offset, "push on entity "
		    "%s would make its stack %u states deep: at most %u are "
		    "supported",
		    q, st->n + 2, STORE_MAX_DEPTH));
	if (f->tag != NULL && f->tag->type == JSON_STRING) {
		tag = f->tag->str;
		tag_len = f->tag->len;
	}
	records_push(r, entity, time, state, tag, tag_len);
	return (0);
}

/*
 * A number of an entity, read as parse_value says: its type (catalog.h)
 * after it, with *v the word that keeps it, or an error.
 */
static int
number_type(records *r, const records_fields *f, uint32_t entity,
    int read, sm_value *v, int *type)
{
	const json_value *n = f->value;
	int have = catalog_value_type(r->cat, entity);
	char q[96];

	records_quoted(q, sizeof (q), f->entity->str, f->entity->len);
	if (read == READ_WIDE && have != CATALOG_VALUES_NUMBER)
		return (records_fail(r, n->offset, "value %.*s of entity %s "
		    "is an integer %s; declare the entity numeric "
		    "({\"entity\": %s, \"type\": \"number\"}) to keep it "
		    "as a double", (int)(n->len > 40 ? 40 : n->len), n->str, q,
		    value_to_double(*v) == (double)VALUE_RESERVED_INT ?
		    "whose bits are null's, the one integer an integer entity "
		    "cannot hold" : "beyond 64 bits (-2^63 to 2^63 - 1)", q));
	if (read == READ_WIDE)
		read = READ_DOUBLE;
	if ((*type = records_number_type(r, entity, read == READ_INTEGER,
	    v)) == CATALOG_VALUES_UNSET)
		return (records_fail(r, n->offset, "entity %s has %s values, "
		    "so a value of it is %s or null, not %.*s; declare it "
		    "numeric ({\"entity\": %s, \"type\": \"number\"}, "
		    "before its first value) for numbers of both kinds", q,
		    have == CATALOG_VALUES_INTEGER ? "integer" : "double",
		    have == CATALOG_VALUES_INTEGER ? "an integer" :
		    "a double (written with a fraction or an exponent)",
		    (int)(n->len > 40 ? 40 : n->len), n->str, q));
	return (0);
}

/* A value of a value entity: numbers or strings, not both. */
static int
take_value(records *r, const records_fields *f, uint32_t entity,
    uint64_t time, sm_value v, int read)
{
	uint8_t k = r->kind[entity], want;
	int type = CATALOG_VALUES_UNSET;
	int cls = f->value->type == JSON_NUMBER ? RECORDS_NUMBER_VALUE :
	    f->value->type == JSON_STRING ? RECORDS_STRING_VALUE :
	    RECORDS_NULL_VALUE;
	char q[96];

	if (k != RECORDS_NEW && k < RECORDS_VALUES)
		return (wrong_kind(r, f->value, f->entity));
	if ((want = records_value_kind(k, cls)) == RECORDS_NEW)
		return (records_fail(r, f->value->offset, "entity %s has %s "
		    "values, so a value of it is %s or null, not %s",
		    records_quoted(q, sizeof (q), f->entity->str,
		    f->entity->len),
		    k == RECORDS_NUMBERS ? "number" : "string",
		    k == RECORDS_NUMBERS ? "a number" : "a string",
		    cls == RECORDS_NUMBER_VALUE ? "a number" : "a string"));
	if (cls == RECORDS_NUMBER_VALUE &&
	    number_type(r, f, entity, read, &v, &type) != 0)
		return (-1);
	records_set_value(r, entity, time, v, want, type);
	return (0);
}

/* A datum with "value", "push" or "pop" instead of "state". */
int
records_take_special(records *r, const json_value *obj,
    const records_fields *f)
{
	const json_value *all[] = { f->state, f->value, f->push, f->pop };
	const json_value *first = NULL, *second = NULL, *op;
	const json_value *allowed[] = { f->time, f->entity, NULL, NULL };
	const char *kind;
	uint64_t time;
	uint32_t entity, state = 0;
	sm_value v = VALUE_NONE;
	size_t i;
	int rv, read = READ_DOUBLE;
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
		return (records_fail(r, second->key_offset, "a datum has one "
		    "of \"state\", \"value\", \"push\" and \"pop\", but this "
		    "one has %s and %s", records_quoted(q, sizeof (q),
		    first->key, first->key_len), records_quoted(q2,
		    sizeof (q2), second->key, second->key_len)));
	op = first;
	allowed[2] = op;
	kind = op == f->value ? "a value datum" : op == f->push ? "a push" :
	    "a pop";
	if (op == f->push)
		allowed[3] = f->tag;
	if (records_only_members(r, f, kind, allowed, 4) != 0 ||
	    records_need_member(r, obj, f->entity, "entity", kind + 2) != 0 ||
	    records_need_metadata(r, obj, kind + 2) != 0 ||
	    records_parse_time(r, f->time, &time) != 0 ||
	    records_expect_type(r, f->entity, JSON_STRING, "entity") != 0)
		return (-1);
	if (op == f->value) {
		if (parse_value(r, op, &v, &read) != 0)
			return (-1);
	} else if (parse_stack_state(r, op, op == f->push ? "push" : "pop",
	    &state) != 0) {
		return (-1);
	}
	if (f->tag != NULL && f->tag->type != JSON_NULL &&
	    records_expect_type(r, f->tag, JSON_STRING, "tag") != 0)
		return (-1);
	if (op == f->value ? r->opts->value == NULL : r->opts->nested == NULL)
		return (records_fail(r, op->key_offset, "%s are not drawn by "
		    "the classic statemap yet: read this trace with a script "
		    "(statemap.load)", op == f->value ? "values" :
		    "nested states"));

	if ((rv = datum_entity(r, f, time, &entity)) <= 0)
		return (rv);
	if (op == f->value)
		return (take_value(r, f, entity, time, v, read));
	return (nest(r, f, entity, time, state));
}

/*
 * An end record, {"time": "T"}: the trace ends at T as it would at a
 * datum at T, the last in file order, and no entity changes.  t:write
 * ends a file so when no datum can be last at its end.
 */
int
records_take_end(records *r, const json_value *obj, const records_fields *f)
{
	uint64_t time;

	if (records_need_metadata(r, obj, "end record") != 0 ||
	    records_parse_time(r, f->time, &time) != 0)
		return (-1);
	r->cat->have_data = 1;
	r->cat->last_time = time;
	return (0);
}
