#include "render/legend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/duration.h"
#include "base/threads.h"
#include "base/util.h"

/* A share of a panel's entities whose time in each state one thread adds. */
typedef struct times_job {
	const render_panel *p;
	uint64_t t0, t1;
	uint32_t first, end;
	uint64_t *times;	/* nstates + 1 */
} times_job;

static void
add_times(void *arg)
{
	times_job *j = arg;
	uint32_t k;

	for (k = j->first; k < j->end; k++)
		store_time_in(j->p->d->st, j->p->entities[k], j->t0, j->t1,
		    j->times);
}

/*
 * The time in each state over a panel's entities: a pass over all their
 * transitions, shared out among the threads (sums of integers: the same
 * whatever the order), made once and kept for the second pass (which
 * draws what the first measured).
 */
static const uint64_t *
legend_times(canvas *c, const render_panel *p, size_t panel)
{
	const render_options *o = c->o;
	uint32_t ns = p->d->cat->nstates, s;
	times_job jobs[64];
	size_t n = (size_t)threads_count(), i;
	uint64_t *times;

	if (c->legend_times[panel] != NULL)
		return (c->legend_times[panel]);
	if (n > sizeof (jobs) / sizeof (jobs[0]))
		n = sizeof (jobs) / sizeof (jobs[0]);
	if (n > p->nentities / 16 + 1)
		n = p->nentities / 16 + 1;	/* not worth a thread */
	for (i = 0; i < n; i++) {
		jobs[i].p = p;
		jobs[i].t0 = o->t0;
		jobs[i].t1 = o->t1;
		jobs[i].first = (uint32_t)(p->nentities * i / n);
		jobs[i].end = (uint32_t)(p->nentities * (i + 1) / n);
		jobs[i].times = xcalloc(ns + 1, sizeof (uint64_t));
	}
	threads_run(add_times, jobs, n, sizeof (times_job));
	times = jobs[0].times;
	for (i = 1; i < n; i++) {
		for (s = 0; s <= ns; s++)
			times[s] += jobs[i].times[s];
		free(jobs[i].times);
	}
	c->legend_times[panel] = times;
	return (times);
}

/*
 * Whether any of p's strips shows no data over the span: an entity with
 * no state at its start (none yet, or the span starts before the trace),
 * or a span that runs past the trace's end.  States run from an entity's
 * first transition to the end without gaps (store.h), so that is all.
 */
int
legend_has_nodata(const render_options *o, const render_panel *p)
{
	const store *st = p->d->st;
	uint32_t k;

	if (p->nentities == 0)
		return (0);
	if (store_begin(st) > o->t0 || store_end(st) < o->t1)
		return (1);
	for (k = 0; k < p->nentities; k++) {
		uint32_t e = p->entities[k];

		/* A value entity has none before its first value, and
		 * where it is null. */
		if (store_kind_of(st, e) == STORE_VALUES) {
			const sm_value *v = store_values(st, e);
			size_t n = store_value_count(st, e), i;

			if (n == 0 || store_value_times(st, e)[0] > o->t0)
				return (1);
			for (i = 0; i < n; i++)
				if (value_is_none(v[i]))
					return (1);
			continue;
		}
		if (store_count(st, e) == 0 || store_times(st, e)[0] > o->t0)
			return (1);
	}
	return (0);
}

/*
 * A legend swatch: filled with a state's colour (fill NULL: with the
 * no-data hatch), and a border about half way between text and page
 * (#888 for black on white), so that a state as pale as the page still
 * shows.
 */
static void
draw_swatch(canvas *c, double x, double y, double size, const color *fill)
{
	const render_options *o = c->o;
	double side = round(size) - 1;

	x = floor(x) + 0.5;
	y = floor(y) + 0.5;
	if (fill != NULL) {
		canvas_set_color(c->cr, *fill);
		cairo_rectangle(c->cr, x, y, side, side);
		cairo_fill(c->cr);
	} else {
		canvas_fill_hatch(c, x, y, side, side);
	}
	canvas_set_color(c->cr, canvas_mix(o->foreground, o->background, 0.47));
	cairo_set_line_width(c->cr, 1);
	cairo_rectangle(c->cr, x, y, side, side);
	cairo_stroke(c->cr);
}

/*
 * Swatch, name and total time of each state, wrapped to the width, for
 * panels [first, end), which share their states (catalog_same_states, so
 * state s is the same state in each): times and shares are their sums.
 * With key, the hatch of "no data" comes last.
 */
unsigned
legend_draw(canvas *c, const render_panel *panels, size_t first, size_t end,
    int key, unsigned y)
{
	const render_options *o = c->o;
	const catalog *cat = panels[first].d->cat;
	uint64_t *times = xcalloc(cat->nstates + 1, sizeof (uint64_t));
	uint64_t total = 0;
	double x = c->strip_x, size = o->font_size, line = ceil(size * 1.8);
	unsigned h = (unsigned)line;
	uint32_t s;
	size_t i;

	for (i = first; i < end; i++) {
		const uint64_t *t;

		if (panels[i].legend_skip)
			continue;
		t = legend_times(c, &panels[i], i);

		for (s = 0; s < cat->nstates; s++)
			times[s] += t[s];
	}
	for (s = 0; s < cat->nstates; s++)
		total += times[s];
	/* The states with time, then perhaps the key (s == nstates). */
	for (s = 0; s <= cat->nstates; s++) {
		char text[512], dur[48];
		double w;

		if (s == cat->nstates) {
			if (!key)
				break;
			snprintf(text, sizeof (text), "no data");
		} else if (times[s] == 0) {
			continue;	/* not in this span: no need to explain */
		} else {
			snprintf(text, sizeof (text), "%s  %s (%.1f%%)",
			    cat->states[s].name, duration_format(times[s], dur,
			    sizeof (dur)), total > 0 ? 100.0 * times[s] /
			    total : 0);
		}
		w = size + 4 + canvas_text_width(c, size, text) + 2 * size;
		if (x > c->strip_x && x + w > o->width - o->margin) {
			x = c->strip_x;
			y += (unsigned)line;
			h += (unsigned)line;
		}
		if (c->draw) {
			draw_swatch(c, x, y + line / 2 - size / 2, size,
			    s < cat->nstates ? &cat->states[s].color : NULL);
			canvas_set_color(c->cr, o->foreground);
			canvas_draw_text(c, x + size + 4,
			    y + line / 2 + size * 0.35, size, text, 0);
		}
		x += w;
	}
	free(times);
	return (h);
}
