#include "render/events.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "base/util.h"
#include "trace/flows.h"
#include "trace/merge_traces.h"

/* A panel's shown rows by its catalog's event entity ids (or UINT32_MAX). */
static uint32_t *
event_rows(const render_panel *p)
{
	const catalog *cat = p->d->cat;
	uint32_t nev = intern_count(cat->event_entities), k;
	uint32_t *row = xmalloc(((size_t)nev + 1) * sizeof (uint32_t));

	for (k = 0; k < nev; k++)
		row[k] = UINT32_MAX;
	for (k = 0; k < p->nentities; k++) {
		size_t len;
		const char *name = catalog_entity_name(cat, p->entities[k], &len);
		uint32_t id = intern_find(cat->event_entities, name, len);

		if (id != INTERN_NONE)
			row[id] = k;
	}
	return (row);
}

/* Whether event ev is in the span, on a shown row. */
static int
event_shown(const render_options *o, const catalog_event *ev,
    const uint32_t *row)
{
	return (ev->time >= o->t0 && ev->time < o->t1 &&
	    row[ev->entity] != UINT32_MAX);
}

/*
 * Whether flow fl is drawn as an arrow within its panel, from the row
 * *from to the row *to: a message (matched or duplicate, with a send)
 * between two shown rows with an end in the span.
 */
static int
flow_shown(const render_options *o, const catalog *cat, const flow *fl,
    const uint32_t *row, uint32_t *from, uint32_t *to)
{
	const catalog_event *s, *r;

	if ((fl->status != FLOW_MATCHED && fl->status != FLOW_DUPLICATE) ||
	    fl->send == FLOWS_NONE)
		return (0);
	s = &cat->events[fl->send];
	r = &cat->events[fl->receive];
	*from = row[s->entity];
	*to = fl->send == fl->receive ? (s->target == CATALOG_NO_ENTITY ?
	    UINT32_MAX : row[s->target]) : row[r->entity];
	if (*from == UINT32_MAX || *to == UINT32_MAX || *from == *to)
		return (0);
	/* Only arrows with an end in the span; the rest is clipped. */
	return (!((fl->sent < o->t0 && fl->received < o->t0) ||
	    (fl->sent >= o->t1 && fl->received >= o->t1)));
}

/* The step that fits n marks into room for cap: 1 if they fit. */
static uint64_t
thin_step(uint64_t n, uint64_t cap)
{
	if (cap == 0)
		cap = 1;
	return (n <= cap ? 1 : (n + cap - 1) / cap);
}

void
events_measure(canvas *c, const render_panel *p, render_thinning *t)
{
	const render_options *o = c->o;
	const catalog *cat = p->d->cat;
	uint64_t per_row = c->strip_width / EVENTS_SPACING, rows = 0;
	const char *why = NULL;
	unsigned char *has;
	uint32_t *row, from, to;
	flows *f;
	size_t i;

	memset(t, 0, sizeof (*t));
	t->event_step = t->message_step = 1;
	if (p->events == RENDER_EVENTS_NONE || cat->event_entities == NULL ||
	    cat->nevents == 0)
		return;
	row = event_rows(p);
	has = xcalloc((size_t)p->nentities + 1, 1);
	for (i = 0; i < cat->nevents; i++) {
		const catalog_event *ev = &cat->events[i];

		if (!event_shown(o, ev, row))
			continue;
		t->events++;
		if (!has[row[ev->entity]]) {
			has[row[ev->entity]] = 1;
			rows++;
		}
	}
	if (p->events == RENDER_EVENTS_THINNED)
		t->event_step = thin_step(t->events, per_row * rows);
	if (flows_any(cat) &&
	    (f = flows_match(cat, NULL, NULL, NULL, NULL, &why)) != NULL) {
		memset(has, 0, (size_t)p->nentities + 1);
		rows = 0;
		for (i = 0; i < f->n; i++) {
			if (!flow_shown(o, cat, &f->items[i], row, &from, &to))
				continue;
			t->messages++;
			rows += !has[from] + !has[to];
			has[from] = has[to] = 1;
		}
		flows_free(f);
		if (p->events == RENDER_EVENTS_THINNED)
			t->message_step = thin_step(t->messages,
			    per_row * rows);
	}
	free(has);
	free(row);
}

