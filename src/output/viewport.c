#include "output/viewport.h"

#include <stdlib.h>
#include <string.h>

#include "base/threads.h"
#include "base/util.h"
#include "coalesce/depthrows.h"
#include "coalesce/valuerects.h"
#include "output/jsonout.h"
#include "output/viewport_job.h"
#include "output/viewport_kinds.h"
#include "output/viewport_state.h"

/* ---- the query ---- */

/* t - offset, within what an int64_t holds. */
static int64_t
shift(uint64_t t, int64_t offset)
{
	__int128 v = (__int128)t - offset;

	if (v > INT64_MAX)
		return (INT64_MAX);
	if (v < INT64_MIN)
		return (INT64_MIN);
	return ((int64_t)v);
}

/* The window in a panel's own time, clipped to its trace's. */
static void
place(vpanel *vp, const viewport_panel *p, const viewport_query *q)
{
	const trace *t = p->t;

	vp->p = p;
	vp->t = t;
	vp->begin = shift(q->begin, p->offset);
	vp->end = shift(q->end, p->offset);
	vp->lo = vp->begin > 0 ? (uint64_t)vp->begin : 0;
	vp->hi = vp->end > 0 ? (uint64_t)vp->end : 0;
	if (vp->lo < t->begin)
		vp->lo = t->begin;
	if (vp->hi > t->end)
		vp->hi = t->end;
	vp->end_field = vp->hi;	/* where the last rectangles end */
}

/* The entities shown and how many transitions each has in the window. */
static void
count_panel(vpanel *vp, const viewport_query *q)
{
	const viewport_panel *p = vp->p;
	uint32_t i;

	vp->ids = xcalloc((size_t)p->n + 1, sizeof (uint32_t));
	vp->counts = xcalloc((size_t)p->n + 1, sizeof (uint64_t));
	vp->first = xcalloc((size_t)p->n + 1, sizeof (size_t));
	for (i = 0; i < p->n; i++) {
		uint32_t e = p->order[i];

		if (q->entities != NULL && regexec(q->entities,
		    catalog_entity_name(p->t->cat, e, NULL), 0, NULL, 0) != 0)
			continue;
		vp->ids[vp->n] = e;
		vp->counts[vp->n] = window_count(p->t->st, e, vp->lo, vp->hi,
		    &vp->first[vp->n]);
		vp->n++;
	}
}

/* The largest cap such that entities' counts, each capped, fit budget. */
static uint64_t
find_cap(const viewport *v, uint64_t budget)
{
	uint64_t lo = 0, hi = 0;
	size_t i;
	uint32_t k;

	for (i = 0; i < v->n; i++)
		for (k = 0; k < v->panels[i].n; k++)
			if (v->panels[i].counts[k] > hi)
				hi = v->panels[i].counts[k];
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2, sum = 0;

		for (i = 0; i < v->n && sum <= budget; i++)
			for (k = 0; k < v->panels[i].n; k++)
				sum += v->panels[i].counts[k] < mid ?
				    v->panels[i].counts[k] : mid;
		if (sum <= budget)
			lo = mid;
		else
			hi = mid - 1;
	}
	return (lo);
}

/* Columns for the binned entities: what the exact ones leave, shared. */
static unsigned
find_columns(const viewport *v, const viewport_query *q)
{
	uint64_t used = 0, nbinned = 0, share;
	size_t i;
	uint32_t k;

	for (i = 0; i < v->n; i++) {
		for (k = 0; k < v->panels[i].n; k++) {
			uint64_t c = v->panels[i].counts[k];

			if (c <= v->cap)
				used += c;
			else
				nbinned++;
		}
	}
	if (nbinned == 0)
		return (1);
	share = used < q->budget ? (q->budget - used) / nbinned : 0;
	if (share < 1)
		share = 1;
	return (share > q->width ? q->width : (unsigned)share);
}

static void
column_edges(vpanel *vp, unsigned columns)
{
	uint64_t span = vp->hi - vp->lo;
	unsigned k;

	if (vp->hi <= vp->lo)
		return;
	/* Every column at least 1 ns wide. */
	vp->columns = span < columns ? (unsigned)span : columns;
	vp->edges = xcalloc((size_t)vp->columns + 1, sizeof (uint64_t));
	for (k = 0; k <= vp->columns; k++)
		vp->edges[k] = vp->lo + (uint64_t)((unsigned __int128)span *
		    k / vp->columns);
}

/*
 * Jobs of about equal work (transitions), a few per thread so that
 * uneven ones even out, never straddling two panels.
 */
static void
make_jobs(viewport *v)
{
	uint64_t total = 0, per, work;
	size_t i, cap = 0;
	uint32_t k;

	for (i = 0; i < v->n; i++)
		for (k = 0; k < v->panels[i].n; k++)
			total += v->panels[i].counts[k] + 1;
	/* (At least 64 entities' worth: a job has its cost too.) */
	per = total / (4 * (uint64_t)threads_count()) + 64;
	for (i = 0; i < v->n; i++) {
		vpanel *vp = &v->panels[i];
		uint32_t from = 0;

		work = 0;
		for (k = 0; k < vp->n; k++) {
			work += vp->counts[k] + 1;
			if (work >= per || k + 1 == vp->n) {
				job *j;

				grow_array(&v->jobs, &cap, v->njobs + 1,
				    sizeof (job));
				j = &v->jobs[v->njobs++];
				memset(j, 0, sizeof (*j));
				j->v = v;
				j->vp = vp;
				j->from = from;
				j->to = k + 1;
				from = k + 1;
				work = 0;
			}
		}
	}
}

