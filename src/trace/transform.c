#include "trace/transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/runlimit.h"
#include "base/util.h"
#include "store/count_series.h"
#include "store/interleave.h"

/* A new trace with src's window, to be filled. */
static trace *
new_trace(const trace *src)
{
	trace *d = xcalloc(1, sizeof (*d));

	d->begin = src->begin;
	d->end = src->end;
	return (d);
}

static trace *
abandon(trace *d)
{
	trace_free(d);
	return (NULL);
}

/*
 * Whether the new trace's store lost transitions on the way to disk (a
 * full disk: store.h): then *why says so, in memory of this thread's own
 * (the store's own goes with it).
 */
static int
lost_on_disk(const trace *d, const char **why)
{
	static _Thread_local char msg[SPILL_WHY];
	const char *failed;
	int lost;

	if (d->st == NULL)
		return (0);
	failed = store_failed(d->st, &lost);
	if (!lost)
		return (0);
	(void) snprintf(msg, sizeof (msg), "%s", failed);
	*why = msg;
	return (1);
}

static trace *
finished(trace *d, const char **why)
{
	store_finish(d->st, d->begin, d->end);
	return (lost_on_disk(d, why) ? abandon(d) : d);
}

/*
 * Every 64 K transitions: whether a script's limits say stop, or the
 * store lost transitions on the way to disk.
 */
static int
stopping(uint64_t *tick, const trace *d, const char **why)
{
	if ((++*tick & 0xffff) != 0)
		return (0);
	return (lost_on_disk(d, why) || runlimit_check(d->st != NULL ?
	    store_memory(d->st) : 0, why) != 0);
}

/*
 * In cat, the tag of new state s for tag t of from: a tag belongs to one
 * state, so it is the pair (s, t's name), numbered when first seen, with
 * t's definition.  Two tags of one name whose states map to one state
 * become one; a tag whose transitions go to several states becomes
 * several.
 */
static uint32_t
map_tag(catalog *cat, const catalog *from, uint32_t s, uint32_t t)
{
	uint32_t n = catalog_ntags(cat), id;
	size_t len;
	const char *name = intern_name(from->tag_names, from->tags[t].name,
	    &len);

	id = catalog_tag_id(cat, s, name, len);
	if (id == n)
		cat->tags[id].members = xstrdup_or_null(from->tags[t].members);
	return (id);
}

/*
 * The shared part of mapping: a copy of src with new states, whose
 * transitions get their state from by_state/by_tag or, if each is not
 * NULL, from each[k] for the k-th transition overall.  Tags are numbered
 * anew (map_tag): first every tag of src in order, under its new state
 * (by_tag), or for each, under the new state of its old state's name if
 * there is one; then, for each, the pairs the transitions make.
 */
static trace *
map(const trace *src, catalog_state *states, uint32_t nstates,
    const uint32_t *by_state, const uint32_t *by_tag, const uint32_t *each,
    const char **why)
{
	const catalog *from = src->cat;
	trace *d = new_trace(src);
	uint32_t e, i, ntags = catalog_ntags(from), *new_tag;
	size_t index = 0;
	uint64_t tick = 0;

	d->cat = catalog_copy_without_states(from);
	catalog_set_states(d->cat, states, nstates);
	catalog_drop_tags(d->cat);
	new_tag = xcalloc((size_t)ntags + 1, sizeof (uint32_t));
	for (i = 0; i < ntags; i++) {
		const catalog_state *old = &from->states[from->tags[i].state];
		int64_t s = by_tag != NULL ? (int64_t)by_tag[i] :
		    catalog_state_by_name(d->cat, old->name, old->name_len);

		new_tag[i] = s < 0 ? STORE_NONE :
		    map_tag(d->cat, from, (uint32_t)s, i);
	}
	d->st = store_new(nstates);
	for (e = 0; e < store_nentities(src->st); e++) {
		const uint64_t *time = store_times(src->st, e);
		const uint16_t *state = store_states(src->st, e);
		const uint32_t *tag = store_tags(src->st, e);
		const uint16_t *depth = store_depths(src->st, e);
		size_t k, n = store_count(src->st, e);
		uint32_t last_state = STORE_NONE, last_tag = STORE_NONE;

		if (store_kind_of(src->st, e) == STORE_VALUES) {
			store_copy_entity(d->st, e, src->st, e);
			continue;
		}
		for (k = 0; k < n; k++, index++) {
			/* No data (STORE_GAP) stays no data. */
			uint32_t s = state[k] == STORE_GAP ? STORE_GAP :
			    each != NULL ? each[index] :
			    tag[k] == STORE_NONE ? by_state[state[k]] :
			    by_tag[tag[k]];
			uint32_t t = tag[k] == STORE_NONE || s == STORE_GAP ?
			    STORE_NONE :
			    each != NULL ? map_tag(d->cat, from, s, tag[k]) :
			    new_tag[tag[k]];

			if (stopping(&tick, d, why)) {
				free(new_tag);
				return (abandon(d));
			}
			/* Each frame of a stack mapped: the stack's shape
			 * stays as it was, so nothing is dropped. */
			if (depth != NULL) {
				store_append_depth(d->st, e, time[k], s, t,
				    depth[k]);
				continue;
			}
			/* A transition that changes nothing is dropped. */
			if (s == last_state && t == last_tag)
				continue;
			store_append(d->st, e, time[k], s, t);
			last_state = s;
			last_tag = t;
		}
	}
	free(new_tag);
	return (finished(d, why));
}

