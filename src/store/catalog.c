#include "store/catalog.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/tree.h"

catalog *
catalog_new(const char *name)
{
	catalog *cat = xcalloc(1, sizeof (*cat));

	cat->name = xstrndup(name, strlen(name));
	cat->entities = intern_new();
	cat->tag_names = intern_new();
	cat->tag_keys = intern_new();
	cat->event_kinds = intern_new();
	cat->event_entities = intern_new();
	cat->event_ids = intern_new();
	cat->event_members = intern_new();
	cat->value_strings = intern_new();
	return (cat);
}

void
catalog_free(catalog *cat)
{
	size_t i;

	if (cat == NULL)
		return;
	for (i = 0; i < cat->nstates; i++) {
		free(cat->states[i].name);
		free(cat->states[i].color_text);
	}
	free(cat->states);
	intern_free(cat->state_names);
	for (i = 0; i < intern_count(cat->entities); i++)
		free(cat->descriptions[i]);
	free(cat->descriptions);
	free(cat->value_types);
	for (i = 0; i < intern_count(cat->tag_keys); i++)
		free(cat->tags[i].members);
	free(cat->tags);
	free(cat->tag_by_name);
	free(cat->events);
	free(cat->event_extras);
	intern_free(cat->event_ids);
	intern_free(cat->event_members);
	intern_free(cat->entities);
	intern_free(cat->tag_names);
	intern_free(cat->tag_keys);
	intern_free(cat->event_kinds);
	intern_free(cat->event_entities);
	intern_free(cat->value_strings);
	tree_free(cat->tree);
	free(cat->title);
	free(cat->host);
	free(cat->entity_kind);
	free(cat->name);
	free(cat);
}

uint64_t
catalog_start_ns(const catalog *cat)
{
	if (cat->start_sec > (UINT64_MAX - cat->start_nsec) / 1000000000ULL)
		return (UINT64_MAX);
	return (cat->start_sec * 1000000000ULL + cat->start_nsec);
}

int64_t
catalog_time_limit(uint64_t sec, uint64_t nsec)
{
	if (nsec > (uint64_t)INT64_MAX ||
	    sec > ((uint64_t)INT64_MAX - nsec) / 1000000000ULL)
		return (-1);
	return (INT64_MAX - (int64_t)(sec * 1000000000ULL + nsec));
}

uint32_t
catalog_entity(catalog *cat, const char *name, size_t len)
{
	int added;
	uint32_t id = intern_add(cat->entities, name, len, &added);

	if (added) {
		size_t n = intern_count(cat->entities);

		if (n > cat->descriptions_cap) {
			size_t old = cat->descriptions_cap;

			grow_array(&cat->descriptions, &cat->descriptions_cap, n,
			    sizeof (char *));
			memset(cat->descriptions + old, 0,
			    (cat->descriptions_cap - old) * sizeof (char *));
			cat->value_types = xrealloc(cat->value_types,
			    cat->descriptions_cap);
			memset(cat->value_types + old, CATALOG_VALUES_UNSET,
			    cat->descriptions_cap - old);
		}
	}
	return (id);
}

const char *
catalog_entity_name(const catalog *cat, uint32_t id, size_t *len)
{
	return (intern_name(cat->entities, id, len));
}

uint32_t
catalog_nentities(const catalog *cat)
{
	return (intern_count(cat->entities));
}

void
catalog_set_description(catalog *cat, uint32_t entity, const char *text,
    size_t len)
{
	free(cat->descriptions[entity]);
	cat->descriptions[entity] = xstrndup(text, len);
}

/* States below this have their tag ids in tag_by_name. */
#define CATALOG_FAST_STATES	8

uint32_t
catalog_tag_name(catalog *cat, const char *tag, size_t len)
{
	return (intern_add(cat->tag_names, tag, len, NULL));
}

void
catalog_find_entities(const catalog *cat, const intern *names, uint32_t *ids)
{
	intern_find_each(cat->entities, names, ids);
}

