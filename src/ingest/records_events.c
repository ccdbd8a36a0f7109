/*
 * records_events.c: events, and what makes them messages (an "id" that
 * matches a message's parts, an "end" when it was received), with any
 * other members kept as JSON.
 */
#include "ingest/records.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ingest/records_internal.h"

/* A skip for records_write_members: an event's own members. */
static int
skip_event_own(const json_value *m, const void *ctx)
{
	const records_fields *f = ctx;

	return (m == f->time || m == f->entity || m == f->event ||
	    m == f->target || records_key_is(m, "id", 2) ||
	    records_key_is(m, "end", 3));
}

/*
 * The members of an event besides time, entity, event and target: "end"
 * (when a message was received: a time, not before "time"), "id" (a
 * non-empty string matching the parts of one message) and any others,
 * written as JSON object members like a tag definition's (a member given
 * twice keeps its last value).  *members is malloc'd, or NULL if none.
 */
static int
event_extra(records *r, const json_value *obj, const records_fields *f,
    uint64_t time, uint64_t *end, const json_value **id, char **members,
    size_t *members_len)
{
	const json_value *m, *end_v = NULL;
	FILE *out;
	int n;
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
		const json_value **slot = records_key_is(m, "id", 2) ? id :
		    records_key_is(m, "end", 3) ? &end_v : NULL;

		if (slot == NULL)
			continue;
		if (*slot != NULL)
			return (records_fail(r, m->key_offset, "member %s "
			    "appears twice in one record", records_quoted(q,
			    sizeof (q), m->key, m->key_len)));
		*slot = m;
	}
	if (*id != NULL && (*id)->type == JSON_NULL)
		*id = NULL;
	if (*id != NULL && records_expect_type(r, *id, JSON_STRING,
	    "the event's \"id\"") != 0)
		return (-1);
	if (*id != NULL && (*id)->len == 0)
		return (records_fail(r, (*id)->offset, "the event's \"id\" is "
		    "empty: an id names a message"));
	if (end_v != NULL && end_v->type != JSON_NULL) {
		if (records_parse_time_of(r, end_v, "end", end) != 0)
			return (-1);
		if (*end < time)
			return (records_fail(r, end_v->offset, "end %llu is "
			    "before time %llu: a message is received (end) "
			    "after it is sent (time)", (unsigned long long)*end,
			    (unsigned long long)time));
	}
	if ((out = open_memstream(members, members_len)) == NULL) {
		error_set(r->err, "out of memory");
		return (-1);
	}
	n = records_write_members(out, obj, skip_event_own, f);
	fclose(out);
	if (n == 0) {
		free(*members);
		*members = NULL;
		*members_len = 0;
	}
	return (0);
}

int
records_take_event(records *r, const json_value *obj, const records_fields *f)
{
	uint64_t time, end;
	const json_value *id;
	char *members;
	size_t members_len;

	if (records_need_member(r, obj, f->entity, "entity", "event") != 0 ||
	    records_need_metadata(r, obj, "event") != 0 ||
	    records_parse_time(r, f->time, &time) != 0 ||
	    records_expect_type(r, f->entity, JSON_STRING, "entity") != 0 ||
	    records_expect_type(r, f->event, JSON_STRING, "event") != 0)
		return (-1);
	if (f->target != NULL && f->target->type != JSON_NULL &&
	    records_expect_type(r, f->target, JSON_STRING, "target") != 0)
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
