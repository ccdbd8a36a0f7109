#include "render/legend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/duration.h"
#include "base/threads.h"
#include "base/util.h"
#include "render/panel_shares.h"

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
 * transitions, in shares of about as many each (panel_shares.h) among
 * the threads (sums of integers: the same whatever the order), made once
 * and kept for the second pass (which draws what the first measured).
 */
static const uint64_t *
legend_times(canvas *c, const render_panel *p, size_t panel)
{
	const render_options *o = c->o;
	uint32_t ns = p->d->cat->nstates, s;
	times_job jobs[PANEL_SHARES_MAX];
	uint32_t bounds[PANEL_SHARES_MAX + 1];
	size_t n = panel_shares_count(p), i;
	uint64_t *times;

	if (c->legend_times[panel] != NULL)
		return (c->legend_times[panel]);
	panel_shares_cut(p, n, bounds);
	for (i = 0; i < n; i++) {
		jobs[i].p = p;
		jobs[i].t0 = o->t0;
		jobs[i].t1 = o->t1;
		jobs[i].first = bounds[i];
		jobs[i].end = bounds[i + 1];
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
	canvas_set_color(c->cr, color_mix(o->foreground, o->background, 0.47));
	cairo_set_line_width(c->cr, 1);
	cairo_rectangle(c->cr, x, y, side, side);
	cairo_stroke(c->cr);
}

/*
 * States a legend lists at most: a trace of more states with time in the
 * span lists the LEGEND_MOST - 1 with the most time (in their order), and
 * then one entry for the others, so that the legend of a thousand states
 * takes a few lines, not a page per state.
 */
#define LEGEND_MOST	24

/* A state and its time, for choosing those with the most. */
typedef struct state_time {
	uint64_t time;
	uint32_t state;
} state_time;

/* More time first; of equal times, the first state first. */
static int
by_time(const void *a, const void *b)
{
	const state_time *x = a, *y = b;

	if (x->time != y->time)
		return (x->time < y->time ? 1 : -1);
	return (x->state < y->state ? -1 : x->state > y->state);
}

/*
 * Marks in listed the states the legend lists (time in the span, at most
 * LEGEND_MOST - 1 when more have time); returns how many have time but
 * are not listed, and adds their time into rest.
 */
static uint32_t
legend_choose(const uint64_t *times, uint32_t ns, unsigned char *listed,
    uint64_t *rest)
{
	state_time *st;
	uint32_t s, n = 0, i;

	for (s = 0; s < ns; s++)
		n += times[s] > 0;
	for (s = 0; s < ns; s++)
		listed[s] = times[s] > 0;
	if (n <= LEGEND_MOST)
		return (0);
	st = xcalloc(n, sizeof (state_time));
	for (s = 0, i = 0; s < ns; s++)
		if (times[s] > 0)
			st[i++] = (state_time){ .time = times[s], .state = s };
	qsort(st, n, sizeof (state_time), by_time);
	for (i = LEGEND_MOST - 1; i < n; i++) {
		listed[st[i].state] = 0;
		*rest += st[i].time;
	}
	free(st);
	return (n - (LEGEND_MOST - 1));
}

/*
 * One entry of a legend, wrapped to the width: its swatch (fill NULL:
 * the no-data hatch) and text at *x on line *y, moved on past it; *h grows
 * by a line when it starts a new one.
 */
static void
legend_entry(canvas *c, double *x, unsigned *y, unsigned *h, double line,
    const char *text, const color *fill)
{
	const render_options *o = c->o;
	double size = o->font_size;
	double w = size + 4 + canvas_text_width(c, size, text) + 2 * size;

	if (*x > c->strip_x && *x + w > o->width - o->margin) {
		*x = c->strip_x;
		*y += (unsigned)line;
		*h += (unsigned)line;
	}
	if (c->draw) {
		draw_swatch(c, *x, *y + line / 2 - size / 2, size, fill);
		canvas_set_color(c->cr, o->foreground);
		canvas_draw_text(c, *x + size + 4, *y + line / 2 + size * 0.35,
		    size, text, 0);
	}
	*x += w;
}

/*
 * Swatch, name and total time of each state, wrapped to the width, for
 * panels [first, end), which share their states (catalog_same_states, so
 * state s is the same state in each): times and shares are their sums.
 * Past LEGEND_MOST states with time, those with the most, then the number
 * of the others and their time (a swatch of the page's colour).  With
 * key, the hatch of "no data" comes last.
 */
unsigned
legend_draw(canvas *c, const render_panel *panels, size_t first, size_t end,
    int key, unsigned y)
{
	const render_options *o = c->o;
	const catalog *cat = panels[first].d->cat;
	uint64_t *times = xcalloc(cat->nstates + 1, sizeof (uint64_t));
	unsigned char *listed = xcalloc(cat->nstates + 1, 1);
	uint64_t total = 0, rest = 0;
	double x = c->strip_x, size = o->font_size, line = ceil(size * 1.8);
	unsigned h = (unsigned)line;
	uint32_t s, others;
	size_t i;
	char text[512], dur[48];

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
	others = legend_choose(times, cat->nstates, listed, &rest);
	/* The states listed (with time: no need to explain the others). */
	for (s = 0; s < cat->nstates; s++) {
		if (!listed[s])
			continue;
		snprintf(text, sizeof (text), "%s  %s (%.1f%%)",
		    cat->states[s].name, duration_format(times[s], dur,
		    sizeof (dur)), total > 0 ? 100.0 * times[s] / total : 0);
		legend_entry(c, &x, &y, &h, line, text, &cat->states[s].color);
	}
	if (others > 0) {
		snprintf(text, sizeof (text), "%u other states  %s (%.1f%%)",
		    (unsigned)others, duration_format(rest, dur, sizeof (dur)),
		    total > 0 ? 100.0 * rest / total : 0);
		legend_entry(c, &x, &y, &h, line, text, &o->background);
	}
	if (key)
		legend_entry(c, &x, &y, &h, line, "no data", NULL);
	free(listed);
	free(times);
	return (h);
}
