#include "trace/merge_traces.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/runlimit.h"
#include "base/util.h"

/* ---- names ---- */

int
merge_traces_qualifier_ok(const char *q, size_t len)
{
	return (q != NULL && len > 0 && q[0] != '#' &&
	    memchr(q, '/', len) == NULL);
}

static int
usable(const char *s)
{
	return (s != NULL && merge_traces_qualifier_ok(s, strlen(s)));
}

/* How many of the n strings (NULL ones never) equal s. */
static size_t
count_equal(const char *s, const char *const *all, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += all[i] != NULL && strcmp(all[i], s) == 0;
	return (k);
}

char **
merge_traces_qualifiers(const catalog *const *cats, size_t n)
{
	const char **hosts = xcalloc(n + 1, sizeof (char *));
	const char **titles = xcalloc(n + 1, sizeof (char *));
	char **q = xcalloc(n + 1, sizeof (char *));
	size_t i;

	for (i = 0; i < n; i++) {
		hosts[i] = usable(cats[i]->host) ? cats[i]->host : NULL;
		titles[i] = usable(cats[i]->title) ? cats[i]->title : NULL;
	}
	/* First the hosts only one input has. */
	for (i = 0; i < n; i++)
		if (hosts[i] != NULL && count_equal(hosts[i], hosts, n) == 1)
			q[i] = xstrndup(hosts[i], strlen(hosts[i]));
	/* Then titles only one has, and that no host above took. */
	for (i = 0; i < n; i++) {
		size_t j;
		int taken = 0;

		if (q[i] != NULL || titles[i] == NULL ||
		    count_equal(titles[i], titles, n) != 1)
			continue;
		for (j = 0; j < n; j++)
			taken |= q[j] != NULL && titles[j] != titles[i] &&
			    strcmp(q[j], titles[i]) == 0;
		if (!taken)
			q[i] = xstrndup(titles[i], strlen(titles[i]));
	}
	/* The rest by place: no host or title starts with '#'. */
	for (i = 0; i < n; i++) {
		if (q[i] == NULL) {
			char buf[32];
			int len = snprintf(buf, sizeof (buf), "#%zu", i + 1);

			q[i] = xstrndup(buf, (size_t)len);
		}
	}
	free(hosts);
	free(titles);
	return (q);
}

