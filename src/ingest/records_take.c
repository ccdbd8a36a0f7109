/*
 * records_take.c: a parsed record's members sorted out by name, each
 * given once, and by which of them it has, the kind of record it is.
 */
#include "ingest/records.h"

#include <string.h>

#include "ingest/records_deliver.h"
#include "ingest/records_internal.h"

static json_value **
field_slot(records_fields *f, const json_value *m)
{
#define	FIELD(name, slot) \
	if (records_key_is(m, name, sizeof (name) - 1)) return (&f->slot)
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
collect_fields(records *r, const json_value *obj, records_fields *f)
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
			return (records_fail(r, m->key_offset,
			    "member %s appears twice in one record",
			    records_quoted(q, sizeof (q), m->key, m->key_len)));
		}
		*slot = (json_value *)m;
	}
	return (0);
}

int
records_scan_tag_definition(const json_value *obj, uint32_t nstates,
    uint32_t *state, const json_value **tag, FILE *members)
{
	records_fields f;
	const json_value *m;
	uint64_t s;

	if (obj->type != JSON_OBJECT)
		return (0);
	memset(&f, 0, sizeof (f));
	for (m = obj->child; m != NULL; m = m->next) {
		json_value **slot = field_slot(&f, m);

		if (slot == NULL)
			continue;
		if (*slot != NULL || (slot != &f.state && slot != &f.tag))
			return (0);
		*slot = (json_value *)m;
	}
	if (f.state == NULL || f.tag == NULL || f.tag->type != JSON_STRING ||
	    f.state->type != JSON_NUMBER || !json_number_u64(f.state, &s) ||
	    s >= nstates)
		return (0);
	*state = (uint32_t)s;
	*tag = f.tag;
	(void) records_write_members(members, obj, records_skip_state_tag,
	    &f);
	return (1);
}

int
records_take(records *r, const json_value *obj)
{
	records_fields f;
	char q[96];

	if (obj->type != JSON_OBJECT)
		return (records_fail(r, obj->offset, "expected a JSON object "
		    "(a record) but found %s", records_type_name(obj->type)));
	if (collect_fields(r, obj, &f) != 0)
		return (-1);
	r->any_record = 1;

	if (f.time != NULL && f.event == NULL && f.state != NULL &&
	    f.value == NULL && f.push == NULL && f.pop == NULL) {
		r->cat->nrecords++;
		return (records_take_datum(r, obj, &f));
	}
	if (f.time != NULL && f.event == NULL && (f.state != NULL ||
	    f.value != NULL || f.push != NULL || f.pop != NULL)) {
		r->cat->nrecords++;
		return (records_take_special(r, obj, &f));
	}
	if (f.time != NULL && f.event != NULL) {
		r->cat->nrecords++;
		return (records_take_event(r, obj, &f));
	}
	if (f.time != NULL && obj->child->next == NULL) {
		r->cat->nrecords++;
		return (records_take_end(r, obj, &f));
	}
	if (f.time != NULL) {
		return (records_fail(r, obj->offset, "a record with \"time\" "
		    "must have \"state\" (a datum) or \"event\" (an event)"));
	}
	if (f.entity != NULL && f.other != NULL && f.nother == 1 &&
	    records_key_is(f.other, "type", 4) &&
	    obj->child->next != NULL && obj->child->next->next == NULL) {
		r->cat->nrecords++;
		return (records_take_type_declaration(r, &f));
	}
	if (f.description != NULL && f.tag != NULL && f.state != NULL) {
		r->cat->nrecords++;
		return (records_take_tag_declaration(r, obj, &f));
	}
	if (f.description != NULL) {
		r->cat->nrecords++;
		return (records_take_description(r, obj, &f));
	}
	if (f.tag != NULL && f.state != NULL) {
		r->cat->nrecords++;
		return (records_take_tag_definition(r, obj, &f));
	}
	if (f.value != NULL || f.push != NULL || f.pop != NULL)
		return (records_fail(r, obj->offset, "a datum with %s is "
		    "missing member \"time\"", f.value != NULL ? "\"value\"" :
		    f.push != NULL ? "\"push\"" : "\"pop\""));

	if (f.other == NULL && f.entity == NULL && f.state == NULL &&
	    f.tag == NULL && f.event == NULL && f.target == NULL &&
	    f.value == NULL && f.push == NULL && f.pop == NULL &&
	    obj->child != NULL)
		return (records_take_metadata(r, &f));
	if (f.other != NULL)
		return (records_fail(r, f.other->key_offset, "unrecognized "
		    "record: member %s is not part of a datum, event, "
		    "description, tag definition or metadata",
		    records_quoted(q, sizeof (q), f.other->key,
		    f.other->key_len)));
	return (records_fail(r, obj->offset, "unrecognized record: expected a "
	    "datum, event, entity description, tag definition or metadata"));
}
