#include "render/state_strips.h"

#include <stdlib.h>
#include <string.h>

#include "base/threads.h"
#include "base/util.h"
#include "coalesce/coalesce.h"
#include "coalesce/smap.h"
#include "render/panel_shares.h"
#include "render/value_strips.h"

/*
 * Adds the interval [a, b) (in columns, fractional) of state to the
 * columns it covers: partly at its ends, wholly between them.
 */
static void
add_span(double *work, uint32_t ns, unsigned width, double a, double b,
    uint32_t state)
{
	unsigned xa, xb, x;

	/*
	 * Doubles round: near the end of a long span (2^60 ns, say) an
	 * interval's start can come out at width itself.
	 */
	if (b > width)
		b = width;
	if (a > b)
		a = b;
	xa = (unsigned)a;
	xb = (unsigned)b;
	if (xb >= width)
		xb = width - 1;
	if (xa > xb)
		xa = xb;
	if (xa == xb) {
		work[(size_t)xa * ns + state] += b - a;
		return;
	}
	work[(size_t)xa * ns + state] += (xa + 1) - a;
	for (x = xa + 1; x < xb; x++)
		work[(size_t)x * ns + state] += 1;
	work[(size_t)xb * ns + state] += b - xb;
}

/* Each column's time-weighted blend of the states added to work. */
static void
blend_columns(const trace *d, unsigned width, const double *work,
    color *out, double *covered)
{
	uint32_t ns = d->cat->nstates, s;
	unsigned x;

	for (x = 0; x < width; x++) {
		double r = 0, g = 0, bl = 0, total = 0;

		for (s = 0; s < ns; s++) {
			double w = work[(size_t)x * ns + s];

			r += w * d->cat->states[s].color.r;
			g += w * d->cat->states[s].color.g;
			bl += w * d->cat->states[s].color.b;
			total += w;
		}
		covered[x] = total > 1 ? 1 : total;
		if (total <= 0) {
			memset(&out[x], 0, sizeof (color));
			continue;
		}
		out[x].r = (uint8_t)(r / total + 0.5);
		out[x].g = (uint8_t)(g / total + 0.5);
		out[x].b = (uint8_t)(bl / total + 0.5);
	}
}

/*
 * One pass over the entity's intervals, each adding its time to the
 * columns it covers, into work (width * nstates): the reference, and
 * what render_strip falls back to where its own way cannot go (a picture
 * one column wide, times out of order).
 */
static void
render_strip_dense(const trace *d, uint32_t entity, uint64_t t0, uint64_t t1,
    unsigned width, color *out, double *covered, double *work)
{
	uint32_t ns = d->cat->nstates;
	double span = (double)(t1 - t0), per = span / width;
	store_iter it;
	store_interval iv;

	memset(work, 0, (size_t)width * ns * sizeof (double));
	store_iter_init(&it, d->st, &entity, 1, t0, t1);
	while (store_iter_next(&it, &iv))
		add_span(work, ns, width, (double)(iv.start - t0) / per,
		    (double)(iv.end - t0) / per, iv.state);
	blend_columns(d, width, work, out, covered);
}

/*
 * The states of the one column still open in render_strip: each
 * state's time there.  With few states (dense), w holds every state's,
 * zero where absent, and the blend goes through them all; with many,
 * w[s] is valid where stamp[s] is the column's stamp, and touched lists
 * the states there in the order first touched.
 */
#define DENSE_STATES	16

typedef struct open_column {
	double *w;
	uint32_t *stamp, *touched;
	uint32_t ntouched, now;	/* now: the open column's stamp (x + 1) */
	unsigned x;
	int dense;
} open_column;

/* Adds time to state s in the open column. */
static inline void
column_add(open_column *oc, uint32_t s, double time)
{
	if (!oc->dense && oc->stamp[s] != oc->now) {
		oc->stamp[s] = oc->now;
		oc->w[s] = 0;
		oc->touched[oc->ntouched++] = s;
	}
	oc->w[s] += time;
}

/*
 * The open column's blend into out and covered: the sums blend_columns
 * makes, term by term in the order of the states with few states (a
 * state not there adds a zero, which changes no sum), so the same
 * bytes; with many, in the order the states came to the column, which
 * may differ from blend_columns' in a blend's last bit.
 */