void
merge_traces_free_names(char **names, size_t n)
{
	size_t i;

	if (names == NULL)
		return;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* "q/name" in buf (grown as needed); its length. */
static size_t
qualified(char **buf, size_t *cap, const char *q, const char *name,
    size_t len)
{
	size_t qlen = strlen(q);

	grow_array(buf, cap, qlen + len + 2, 1);
	memcpy(*buf, q, qlen);
	(*buf)[qlen] = '/';
	memcpy(*buf + qlen + 1, name, len);
	(*buf)[qlen + 1 + len] = '\0';
	return (qlen + 1 + len);
}

/*
 * For each event entity of cat, whether it is an entity of the input:
 * one with transitions (a catalog entity) or the entity of an event.
 */
static unsigned char *
own_names(const catalog *cat)
{
	uint32_t n = intern_count(cat->event_entities), k;
	unsigned char *own = xcalloc((size_t)n + 1, 1);
	size_t i;

	for (k = 0; k < n; k++) {
		size_t len;
		const char *name = intern_name(cat->event_entities, k, &len);

		own[k] = intern_find(cat->entities, name, len) != INTERN_NONE;
	}
	for (i = 0; i < cat->nevents; i++)
		own[cat->events[i].entity] = 1;
	return (own);
}

/* ---- events ---- */

typedef struct event_ref {
	uint64_t time;		/* moved */
	uint32_t input;
	size_t index;
} event_ref;

static int
compare_refs(const void *pa, const void *pb)
{
	const event_ref *a = pa, *b = pb;

	if (a->time != b->time)
		return (a->time < b->time ? -1 : 1);
	if (a->input != b->input)
		return (a->input < b->input ? -1 : 1);
	return (a->index < b->index ? -1 : a->index > b->index);
}

void
merge_traces_events(catalog *cat, const catalog *const *cats, size_t n,
    char *const *q, const int64_t *delta, uint32_t *origin,
    size_t *origin_index)
{
	unsigned char **own = xcalloc(n + 1, sizeof (unsigned char *));
	event_ref *refs;
	size_t total = 0, i, k = 0;
	char *ebuf = NULL, *tbuf = NULL;
	size_t ecap = 0, tcap = 0;

	for (i = 0; i < n; i++) {
		total += cats[i]->nevents;
		if (q != NULL)
			own[i] = own_names(cats[i]);
	}
	refs = xcalloc(total + 1, sizeof (event_ref));
	for (i = 0; i < n; i++) {
		size_t e;

		for (e = 0; e < cats[i]->nevents; e++, k++) {
			refs[k].time = cats[i]->events[e].time + (uint64_t)(delta
			    != NULL ? delta[i] : 0);
			refs[k].input = (uint32_t)i;
			refs[k].index = e;
		}
	}
	if (n > 1)
		qsort(refs, total, sizeof (event_ref), compare_refs);
	for (k = 0; k < total; k++) {
		const catalog *src = cats[refs[k].input];
		const catalog_event *ev = &src->events[refs[k].index];
		const char *name, *target = NULL;
		size_t len, tlen = 0;

		name = intern_name(src->event_entities, ev->entity, &len);
		if (ev->target != CATALOG_NO_ENTITY)
			target = intern_name(src->event_entities, ev->target,
			    &tlen);
		if (q != NULL) {
			const char *qi = q[refs[k].input];

			len = qualified(&ebuf, &ecap, qi, name, len);
			name = ebuf;
			if (target != NULL && own[refs[k].input][ev->target]) {
				tlen = qualified(&tbuf, &tcap, qi, target,
				    tlen);
				target = tbuf;
			}
		}
		catalog_copy_event(cat, src, refs[k].index, delta != NULL ?
		    delta[refs[k].input] : 0, name, len, target, tlen);
		if (origin != NULL) {
			origin[k] = refs[k].input;
			origin_index[k] = refs[k].index;
		}
	}
	for (i = 0; i < n; i++)
		free(own[i]);
	free(own);
	free(refs);
	free(ebuf);
	free(tbuf);
}

/* ---- traces ---- */

/* Every 64 K transitions: whether a script's limits say stop. */
static int
stopping(uint64_t *tick, const store *st, const char **why)
{
	if ((++*tick & 0xffff) != 0)
		return (0);
	return (runlimit_check(st != NULL ? store_memory(st) : 0, why) != 0);
}

/* The latest time an input holds: transitions, events, ends, window. */
static uint64_t
latest_time(const trace *d)
{
	const catalog *cat = d->cat;
	uint64_t t = d->end;
	uint32_t e;
	size_t k;

	for (e = 0; e < store_nentities(d->st); e++) {
		size_t n = store_count(d->st, e);

		if (n > 0 && store_times(d->st, e)[n - 1] > t)
			t = store_times(d->st, e)[n - 1];
		n = store_value_count(d->st, e);
		if (n > 0 && store_value_times(d->st, e)[n - 1] > t)
			t = store_value_times(d->st, e)[n - 1];
	}
	for (k = 0; k < cat->nevents; k++) {
		uint64_t end = catalog_event_end(cat, &cat->events[k]);

		if (cat->events[k].time > t)
			t = cat->events[k].time;
		if (end != CATALOG_NO_END && end > t)
			t = end;
	}
	return (t);
}

/* The earliest likewise. */
static uint64_t
earliest_time(const trace *d)
{
	const catalog *cat = d->cat;
	uint64_t t = d->begin;
	uint32_t e;
	size_t k;

	for (e = 0; e < store_nentities(d->st); e++) {
		if (store_count(d->st, e) > 0 && store_times(d->st, e)[0] < t)
			t = store_times(d->st, e)[0];
		if (store_value_count(d->st, e) > 0 &&
		    store_value_times(d->st, e)[0] < t)
			t = store_value_times(d->st, e)[0];
	}
	for (k = 0; k < cat->nevents; k++)
		if (cat->events[k].time < t)
			t = cat->events[k].time;
	return (t);
}

/* A string all inputs share, or NULL. */
static char *
shared(const trace *const *inputs, size_t n, size_t field)
{
	const char *first = *(char *const *)((const char *)inputs[0]->cat +
	    field);
	size_t i;

	for (i = 1; i < n && first != NULL; i++) {
		const char *s = *(char *const *)((const char *)inputs[i]->cat +
		    field);

		if (s == NULL || strcmp(s, first) != 0)
			return (NULL);
	}
	return (xstrdup_or_null(first));
}

/*
 * Where each input's times land: delta[i] = its start, plus its offset,
 * minus the merged start (the earliest of those, or the epoch).  Every
 * time it holds must then stay within [0, 2^63), and so must the merged
 * start plus that time, as in a trace read from a file (records.h).
 */
static int
place_inputs(const trace *const *inputs, size_t n, const int64_t *offsets,
    int64_t *delta, uint64_t *start, const char **why)
{
	__int128 lo = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		__int128 at = (__int128)catalog_start_ns(inputs[i]->cat) +
		    (offsets != NULL ? offsets[i] : 0);

		if (i == 0 || at < lo)
			lo = at;
	}
	if (lo < 0)
		lo = 0;
	if (lo > INT64_MAX) {
		*why = "the start would be past 2^63 ns since the epoch";
		return (-1);
	}
	*start = (uint64_t)lo;
	for (i = 0; i < n; i++) {
		__int128 d = (__int128)catalog_start_ns(inputs[i]->cat) +
		    (offsets != NULL ? offsets[i] : 0) - lo;

		if (lo + d + (__int128)latest_time(inputs[i]) > INT64_MAX) {
			*why = "a time would be past 2^63 ns since the epoch";
			return (-1);
		}
		if ((__int128)earliest_time(inputs[i]) + d < 0) {
			*why = "a time would be before the epoch";
			return (-1);
		}
		delta[i] = (int64_t)d;
	}
	return (0);
}