viewport *
viewport_compute(const viewport_panel *panels, size_t n,
    const viewport_query *q)
{
	viewport *v = xcalloc(1, sizeof (*v));
	unsigned columns;
	size_t i;
	uint32_t k;

	v->n = n;
	v->panels = xcalloc(n + 1, sizeof (vpanel));
	for (i = 0; i < n; i++) {
		place(&v->panels[i], &panels[i], q);
		count_panel(&v->panels[i], q);
		for (k = 0; k < v->panels[i].n; k++)
			v->transitions += v->panels[i].counts[k];
	}
	v->exact = v->transitions <= q->budget;
	v->cap = v->exact ? UINT64_MAX : find_cap(v, q->budget);
	columns = find_columns(v, q);
	for (i = 0; i < n; i++) {
		column_edges(&v->panels[i], columns);
		if (!store_plain(panels[i].t->st))
			viewport_kinds_panel(&v->panels[i], q->width,
			    &v->panels[i].values, &v->panels[i].depths);
	}
	v->width = q->width;
	make_jobs(v);
	threads_run(viewport_job_run, v->jobs, v->njobs, sizeof (job));
	for (i = 0; i < v->njobs; i++)
		v->rects += v->jobs[i].nrects;
	return (v);
}

void
viewport_free(viewport *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->njobs; i++) {
		job *j = &v->jobs[i];

		free(j->rects);
		free(j->entity_rects);
		free(j->pool_state);
		free(j->pool_time);
		free(j->pool_tag);
		free(j->json);
	}
	for (i = 0; i < v->n; i++) {
		free(v->panels[i].ids);
		free(v->panels[i].counts);
		free(v->panels[i].first);
		free(v->panels[i].edges);
		valuerects_free(v->panels[i].values);
		depthrows_free(v->panels[i].depths);
	}
	free(v->jobs);
	free(v->panels);
	free(v);
}

uint64_t viewport_transitions(const viewport *v) { return (v->transitions); }
uint64_t viewport_rects(const viewport *v) { return (v->rects); }
int viewport_exact(const viewport *v) { return (v->exact); }

/* ---- the answer for other writers ---- */

void
viewport_to_smaps(const viewport *v, smap *maps)
{
	size_t i, k = 0;

	for (i = 0; i < v->n; i++) {
		const vpanel *vp = &v->panels[i];
		const catalog *cat = vp->t->cat;
		smap *m = &maps[i];

		memset(m, 0, sizeof (*m));
		m->cat = catalog_copy_without_states(cat);
		catalog_set_states(m->cat, catalog_copy_states(cat),
		    cat->nstates);
		m->co = coalesce_new(cat->nstates, UINT64_MAX, vp->begin,
		    vp->end);
		m->begin = vp->begin;
		m->end = vp->end_field;
		m->end_bound = vp->end;
		m->order = xcalloc((size_t)vp->n + 1, sizeof (uint32_t));
		memcpy(m->order, vp->ids, vp->n * sizeof (uint32_t));
		m->nentities = vp->n;
		if (vp->values != NULL || vp->depths != NULL)
			viewport_kinds_panel(vp, v->width, &m->values,
			    &m->depths);
		for (; k < v->njobs && v->jobs[k].vp == vp; k++) {
			const job *j = &v->jobs[k];
			uint32_t e;

			for (e = j->from; e < j->to; e++) {
				size_t r, last = j->entity_rects[e - j->from + 1];

				for (r = j->entity_rects[e - j->from]; r < last;
				    r++) {
					const vrect *x = &j->rects[r];

					coalesce_put(m->co, vp->ids[e],
					    x->start, x->duration, x->count,
					    j->pool_state + x->states,
					    j->pool_time + x->states,
					    x->nstates, rect_tags(j, x),
					    x->ntags);
				}
			}
		}
	}
}

uint32_t
viewport_panel_entities(const viewport *v, size_t panel)
{
	return (panel < v->n ? v->panels[panel].n : 0);
}

void
viewport_entity_rects(const viewport *v, size_t panel, uint32_t k,
    jsonout_rect_fn fn, void *ctx)
{
	const vpanel *vp;
	size_t i;

	if (panel >= v->n || k >= v->panels[panel].n)
		return;
	vp = &v->panels[panel];
	for (i = 0; i < v->njobs; i++) {
		const job *j = &v->jobs[i];
		size_t r, last;

		if (j->vp != vp || k < j->from || k >= j->to)
			continue;
		last = j->entity_rects[k - j->from + 1];
		for (r = j->entity_rects[k - j->from]; r < last; r++) {
			jsonout_rect jr = rect_for_json(j, &j->rects[r]);

			fn(ctx, &jr);
		}
		return;
	}
}

uint32_t
viewport_entity_id(const viewport *v, size_t panel, uint32_t k)
{
	if (panel >= v->n || k >= v->panels[panel].n)
		return (UINT32_MAX);
	return (v->panels[panel].ids[k]);
}

const valuerects *
viewport_values(const viewport *v, size_t panel)
{
	return (panel < v->n ? v->panels[panel].values : NULL);
}

const depthrows *
viewport_depths(const viewport *v, size_t panel)
{
	return (panel < v->n ? v->panels[panel].depths : NULL);
}