static void
column_close(const trace *d, open_column *oc, color *out, double *covered)
{
	const catalog_state *st = d->cat->states;
	uint32_t i, k = oc->ntouched, ns = d->cat->nstates;
	double r = 0, g = 0, bl = 0, total = 0;

	if (oc->now == 0)
		return;
	if (oc->dense) {
		for (i = 0; i < ns; i++) {
			double w = oc->w[i];

			r += w * st[i].color.r;
			g += w * st[i].color.g;
			bl += w * st[i].color.b;
			total += w;
			oc->w[i] = 0;
		}
	} else {
		/* In the order the states came to the column: a sort into
		 * the states' order was half the time of a picture of
		 * 1000 states. */
		for (i = 0; i < k; i++) {
			uint32_t s = oc->touched[i];
			double w = oc->w[s];

			r += w * st[s].color.r;
			g += w * st[s].color.g;
			bl += w * st[s].color.b;
			total += w;
		}
	}
	oc->ntouched = 0;
	oc->now = 0;
	covered[oc->x] = total > 1 ? 1 : total;
	if (total <= 0)
		return;		/* out[x] is already 0 */
	out[oc->x].r = (uint8_t)(r / total + 0.5);
	out[oc->x].g = (uint8_t)(g / total + 0.5);
	out[oc->x].b = (uint8_t)(bl / total + 0.5);
}

/* Opens column x (after closing the one open, if another). */
static inline void
column_open(const trace *d, open_column *oc, unsigned x, color *out,
    double *covered)
{
	if (oc->now == x + 1)
		return;
	column_close(d, oc, out, covered);
	oc->x = x;
	oc->now = x + 1;
}

/*
 * The strip, column by column: the entity's intervals come in time
 * order, so each column is finished before the next is started, and
 * only the states it holds are added and blended (a few, where a trace
 * may have a thousand); a column inside one interval is that state's
 * colour at once.  Each state's time in a column is the one
 * render_strip_dense adds up, in the same order, and so is the blend with
 * up to DENSE_STATES states (beyond, see column_close).  Where it cannot
 * (one column, times out of order), render_strip_dense does it.
 */
void
render_strip(const trace *d, uint32_t entity, uint64_t t0, uint64_t t1,
    unsigned width, color *out, double *covered, double *work)
{
	const store *st = d->st;
	uint32_t ns = d->cat->nstates;
	double span = (double)(t1 - t0), per = span / width, bd = 0;
	const uint64_t *time;
	const uint16_t *state;
	uint64_t lo = t0 > store_begin(st) ? t0 : store_begin(st);
	uint64_t hi = t1 < store_end(st) ? t1 : store_end(st), bt = 0;
	size_t count, i;
	open_column oc;
	int have_b = 0;

	uint32_t sns = store_nstates(st);

	/* (A store's states beyond the catalog's would index past it.) */
	if (width < 2 || ns == 0 || sns > ns ||
	    entity >= store_nentities(st)) {
		render_strip_dense(d, entity, t0, t1, width, out, covered,
		    work);
		return;
	}
	memset(out, 0, (size_t)width * sizeof (color));
	memset(covered, 0, (size_t)width * sizeof (double));
	count = store_count(st, entity);
	if (hi <= lo || count == 0)
		return;
	/* ns doubles, then 2 * ns stamps and states: within width * ns. */
	oc.w = work;
	oc.stamp = (uint32_t *)(void *)(work + ns);
	oc.touched = oc.stamp + ns;
	oc.dense = ns <= DENSE_STATES;
	if (oc.dense)
		memset(oc.w, 0, ns * sizeof (double));
	else
		memset(oc.stamp, 0, ns * sizeof (uint32_t));
	oc.ntouched = 0;
	oc.now = 0;
	oc.x = 0;
	time = store_times(st, entity);
	state = store_states(st, entity);
	i = store_count_through(time, count, lo);
	i = i > 0 ? i - 1 : 0;
	for (; i < count && time[i] < hi; i++) {
		uint64_t a = time[i] > lo ? time[i] : lo;
		uint64_t b = i + 1 < count ? time[i + 1] : store_end(st);
		uint32_t s;
		double ad, bd_next;
		unsigned xa, xb, x;

		if (b > hi)
			b = hi;
		/* No data (STORE_GAP) covers nothing: the hatch shows. */
		if (b <= a || state[i] == STORE_GAP)
			continue;
		/* The division store_iter's caller makes, once per time: an
		 * interval starts where the last one ended. */
		ad = have_b && bt == a ? bd : (double)(a - t0) / per;
		bd_next = (double)(b - t0) / per;
		bt = b;
		bd = bd_next;
		have_b = 1;
		s = store_state_in(state[i], sns);
		/* add_span's arithmetic, column by column. */
		if (bd_next > width)
			bd_next = width;
		if (ad > bd_next)
			ad = bd_next;
		xa = (unsigned)ad;
		xb = (unsigned)bd_next;
		if (xb >= width)
			xb = width - 1;
		if (xa > xb)
			xa = xb;
		if (oc.now > xa + 1) {
			/* Back in time: times out of order. */
			render_strip_dense(d, entity, t0, t1, width, out,
			    covered, work);
			return;
		}
		column_open(d, &oc, xa, out, covered);
		if (xa == xb) {
			column_add(&oc, s, bd_next - ad);
			continue;
		}
		column_add(&oc, s, (xa + 1) - ad);
		column_close(d, &oc, out, covered);
		for (x = xa + 1; x < xb; x++) {
			out[x] = d->cat->states[s].color;
			covered[x] = 1;
		}
		column_open(d, &oc, xb, out, covered);
		column_add(&oc, s, bd_next - xb);
	}
	column_close(d, &oc, out, covered);
}

