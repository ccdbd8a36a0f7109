#include "coalesce/smap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/natural.h"
#include "base/runlimit.h"
#include "base/util.h"
#include "coalesce/depthrows.h"
#include "coalesce/valuerects.h"
#include "store/interleave.h"

/* A store's end of data is the coalescer's: passed on as it is. */
_Static_assert(COALESCE_GAP == STORE_GAP, "COALESCE_GAP is STORE_GAP");

void
smap_free(smap *m)
{
	catalog_free(m->cat);
	coalesce_free(m->co);
	valuerects_free(m->values);
	depthrows_free(m->depths);
	free(m->order);
	memset(m, 0, sizeof (*m));
}

void
smap_from_trace(smap *m, const trace *d, const uint32_t *entities,
    uint32_t n, uint64_t budget, uint64_t t0, uint64_t t1)
{
	/*
	 * Transitions before t0 leave nothing in the coalescer but each
	 * entity's state at t0: so the merge starts there.
	 */
	interleave *mg = interleave_new_from(d->st, entities, n, t0);
	interleave_item it;
	uint64_t last = 0, fed = 0;
	uint32_t i;

	memset(m, 0, sizeof (*m));
	m->cat = catalog_copy_without_states(d->cat);
	catalog_set_states(m->cat, catalog_copy_states(d->cat),
	    d->cat->nstates);
	m->co = coalesce_new(d->cat->nstates, budget, (int64_t)t0,
	    (int64_t)t1);
	while (interleave_next(mg, &it)) {
		if ((++fed & 0xffff) == 0 &&
		    runlimit_check(0, &m->stopped) != 0)
			break;
		if (!coalesce_in_bounds(m->co, it.time))
			break;	/* all later transitions are past t1 too */
		coalesce_datum(m->co, it.entity, it.time, it.state,
		    it.tag == STORE_NONE ? COALESCE_NO_TAG : it.tag);
		last = it.time;
	}
	interleave_free(mg);
	/* The trace goes on to its end even if no transition is there. */
	if (d->end > last)
		last = d->end;
	coalesce_finish(m->co, last);
	m->begin = (int64_t)t0;
	m->end = coalesce_end(m->co);
	m->end_bound = (int64_t)t1;
	m->order = xcalloc(n + 1, sizeof (uint32_t));
	for (i = 0; i < n; i++)
		if (coalesce_seen(m->co, entities[i]))
			m->order[m->nentities++] = entities[i];
}

typedef struct sort_key {
	uint64_t time;
	const char *name;
	size_t len;
	uint32_t id;
} sort_key;

static int
compare_keys(const void *pa, const void *pb)
{
	const sort_key *a = pa, *b = pb;
	int r;

	if (a->time != b->time)
		return (a->time > b->time ? -1 : 1);
	if ((r = natural_compare(a->name, a->len, b->name, b->len)) != 0)
		return (r);
	/* Names natural order calls equal ("a01", "a1") still differ. */
	if ((r = memcmp(a->name, b->name, a->len < b->len ? a->len : b->len))
	    != 0)
		return (r);
	if (a->len != b->len)
		return (a->len < b->len ? -1 : 1);
	return (a->id < b->id ? -1 : 1);
}

uint32_t
smap_order(const catalog *cat, const unsigned char *shown,
    const uint64_t *time, uint32_t *order)
{
	uint32_t i, n = 0, all = catalog_nentities(cat);
	sort_key *keys = xcalloc(all + 1, sizeof (sort_key));

	for (i = 0; i < all; i++) {
		sort_key *k = &keys[n];

		if (!shown[i])
			continue;
		k->id = i;
		k->name = catalog_entity_name(cat, i, &k->len);
		k->time = time != NULL ? time[i] : 0;
		n++;
	}
	qsort(keys, n, sizeof (sort_key), compare_keys);
	for (i = 0; i < n; i++)
		order[i] = keys[i].id;
	free(keys);
	return (n);
}

int
smap_sort(smap *m, const char *state, sm_error *err)
{
	int64_t s = -1;
	uint32_t i, all = catalog_nentities(m->cat);
	unsigned char *shown;
	uint64_t *time = NULL;

	if (state != NULL && strcmp(state, "entity") != 0) {
		s = catalog_state_by_name(m->cat, state, strlen(state));
		if (s < 0) {
			error_set(err, "cannot sort by state \"%s\": %s has no "
			    "such state", state, m->cat->name);
			return (-1);
		}
	}
	shown = xcalloc(all + 1, 1);
	if (s >= 0)
		time = xcalloc(all + 1, sizeof (uint64_t));
	for (i = 0; i < all; i++) {
		/* Shown: entities with data in bounds, or a description. */
		shown[i] = m->cat->descriptions[i] != NULL ||
		    (m->co != NULL && coalesce_seen(m->co, i)) ||
		    valuerects_seen(m->values, i);
		if (shown[i] && time != NULL && m->co != NULL)
			time[i] = coalesce_state_time(m->co, i, (uint32_t)s);
	}
	free(m->order);
	m->order = xcalloc(all + 1, sizeof (uint32_t));
	m->nentities = smap_order(m->cat, shown, time, m->order);
	free(shown);
	free(time);
	return (0);
}

