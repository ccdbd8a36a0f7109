/*
 * records_deliver.c: data read without JSON, by the scanner (one at a
 * time) and by the parsing threads (runs of an entity at once), taken
 * with the checks records_take makes, and the same meaning; what does
 * not pass is left to be parsed as JSON, whose error says why.
 */
#include "ingest/records_deliver.h"

#include <stdint.h>

#include "base/intern.h"
#include "base/util.h"
#include "ingest/records_changes.h"
#include "ingest/records_internal.h"
#include "store/store.h"

int
records_deliver_value(records *r, uint32_t entity, uint64_t time,
    sm_value v, const char *str, size_t str_len)
{
	uint8_t want = RECORDS_NEW;
	int integer = value_is_small_int(v), type = CATALOG_VALUES_UNSET;
	int cls = str != NULL ? RECORDS_STRING_VALUE : v == VALUE_NONE ?
	    RECORDS_NULL_VALUE : RECORDS_NUMBER_VALUE;

	if (r->opts->value == NULL || time > r->time_limit)
		return (0);
	if (integer)
		v = value_int(value_small_int_of(v));
	if (entity != CATALOG_NO_ENTITY && (time < r->last_time[entity] ||
	    (want = records_value_kind(r->kind[entity], cls)) == RECORDS_NEW ||
	    (cls == RECORDS_NUMBER_VALUE && (type = records_number_type(r,
	    entity, integer, &v)) == CATALOG_VALUES_UNSET)))
		return (0);
	/* Interned even for an entity left out, as parse_value
	 * (records_data.c) does. */
	if (str != NULL)
		v = value_string(intern_add(r->cat->value_strings, str,
		    str_len, NULL));
	records_count(r, 1, time);
	if (entity != CATALOG_NO_ENTITY)
		records_set_value(r, entity, time, v, want, type);
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

	if (r->opts->nested == NULL || time > r->time_limit)
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
			records_grow_stacks(r, 0);
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
		records_pop(r, entity, time, state);
	else if (op == INGEST_PUSH)
		records_push(r, entity, time, state, tag, tag_len);
	else
		records_set_nested(r, entity, time, state,
		    r->opts->ignore_tags ? NULL : tag, tag_len);
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
    sm_value *values, size_t n, int numbers, double done)
{
	int type = catalog_value_type(r->cat, entity);
	size_t i;

	if (numbers & RECORDS_INTEGERS) {
		type = catalog_value_type_after(type, 1);
		for (i = 0; i < n; i++) {
			if (!value_is_small_int(values[i]))
				continue;
			values[i] = type == CATALOG_VALUES_NUMBER ?
			    value_number((double)value_small_int_of(
			    values[i])) : value_int(value_small_int_of(
			    values[i]));
		}
	} else if (numbers & RECORDS_DOUBLES) {
		type = catalog_value_type_after(type, 0);
	}
	if (numbers)
		catalog_set_value_type(r->cat, entity, type);
	r->opts->values(r->ctx, r->cat, entity, times, values, n, done);
	r->last_time[entity] = times[n - 1];
	if (numbers) {
		r->kind[entity] = RECORDS_NUMBERS;
	} else if (r->kind[entity] == RECORDS_NEW) {
		r->kind[entity] = RECORDS_VALUES;
	}
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
	if (st->ended)
		return (0);	/* a push starts a new stack: one by one */
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
			st->bottom_pushed = 0;
			st->ended = 0;
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