/*
 * The same for depths first to first + n - 1 of a nested entity's stack
 * (depth 1 is the bottom), into out and covered (n rows of width) with
 * work (n * width * nstates): each interval at least first deep walks
 * down the links from its top once (store.h), adding each frame's state
 * to its depth's row.  O(intervals * depth) for the n rows together.
 */
static void
render_stack_rows(const trace *d, uint32_t entity, uint32_t first,
    uint32_t n, uint64_t t0, uint64_t t1, unsigned width, color *out,
    double *covered, double *work)
{
	const store *st = d->st;
	uint32_t ns = d->cat->nstates;
	const uint64_t *time = store_times(st, entity);
	const uint16_t *state = store_states(st, entity);
	const uint16_t *depth = store_depths(st, entity);
	const uint32_t *below = store_below(st, entity);
	size_t count = store_count(st, entity), i, row = (size_t)width * ns;
	double per = (double)(t1 - t0) / width;
	uint64_t lo = t0 > store_begin(st) ? t0 : store_begin(st);
	uint64_t hi = t1 < store_end(st) ? t1 : store_end(st);
	uint32_t k;

	memset(work, 0, n * row * sizeof (double));
	i = store_count_through(time, count, lo);
	i = i > 0 ? i - 1 : 0;
	for (; i < count && time[i] < hi; i++) {
		uint64_t a = time[i] > lo ? time[i] : lo;
		uint64_t b = i + 1 < count ? time[i + 1] : store_end(st);
		uint32_t j = (uint32_t)i;
		uint32_t top = depth != NULL ? depth[i] : 1;

		if (b > hi)
			b = hi;
		if (b <= a || top < first)
			continue;
		for (k = top; k >= first; k--) {
			if (k < first + n)
				add_span(work + (k - first) * row, ns, width,
				    (double)(a - t0) / per, (double)(b - t0) / per,
				    store_state_in(state[j], ns));
			if (k == first || below == NULL || below[j] >= j)
				break;		/* links always go back */
			j = below[j];
		}
	}
	for (k = 0; k < n; k++)
		blend_columns(d, width, work + k * row, out + (size_t)k * width,
		    covered + (size_t)k * width);
}

/* How many sub-rows render_stack_rows does at once: work within 8 MB. */
static uint32_t
stack_batch(const trace *d, unsigned width, uint32_t levels)
{
	size_t row = (size_t)width * (d->cat->nstates + 1) * sizeof (double);
	size_t n = ((size_t)8 << 20) / row;

	return (n < 1 ? 1 : n > levels ? levels : (uint32_t)n);
}

/* A share of a panel's strips, drawn by one thread. */
typedef struct strip_job {
	const canvas *c;
	const render_panel *p;
	unsigned y0;
	uint32_t first, end;	/* entities [first, end) of the panel */
	unsigned char *data;
	int stride;
} strip_job;

/*
 * rh rows of pixels from y, each column px[x] over its covered share,
 * fading to the hatch where less than whole, or with page, to the page
 * (a nested entity's sub-row where its stack is shallower).
 */