/*
 * The union of the inputs' states by name; state_map[i][s] is the merged
 * value of input i's state s.
 */
static int
merge_states(catalog *cat, const trace *const *inputs, size_t n,
    uint32_t **state_map, const char **why)
{
	catalog_state *states = NULL;
	size_t cap = 0, i;
	uint32_t count = 0;
	intern *names = intern_new();

	for (i = 0; i < n; i++) {
		const catalog *src = inputs[i]->cat;
		uint32_t s;

		state_map[i] = xcalloc((size_t)src->nstates + 1,
		    sizeof (uint32_t));
		for (s = 0; s < src->nstates; s++) {
			const catalog_state *st = &src->states[s];
			int added;
			uint32_t id = intern_add(names, st->name, st->name_len,
			    &added);

			if (added) {
				if (count >= STORE_MAX_STATES) {
					intern_free(names);
					catalog_set_states(cat, states, count);
					*why = "the merged trace would have more "
					    "than 65535 states";
					return (-1);
				}
				grow_array(&states, &cap, (size_t)count + 1,
				    sizeof (catalog_state));
				states[count] = *st;
				states[count].name = xstrndup(st->name,
				    st->name_len);
				states[count].color_text =
				    xstrdup_or_null(st->color_text);
				count++;
			}
			state_map[i][s] = id;
		}
	}
	intern_free(names);
	catalog_set_states(cat, states, count);
	return (0);
}

/* The tags of input src in cat, by (merged state, name): tag_map[t]. */
static uint32_t *
merge_tags(catalog *cat, const catalog *src, const uint32_t *state_map)
{
	uint32_t n = catalog_ntags(src), t;
	uint32_t *tag_map = xcalloc((size_t)n + 1, sizeof (uint32_t));

	for (t = 0; t < n; t++) {
		size_t len;
		const char *name = intern_name(src->tag_names, src->tags[t].name,
		    &len);
		uint32_t id = catalog_tag_id(cat, state_map[src->tags[t].state],
		    name, len);

		if (cat->tags[id].members == NULL)
			cat->tags[id].members =
			    xstrdup_or_null(src->tags[t].members);
		tag_map[t] = id;
	}
	return (tag_map);
}

/* The merged trace's name: the inputs' joined by '+'. */
static char *
joined_names(const trace *const *inputs, size_t n)
{
	size_t len = 0, i, at = 0;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(inputs[i]->cat->name) + 1;
	s = xmalloc(len + 1);
	for (i = 0; i < n; i++) {
		size_t l = strlen(inputs[i]->cat->name);

		if (i > 0)
			s[at++] = '+';
		memcpy(s + at, inputs[i]->cat->name, l);
		at += l;
	}
	s[at] = '\0';
	return (s);
}

/*
 * The values of entity e of in, if it is a value entity, moved by delta
 * into entity id of d, a string by its text in d's catalog.
 */
static int
merge_values(trace *d, uint32_t id, const trace *in, uint32_t e,
    int64_t delta, uint64_t *tick, const char **why)
{
	const uint64_t *time = store_value_times(in->st, e);
	const sm_value *value = store_values(in->st, e);
	size_t k, n = store_value_count(in->st, e);

	for (k = 0; k < n; k++) {
		sm_value v = value[k];

		if (stopping(tick, d->st, why))
			return (-1);
		if (!catalog_value_ints(in->cat, e) && value_is_string(v)) {
			size_t len;
			const char *text = intern_name(in->cat->value_strings,
			    value_string_id(v), &len);

			v = value_string(intern_add(d->cat->value_strings,
			    text, len, NULL));
		}
		store_append_value(d->st, id, (uint64_t)((int64_t)time[k] +
		    delta), v);
	}
	return (0);
}

/*
 * The merge itself; q NULL keeps names (one input: a shift), which also
 * keeps its metadata as it is.
 */