/* n with a comma between each three digits: "12,345". */
static void
format_count(uint64_t n, char *buf, size_t size)
{
	char digits[32];
	size_t len, i, k = 0;

	snprintf(digits, sizeof (digits), "%" PRIu64, n);
	len = strlen(digits);
	for (i = 0; i < len && k + 2 < size; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
}

int
events_note(const render_thinning *t, char *buf, size_t size)
{
	char a[32], b[32];
	int n = 0;

	buf[0] = '\0';
	if (t->event_step > 1) {
		format_count(t->events, a, sizeof (a));
		n = snprintf(buf, size, "1 in %" PRIu64 " of %s events",
		    t->event_step, a);
	}
	if (t->message_step > 1 && n >= 0 && (size_t)n < size) {
		format_count(t->messages, b, sizeof (b));
		n += snprintf(buf + n, size - (size_t)n, "%s1 in %" PRIu64
		    " of %s messages", n > 0 ? " and " : "",
		    t->message_step, b);
	}
	if (n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " drawn");
	return (n > 0);
}

/* The step panel p's events (or messages) are drawn at. */
static uint64_t
panel_step(const canvas *c, const render_panel *p, int messages)
{
	const render_thinning *t;

	if (c->thin == NULL)
		return (1);
	t = &c->thin[p - c->drawn];
	return (messages ? t->message_step : t->event_step);
}

/* Event markers on their entity's strip; an arrow to a shown target. */
void
events_draw(canvas *c, const render_panel *p, unsigned y0)
{
	const render_options *o = c->o;
	const catalog *cat = p->d->cat;
	uint32_t nev = cat->event_entities != NULL ?
	    intern_count(cat->event_entities) : 0;
	uint32_t *row;
	const panel_rows *r = canvas_rows(c, p);
	double px = (double)c->strip_width / (double)(o->t1 - o->t0);
	uint64_t step = panel_step(c, p, 0), shown = 0;
	size_t i;

	if (nev == 0 || cat->nevents == 0)
		return;
	row = event_rows(p);
	/* Thin and translucent: events are many, and the states matter. */
	cairo_set_line_width(c->cr, 0.6);
	for (i = 0; i < cat->nevents; i++) {
		const catalog_event *ev = &cat->events[i];
		double x, y;
		unsigned rh;

		if ((i & 0xffff) == 0 && canvas_stopping(c))
			break;
		if (!event_shown(o, ev, row) || shown++ % step != 0)
			continue;
		x = c->strip_x + (ev->time - o->t0) * px;
		/* The middle of its strip, however tall. */
		rh = r->h[row[ev->entity]];
		y = y0 + (double)r->y[row[ev->entity]] + rh / 2.0;
		cairo_set_source_rgba(c->cr, o->foreground.r / 255.0,
		    o->foreground.g / 255.0, o->foreground.b / 255.0, 0.45);
		/* A message's arrow is events_draw_messages'. */
		if (ev->target != CATALOG_NO_ENTITY &&
		    row[ev->target] != UINT32_MAX && row[ev->target] !=
		    row[ev->entity] && catalog_event_extra_of(cat, ev) == NULL) {
			double ty = y0 + (double)r->y[row[ev->target]] +
			    r->h[row[ev->target]] / 2.0;
			double dir = ty > y ? 1 : -1;

			cairo_move_to(c->cr, x, y);
			cairo_line_to(c->cr, x, ty);
			cairo_stroke(c->cr);
			cairo_move_to(c->cr, x, ty);
			cairo_line_to(c->cr, x - 2, ty - 4 * dir);
			cairo_line_to(c->cr, x + 2, ty - 4 * dir);
			cairo_close_path(c->cr);
			cairo_fill(c->cr);
		}
		/* A small downward triangle on the strip. */
		cairo_move_to(c->cr, x - 2.5, y - rh / 2.0);
		cairo_line_to(c->cr, x + 2.5, y - rh / 2.0);
		cairo_line_to(c->cr, x, y);
		cairo_close_path(c->cr);
		cairo_fill(c->cr);
	}
	free(row);
}

/* The middle of drawn entity k's strip, from its panel's top. */
static double
strip_middle(const panel_rows *r, uint32_t k)
{
	return ((double)r->y[k] + r->h[k] / 2.0);
}

/* A slanted arrow from (x0, y0) to (x1, y1), its head at (x1, y1). */
static void
draw_arrow(canvas *c, double x0, double y0, double x1, double y1)
{
	double len = hypot(x1 - x0, y1 - y0), ux, uy;

	cairo_move_to(c->cr, x0, y0);
	cairo_line_to(c->cr, x1, y1);
	cairo_stroke(c->cr);
	if (len == 0)
		return;
	ux = (x1 - x0) / len;
	uy = (y1 - y0) / len;
	cairo_move_to(c->cr, x1, y1);
	cairo_line_to(c->cr, x1 - 4 * ux + 2 * uy, y1 - 4 * uy - 2 * ux);
	cairo_line_to(c->cr, x1 - 4 * ux - 2 * uy, y1 - 4 * uy + 2 * ux);
	cairo_close_path(c->cr);
	cairo_fill(c->cr);
}

/*
 * Messages (flows.h) as slanted arrows from the sender's strip at the
 * time sent to the receiver's at the time received: whole messages (an
 * event with an "end") and matched or duplicate sends and receives (by
 * "id"), which in a merged trace (statemap.merge) join entities of
 * several files.  Only message events make them, so a trace without
 * any draws exactly as before.  A message received before it was sent
 * (clocks not aligned) still points at its receiver.
 */
void
events_draw_messages(canvas *c, const render_panel *p, unsigned y0)
{
	const render_options *o = c->o;
	const catalog *cat = p->d->cat;
	uint32_t *row;
	const panel_rows *rw = canvas_rows(c, p);
	double px = (double)c->strip_width / (double)(o->t1 - o->t0);
	const char *why = NULL;
	uint64_t step = panel_step(c, p, 1), shown = 0;
	flows *f;
	size_t i;

	if (!flows_any(cat))
		return;
	if ((f = flows_match(cat, NULL, NULL, NULL, NULL, &why)) == NULL) {
		atomic_store(&c->stopped, why);
		return;
	}
	row = event_rows(p);
	cairo_set_line_width(c->cr, 0.8);
	cairo_set_source_rgba(c->cr, o->foreground.r / 255.0,
	    o->foreground.g / 255.0, o->foreground.b / 255.0, 0.6);
	for (i = 0; i < f->n; i++) {
		const flow *fl = &f->items[i];
		uint32_t from, to;
		double x0, x1, ya, yb;

		if ((i & 0xffff) == 0xffff && canvas_stopping(c))
			break;
		if (!flow_shown(o, cat, fl, row, &from, &to) ||
		    shown++ % step != 0)
			continue;
		x0 = c->strip_x + ((double)fl->sent - (double)o->t0) * px;
		x1 = c->strip_x + ((double)fl->received - (double)o->t0) * px;
		ya = y0 + (double)rw->y[from] + rw->h[from] / 2.0;
		yb = y0 + (double)rw->y[to] + rw->h[to] / 2.0;
		cairo_save(c->cr);
		cairo_rectangle(c->cr, c->strip_x, y0, c->strip_width,
		    rw->height);
		cairo_clip(c->cr);
		draw_arrow(c, x0, ya, x1, yb);
		cairo_restore(c->cr);
	}
	free(row);
	flows_free(f);
}

/* A receive (an event with an id and no target) on a shown row. */
typedef struct receive_ref {
	uint32_t id;		/* in its catalog's event_ids */
	uint32_t row;
	uint64_t time;
} receive_ref;

static int
compare_receive_refs(const void *pa, const void *pb)
{
	const receive_ref *a = pa, *b = pb;

	if (a->id != b->id)
		return (a->id < b->id ? -1 : 1);
	return (a->time < b->time ? -1 : a->time > b->time);
}

static receive_ref *
panel_receives(const render_panel *p, const uint32_t *row, size_t *n)
{
	const catalog *cat = p->d->cat;
	receive_ref *r = xcalloc(cat->nevent_extras + 1, sizeof (receive_ref));
	size_t i;

	*n = 0;
	for (i = 0; i < cat->nevents; i++) {
		const catalog_event *ev = &cat->events[i];
		const catalog_event_extra *x = catalog_event_extra_of(cat, ev);

		if (x == NULL || x->id == CATALOG_NO_ID ||
		    ev->target != CATALOG_NO_ENTITY || row[ev->entity] ==
		    UINT32_MAX)
			continue;
		r[*n].id = x->id;
		r[*n].row = row[ev->entity];
		r[*n].time = ev->time;
		(*n)++;
	}
	qsort(r, *n, sizeof (receive_ref), compare_receive_refs);
	return (r);
}

/*
 * Messages between panels (traces drawn one above the other), as the
 * viewer joins stacked files: a message event whose target names another
 * panel's entity as "Q/name" or the panel as "Q", Q that panel's prefix
 * by statemap.merge's rule (merge_traces.h), is an arrow into it: a
 * whole message to the entity when received, a send with an id to each
 * receive of that id there (every other panel's, if its target names
 * none).  Plain events, and panels without message events, draw nothing
 * here.
 */
void
events_draw_cross_messages(canvas *c, const render_panel *panels, size_t n,
    const unsigned *ys)
{
	const render_options *o = c->o;
	double px = (double)c->strip_width / (double)(o->t1 - o->t0);
	const catalog **cats;
	uint32_t **rows, **entity_rows;
	receive_ref **recv;
	size_t *nrecv, i, j, e, tick = 0;
	unsigned bottom;
	char **q;
	int any = 0;

	for (i = 0; i < n; i++)
		any |= panels[i].events && flows_any(panels[i].d->cat);
	if (n < 2 || !any)
		return;
	cats = xcalloc(n, sizeof (*cats));
	rows = xcalloc(n, sizeof (*rows));
	entity_rows = xcalloc(n, sizeof (*entity_rows));
	recv = xcalloc(n, sizeof (*recv));
	nrecv = xcalloc(n, sizeof (*nrecv));
	for (i = 0; i < n; i++) {
		uint32_t k, ne = catalog_nentities(panels[i].d->cat);

		cats[i] = panels[i].d->cat;
		rows[i] = event_rows(&panels[i]);
		recv[i] = panel_receives(&panels[i], rows[i], &nrecv[i]);
		/* A target names a shown entity, events or not. */
		entity_rows[i] = xmalloc(((size_t)ne + 1) * sizeof (uint32_t));
		for (k = 0; k < ne; k++)
			entity_rows[i][k] = UINT32_MAX;
		for (k = 0; k < panels[i].nentities; k++)
			entity_rows[i][panels[i].entities[k]] = k;
	}
	q = merge_traces_qualifiers(cats, n);
	bottom = ys[n - 1] + canvas_rows(c, &panels[n - 1])->height;
	cairo_save(c->cr);
	cairo_rectangle(c->cr, c->strip_x, ys[0], c->strip_width,
	    bottom - ys[0]);
	cairo_clip(c->cr);
	cairo_set_line_width(c->cr, 0.8);
	cairo_set_source_rgba(c->cr, o->foreground.r / 255.0,
	    o->foreground.g / 255.0, o->foreground.b / 255.0, 0.6);
	for (i = 0; i < n; i++) {
		const catalog *cat = cats[i];
		const panel_rows *ri = canvas_rows(c, &panels[i]);

		if (!panels[i].events)
			continue;
		for (e = 0; e < cat->nevents; e++) {
			const catalog_event *ev = &cat->events[e];
			const catalog_event_extra *x = catalog_event_extra_of(cat,
			    ev);
			const char *t, *slash, *id;
			size_t tlen, hlen, ilen;
			uint32_t to = UINT32_MAX, want = UINT32_MAX;
			size_t target = SIZE_MAX;
			double x0, y0;

			if ((++tick & 0xffff) == 0 && canvas_stopping(c))
				goto out;
			if (x == NULL || ev->target == CATALOG_NO_ENTITY ||
			    rows[i][ev->entity] == UINT32_MAX ||
			    rows[i][ev->target] != UINT32_MAX)
				continue;
			t = intern_name(cat->event_entities, ev->target, &tlen);
			slash = memchr(t, '/', tlen);
			hlen = slash != NULL ? (size_t)(slash - t) : tlen;
			for (j = 0; j < n; j++)
				if (j != i && strlen(q[j]) == hlen &&
				    memcmp(q[j], t, hlen) == 0)
					target = j;
			if (target != SIZE_MAX && slash != NULL) {
				uint32_t k = intern_find(cats[target]->entities,
				    slash + 1, tlen - hlen - 1);

				if (k == INTERN_NONE ||
				    (to = entity_rows[target][k]) == UINT32_MAX)
					continue;
			}
			x0 = c->strip_x + ((double)ev->time - (double)o->t0) * px;
			y0 = ys[i] + strip_middle(ri, rows[i][ev->entity]);
			if (x->end != CATALOG_NO_END) {
				if (to != UINT32_MAX)
					draw_arrow(c, x0, y0, c->strip_x +
					    ((double)x->end - (double)o->t0) * px,
					    ys[target] + strip_middle(
					    canvas_rows(c, &panels[target]),
					    to));
				continue;
			}
			if ((id = catalog_event_id(cat, ev, &ilen)) == NULL)
				continue;
			for (j = 0; j < n; j++) {
				const receive_ref *r = recv[j];
				const panel_rows *rj = canvas_rows(c,
				    &panels[j]);
				size_t lo = 0, hi = nrecv[j];

				if (j == i || (target != SIZE_MAX && j != target))
					continue;
				want = intern_find(cats[j]->event_ids, id, ilen);
				if (want == INTERN_NONE)
					continue;
				while (lo < hi) {	/* the first receive of want */
					size_t mid = lo + (hi - lo) / 2;

					if (r[mid].id < want)
						lo = mid + 1;
					else
						hi = mid;
				}
				for (; lo < nrecv[j] && r[lo].id == want; lo++)
					if (to == UINT32_MAX || r[lo].row == to)
						draw_arrow(c, x0, y0, c->strip_x +
						    ((double)r[lo].time -
						    (double)o->t0) * px, ys[j] +
						    strip_middle(rj, r[lo].row));
			}
		}
	}
out:
	cairo_restore(c->cr);
	merge_traces_free_names(q, n);
	for (i = 0; i < n; i++) {
		free(rows[i]);
		free(entity_rows[i]);
		free(recv[i]);
	}
	free(rows);
	free(entity_rows);
	free(recv);
	free(nrecv);
	free(cats);
}
