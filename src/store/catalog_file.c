#include "store/catalog_file.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/color.h"
#include "base/intern.h"
#include "base/json.h"
#include "base/utf8.h"
#include "base/util.h"
#include "store/store.h"

/* The length word of no string (a NULL). */
#define NO_STRING	UINT64_MAX

/*
 * One pass over a catalog's fields, either way.  Saving appends each
 * field to out.  Loading takes each from the bytes at `at`; once they
 * run out (or a count is more than they can hold) it sets bad, and every
 * field after reads as 0 or no string, so that a pass always goes to its
 * end and is rejected there.
 */
typedef struct pass {
	int loading;
	char *out;
	size_t len, cap;
	const char *at, *end;
	int bad;
	uint64_t time_limit;	/* loading: what the start allows a time */
} pass;

/* A string of the file: bytes (not NUL-terminated) and length; s NULL
 * for none. */
typedef struct text {
	const char *s;
	size_t len;
} text;

static text
text_of(const char *s)
{
	text t = { s, s != NULL ? strlen(s) : 0 };

	return (t);
}

static void
put(pass *p, const void *data, size_t len)
{
	grow_array(&p->out, &p->cap, p->len + len, 1);
	memcpy(p->out + p->len, data, len);
	p->len += len;
}

/* A word, written from *v or read into it. */
static void
word(pass *p, uint64_t *v)
{
	if (!p->loading) {
		put(p, v, sizeof (*v));
		return;
	}
	if (p->bad || (size_t)(p->end - p->at) < sizeof (*v)) {
		p->bad = 1;
		*v = 0;
		return;
	}
	memcpy(v, p->at, sizeof (*v));
	p->at += sizeof (*v);
}

/* A flag, as a word 0 or 1. */
static void
flag(pass *p, int *f)
{
	uint64_t v = (uint64_t)*f;

	word(p, &v);
	if (p->loading)
		*f = v != 0;
}

/*
 * A string: a loaded one points into the bytes, and must be valid UTF-8
 * (every string of a catalog came from text that was: an entry changed
 * on disk is refused, not drawn into an SVG as ill-formed XML).
 */
static void
string(pass *p, text *t)
{
	uint64_t n = t->s != NULL ? t->len : NO_STRING;

	word(p, &n);
	if (!p->loading) {
		if (t->s != NULL)
			put(p, t->s, t->len);
		return;
	}
	t->s = NULL;
	t->len = 0;
	if (p->bad || n == NO_STRING)
		return;
	if (n > (uint64_t)(p->end - p->at)) {
		p->bad = 1;
		return;
	}
	if (!utf8_valid(p->at, (size_t)n)) {
		p->bad = 1;
		return;
	}
	t->s = p->at;
	t->len = (size_t)n;
	p->at += n;
}

/* A string the catalog owns (NUL-terminated, or NULL). */
static void
owned(pass *p, char **s)
{
	text t = text_of(*s);

	string(p, &t);
	if (p->loading)
		*s = t.s != NULL ? xstrndup(t.s, t.len) : NULL;
}

/*
 * How many records follow: *n when saving; read into *n when loading,
 * where the bytes left must hold that many of at least min_bytes each.
 */
static void
count(pass *p, uint64_t *n, size_t min_bytes)
{
	word(p, n);
	if (p->loading && *n > (uint64_t)(p->end - p->at) / min_bytes)
		p->bad = 1;
	if (p->bad)
		*n = 0;
}

/*
 * An event's members as the ingest wrote them: JSON object members with
 * every '<', '>' and '&' escaped, which the writers copy as they are into
 * JSON and into the SVG's data block.
 */
static int
event_members_ok(const char *s, size_t len)
{
	json_arena *ja;
	json_error err;
	json_value *v;
	char *doc;
	int ok;

	if (memchr(s, '<', len) != NULL || memchr(s, '>', len) != NULL ||
	    memchr(s, '&', len) != NULL)
		return (0);
	doc = xmalloc(len + 2);
	doc[0] = '{';
	memcpy(doc + 1, s, len);
	doc[len + 1] = '}';
	ja = json_arena_new();
	v = json_parse_document(ja, doc, len + 2, &err);
	ok = v != NULL && v->type == JSON_OBJECT && v->len > 0;
	json_arena_free(ja);
	free(doc);
	return (ok);
}