static trace *
merge_into(const trace *const *inputs, size_t n, char *const *q,
    const int64_t *offsets, const char **why)
{
	trace *d = xcalloc(1, sizeof (*d));
	catalog *cat;
	uint32_t **state_map = xcalloc(n + 1, sizeof (uint32_t *));
	int64_t *delta = xcalloc(n + 1, sizeof (int64_t));
	uint64_t start, tick = 0, begin = UINT64_MAX, end = 0;
	const catalog **cats = xcalloc(n + 1, sizeof (catalog *));
	char *buf = NULL;
	size_t cap = 0, i;
	int ok = 0;

	cat = d->cat = catalog_new("merge");
	if (place_inputs(inputs, n, offsets, delta, &start, why) != 0 ||
	    merge_states(cat, inputs, n, state_map, why) != 0)
		goto out;
	free(cat->name);
	cat->name = joined_names(inputs, n);
	cat->title = shared(inputs, n, offsetof(catalog, title));
	cat->host = shared(inputs, n, offsetof(catalog, host));
	cat->entity_kind = shared(inputs, n, offsetof(catalog, entity_kind));
	cat->have_start = 1;
	cat->start_sec = start / 1000000000ULL;
	cat->start_nsec = start % 1000000000ULL;
	d->st = store_new(cat->nstates);
	for (i = 0; i < n; i++) {
		const trace *in = inputs[i];
		uint32_t *tag_map = merge_tags(cat, in->cat, state_map[i]);
		uint32_t e;

		for (e = 0; e < catalog_nentities(in->cat); e++) {
			size_t len, k, count = store_count(in->st, e);
			const char *name = catalog_entity_name(in->cat, e, &len);
			const uint64_t *time = store_times(in->st, e);
			const uint16_t *state = store_states(in->st, e);
			const uint32_t *tag = count > 0 ?
			    store_tags(in->st, e) : NULL;
			const uint16_t *depth = store_depths(in->st, e);
			uint32_t id;

			if (q != NULL) {
				len = qualified(&buf, &cap, q[i], name, len);
				name = buf;
			}
			if (intern_find(cat->entities, name, len) !=
			    INTERN_NONE) {
				*why = "two entities would have the same name";
				free(tag_map);
				goto out;
			}
			id = catalog_entity(cat, name, len);
			cat->descriptions[id] =
			    xstrdup_or_null(in->cat->descriptions[e]);
			catalog_set_value_type(cat, id,
			    catalog_value_type(in->cat, e));
			if (merge_values(d, id, in, e, delta[i],
			    &tick, why) != 0) {
				free(tag_map);
				goto out;
			}
			for (k = 0; k < count; k++) {
				uint64_t at = (uint64_t)((int64_t)time[k] +
				    delta[i]);
				/* No data (STORE_GAP) stays no data. */
				uint32_t s = state[k] == STORE_GAP ?
				    STORE_GAP : state_map[i][state[k]];
				uint32_t t = tag[k] == STORE_NONE ||
				    s == STORE_GAP ? STORE_NONE :
				    tag_map[tag[k]];

				if (stopping(&tick, d->st, why)) {
					free(tag_map);
					goto out;
				}
				/* A stack keeps its shape (store.h). */
				if (depth != NULL)
					store_append_depth(d->st, id, at, s, t,
					    depth[k]);
				else
					store_append(d->st, id, at, s, t);
			}
		}
		free(tag_map);
		cats[i] = in->cat;
		if ((uint64_t)((int64_t)in->begin + delta[i]) < begin)
			begin = (uint64_t)((int64_t)in->begin + delta[i]);
		if ((uint64_t)((int64_t)in->end + delta[i]) > end)
			end = (uint64_t)((int64_t)in->end + delta[i]);
		cat->nrecords += in->cat->nrecords;
		cat->ndata += in->cat->ndata;
		if (in->cat->have_data) {
			uint64_t last = (uint64_t)((int64_t)in->cat->last_time +
			    delta[i]);

			if (!cat->have_data || last > cat->last_time)
				cat->last_time = last;
			cat->have_data = 1;
		}
	}
	merge_traces_events(cat, cats, n, q, delta, NULL, NULL);
	d->begin = begin;
	d->end = end;
	store_finish(d->st, begin, end);
	ok = 1;
out:
	for (i = 0; i < n; i++)
		free(state_map[i]);
	free(state_map);
	free(delta);
	free(cats);
	free(buf);
	if (!ok) {
		trace_free(d);
		return (NULL);
	}
	return (d);
}

trace *
merge_traces(const trace *const *inputs, size_t n, char *const *q,
    const int64_t *offsets, const char **why)
{
	return (merge_into(inputs, n, q, offsets, why));
}

trace *
merge_traces_shift(const trace *src, int64_t ns, const char **why)
{
	trace *d = merge_into(&src, 1, NULL, &ns, why);

	if (d != NULL) {
		/* One input: its own name, and every count as it was. */
		free(d->cat->name);
		d->cat->name = xstrdup_or_null(src->cat->name);
	}
	return (d);
}