void
catalog_find_tag_names(const catalog *cat, const intern *names, uint32_t *ids)
{
	intern_find_each(cat->tag_names, names, ids);
}

uint32_t
catalog_tag_id(catalog *cat, uint32_t state, const char *tag, size_t len)
{
	return (catalog_tag_id_named(cat, state,
	    catalog_tag_name(cat, tag, len)));
}

uint32_t
catalog_tag_id_named(catalog *cat, uint32_t state, uint32_t name)
{
	char key[8];
	uint32_t id;
	size_t fast = (size_t)name * CATALOG_FAST_STATES + state;
	int added;

	if (state < CATALOG_FAST_STATES && fast < cat->tag_by_name_cap &&
	    cat->tag_by_name[fast] != 0)
		return (cat->tag_by_name[fast] - 1);
	/* A pair of ids makes a fixed-size key: no copying of the tag. */
	memcpy(key, &state, 4);
	memcpy(key + 4, &name, 4);
	id = intern_add(cat->tag_keys, key, sizeof (key), &added);
	if (added) {
		grow_array(&cat->tags, &cat->tags_cap, (size_t)id + 1,
		    sizeof (catalog_tag));
		cat->tags[id].state = state;
		cat->tags[id].name = name;
		cat->tags[id].members = NULL;
	}
	if (state < CATALOG_FAST_STATES) {
		size_t old = cat->tag_by_name_cap;

		grow_array(&cat->tag_by_name, &cat->tag_by_name_cap, fast + 1,
		    sizeof (uint32_t));
		memset(cat->tag_by_name + old, 0, (cat->tag_by_name_cap - old) *
		    sizeof (uint32_t));
		cat->tag_by_name[fast] = id + 1;
	}
	return (id);
}

void
catalog_tag_prefetch(const catalog *cat, uint32_t state, uint32_t name)
{
	size_t fast = (size_t)name * CATALOG_FAST_STATES + state;

	if (state < CATALOG_FAST_STATES && fast < cat->tag_by_name_cap)
		__builtin_prefetch(&cat->tag_by_name[fast]);
}

uint32_t
catalog_find_tag(const catalog *cat, uint32_t state, const char *tag,
    size_t len)
{
	char key[8];
	uint32_t name = intern_find(cat->tag_names, tag, len), id;

	if (name == INTERN_NONE)
		return (CATALOG_NO_TAG);
	memcpy(key, &state, 4);
	memcpy(key + 4, &name, 4);
	id = intern_find(cat->tag_keys, key, sizeof (key));
	return (id == INTERN_NONE ? CATALOG_NO_TAG : id);
}

uint32_t
catalog_ntags(const catalog *cat)
{
	return (intern_count(cat->tag_keys));
}

void
catalog_define_tag(catalog *cat, uint32_t tag, char *members)
{
	free(cat->tags[tag].members);
	cat->tags[tag].members = members;
}

void
catalog_drop_tags(catalog *cat)
{
	uint32_t i;

	for (i = 0; i < catalog_ntags(cat); i++)
		free(cat->tags[i].members);
	free(cat->tags);
	cat->tags = NULL;
	cat->tags_cap = 0;
	free(cat->tag_by_name);
	cat->tag_by_name = NULL;
	cat->tag_by_name_cap = 0;
	intern_free(cat->tag_keys);
	cat->tag_keys = intern_new();
}

void
catalog_add_event(catalog *cat, uint64_t time, const char *entity,
    size_t entity_len, const char *kind, size_t kind_len,
    const char *target, size_t target_len)
{
	catalog_event *ev;

	grow_array(&cat->events, &cat->events_cap, cat->nevents + 1,
	    sizeof (catalog_event));
	ev = &cat->events[cat->nevents++];
	ev->time = time;
	ev->entity = intern_add(cat->event_entities, entity, entity_len, NULL);
	ev->kind = intern_add(cat->event_kinds, kind, kind_len, NULL);
	ev->target = target == NULL ? CATALOG_NO_ENTITY :
	    intern_add(cat->event_entities, target, target_len, NULL);
	ev->extra = CATALOG_NO_EXTRA;
}