trace *
transform_map(const trace *src, catalog_state *states, uint32_t nstates,
    const uint32_t *by_state, const uint32_t *by_tag, const char **why)
{
	return (map(src, states, nstates, by_state, by_tag, NULL, why));
}

trace *
transform_map_each(const trace *src, catalog_state *states,
    uint32_t nstates, const uint32_t *each, const char **why)
{
	return (map(src, states, nstates, NULL, NULL, each, why));
}

trace *
transform_select(const trace *src, const uint32_t *ids, uint32_t n,
    const char *const *names, const size_t *name_lens, const char **why)
{
	const catalog *from = src->cat;
	trace *d = new_trace(src);
	catalog *cat = catalog_copy_header(from);
	uint32_t i;
	uint64_t tick = 0;

	catalog_set_states(cat, catalog_copy_states(from), from->nstates);
	d->cat = cat;
	d->st = store_new(from->nstates);
	for (i = 0; i < n; i++) {
		size_t len;
		const char *name = names != NULL ? names[i] :
		    catalog_entity_name(from, ids[i], &len);
		const uint64_t *time = store_times(src->st, ids[i]);
		const uint16_t *state = store_states(src->st, ids[i]);
		const uint32_t *tag = store_tags(src->st, ids[i]);
		size_t c, count = store_count(src->st, ids[i]);

		if (names != NULL)
			len = name_lens[i];
		if (intern_find(cat->entities, name, len) != INTERN_NONE) {
			*why = "two entities would have the same name";
			return (abandon(d));
		}
		catalog_entity(cat, name, len);
		cat->descriptions[i] =
		    xstrdup_or_null(from->descriptions[ids[i]]);
		catalog_set_value_type(cat, i, catalog_value_type(from,
		    ids[i]));
		/* Stacks and values, which stay in memory, at one go. */
		if (store_kind_of(src->st, ids[i]) != STORE_STATES) {
			store_copy_entity(d->st, i, src->st, ids[i]);
			if (runlimit_check(store_memory(d->st), why) != 0)
				return (abandon(d));
			continue;
		}
		for (c = 0; c < count; c++) {
			if (stopping(&tick, d, why))
				return (abandon(d));
			store_append(d->st, i, time[c], state[c], tag[c]);
		}
	}
	return (finished(d, why));
}

/*
 * A view, not a copy: the slice reads the catalog and columns of the
 * trace they belong to (a slice of a slice reads the first trace's),
 * which it holds until it goes.
 */
trace *
transform_slice(const trace *src, uint64_t from, uint64_t to,
    const char **why)
{
	trace *owner = src->parent != NULL ? src->parent : (trace *)src;
	trace *d = xcalloc(1, sizeof (*d));

	(void)why;
	d->parent = trace_retain(owner);
	d->cat = owner->cat;
	d->st = store_view(src->st, from, to);
	d->begin = from;
	d->end = to;
	return (d);
}

/* A count trace's store takes the steps as they come (it may spill). */
typedef struct count_out {
	trace *d;
	uint32_t n;		/* the entities counted: the largest count */
	uint64_t tick;
	int first;
} count_out;

/*
 * 0 at the window's start, then the count there if it is not 0 (a
 * zero-length interval, as the trace always had), then each change.  The
 * sweep never counts more than the store's entities, but a count is
 * clamped to a state the trace has all the same.
 */
static int
append_step(void *ctx, uint64_t time, uint32_t count, const char **why)
{
	count_out *o = ctx;
	int first = o->first;

	o->first = 0;
	if (first && count == 0)
		return (0);
	store_append(o->d->st, 0, time, count > o->n ? o->n : count,
	    STORE_NONE);
	return (stopping(&o->tick, o->d, why) ? -1 : 0);
}