uint64_t
smap_state_time(const smap *m, uint32_t state)
{
	uint64_t total = 0;
	uint32_t e;

	if (m->co == NULL)
		return (0);
	for (e = 0; e < coalesce_nentities(m->co); e++)
		total += coalesce_state_time(m->co, e, state);
	return (total);
}

void
smap_state_times(const smap *m, uint64_t *times)
{
	uint32_t e;

	memset(times, 0, m->cat->nstates * sizeof (uint64_t));
	if (m->co == NULL)
		return;
	for (e = 0; e < coalesce_nentities(m->co); e++)
		coalesce_add_state_times(m->co, e, times);
}


typedef struct weighted {
	uint64_t weight;
	size_t index;
} weighted;

static int
compare_weighted(const void *pa, const void *pb)
{
	const weighted *a = pa, *b = pb;

	if (a->weight != b->weight)
		return (a->weight > b->weight ? -1 : 1);
	return (a->index < b->index ? -1 : 1);
}

void
smap_order_by_weight(const uint64_t *weight, size_t n, size_t *order)
{
	weighted *w;
	size_t i;

	if (n == 0)
		return;
	w = xcalloc(n, sizeof (weighted));
	for (i = 0; i < n; i++) {
		w[i].weight = weight[i];
		w[i].index = i;
	}
	qsort(w, n, sizeof (weighted), compare_weighted);
	for (i = 0; i < n; i++)
		order[i] = w[i].index;
	free(w);
}

int64_t
smap_stack_state(const smap *maps, size_t n, const char *state,
    sm_error *err)
{
	int64_t s;
	size_t i;

	for (i = 1; i < n; i++) {
		if (!catalog_same_states(maps[0].cat, maps[i].cat)) {
			error_set(err, "cannot stack-sort by \"%s\": %s and %s "
			    "have different states", state, maps[0].cat->name,
			    maps[i].cat->name);
			return (-1);
		}
	}
	if ((s = catalog_state_by_name(maps[0].cat, state,
	    strlen(state))) < 0) {
		error_set(err, "cannot stack-sort by state \"%s\": no such "
		    "state", state);
		return (-1);
	}
	return (s);
}

int
smap_stack_sort(const smap *maps, size_t n, const char *state, size_t *order,
    sm_error *err)
{
	uint64_t *time;
	int64_t s;
	size_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	if (state == NULL)
		return (0);
	if ((s = smap_stack_state(maps, n, state, err)) < 0)
		return (-1);
	time = xcalloc(n, sizeof (uint64_t));
	for (i = 0; i < n; i++)
		time[i] = smap_state_time(&maps[i], (uint32_t)s);
	smap_order_by_weight(time, n, order);
	free(time);
	return (0);
}

/* Appends to a malloc'd string. */
static void
append(char **s, size_t *len, const char *text)
{
	size_t n = strlen(text);

	*s = xrealloc(*s, *len + n + 1);
	memcpy(*s + *len, text, n + 1);
	*len += n;
}

/* "a", "a and b", "a, b, and c"; one distinct value is said once. */
static void
oxford(char **s, size_t *len, const char **items, size_t n)
{
	size_t i;
	int same = 1;

	for (i = 1; i < n; i++)
		same &= strcmp(items[i], items[0]) == 0;
	if (same || n == 1) {
		append(s, len, items[0]);
		return;
	}
	for (i = 0; i < n; i++) {
		if (i > 0)
			append(s, len, n == 2 ? " and " :
			    i == n - 1 ? ", and " : ", ");
		append(s, len, items[i]);
	}
}

char *
smap_title(const smap *maps, size_t n)
{
	const char **items = xcalloc(n, sizeof (char *));
	char *s = NULL;
	size_t len = 0, i, nhosts = 0, ndistinct = 0;
	const char *first = maps[0].cat->title != NULL ? maps[0].cat->title : "";

	if (strstr(first, "tatemap") != NULL) {
		free(items);
		return (xstrndup(first, strlen(first)));
	}
	append(&s, &len, "Statemap of ");
	for (i = 0; i < n; i++)
		items[i] = maps[i].cat->title != NULL ? maps[i].cat->title : "";
	oxford(&s, &len, items, n);
	append(&s, &len, " activity");
	for (i = 0; i < n; i++) {
		size_t j;
		int seen = 0;

		if (maps[i].cat->host == NULL)
			continue;
		for (j = 0; j < nhosts; j++)
			seen |= strcmp(items[j], maps[i].cat->host) == 0;
		ndistinct += !seen;
		items[nhosts++] = maps[i].cat->host;
	}
	if (nhosts > 0) {
		append(&s, &len, " on ");
		if (ndistinct > 5) {
			char buf[32];

			snprintf(buf, sizeof (buf), "%zu hosts", nhosts);
			append(&s, &len, buf);
		} else {
			oxford(&s, &len, items, nhosts);
		}
	}
	free(items);
	return (s);
}