static void
paint_rows(const canvas *c, const strip_job *j, unsigned y, unsigned rh,
    const color *px, const double *covered, uint32_t *solid, int page)
{
	unsigned width = c->strip_width, x, row;
	int whole = 1;

	for (x = 0; x < width; x++) {
		solid[x] = canvas_pixel(px[x]);
		if (covered[x] < 1)
			whole = 0;
	}
	for (row = 0; row < rh; row++) {
		uint32_t *line = (uint32_t *)(void *)(j->data +
		    (size_t)(y + row) * j->stride) + c->strip_x;
		/* The hatch's phase at this row's first pixel. */
		unsigned phase = c->strip_x + y + row;

		if (whole) {
			/* Every row alike: the common case, cheap. */
			memcpy(line, solid, width * sizeof (uint32_t));
			continue;
		}
		for (x = 0; x < width; x++) {
			/* Partly covered columns fade to the hatch. */
			unsigned h = (phase + x) & (HATCH_PERIOD - 1);
			double f = covered[x];
			color under = page ? c->o->background : c->hatch[h];

			if (f >= 1)
				line[x] = solid[x];
			else if (f <= 0)
				line[x] = page ? canvas_pixel(under) :
				    c->hatch_px[h];
			else
				line[x] = canvas_pixel(color_mix(px[x], under,
				    f));
		}
	}
}

static void
draw_strip_share(void *arg)
{
	const strip_job *j = arg;
	const canvas *c = j->c;
	const render_options *o = c->o;
	const panel_rows *r = canvas_rows(c, j->p);
	unsigned width = c->strip_width, rh = layout_row_height(o, j->p);
	color *px = xcalloc(width, sizeof (color));
	double *covered = xcalloc(width, sizeof (double));
	double *work = xcalloc((size_t)width * (j->p->d->cat->nstates + 1),
	    sizeof (double));
	uint32_t *solid = xcalloc(width, sizeof (uint32_t)), k, level, m;
	value_column *col = xcalloc(width, sizeof (value_column));
	uint32_t batch = RENDER_MAX_DEPTH_ROWS, most = 0;
	color *rows_px = NULL;
	double *rows_covered = NULL, *rows_work = NULL;

	/* Room for the sub-rows of the deepest stack, a batch at a time. */
	for (k = j->first; k < j->end; k++)
		if (r->levels[k] > most)
			most = r->levels[k];
	if (most > 0) {
		batch = stack_batch(j->p->d, width, most);
		rows_px = xcalloc((size_t)batch * width, sizeof (color));
		rows_covered = xcalloc((size_t)batch * width, sizeof (double));
		rows_work = xcalloc((size_t)batch * width *
		    (j->p->d->cat->nstates + 1), sizeof (double));
	}
	for (k = j->first; k < j->end; k++) {
		uint32_t e = j->p->entities[k];
		unsigned y = j->y0 + r->y[k];

		if (canvas_stopping((canvas *)c))
			break;
		if (store_kind_of(j->p->d->st, e) == STORE_VALUES) {
			value_strips_paint(c, j->data, j->stride, j->p->d, e, y,
			    r->h[k], col);
			continue;
		}
		for (level = 1; level <= r->levels[k]; level += batch) {
			uint32_t n = r->levels[k] - level + 1 < batch ?
			    r->levels[k] - level + 1 : batch;

			render_stack_rows(j->p->d, e, level, n, o->t0, o->t1,
			    width, rows_px, rows_covered, rows_work);
			for (m = 0; m < n; m++)
				paint_rows(c, j, y + (level + m - 1) * rh, rh,
				    rows_px + (size_t)m * width,
				    rows_covered + (size_t)m * width, solid,
				    level + m > 1);
		}
		if (r->levels[k] > 0)
			continue;
		render_strip(j->p->d, e, o->t0, o->t1, width, px, covered,
		    work);
		paint_rows(c, j, y, rh, px, covered, solid, 0);
	}
	free(px);
	free(covered);
	free(work);
	free(solid);
	free(col);
	free(rows_px);
	free(rows_covered);
	free(rows_work);
}

/*
 * Straight into the image: exact pixels, no antialiasing.  Each strip
 * is its own rows, so the entities are shared out among the threads, in
 * runs of about equal work (panel_shares.h).
 */
void
state_strips_draw_pixels(canvas *c, const render_panel *p, unsigned y0)
{
	strip_job jobs[PANEL_SHARES_MAX];
	uint32_t bounds[PANEL_SHARES_MAX + 1];
	unsigned char *data;
	int stride;
	size_t n = panel_shares_count(p), i;

	cairo_surface_flush(c->surface);
	data = cairo_image_surface_get_data(c->surface);
	stride = cairo_image_surface_get_stride(c->surface);
	panel_shares_cut(p, n, bounds);
	for (i = 0; i < n; i++) {
		jobs[i].c = c;
		jobs[i].p = p;
		jobs[i].y0 = y0;
		jobs[i].first = bounds[i];
		jobs[i].end = bounds[i + 1];
		jobs[i].data = data;
		jobs[i].stride = stride;
	}
	threads_run(draw_strip_share, jobs, n, sizeof (strip_job));
	cairo_surface_mark_dirty(c->surface);
}

