/*
 * records_members.c: the members of a record, checked as every kind of
 * record checks them (none unexpected, none missing, each of its type,
 * times and states), and members written back as JSON for the catalog.
 */
#include "ingest/records.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "base/util.h"
#include "ingest/records_internal.h"

/* ---- members ---- */

const char *
records_type_name(json_type t)
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

int
records_expect_type(records *r, const json_value *v, json_type t,
    const char *what)
{
	if (v->type == t)
		return (0);
	return (records_fail(r, v->offset, "%s must be %s but is %s", what,
	    records_type_name(t), records_type_name(v->type)));
}

int
records_only_members(records *r, const records_fields *f, const char *kind,
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
	return (records_fail(r, worst->key_offset, "unexpected member %s in %s",
	    records_quoted(q, sizeof (q), worst->key, worst->key_len), kind));
}

int
records_need_member(records *r, const json_value *obj, const json_value *m,
    const char *name, const char *kind)
{
	if (m != NULL)
		return (0);
	return (records_fail(r, obj->offset, "%s is missing member \"%s\"",
	    kind, name));
}

int
records_need_metadata(records *r, const json_value *obj, const char *kind)
{
	if (!(r->meta_seen & META_STATES)) {
		return (records_fail(r, obj->offset, "%s before the metadata: "
		    "expected an object with \"states\" first", kind));
	}
	if (!(r->meta_seen & META_START)) {
		return (records_fail(r, obj->offset, "%s before the metadata: "
		    "expected an object with \"start\" first", kind));
	}
	return (0);
}

/* ---- values ---- */

int
records_parse_time_of(records *r, const json_value *v, const char *what,
    uint64_t *out)
{
	char q[96];
	uint64_t t = 0;

	if (v->type == JSON_STRING) {
		const char *s = v->str;
		size_t i, first;

		/* A leading '+', as the original (Go's ParseInt) takes it. */
		first = v->len > 1 && s[0] == '+' ? 1 : 0;
		for (i = first; i < v->len; i++) {
			unsigned d = (unsigned char)s[i] - '0';

			if (d > 9 || t > (UINT64_MAX - d) / 10)
				break;
			t = t * 10 + d;
		}
		if (i < v->len || i == first || t > (uint64_t)INT64_MAX)
			return (records_fail(r, v->offset, "%s %s is not a "
			    "non-negative integer number of nanoseconds below "
			    "2^63", what, records_quoted(q, sizeof (q),
			    v->str, v->len)));
	} else if (v->type == JSON_NUMBER) {
		if (!json_number_u64(v, &t) || t > (uint64_t)INT64_MAX)
			return (records_fail(r, v->offset, "%s %.*s is not a "
			    "non-negative integer number of nanoseconds below "
			    "2^63", what, (int)(v->len > 40 ? 40 : v->len),
			    v->str));
	} else {
		return (records_fail(r, v->offset, "%s must be a string of "
		    "digits or a number but is %s", what,
		    records_type_name(v->type)));
	}
	/* The start is read by now: records_need_metadata comes first. */
	if (t > r->time_limit)
		return (records_fail(r, v->offset, "%s %llu after \"start\" "
		    "[%llu, %llu] is past 2^63 - 1 ns since the epoch: the "
		    "start plus any time of the trace must stay below 2^63 "
		    "ns", what, (unsigned long long)t,
		    (unsigned long long)r->cat->start_sec,
		    (unsigned long long)r->cat->start_nsec));
	*out = t;
	return (0);
}

int
records_parse_time(records *r, const json_value *v, uint64_t *out)
{
	return (records_parse_time_of(r, v, "time", out));
}

int
records_parse_state(records *r, const json_value *v, uint32_t *out)
{
	uint64_t s;

	if (records_expect_type(r, v, JSON_NUMBER, "state") != 0)
		return (-1);
	if (!json_number_u64(v, &s)) {
		return (records_fail(r, v->offset, "state %.*s is not a state "
		    "value (a non-negative integer)",
		    (int)(v->len > 40 ? 40 : v->len), v->str));
	}
	if (s >= r->cat->nstates) {
		return (records_fail(r, v->offset, "state %llu is not defined: "
		    "the metadata defines states 0 to %u",
		    (unsigned long long)s, r->cat->nstates - 1));
	}
	*out = (uint32_t)s;
	return (0);
}

/* ---- members written back ---- */

/*
 * For each member of an object, in order, whether it is the last with
 * its key (malloc'd).  A member given twice keeps its last value, as
 * JSON readers do, so that no output ever holds a key twice: the keys
 * are counted first, and a member is written only at its key's last use.
 */
/*
 * Objects of at most this many members (a tag's definition: a few) are
 * checked key against key, with no table: a table of names costs a block
 * of its own, and was most of the reading of a trace that defines a tag
 * for every few data.
 */
#define FEW_MEMBERS	16

unsigned char *
records_last_uses(const json_value *obj)
{
	const json_value *m, *later;
	intern *keys;
	size_t *uses = NULL, uses_cap = 0, n = 0, i;
	unsigned char *last;

	for (m = obj->child; m != NULL && n <= FEW_MEMBERS; m = m->next)
		n++;
	if (n <= FEW_MEMBERS) {
		last = xcalloc(n + 1, 1);
		for (m = obj->child, i = 0; m != NULL; m = m->next, i++) {
			for (later = m->next; later != NULL; later = later->next)
				if (later->key_len == m->key_len &&
				    memcmp(later->key, m->key, m->key_len) == 0)
					break;
			last[i] = later == NULL;
		}
		return (last);
	}
	keys = intern_new();
	n = 0;
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
 * an object, a key given twice keeps its last value (records_last_uses).
 */
void
records_write_value(FILE *out, const json_value *v)
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
			last = records_last_uses(v);
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
			records_write_value(out, m);
		}
		fputc(v->type == JSON_ARRAY ? ']' : '}', out);
		free(last);
		break;
	}
}

int
records_write_members(FILE *out, const json_value *obj,
    int (*skip)(const json_value *m, const void *ctx), const void *ctx)
{
	const json_value *m;
	unsigned char *last = records_last_uses(obj);
	size_t i;
	int n = 0;

	for (m = obj->child, i = 0; m != NULL; m = m->next, i++) {
		if (!last[i] || skip(m, ctx))
			continue;
		if (n++ > 0)
			fputs(", ", out);
		json_write_string(out, m->key, m->key_len);
		fputs(": ", out);
		records_write_value(out, m);
	}
	free(last);
	return (n);
}