/*
 * The records, one function for each kind: record i's fields taken from
 * the catalog when saving, then passed in the file's order, then, when
 * loading, checked and added to the catalog as record i.  0, or -1 for a
 * record that is not sound.
 */
typedef int (*record_fn)(pass *p, catalog *cat, uint64_t i);

static int
state_record(pass *p, catalog *cat, uint64_t i)
{
	catalog_state *s = &cat->states[i];
	text name = { s->name, s->name_len }, colour = text_of(s->color_text);

	string(p, &name);
	string(p, &colour);
	if (!p->loading)
		return (0);
	if (name.s == NULL)
		return (-1);
	s->name = xstrndup(name.s, name.len);
	s->name_len = name.len;
	if (colour.s != NULL) {
		if (!color_parse(colour.s, colour.len, &s->color))
			return (-1);
		s->color_text = xstrndup(colour.s, colour.len);
	}
	return (0);
}

static int
entity_record(pass *p, catalog *cat, uint64_t i)
{
	text name = { NULL, 0 }, desc = { NULL, 0 };
	uint64_t type = 0;

	if (!p->loading) {
		name.s = catalog_entity_name(cat, (uint32_t)i, &name.len);
		desc = text_of(cat->descriptions[i]);
		type = cat->value_types[i];
	}
	string(p, &name);
	string(p, &desc);
	word(p, &type);
	if (!p->loading)
		return (0);
	if (name.s == NULL || catalog_entity(cat, name.s, name.len) != i ||
	    type > CATALOG_VALUES_NUMBER)
		return (-1);
	catalog_set_value_type(cat, (uint32_t)i, (int)type);
	if (desc.s != NULL)
		catalog_set_description(cat, (uint32_t)i, desc.s, desc.len);
	return (0);
}

static int
tag_record(pass *p, catalog *cat, uint64_t i)
{
	uint64_t state = 0;
	text name = { NULL, 0 }, members = { NULL, 0 };

	if (!p->loading) {
		state = cat->tags[i].state;
		name.s = intern_name(cat->tag_names, cat->tags[i].name,
		    &name.len);
		members = text_of(cat->tags[i].members);
	}
	word(p, &state);
	string(p, &name);
	string(p, &members);
	if (!p->loading)
		return (0);
	if (name.s == NULL || state >= cat->nstates ||
	    catalog_tag_id(cat, (uint32_t)state, name.s, name.len) != i)
		return (-1);
	catalog_define_tag(cat, (uint32_t)i, members.s != NULL ?
	    xstrndup(members.s, members.len) : NULL);
	return (0);
}

static int
event_record(pass *p, catalog *cat, uint64_t i)
{
	uint64_t time = 0, end = 0;
	text entity = { NULL, 0 }, kind = { NULL, 0 }, target = { NULL, 0 };
	text id = { NULL, 0 }, members = { NULL, 0 };

	if (!p->loading) {
		const catalog_event *ev = &cat->events[i];

		time = ev->time;
		entity.s = intern_name(cat->event_entities, ev->entity,
		    &entity.len);
		kind.s = intern_name(cat->event_kinds, ev->kind, &kind.len);
		if (ev->target != CATALOG_NO_ENTITY)
			target.s = intern_name(cat->event_entities,
			    ev->target, &target.len);
		end = catalog_event_end(cat, ev);
		id.s = catalog_event_id(cat, ev, &id.len);
		members.s = catalog_event_members(cat, ev, &members.len);
	}
	word(p, &time);
	string(p, &entity);
	string(p, &kind);
	string(p, &target);
	word(p, &end);
	string(p, &id);
	string(p, &members);
	if (!p->loading)
		return (0);
	if (entity.s == NULL || kind.s == NULL || time > p->time_limit ||
	    (end != CATALOG_NO_END && (end < time || end > p->time_limit)) ||
	    (id.s != NULL && id.len == 0) ||
	    (members.s != NULL && !event_members_ok(members.s, members.len)))
		return (-1);
	catalog_add_event(cat, time, entity.s, entity.len, kind.s, kind.len,
	    target.s, target.len);
	catalog_set_event_extra(cat, end, id.s, id.len, members.s,
	    members.len);
	return (0);
}

