#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

trace *
trace_new(const char *name)
{
	trace *tr = xcalloc(1, sizeof (*tr));

	tr->name = xstrndup(name, strlen(name));
	tr->entities = intern_new();
	tr->tag_names = intern_new();
	tr->tag_keys = intern_new();
	tr->event_kinds = intern_new();
	tr->event_entities = intern_new();
	return (tr);
}

void
trace_free(trace *tr)
{
	size_t i;

	if (tr == NULL)
		return;
	for (i = 0; i < tr->nstates; i++) {
		free(tr->states[i].name);
		free(tr->states[i].color_text);
	}
	free(tr->states);
	for (i = 0; i < intern_count(tr->entities); i++)
		free(tr->descriptions[i]);
	free(tr->descriptions);
	for (i = 0; i < intern_count(tr->tag_keys); i++)
		free(tr->tags[i].members);
	free(tr->tags);
	free(tr->events);
	intern_free(tr->entities);
	intern_free(tr->tag_names);
	intern_free(tr->tag_keys);
	intern_free(tr->event_kinds);
	intern_free(tr->event_entities);
	free(tr->title);
	free(tr->host);
	free(tr->entity_kind);
	free(tr->name);
	free(tr);
}

uint64_t
trace_start_ns(const trace *tr)
{
	if (tr->start_sec > (UINT64_MAX - tr->start_nsec) / 1000000000ULL)
		return (UINT64_MAX);
	return (tr->start_sec * 1000000000ULL + tr->start_nsec);
}

uint32_t
trace_entity(trace *tr, const char *name, size_t len)
{
	int added;
	uint32_t id = intern_add(tr->entities, name, len, &added);

	if (added) {
		size_t n = intern_count(tr->entities);

		if (n > tr->descriptions_cap) {
			size_t old = tr->descriptions_cap;

			grow_array(&tr->descriptions, &tr->descriptions_cap, n,
			    sizeof (char *));
			memset(tr->descriptions + old, 0,
			    (tr->descriptions_cap - old) * sizeof (char *));
		}
	}
	return (id);
}

const char *
trace_entity_name(const trace *tr, uint32_t id, size_t *len)
{
	return (intern_name(tr->entities, id, len));
}

uint32_t
trace_nentities(const trace *tr)
{
	return (intern_count(tr->entities));
}

void
trace_set_description(trace *tr, uint32_t entity, const char *text,
    size_t len)
{
	free(tr->descriptions[entity]);
	tr->descriptions[entity] = xstrndup(text, len);
}

uint32_t
trace_tag_id(trace *tr, uint32_t state, const char *tag, size_t len)
{
	char key[8];
	uint32_t name = intern_add(tr->tag_names, tag, len, NULL);
	uint32_t id;
	int added;

	/* A pair of ids makes a fixed-size key: no copying of the tag. */
	memcpy(key, &state, 4);
	memcpy(key + 4, &name, 4);
	id = intern_add(tr->tag_keys, key, sizeof (key), &added);
	if (added) {
		grow_array(&tr->tags, &tr->tags_cap, (size_t)id + 1,
		    sizeof (trace_tag));
		tr->tags[id].state = state;
		tr->tags[id].name = name;
		tr->tags[id].members = NULL;
	}
	return (id);
}

uint32_t
trace_ntags(const trace *tr)
{
	return (intern_count(tr->tag_keys));
}

void
trace_define_tag(trace *tr, uint32_t tag, char *members)
{
	free(tr->tags[tag].members);
	tr->tags[tag].members = members;
}

void
trace_add_event(trace *tr, uint64_t time, const char *entity,
    size_t entity_len, const char *kind, size_t kind_len,
    const char *target, size_t target_len)
{
	trace_event *ev;

	grow_array(&tr->events, &tr->events_cap, tr->nevents + 1,
	    sizeof (trace_event));
	ev = &tr->events[tr->nevents++];
	ev->time = time;
	ev->entity = intern_add(tr->event_entities, entity, entity_len, NULL);
	ev->kind = intern_add(tr->event_kinds, kind, kind_len, NULL);
	ev->target = target == NULL ? TRACE_NO_ENTITY :
	    intern_add(tr->event_entities, target, target_len, NULL);
}

trace *
trace_copy_header(const trace *src)
{
	trace *tr = trace_new(src->name);
	uint32_t i;
	size_t k;

	tr->title = xstrdup_or_null(src->title);
	tr->host = xstrdup_or_null(src->host);
	tr->entity_kind = xstrdup_or_null(src->entity_kind);
	tr->have_start = src->have_start;
	tr->start_sec = src->start_sec;
	tr->start_nsec = src->start_nsec;
	for (i = 0; i < trace_ntags(src); i++) {
		size_t len;
		const char *name = intern_name(src->tag_names,
		    src->tags[i].name, &len);

		trace_tag_id(tr, src->tags[i].state, name, len);
		tr->tags[i].members = xstrdup_or_null(src->tags[i].members);
	}
	for (k = 0; k < src->nevents; k++) {
		const trace_event *ev = &src->events[k];
		size_t elen, klen, tlen = 0;
		const char *e = intern_name(src->event_entities, ev->entity,
		    &elen);
		const char *kind = intern_name(src->event_kinds, ev->kind,
		    &klen);
		const char *t = ev->target == TRACE_NO_ENTITY ? NULL :
		    intern_name(src->event_entities, ev->target, &tlen);

		trace_add_event(tr, ev->time, e, elen, kind, klen, t, tlen);
	}
	tr->nrecords = src->nrecords;
	tr->ndata = src->ndata;
	tr->have_data = src->have_data;
	tr->last_time = src->last_time;
	return (tr);
}

trace *
trace_copy_without_states(const trace *src)
{
	trace *tr = trace_copy_header(src);
	uint32_t i;

	for (i = 0; i < trace_nentities(src); i++) {
		size_t len;
		const char *name = trace_entity_name(src, i, &len);

		trace_entity(tr, name, len);
		tr->descriptions[i] = xstrdup_or_null(src->descriptions[i]);
	}
	return (tr);
}

trace_state *
trace_copy_states(const trace *src)
{
	trace_state *st = xcalloc(src->nstates, sizeof (trace_state));
	uint32_t i;

	for (i = 0; i < src->nstates; i++) {
		st[i] = src->states[i];
		st[i].name = xstrndup(src->states[i].name,
		    src->states[i].name_len);
		st[i].color_text = xstrdup_or_null(src->states[i].color_text);
	}
	return (st);
}

int64_t
trace_state_by_name(const trace *tr, const char *name)
{
	size_t len = strlen(name);
	uint32_t i;

	for (i = 0; i < tr->nstates; i++) {
		if (tr->states[i].name_len == len &&
		    memcmp(tr->states[i].name, name, len) == 0)
			return (i);
	}
	return (-1);
}

void
trace_assign_colors(trace *tr)
{
	uint32_t i, n = 0;

	for (i = 0; i < tr->nstates; i++) {
		if (tr->states[i].color_text == NULL)
			tr->states[i].color = color_generated(n++);
	}
}