trace *
transform_count(const trace *src, const unsigned char *counted,
    const char *name, size_t name_len, const char **why)
{
	const catalog *from = src->cat;
	uint32_t n = catalog_nentities(from), i;
	trace *d;
	catalog *cat;
	catalog_state *states;
	count_out o;

	if (n >= STORE_MAX_STATES) {
		*why = "a count of more than 65534 entities has more states "
		    "than a trace can hold (count_series has no such limit)";
		return (NULL);
	}
	d = new_trace(src);
	cat = d->cat = catalog_new(from->name);
	cat->title = xstrdup_or_null(from->title);
	cat->host = xstrdup_or_null(from->host);
	cat->entity_kind = xstrdup_or_null(from->entity_kind);
	cat->have_start = from->have_start;
	cat->start_sec = from->start_sec;
	cat->start_nsec = from->start_nsec;
	cat->last_time = from->last_time;
	states = xcalloc((size_t)n + 1, sizeof (catalog_state));
	for (i = 0; i <= n; i++) {
		/* From near white to deep blue as the count grows. */
		double f = n == 0 ? 1 : (double)i / n;
		char buf[16];

		snprintf(buf, sizeof (buf), "%u", i);
		states[i].name = xstrndup(buf, strlen(buf));
		states[i].name_len = strlen(buf);
		states[i].color.r = (uint8_t)(0xf0 - f * (0xf0 - 0x08));
		states[i].color.g = (uint8_t)(0xf4 - f * (0xf4 - 0x30));
		states[i].color.b = (uint8_t)(0xf8 - f * (0xf8 - 0x6b));
	}
	catalog_set_states(cat, states, n + 1);
	catalog_entity(cat, name, name_len);
	d->st = store_new(n + 1);
	store_append(d->st, 0, src->begin, 0, STORE_NONE);
	o.d = d;
	o.n = n;
	o.tick = 0;
	o.first = 1;
	if (series_walk(src->st, counted, src->begin, src->end, append_step,
	    &o, why) != 0)
		return (abandon(d));
	return (finished(d, why));
}

/* The state of lowest rank that any member is in, or STORE_NONE. */
static uint32_t
group_state(const uint32_t *counts, const uint32_t *rank, uint32_t nstates)
{
	uint32_t best = STORE_NONE, s;

	for (s = 0; s < nstates; s++)
		if (counts[s] > 0 && (best == STORE_NONE ||
		    rank[s] < rank[best]))
			best = s;
	return (best);
}

trace *
transform_group(const trace *src, const uint32_t *group_of,
    uint32_t ngroups, const char *const *names, const size_t *name_lens,
    const uint32_t *rank, const char **why)
{
	uint32_t n = catalog_nentities(src->cat), ns = src->cat->nstates, g, e;
	/* Members by group, in entity order: first[g] to first[g + 1]. */
	uint32_t *first = xcalloc((size_t)ngroups + 2, sizeof (uint32_t));
	uint32_t *members = xcalloc((size_t)n + 1, sizeof (uint32_t));
	uint32_t *in = xcalloc((size_t)n + 1, sizeof (uint32_t));
	uint32_t *counts = xcalloc((size_t)ns + 1, sizeof (uint32_t));
	trace *d = new_trace(src);
	uint64_t tick = 0;

	d->cat = catalog_copy_header(src->cat);
	catalog_set_states(d->cat, catalog_copy_states(src->cat), ns);
	for (g = 0; g < ngroups; g++)
		catalog_entity(d->cat, names[g], name_lens[g]);
	d->st = store_new(ns);
	for (e = 0; e < n; e++)
		if (group_of[e] != UINT32_MAX)
			first[group_of[e] + 2]++;
	for (g = 0; g < ngroups; g++)
		first[g + 2] += first[g + 1];
	for (e = 0; e < n; e++)
		if (group_of[e] != UINT32_MAX)
			members[first[group_of[e] + 1]++] = e;
	for (g = 0; g < ngroups && d != NULL; g++) {
		uint32_t nm = first[g + 1] - first[g], cur = STORE_NONE;
		interleave *mg;
		interleave_item it;
		uint64_t pending = 0;
		int have = 0;

		memset(counts, 0, ((size_t)ns + 1) * sizeof (uint32_t));
		for (e = 0; e < nm; e++)
			in[e] = STORE_NONE;
		/* Transitions at one time all land before the group's state
		 * is judged, so a hand-over between members is no blip. */
		mg = interleave_new(src->st, members + first[g], nm);
		for (;;) {
			int more = interleave_next(mg, &it);

			if (more && stopping(&tick, d, why)) {
				d = abandon(d);
				break;
			}
			if (have && (!more || it.time != pending)) {
				uint32_t s = group_state(counts, rank, ns);

				/* Every member with no data: nor has the
				 * group (it had some: cur). */
				if (s != cur && s != STORE_NONE)
					store_append(d->st, g, pending, s,
					    STORE_NONE);
				else if (s != cur)
					store_append(d->st, g, pending,
					    STORE_GAP, STORE_NONE);
				cur = s;
				have = 0;
			}
			if (!more)
				break;
			if (in[it.rank] != STORE_NONE)
				counts[in[it.rank]]--;
			/* A member with no data (STORE_GAP) counts for no
			 * state. */
			in[it.rank] = it.state == STORE_GAP ? STORE_NONE :
			    it.state;
			if (in[it.rank] != STORE_NONE)
				counts[it.state]++;
			pending = it.time;
			have = 1;
		}
		interleave_free(mg);
	}
	free(first);
	free(members);
	free(in);
	free(counts);
	return (d != NULL ? finished(d, why) : NULL);
}