/* A string of value entities, numbered in order. */
static int
value_string_record(pass *p, catalog *cat, uint64_t i)
{
	text t = { NULL, 0 };
	int added;

	if (!p->loading)
		t.s = intern_name(cat->value_strings, (uint32_t)i, &t.len);
	string(p, &t);
	if (!p->loading)
		return (0);
	if (t.s == NULL ||
	    intern_add(cat->value_strings, t.s, t.len, &added) != i || !added)
		return (-1);
	return (0);
}

/*
 * A count, then that many records of one kind.  min_bytes is the least a
 * record takes in the file (its strings' length words), which bounds the
 * count a loading pass believes.
 */
static int
record_list(pass *p, catalog *cat, uint64_t n, size_t min_bytes, record_fn fn)
{
	uint64_t i;

	count(p, &n, min_bytes);
	for (i = 0; i < n && !p->bad; i++)
		if (fn(p, cat, i) != 0)
			return (-1);
	return (0);
}

/*
 * The states: at least one, at most as many as a store takes (store.h),
 * as the input's "states" has them; loaded, they get their colours and
 * their names' index, which refuses two states of one name.
 */
static int
states(pass *p, catalog *cat)
{
	uint64_t n = cat->nstates, i;

	count(p, &n, 16);
	if (p->loading) {
		if (p->bad || n == 0 || n > STORE_MAX_STATES)
			return (-1);
		cat->states = xcalloc((size_t)n, sizeof (catalog_state));
		cat->nstates = (uint32_t)n;
	}
	for (i = 0; i < n && !p->bad; i++)
		if (state_record(p, cat, i) != 0)
			return (-1);
	if (!p->loading)
		return (0);
	if (p->bad)
		return (-1);	/* cut short: some states have no name */
	catalog_assign_colors(cat);
	return (catalog_index_states(cat));
}

/*
 * Every field of the catalog, in the file's order: the one list of them,
 * for saving and for loading alike.  A new field or kind of record goes
 * here, and nowhere else in this file.
 */
static int
catalog_fields(pass *p, catalog *cat)
{
	owned(p, &cat->title);
	owned(p, &cat->host);
	owned(p, &cat->entity_kind);
	flag(p, &cat->have_start);
	word(p, &cat->start_sec);
	word(p, &cat->start_nsec);
	if (p->loading) {
		/* As the ingest reads a start, and times after it. */
		int64_t limit = catalog_time_limit(cat->start_sec,
		    cat->start_nsec);

		p->bad |= limit < 0;
		p->time_limit = limit < 0 ? 0 : (uint64_t)limit;
	}
	if (states(p, cat) != 0 ||
	    record_list(p, cat, catalog_nentities(cat), 16, entity_record) != 0 ||
	    record_list(p, cat, catalog_ntags(cat), 24, tag_record) != 0 ||
	    record_list(p, cat, cat->nevents, 32, event_record) != 0 ||
	    record_list(p, cat, intern_count(cat->value_strings), 8,
	    value_string_record) != 0)
		return (-1);
	word(p, &cat->nrecords);
	word(p, &cat->ndata);
	flag(p, &cat->have_data);
	word(p, &cat->last_time);
	if (p->loading && cat->last_time > p->time_limit)
		p->bad = 1;
	return (p->bad ? -1 : 0);
}

char *
catalog_file_save(const catalog *cat, size_t *len)
{
	pass p;

	memset(&p, 0, sizeof (p));
	/* A saving pass only reads the catalog. */
	(void) catalog_fields(&p, (catalog *)cat);
	*len = p.len;
	return (p.out);
}

catalog *
catalog_file_load(const char *bytes, size_t len, const char *name)
{
	catalog *cat = catalog_new(name);
	pass p;

	memset(&p, 0, sizeof (p));
	p.loading = 1;
	p.at = bytes;
	p.end = bytes + len;
	if (catalog_fields(&p, cat) != 0 || p.at != p.end) {
		catalog_free(cat);
		return (NULL);
	}
	return (cat);
}