void
catalog_set_event_extra(catalog *cat, uint64_t end, const char *id,
    size_t id_len, const char *members, size_t members_len)
{
	catalog_event *ev = &cat->events[cat->nevents - 1];
	catalog_event_extra *x;

	if (end == CATALOG_NO_END && id == NULL && members == NULL)
		return;
	grow_array(&cat->event_extras, &cat->event_extras_cap,
	    cat->nevent_extras + 1, sizeof (catalog_event_extra));
	ev->extra = (uint32_t)cat->nevent_extras;
	x = &cat->event_extras[cat->nevent_extras++];
	x->end = end;
	x->id = id == NULL ? CATALOG_NO_ID :
	    intern_add(cat->event_ids, id, id_len, NULL);
	x->members = members == NULL ? CATALOG_NO_ID :
	    intern_add(cat->event_members, members, members_len, NULL);
}

const catalog_event_extra *
catalog_event_extra_of(const catalog *cat, const catalog_event *ev)
{
	return (ev->extra == CATALOG_NO_EXTRA ? NULL :
	    &cat->event_extras[ev->extra]);
}

const char *
catalog_event_id(const catalog *cat, const catalog_event *ev, size_t *len)
{
	const catalog_event_extra *x = catalog_event_extra_of(cat, ev);

	if (x == NULL || x->id == CATALOG_NO_ID)
		return (NULL);
	return (intern_name(cat->event_ids, x->id, len));
}

const char *
catalog_event_members(const catalog *cat, const catalog_event *ev,
    size_t *len)
{
	const catalog_event_extra *x = catalog_event_extra_of(cat, ev);

	if (x == NULL || x->members == CATALOG_NO_ID)
		return (NULL);
	return (intern_name(cat->event_members, x->members, len));
}

uint64_t
catalog_event_end(const catalog *cat, const catalog_event *ev)
{
	const catalog_event_extra *x = catalog_event_extra_of(cat, ev);

	return (x == NULL ? CATALOG_NO_END : x->end);
}

void
catalog_copy_event(catalog *cat, const catalog *src, size_t k, int64_t delta,
    const char *entity, size_t entity_len, const char *target,
    size_t target_len)
{
	const catalog_event *ev = &src->events[k];
	size_t klen, ilen = 0, mlen = 0;
	const char *kind = intern_name(src->event_kinds, ev->kind, &klen);
	const char *id = catalog_event_id(src, ev, &ilen);
	const char *members = catalog_event_members(src, ev, &mlen);
	uint64_t end = catalog_event_end(src, ev);

	catalog_add_event(cat, (uint64_t)((int64_t)ev->time + delta), entity,
	    entity_len, kind, klen, target, target_len);
	catalog_set_event_extra(cat, end == CATALOG_NO_END ? end :
	    (uint64_t)((int64_t)end + delta), id, ilen, members, mlen);
}

