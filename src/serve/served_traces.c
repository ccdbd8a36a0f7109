#include "serve/served_traces.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "coalesce/coalesce.h"
#include "coalesce/smap.h"
#include "output/jsonout.h"
#include "output/svg.h"


/* start - start0, within what an int64_t holds. */
static int64_t
offset_of(uint64_t start, uint64_t start0)
{
	__int128 d = (__int128)start - (__int128)start0;

	if (d > INT64_MAX)
		return (INT64_MAX);
	if (d < -INT64_MAX)
		return (-INT64_MAX);
	return ((int64_t)d);
}

/* t - offset as a signed time, within what an int64_t holds. */
static int64_t
shifted(uint64_t t, int64_t offset)
{
	__int128 v = (__int128)t - offset;

	return (v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN :
	    (int64_t)v);
}

/*
 * The entities a panel shows, in order: as smap_sort orders a classic
 * statemap, over the first window in the trace's own time.
 */
static int
order_panel(viewport_panel *p, trace *t, const served_options *o,
    int64_t begin, int64_t end, sm_error *err)
{
	uint32_t all = catalog_nentities(t->cat), e;
	unsigned char *shown = xcalloc(all + 1, 1);
	uint64_t *time = NULL, *per_state = NULL;
	uint32_t *order = xcalloc(all + 1, sizeof (uint32_t));
	int64_t s = -1;

	if (o->sortby != NULL && strcmp(o->sortby, "entity") != 0) {
		s = catalog_state_by_name(t->cat, o->sortby,
		    strlen(o->sortby));
		if (s < 0) {
			error_set(err, "cannot sort by state \"%s\": %s has no "
			    "such state", o->sortby, t->cat->name);
			free(shown);
			free(order);
			return (-1);
		}
		time = xcalloc(all + 1, sizeof (uint64_t));
		per_state = xcalloc(t->cat->nstates + 1, sizeof (uint64_t));
	}
	for (e = 0; e < all; e++) {
		shown[e] = store_count(t->st, e) > 0 ||
		    store_value_count(t->st, e) > 0 ||
		    t->cat->descriptions[e] != NULL;
		if (shown[e] && o->filter != NULL)
			shown[e] = regexec(o->filter, catalog_entity_name(
			    t->cat, e, NULL), 0, NULL, 0) == 0;
		if (shown[e] && time != NULL && end > 0) {
			memset(per_state, 0, t->cat->nstates *
			    sizeof (uint64_t));
			store_time_in(t->st, e, begin > 0 ? (uint64_t)begin : 0,
			    (uint64_t)end, per_state);
			time[e] = per_state[s];
		}
	}
	p->t = t;
	p->n = smap_order(t->cat, shown, time, order);
	p->order = order;
	free(shown);
	free(time);
	free(per_state);
	return (0);
}

/* Total time in a state over a panel's entities and a window. */
static uint64_t
panel_time(const viewport_panel *p, uint32_t state, int64_t begin,
    int64_t end)
{
	uint64_t *per_state, total = 0;
	uint32_t k;

	if (end <= 0)
		return (0);
	per_state = xcalloc(p->t->cat->nstates + 1, sizeof (uint64_t));
	for (k = 0; k < p->n; k++)
		store_time_in(p->t->st, p->order[k], begin > 0 ?
		    (uint64_t)begin : 0, (uint64_t)end, per_state);
	total = per_state[state];
	free(per_state);
	return (total);
}

/* As smap_stack_sort: by descending total time in a state. */
static int
stack_sort(served *sv, const served_options *o, smap *views, sm_error *err)
{
	viewport_panel *sorted;
	uint64_t *time;
	size_t *order;
	int64_t s;
	size_t i;

	if ((s = smap_stack_state(views, sv->n, o->stacksortby, err)) < 0)
		return (-1);
	time = xcalloc(sv->n, sizeof (uint64_t));
	order = xcalloc(sv->n, sizeof (size_t));
	for (i = 0; i < sv->n; i++) {
		const viewport_panel *p = &sv->panels[i];

		time[i] = panel_time(p, (uint32_t)s,
		    shifted(sv->begin, p->offset), shifted(sv->end, p->offset));
	}
	smap_order_by_weight(time, sv->n, order);
	sorted = xcalloc(sv->n, sizeof (viewport_panel));
	for (i = 0; i < sv->n; i++)
		sorted[i] = sv->panels[order[i]];
	memcpy(sv->panels, sorted, sv->n * sizeof (viewport_panel));
	free(sorted);
	free(order);
	free(time);
	return (0);
}

served *
served_new(trace *const *traces, size_t n, const served_options *o,
    sm_error *err)
{
	served *sv = xcalloc(1, sizeof (*sv));
	smap *views = xcalloc(n, sizeof (smap));
	uint64_t start0 = catalog_start_ns(traces[0]->cat);
	size_t i;

	sv->n = n;
	sv->panels = xcalloc(n, sizeof (viewport_panel));
	sv->begin = o->begin > 0 ? (uint64_t)o->begin : traces[0]->begin;
	sv->end = o->end > 0 ? (uint64_t)o->end : traces[0]->end;
	if (sv->end <= sv->begin)
		sv->end = sv->begin + 1;	/* an empty view */
	sv->budget = o->budget > 0 ? o->budget : COALESCE_BUDGET;
	sv->strip_height = o->strip_height > 0 ? o->strip_height :
	    SVG_STRIP_HEIGHT;
	sv->labels = o->labels;
	for (i = 0; i < n; i++) {
		viewport_panel *p = &sv->panels[i];

		p->offset = offset_of(catalog_start_ns(traces[i]->cat), start0);
		views[i].cat = traces[i]->cat;
		if (order_panel(p, traces[i], o, shifted(sv->begin, p->offset),
		    shifted(sv->end, p->offset), err) != 0)
			goto fail;
		trace_retain(traces[i]);
		/* Every answer's events say where each message went. */
		p->received = jsonout_received_new(traces[i]->cat);
	}
	if (o->stacksortby != NULL && stack_sort(sv, o, views, err) != 0)
		goto fail;
	sv->title = o->title != NULL ? xstrndup(o->title, strlen(o->title)) :
	    smap_title(views, n);
	free(views);
	return (sv);
fail:
	free(views);
	served_release(sv);
	return (NULL);
}

served *
served_retain(served *sv)
{
	atomic_fetch_add_explicit(&sv->shared, 1, memory_order_relaxed);
	return (sv);
}

void
served_release(served *sv)
{
	size_t i;

	if (sv == NULL ||
	    atomic_fetch_sub_explicit(&sv->shared, 1, memory_order_acq_rel) != 0)
		return;
	for (i = 0; i < sv->n; i++) {
		/* A panel that failed to order holds no trace. */
		if (sv->panels[i].order != NULL)
			trace_release((trace *)sv->panels[i].t);
		free((void *)sv->panels[i].order);
		jsonout_received_free((jsonout_received *)
		    sv->panels[i].received);
	}
	free(sv->panels);
	free(sv->title);
	free(sv);
}