/* A nested entity's sub-rows in vector output, a batch at a time. */
static void
draw_stack_rows(canvas *c, const render_panel *p, uint32_t e,
    uint32_t levels, double y)
{
	const render_options *o = c->o;
	unsigned width = c->strip_width, rh = layout_row_height(o, p);
	uint32_t batch = stack_batch(p->d, width, levels), level, m;
	color *px = xcalloc((size_t)batch * width, sizeof (color));
	double *covered = xcalloc((size_t)batch * width, sizeof (double));
	double *work = xcalloc((size_t)batch * width *
	    (p->d->cat->nstates + 1), sizeof (double));

	for (level = 1; level <= levels; level += batch) {
		uint32_t n = levels - level + 1 < batch ? levels - level + 1 :
		    batch;

		render_stack_rows(p->d, e, level, n, o->t0, o->t1, width, px,
		    covered, work);
		for (m = 0; m < n; m++)
			canvas_draw_runs(c, y + (level + m - 1) * (double)rh,
			    rh, px + (size_t)m * width,
			    covered + (size_t)m * width);
	}
	free(px);
	free(covered);
	free(work);
}

/*
 * Vector output: the coalesced rectangles, each its states' blend; value
 * strips and nested sub-rows by pixel column (canvas_draw_runs).
 */
void
state_strips_draw_vector(canvas *c, const render_panel *p, unsigned y0)
{
	const render_options *o = c->o;
	const catalog *cat = p->d->cat;
	const panel_rows *r = canvas_rows(c, p);
	unsigned rh = layout_row_height(o, p), width = c->strip_width, top = 0;
	double px = (double)c->strip_width / (double)(o->t1 - o->t0);
	color *colors = xcalloc(cat->nstates + 1, sizeof (color));
	color *cols = xcalloc(width, sizeof (color));
	double *covered = xcalloc(width, sizeof (double));
	value_column *vcol = xcalloc(width, sizeof (value_column));
	smap m;
	uint32_t k, s;
	size_t g;

	for (s = 0; s < cat->nstates; s++)
		colors[s] = cat->states[s].color;
	/* The hatch under the strips, between the group headers. */
	for (g = 0; g <= r->nheads; g++) {
		unsigned bottom = g < r->nheads ? r->head_y[g] : r->height;

		canvas_fill_hatch(c, c->strip_x, y0 + top, c->strip_width,
		    bottom - top);
		top = bottom + rh;
	}
	smap_from_trace(&m, p->d, p->entities, p->nentities, o->budget,
	    o->t0, o->t1);
	if (m.stopped != NULL)
		atomic_store(&c->stopped, m.stopped);
	for (k = 0; k < p->nentities && !canvas_stopping(c); k++) {
		uint32_t e = p->entities[k];
		double y = y0 + (double)r->y[k];

		if (store_kind_of(p->d->st, e) == STORE_VALUES) {
			value_strips_draw_vector(c, p, e, y, r->h[k], vcol,
			    cols, covered);
			continue;
		}
		if (r->levels[k] > 0) {
			/* Below the first, the page where the stack is not
			 * that deep. */
			canvas_set_color(c->cr, o->background);
			cairo_rectangle(c->cr, c->strip_x, y + rh,
			    c->strip_width, r->h[k] - rh);
			cairo_fill(c->cr);
			draw_stack_rows(c, p, e, r->levels[k], y);
			continue;
		}
		if (!coalesce_seen(m.co, e))
			continue;
		for (s = coalesce_first(m.co, e);
		    s != COALESCE_NONE; s = coalesce_next(m.co, s)) {
			coalesce_rect rect;
			uint64_t a, b;

			coalesce_get(m.co, s, &rect);
			if (rect.nstates == 0)
				continue;	/* no data: the hatch */
			a = rect.start < o->t0 ? o->t0 : rect.start;
			b = rect.start + rect.duration > o->t1 ? o->t1 :
			    rect.start + rect.duration;
			if (b <= a)
				continue;
			canvas_set_color(c->cr, color_blend_sparse(colors,
			    rect.states, rect.times, rect.nstates));
			cairo_rectangle(c->cr, c->strip_x + (a - o->t0) * px,
			    y, (b - a) * px, rh);
			cairo_fill(c->cr);
		}
	}
	smap_free(&m);
	free(colors);
	free(cols);
	free(covered);
	free(vcol);
}