catalog *
catalog_copy_header(const catalog *src)
{
	catalog *cat = catalog_new(src->name);
	uint32_t i;
	size_t k;

	cat->title = xstrdup_or_null(src->title);
	cat->host = xstrdup_or_null(src->host);
	cat->entity_kind = xstrdup_or_null(src->entity_kind);
	cat->have_start = src->have_start;
	cat->start_sec = src->start_sec;
	cat->start_nsec = src->start_nsec;
	for (i = 0; i < catalog_ntags(src); i++) {
		size_t len;
		const char *name = intern_name(src->tag_names,
		    src->tags[i].name, &len);

		catalog_tag_id(cat, src->tags[i].state, name, len);
		cat->tags[i].members = xstrdup_or_null(src->tags[i].members);
	}
	for (k = 0; k < src->nevents; k++) {
		const catalog_event *ev = &src->events[k];
		size_t elen, tlen = 0;
		const char *e = intern_name(src->event_entities, ev->entity,
		    &elen);
		const char *t = ev->target == CATALOG_NO_ENTITY ? NULL :
		    intern_name(src->event_entities, ev->target, &tlen);

		catalog_copy_event(cat, src, k, 0, e, elen, t, tlen);
	}
	for (i = 0; i < intern_count(src->value_strings); i++) {
		size_t len;
		const char *text = intern_name(src->value_strings, i, &len);

		intern_add(cat->value_strings, text, len, NULL);
	}
	cat->nrecords = src->nrecords;
	cat->ndata = src->ndata;
	cat->have_data = src->have_data;
	cat->last_time = src->last_time;
	return (cat);
}

catalog *
catalog_copy_without_states(const catalog *src)
{
	catalog *cat = catalog_copy_header(src);
	uint32_t i;

	for (i = 0; i < catalog_nentities(src); i++) {
		size_t len;
		const char *name = catalog_entity_name(src, i, &len);

		catalog_entity(cat, name, len);
		cat->descriptions[i] = xstrdup_or_null(src->descriptions[i]);
		cat->value_types[i] = src->value_types[i];
	}
	return (cat);
}

catalog_state *
catalog_copy_states(const catalog *src)
{
	catalog_state *st = xcalloc(src->nstates, sizeof (catalog_state));
	uint32_t i;

	for (i = 0; i < src->nstates; i++) {
		st[i] = src->states[i];
		st[i].name = xstrndup(src->states[i].name,
		    src->states[i].name_len);
		st[i].color_text = xstrdup_or_null(src->states[i].color_text);
	}
	return (st);
}

int
catalog_index_states(catalog *cat)
{
	uint32_t i;

	intern_free(cat->state_names);
	cat->state_names = intern_new();
	/* Names are all different, so each gets its value as its id. */
	for (i = 0; i < cat->nstates; i++) {
		if (intern_add(cat->state_names, cat->states[i].name,
		    cat->states[i].name_len, NULL) != i)
			return (-1);
	}
	return (0);
}

void
catalog_set_states(catalog *cat, catalog_state *states, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < cat->nstates; i++) {
		free(cat->states[i].name);
		free(cat->states[i].color_text);
	}
	free(cat->states);
	cat->states = states;
	cat->nstates = n;
	catalog_index_states(cat);
}

int
catalog_same_states(const catalog *a, const catalog *b)
{
	uint32_t s;

	if (a->nstates != b->nstates)
		return (0);
	for (s = 0; s < a->nstates; s++) {
		const catalog_state *x = &a->states[s], *y = &b->states[s];

		if (x->name_len != y->name_len ||
		    memcmp(x->name, y->name, x->name_len) != 0 ||
		    x->color.r != y->color.r || x->color.g != y->color.g ||
		    x->color.b != y->color.b)
			return (0);
	}
	return (1);
}

int64_t
catalog_state_by_name(const catalog *cat, const char *name, size_t len)
{
	uint32_t id;

	if (cat->state_names == NULL)
		return (-1);
	id = intern_find(cat->state_names, name, len);
	return (id == INTERN_NONE ? -1 : (int64_t)id);
}

void
catalog_assign_colors(catalog *cat)
{
	uint32_t i, n = 0;

	for (i = 0; i < cat->nstates; i++) {
		if (cat->states[i].color_text == NULL)
			cat->states[i].color = color_generated(n++);
	}
}

const struct tree *
catalog_tree(catalog *cat)
{
	if (cat->tree != NULL &&
	    tree_nentities(cat->tree) == catalog_nentities(cat))
		return (cat->tree);
	tree_free(cat->tree);
	cat->tree = tree_build(cat->entities);
	return (cat->tree);
}
