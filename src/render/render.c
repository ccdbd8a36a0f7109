#include "render/render.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#include "coalesce/coalesce.h"
#include "base/duration.h"
#include "trace/flows.h"
#include "base/intern.h"
#include "trace/merge_traces.h"
#include "base/outfile.h"
#include "render/pngout.h"
#include "base/runlimit.h"
#include "coalesce/smap.h"
#include "base/threads.h"
#include "base/utf8.h"
#include "base/util.h"

/* Cairo's image surfaces stop at 32767 pixels a side. */
#define MAX_PIXELS	32767
#define LABEL_GAP	6
#define PANEL_GAP	10
#define TICK_SPACING	90	/* at least this many pixels between ticks */

/*
 * "No data" (before an entity's first state, outside the trace) is a
 * hatch, as in the interactive SVG: no solid state colour, white or
 * grey, can be taken for it, as the old plain #f0f0f0 could for the
 * converters' "sleeping" (#e8e8e8) and "sleep" (#f2f2f2).  Its lines run
 * up to the right, where (x + y) mod HATCH_PERIOD, in the picture's
 * pixels, is below HATCH_LINE: the same in every strip, so they join
 * across rows.  HATCH_INK is each pixel's share of line, by (x + y) mod
 * HATCH_PERIOD (the area of the pixel inside the band), so PNG strips
 * need no antialiasing and vector output (the same band, filled) looks
 * the same.
 */
#define HATCH_PERIOD	8	/* a power of 2: x + y masked, not divided */
#define HATCH_LINE	3
static const double HATCH_INK[HATCH_PERIOD] = { 1, 1, 0.5, 0, 0, 0, 0, 0.5 };

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
 * One pass over the entity's intervals: each adds its time to the
 * columns it covers.
 */
void
render_strip(const trace *d, uint32_t entity, uint64_t t0, uint64_t t1,
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

/*
 * A value entity's pixel column: its numbers' min, max and mean there,
 * and the share of the column that had a number; for a string entity,
 * the string at the column's middle (mean holds its id, covered 1), or
 * none (covered 0).
 */
typedef struct value_column {
	double min, max, mean, covered;
} value_column;

/* Whether a value entity holds strings (its first value not null). */
static int
values_are_strings(const store *st, uint32_t e)
{
	const sm_value *v = store_values(st, e);
	size_t n = store_value_count(st, e), i;

	for (i = 0; i < n; i++)
		if (!value_is_none(v[i]))
			return (value_is_string(v[i]));
	return (0);
}

/* The start of pixel column x of width over [t0, t1). */
static uint64_t
column_start(uint64_t t0, uint64_t t1, unsigned width, unsigned x)
{
	return (t0 + (uint64_t)((double)(t1 - t0) * x / width));
}

/*
 * Fills col[0..width-1] for a value entity over [t0, t1), each column
 * from the summary in O(log n); *lo and *hi are the scale: the numbers'
 * min and max over the span, from 0 when they are all of one sign.
 * Returns 1 for numbers, 0 for strings.
 */
static int
value_columns(const trace *d, uint32_t e, uint64_t t0, uint64_t t1,
    unsigned width, value_column *col, double *lo, double *hi)
{
	const store *st = d->st;
	int strings = values_are_strings(st, e);
	value_stats all;
	unsigned x;

	for (x = 0; x < width; x++) {
		uint64_t a = column_start(t0, t1, width, x);
		uint64_t b = x + 1 == width ? t1 :
		    column_start(t0, t1, width, x + 1);
		value_stats vs;
		store_interval iv;

		memset(&col[x], 0, sizeof (value_column));
		if (b <= a)
			b = a + 1;
		if (strings) {
			if (store_value_at(st, e, a + (b - a) / 2, &iv) &&
			    value_is_string(iv.value)) {
				col[x].mean = value_string_id(iv.value);
				col[x].covered = 1;
			}
			continue;
		}
		value_stats_init(&vs);
		store_value_stats(st, e, a, b, &vs);
		if (vs.covered == 0)
			continue;
		col[x].min = vs.min;
		col[x].max = vs.max;
		col[x].mean = vs.integral / (double)vs.covered;
		col[x].covered = (double)vs.covered / (double)(b - a);
		if (col[x].covered > 1)
			col[x].covered = 1;
	}
	value_stats_init(&all);
	store_value_stats(st, e, t0, t1, &all);
	if (all.covered == 0) {
		*lo = 0;
		*hi = 1;
	} else {
		*lo = all.min >= 0 ? 0 : all.min;
		*hi = all.max <= 0 ? 0 : all.max;
		if (*hi <= *lo)
			*hi = *lo + 1;
	}
	return (!strings);
}

/* The colour of string value id: a generated one, by its id. */
static color
string_color(double id)
{
	return (color_generated((uint32_t)id));
}

int
render_format_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot == NULL)
		return (-1);
	if (strcasecmp(dot, ".png") == 0)
		return (RENDER_PNG);
	if (strcasecmp(dot, ".svg") == 0)
		return (RENDER_SVG);
	if (strcasecmp(dot, ".pdf") == 0)
		return (RENDER_PDF);
	return (-1);
}

void
render_defaults(render_options *o, const trace *d)
{
	static const color white = { 0xff, 0xff, 0xff };
	static const color black = { 0, 0, 0 };

	memset(o, 0, sizeof (*o));
	o->labels = LABEL_BOTH;
	o->width = RENDER_WIDTH;
	o->row_height = RENDER_ROW_HEIGHT;
	o->margin = RENDER_MARGIN;
	o->t0 = d->begin;
	o->t1 = d->end;
	o->budget = COALESCE_BUDGET;
	o->font = RENDER_FONT;
	o->font_size = RENDER_FONT_SIZE;
	o->background = white;
	o->foreground = black;
	o->empty = white;	/* under the no-data hatch */
	o->legend = 1;
}

/* ---- drawing ---- */

typedef struct canvas {
	cairo_t *cr;
	cairo_surface_t *surface;
	int draw;		/* 0: only measure, for the layout */
	int pixels;		/* strips go straight into image data */
	const render_options *o;
	unsigned label_width, strip_x, strip_width;
	char *text;		/* scratch for sanitized text */
	size_t text_cap;
	char *label;		/* scratch for an entity's label */
	size_t label_cap;
	/* Time in each state per panel, for the legend: both passes use it. */
	uint64_t **legend_times;
	int nodata;		/* some strip shows no data: key it */
	color hatch[HATCH_PERIOD];	/* by (x + y) mod HATCH_PERIOD */
	uint32_t hatch_px[HATCH_PERIOD];	/* the same as image pixels */
	/* Why drawing stopped (runlimit.h), set by any drawing thread. */
	_Atomic(const char *) stopped;
	/* The panels as drawn (grouped), and where their rows are. */
	render_panel *drawn;
	struct panel_rows *rows;
	size_t npanels;
} canvas;

/*
 * Where a panel's rows are, from its first row's top: each entity's
 * strip (a value entity's is RENDER_VALUE_ROWS rows, a nested one's with
 * nested_rows a row per depth), and the group headers between them.
 */
typedef struct panel_rows {
	uint32_t *order;	/* entity ids, in drawn order */
	uint32_t *given;	/* drawn index -> index in the order given */
	unsigned *y, *h;	/* each drawn entity's strip: top, height */
	uint32_t *levels;	/* sub-rows of nested_rows (0: one strip) */
	size_t *skip;		/* bytes of its name that its header says */
	unsigned *head_y;	/* group headers' tops */
	uint32_t *head_first;	/* the drawn index of each one's first */
	/* Each header's text: bytes off to off + len of its first's name. */
	size_t *head_off, *head_len;
	uint32_t *head_depth;	/* shown levels above it: its indent */
	size_t nheads;
	unsigned height;
} panel_rows;

/* The rows of panel p, one of c->drawn. */
static const panel_rows *
rows_of(const canvas *c, const render_panel *p)
{
	return (&c->rows[p - c->drawn]);
}

/*
 * The length of the path that groups a name (render.h): up to its last
 * '/', or with levels > 0 up to its levels-th '/' if that comes before;
 * 0 for none.
 */
static size_t
path_prefix(const char *name, size_t len, int levels)
{
	size_t i, end = len;
	int seen = 0;

	while (end > 0 && name[end - 1] != '/')
		end--;
	if (end == 0)
		return (0);
	end--;
	/* (A '/' first starts no level: "/x/y" groups under "/x".) */
	for (i = 1; levels > 0 && i < end; i++)
		if (name[i] == '/' && ++seen == levels)
			return (i);
	return (end);
}

/* The deepest a nested entity's stack gets, at most the cap. */
static uint32_t
deepest(const store *st, uint32_t e)
{
	const uint16_t *depth = store_depths(st, e);
	size_t n = store_count(st, e), i;
	uint32_t most = 1;

	for (i = 0; depth != NULL && i < n; i++)
		if (depth[i] > most)
			most = depth[i];
	return (most < RENDER_MAX_DEPTH_ROWS ? most : RENDER_MAX_DEPTH_ROWS);
}

/*
 * The levels of a panel's paths (render.h's group): each a node, met in
 * the given order of the entities, its path the first len bytes of its
 * first entity's name.
 */
#define PATH_ROOT	UINT32_MAX

typedef struct path_node {
	uint32_t parent;	/* the level above, or PATH_ROOT */
	uint32_t first;		/* given index of its first entity */
	uint32_t nkids, nrows;	/* levels and entities directly under it */
	uint32_t level;		/* levels above it */
	uint32_t depth;		/* shown levels above it */
	uint32_t shown_up;	/* the nearest shown level above, or PATH_ROOT */
	size_t len;
	int shown;		/* has entities, or other than one inner level */
} path_node;

typedef struct path_tree {
	path_node *node;
	size_t nnodes, cap;
	/* Per given entity: its levels' firsts, top first, then its own
	 * index: the key that orders the drawing (keys[at[k]..at[k+1])). */
	uint32_t *keys;
	size_t *at;
	uint32_t *parent;	/* per given entity: its level, or PATH_ROOT */
	size_t *plen;		/* per given entity: its level's path length */
} path_tree;

/* Orders drawn entities by their keys: levels by their first entity. */
static int
compare_keys(const void *pa, const void *pb, void *ctx)
{
	const path_tree *t = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	size_t i = t->at[a], j = t->at[b];

	for (; i < t->at[a + 1] && j < t->at[b + 1]; i++, j++)
		if (t->keys[i] != t->keys[j])
			return (t->keys[i] < t->keys[j] ? -1 : 1);
	return (0);	/* only an entity with itself */
}

static void
tree_build(path_tree *t, const render_panel *p)
{
	const catalog *cat = p->d->cat;
	uint32_t n = p->nentities, k, *chain = NULL;
	size_t chain_cap = 0, nkeys = 0, keys_cap = 0, key_cap = 0, i;
	/* A level is known by the level above and its own segment, so a
	 * deep path costs its length, not the square of it. */
	intern *levels = intern_new();
	char *key = NULL;

	memset(t, 0, sizeof (*t));
	t->at = xcalloc((size_t)n + 1, sizeof (size_t));
	t->parent = xcalloc((size_t)n + 1, sizeof (uint32_t));
	t->plen = xcalloc((size_t)n + 1, sizeof (size_t));
	for (k = 0; k < n; k++) {
		size_t len, depth = 0;
		const char *name = catalog_entity_name(cat, p->entities[k], &len);
		size_t plen = path_prefix(name, len, p->group > 0 ? p->group : 0);
		uint32_t up = PATH_ROOT;
		size_t from = 0;

		t->plen[k] = plen;
		/* Each level of the path: a '/' past the start, then plen. */
		for (i = 1; plen > 0 && i <= plen; i++) {
			uint32_t id;
			int added;

			if (i < plen && name[i] != '/')
				continue;
			grow_array(&key, &key_cap, sizeof (up) + i - from, 1);
			memcpy(key, &up, sizeof (up));
			memcpy(key + sizeof (up), name + from, i - from);
			id = intern_add(levels, key, sizeof (up) + i - from,
			    &added);
			from = i;
			if (added) {
				grow_array(&t->node, &t->cap, t->nnodes + 1,
				    sizeof (path_node));
				memset(&t->node[id], 0, sizeof (path_node));
				t->node[id].parent = up;
				t->node[id].level = up == PATH_ROOT ? 0 :
				    t->node[up].level + 1;
				t->node[id].first = k;
				t->node[id].len = i;
				t->nnodes++;
				if (up != PATH_ROOT)
					t->node[up].nkids++;
			}
			grow_array(&chain, &chain_cap, depth + 1,
			    sizeof (uint32_t));
			chain[depth++] = id;
			up = id;
		}
		t->parent[k] = up;
		if (up != PATH_ROOT)
			t->node[up].nrows++;
		grow_array(&t->keys, &keys_cap, nkeys + depth + 1,
		    sizeof (uint32_t));
		t->at[k] = nkeys;
		for (i = 0; i < depth; i++)
			t->keys[nkeys++] = t->node[chain[i]].first;
		t->keys[nkeys++] = k;
	}
	t->at[n] = nkeys;
	/* Parents are met before their levels: one pass in id order. */
	for (i = 0; i < t->nnodes; i++) {
		path_node *x = &t->node[i];
		uint32_t up = x->parent;

		x->shown = x->nrows > 0 || x->nkids != 1;
		if (up != PATH_ROOT && !t->node[up].shown)
			up = t->node[up].shown_up;
		x->shown_up = up;
		x->depth = up == PATH_ROOT ? 0 : t->node[up].depth + 1;
	}
	free(chain);
	free(key);
	intern_free(levels);
}

static void
tree_free(path_tree *t)
{
	free(t->node);
	free(t->keys);
	free(t->at);
	free(t->parent);
	free(t->plen);
}

/* The deepest level that is a or above it and b or above it. */
static uint32_t
tree_common(const path_tree *t, uint32_t a, uint32_t b)
{
	while (a != PATH_ROOT && b != PATH_ROOT && a != b) {
		if (t->node[a].level >= t->node[b].level)
			a = t->node[a].parent;
		else
			b = t->node[b].parent;
	}
	return (a == b ? a : PATH_ROOT);
}

/*
 * Adds a header for each shown level from below `stop` down to x, top
 * first, before drawn entity `first`; scratch holds the levels between.
 */
static void
add_headers(panel_rows *r, const path_tree *t, uint32_t x, uint32_t stop,
    uint32_t first, unsigned rh, unsigned *y, uint32_t **scratch,
    size_t *cap)
{
	size_t n = 0;

	for (; x != stop && x != PATH_ROOT; x = t->node[x].parent) {
		grow_array(scratch, cap, n + 1, sizeof (uint32_t));
		(*scratch)[n++] = x;
	}
	while (n-- > 0) {
		const path_node *nd = &t->node[(*scratch)[n]];
		size_t off;

		if (!nd->shown)
			continue;
		off = nd->shown_up == PATH_ROOT ? 0 :
		    t->node[nd->shown_up].len + 1;
		r->head_y[r->nheads] = *y;
		r->head_first[r->nheads] = first;
		r->head_off[r->nheads] = off;
		r->head_len[r->nheads] = nd->len - off;
		r->head_depth[r->nheads++] = nd->depth;
		*y += rh;
	}
}

/*
 * Lays out a panel's rows, rh pixels each: with group, in the order of
 * the path tree (levels by their first entity), a header row before
 * each shown level's first entity.
 */
static void
rows_build(panel_rows *r, const render_panel *p, unsigned rh)
{
	uint32_t n = p->nentities, k, last = PATH_ROOT, *scratch = NULL;
	size_t scratch_cap = 0;
	path_tree t;
	unsigned y = 0;

	memset(r, 0, sizeof (*r));
	r->order = xcalloc((size_t)n + 1, sizeof (uint32_t));
	r->given = xcalloc((size_t)n + 1, sizeof (uint32_t));
	r->y = xcalloc((size_t)n + 1, sizeof (unsigned));
	r->h = xcalloc((size_t)n + 1, sizeof (unsigned));
	r->levels = xcalloc((size_t)n + 1, sizeof (uint32_t));
	r->skip = xcalloc((size_t)n + 1, sizeof (size_t));
	for (k = 0; k < n; k++)
		r->given[k] = k;
	memset(&t, 0, sizeof (t));
	if (p->group != 0) {
		tree_build(&t, p);
		qsort_r(r->given, n, sizeof (uint32_t), compare_keys, &t);
	}
	r->head_y = xcalloc(t.nnodes + 1, sizeof (unsigned));
	r->head_first = xcalloc(t.nnodes + 1, sizeof (uint32_t));
	r->head_off = xcalloc(t.nnodes + 1, sizeof (size_t));
	r->head_len = xcalloc(t.nnodes + 1, sizeof (size_t));
	r->head_depth = xcalloc(t.nnodes + 1, sizeof (uint32_t));
	for (k = 0; k < n; k++) {
		uint32_t g = r->given[k], e = p->entities[g], up;
		store_kind kind = store_kind_of(p->d->st, e);

		r->order[k] = e;
		if (p->group != 0 && (up = t.parent[g]) != PATH_ROOT) {
			/* Headers for its levels below what the last shared. */
			add_headers(r, &t, up, tree_common(&t, up, last), k, rh,
			    &y, &scratch, &scratch_cap);
			r->skip[k] = t.plen[g] + 1;
		}
		last = p->group != 0 ? t.parent[g] : PATH_ROOT;
		r->y[k] = y;
		r->h[k] = rh;
		if (kind == STORE_VALUES)
			r->h[k] = RENDER_VALUE_ROWS * rh;
		else if (kind == STORE_NESTED && p->nested_rows) {
			r->levels[k] = deepest(p->d->st, e);
			r->h[k] = r->levels[k] * rh;
		}
		y += r->h[k];
	}
	r->height = y;
	if (p->group != 0)
		tree_free(&t);
	free(scratch);
}

static void
rows_free(panel_rows *r)
{
	free(r->order);
	free(r->given);
	free(r->y);
	free(r->h);
	free(r->levels);
	free(r->skip);
	free(r->head_y);
	free(r->head_first);
	free(r->head_off);
	free(r->head_len);
	free(r->head_depth);
}

/*
 * Whether to stop drawing: Ctrl-C or a script's limits.  Drawing goes on
 * where it is cheap to stop (between strips and panels), and the picture
 * is then not written.
 */
static int
stopping(canvas *c)
{
	const char *why;

	if (atomic_load(&c->stopped) != NULL)
		return (1);
	if (runlimit_check(0, &why) == 0)
		return (0);
	atomic_store(&c->stopped, why);
	return (1);
}

static void
set_color(cairo_t *cr, color c)
{
	cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

/*
 * Cairo takes only valid UTF-8 (anything else puts the context in an
 * error state and silently stops drawing), and names are data that a
 * script may have built from anything: invalid bytes, control characters
 * and NULs (a name may hold them) become '?', byte for byte, so offsets
 * into the text stay offsets into the result.
 */
static const char *
clean_text_n(canvas *c, const char *s, size_t len)
{
	size_t i = 0, o = 0;

	if (c->text_cap < len + 1) {
		free(c->text);
		c->text_cap = len + 1;
		c->text = xmalloc(c->text_cap);
	}
	while (i < len) {
		int n = utf8_char((const unsigned char *)s + i, len - i);

		if (n <= 0 || (unsigned char)s[i] < 0x20) {
			c->text[o++] = '?';
			i++;
			continue;
		}
		memcpy(c->text + o, s + i, (size_t)n);
		o += (size_t)n;
		i += (size_t)n;
	}
	c->text[o] = '\0';
	return (c->text);
}

static double
text_width_n(canvas *c, double size, const char *text, size_t len)
{
	cairo_text_extents_t ext;

	cairo_set_font_size(c->cr, size);
	cairo_text_extents(c->cr, clean_text_n(c, text, len), &ext);
	return (ext.x_advance);
}

static double
text_width(canvas *c, double size, const char *text)
{
	return (text_width_n(c, size, text, strlen(text)));
}

/* Text with its baseline at y; align 0 left, 1 right, 2 centred. */
static void
draw_text_n(canvas *c, double x, double y, double size, const char *text,
    size_t len, int align)
{
	double w;

	if (!c->draw)
		return;
	w = text_width_n(c, size, text, len);
	cairo_move_to(c->cr, align == 1 ? x - w : align == 2 ? x - w / 2 : x,
	    y);
	cairo_show_text(c->cr, c->text);
}

static void
draw_text(canvas *c, double x, double y, double size, const char *text,
    int align)
{
	draw_text_n(c, x, y, size, text, strlen(text), align);
}

/* a's share of a mix of a and b, e.g. a grey between text and page. */
static color
mix(color a, color b, double share)
{
	color m;

	m.r = (uint8_t)(a.r * share + b.r * (1 - share) + 0.5);
	m.g = (uint8_t)(a.g * share + b.g * (1 - share) + 0.5);
	m.b = (uint8_t)(a.b * share + b.b * (1 - share) + 0.5);
	return (m);
}

/* An image surface's pixel (CAIRO_FORMAT_RGB24). */
static uint32_t
pixel_of(color c)
{
	return (0xff000000u | (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b);
}

/*
 * The hatch's colours: lines about a fifth darker than the base (the empty
 * colour; white gives the interactive SVG's #c8c8c8 on white), or,
 * on a dark base, lighter, so they show either way.
 */
static void
hatch_colors(canvas *c)
{
	color base = c->o->empty, ink;
	static const color black = { 0, 0, 0 }, white = { 255, 255, 255 };
	double luma = 0.2126 * base.r + 0.7152 * base.g + 0.0722 * base.b;
	unsigned k;

	ink = luma >= 128 ? mix(base, black, 200 / 255.0) :
	    mix(base, white, 0.7);
	for (k = 0; k < HATCH_PERIOD; k++) {
		c->hatch[k] = mix(ink, base, HATCH_INK[k]);
		c->hatch_px[k] = pixel_of(c->hatch[k]);
	}
}

/*
 * Fills a rectangle with the hatch: the base, then the band of the
 * lines, as polygons clipped to the rectangle (vector output keeps them
 * sharp at any zoom; an image gets the same pixels as its strips, near
 * enough: the band's area in each pixel).
 */
static void
fill_hatch(canvas *c, double x, double y, double w, double h)
{
	cairo_t *cr = c->cr;
	double k, start, end;

	if (w <= 0 || h <= 0)
		return;
	cairo_save(cr);
	cairo_rectangle(cr, x, y, w, h);
	cairo_clip(cr);
	set_color(cr, c->o->empty);
	cairo_paint(cr);
	set_color(cr, c->hatch[0]);
	/* Bands where x + y is in [k, k + HATCH_LINE), k a multiple of
	 * the period, over the rectangle's range of x + y. */
	start = floor((x + y) / HATCH_PERIOD) * HATCH_PERIOD;
	end = x + w + y + h;
	for (k = start; k < end; k += HATCH_PERIOD) {
		/* The band between the lines u + v = k and k + LINE. */
		cairo_move_to(cr, k - y, y);
		cairo_line_to(cr, k + HATCH_LINE - y, y);
		cairo_line_to(cr, k + HATCH_LINE - (y + h), y + h);
		cairo_line_to(cr, k - (y + h), y + h);
		cairo_close_path(cr);
	}
	cairo_fill(cr);
	cairo_restore(cr);
}

static unsigned
row_height(const render_options *o, const render_panel *p)
{
	return (p->row_height != 0 ? p->row_height : o->row_height);
}

/* Labels are drawn only where a row is tall enough to read them. */
static double
label_size(const render_options *o, unsigned rh)
{
	return (rh < 7 ? 0 : rh - 2 < o->font_size ? rh - 2 : o->font_size);
}

/*
 * A label (label.h: name, len bytes, and desc in mode) in c->label, cut
 * at a character boundary to fit max pixels at size (a cut label ends in
 * an ellipsis; max < 0: no limit).  Returns its length.  Few characters
 * are narrower than a sixteenth of the size, so bytes past what that
 * many could fill are dropped before any measuring: a name can be
 * megabytes long (one of zero-width characters is then cut sooner than
 * it need be).
 */
static size_t
fit_text(canvas *c, const char *name, size_t len, const char *desc,
    label_mode mode, double size, double max)
{
	size_t full = label_length(name, len, desc, mode), lo, hi, n;

	if (max >= 0 && full > (size_t)(max / size * 16.0) + 16)
		full = (size_t)(max / size * 16.0) + 16;
	if (c->label_cap < full + 1) {
		free(c->label);
		c->label_cap = full + 1;
		c->label = xmalloc(c->label_cap);
	}
	n = label_compose(name, len, desc, mode, full, c->label);
	if (max >= 0 && text_width_n(c, size, c->label, n) > max) {
		/*
		 * The longest cut that fits, by bisection: a label's width
		 * grows with the bytes it may have.  lo fits (or is 0), hi
		 * does not.
		 */
		for (lo = 0, hi = full; hi - lo > 1;) {
			size_t mid = lo + (hi - lo) / 2;

			n = label_compose(name, len, desc, mode, mid, c->label);
			if (text_width_n(c, size, c->label, n) <= max)
				lo = mid;
			else
				hi = mid;
		}
		n = label_compose(name, len, desc, mode, lo, c->label);
	}
	return (n);
}

/*
 * The label of entity e of p (label.h) in c->label, less the first skip
 * bytes of its name (a group header's), cut to fit max pixels at size
 * (fit_text).  Returns its length; *name_len is the length of the name
 * it starts with when a description follows it (drawn in grey), else 0.
 */
static size_t
fit_label(canvas *c, const render_panel *p, uint32_t e, size_t skip,
    double size, double max, size_t *name_len)
{
	const catalog *cat = p->d->cat;
	label_mode mode = c->o->labels;
	size_t len, n;
	const char *name = catalog_entity_name(cat, e, &len);
	const char *desc = cat->descriptions[e];

	/* Under a group's header, the rest of the name. */
	if (skip <= len) {
		name += skip;
		len -= skip;
	}
	n = fit_text(c, name, len, desc, mode, size, max);
	*name_len = mode == LABEL_BOTH && desc != NULL && n > len + 1 &&
	    memcmp(c->label, name, len) == 0 && c->label[len] == ' ' ? len : 0;
	return (n);
}

/*
 * A value strip's range over the span, written under its name: "min
 * -2.5, max 300" (shortest %g forms), "strings", or "no value".
 */
static void
value_range_text(const render_options *o, const render_panel *p,
    uint32_t e, char *buf, size_t size)
{
	value_stats st;

	if (values_are_strings(p->d->st, e)) {
		snprintf(buf, size, "strings");
		return;
	}
	value_stats_init(&st);
	store_value_stats(p->d->st, e, o->t0, o->t1, &st);
	if (st.covered == 0)
		snprintf(buf, size, "no value");
	else
		snprintf(buf, size, "min %.6g, max %.6g", st.min, st.max);
}

/*
 * The labels' column: as wide as the widest whole label, but no wider
 * than a quarter of the picture or 24 characters' width (the SVG's 260
 * pixels at the default size), so the strips keep their room; longer
 * labels are cut.
 */
static void
measure_labels(canvas *c, const render_panel *panels, size_t n)
{
	double widest = 0, max = c->o->width / 4.0;
	size_t i, name_len, len;
	uint32_t k;

	if (max > c->o->font_size * 24)
		max = c->o->font_size * 24;
	for (i = 0; i < n; i++) {
		const panel_rows *r = rows_of(c, &panels[i]);
		double size = label_size(c->o, row_height(c->o, &panels[i]));
		char range[96];

		for (k = 0; size > 0 && k < panels[i].nentities &&
		    widest < max; k++) {
			double w;

			len = fit_label(c, &panels[i], panels[i].entities[k],
			    r->skip[k], size, -1, &name_len);
			if ((w = text_width_n(c, size, c->label, len)) > widest)
				widest = w;
			if (store_kind_of(panels[i].d->st,
			    panels[i].entities[k]) != STORE_VALUES)
				continue;
			value_range_text(c->o, &panels[i],
			    panels[i].entities[k], range, sizeof (range));
			if ((w = text_width(c, size, range)) > widest)
				widest = w;
		}
	}
	c->label_width = (unsigned)ceil(widest < max ? widest : max);
	c->strip_x = c->o->margin + c->label_width + LABEL_GAP;
	c->strip_width = c->o->width - c->strip_x - c->o->margin;
}

/*
 * An entity's label, right-aligned against its strip: the name in the
 * text colour, a description after it in grey.
 */
static void
draw_label(canvas *c, const render_panel *p, uint32_t e, size_t skip,
    double size, double y)
{
	const render_options *o = c->o;
	size_t name_len, n = fit_label(c, p, e, skip, size, c->label_width,
	    &name_len);
	double x = c->strip_x - LABEL_GAP - text_width_n(c, size, c->label, n);

	set_color(c->cr, o->foreground);
	if (name_len == 0) {
		draw_text_n(c, x, y, size, c->label, n, 0);
		return;
	}
	draw_text_n(c, x, y, size, c->label, name_len, 0);
	x += text_width_n(c, size, c->label, name_len + 1);
	set_color(c->cr, mix(o->foreground, o->background, 0.6));
	draw_text_n(c, x, y, size, c->label + name_len + 1,
	    n - name_len - 1, 0);
}

/*
 * A tick's label: the time since the trace's start (the metadata start),
 * in the largest unit the value reaches, as the viewer's axis writes it
 * ("900ms", "1s", "1.05s"): as many decimals as the step needs, trailing
 * zeros dropped.  In integers, so times past 2^53 ns stay exact.
 */
static void
tick_label(uint64_t v, uint64_t step, char *buf, size_t size)
{
	static const struct { uint64_t ns; const char *name; } units[] = {
		{ 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" },
		{ 1, "ns" },
	};
	size_t u = 0;
	int decimals = 0, i;
	uint64_t scale, f;
	char frac[16];

	if (v == 0) {
		snprintf(buf, size, "0");
		return;
	}
	while (u < 3 && v < units[u].ns)
		u++;
	for (scale = units[u].ns; scale > 1 && step % scale != 0;
	    scale /= 10)
		decimals++;		/* at most 9 */
	f = v % units[u].ns / scale;
	for (i = decimals; i > 0; i--) {
		frac[i - 1] = (char)('0' + f % 10);
		f /= 10;
	}
	while (decimals > 0 && frac[decimals - 1] == '0')
		decimals--;
	frac[decimals] = '\0';
	snprintf(buf, size, "%" PRIu64 "%s%s%s", v / units[u].ns,
	    decimals > 0 ? "." : "", frac, units[u].name);
}

/* The first multiple of step at or after t (t itself if it overflows). */
static uint64_t
first_tick(uint64_t t, uint64_t step)
{
	uint64_t r = t % step;

	return (r == 0 || t > UINT64_MAX - (step - r) ? t : t + (step - r));
}

/*
 * The tick step: the round step (duration_step) that puts ticks at
 * least TICK_SPACING pixels apart, made larger while the widest label
 * would not fit between its neighbours.
 */
static uint64_t
tick_step(canvas *c, double px, double size)
{
	const render_options *o = c->o;
	uint64_t step = duration_step(TICK_SPACING / px);
	char buf[48];
	int tries, k;

	for (tries = 0; tries < 20 && step < o->t1 - o->t0; tries++) {
		/* Labels grow with the time: try the last few. */
		uint64_t last = o->t1 - o->t1 % step;
		double widest = 0;

		for (k = 0; k < 3 && last >= o->t0 + (uint64_t)k * step;
		    k++) {
			double w;

			tick_label(last - (uint64_t)k * step, step, buf,
			    sizeof (buf));
			if ((w = text_width(c, size, buf)) > widest)
				widest = w;
		}
		if (widest + size * 1.5 <= step * px)
			break;
		step = duration_step((double)step + 1);
	}
	return (step);
}

/*
 * A point in time in its own unit, with as many decimals as a hundredth
 * of span needs, at least 3: the start of a 200us span at 1.0001s is
 * "1.000100s", not "1.000s".  Truncated, not rounded, as
 * duration_format.  (The viewer's span label resolves a thousandth, for
 * a time bar placed by the pixel; a picture's start needs less.)
 */
static void
time_at(uint64_t t, uint64_t span, char *buf, size_t size)
{
	static const struct { uint64_t ns; const char *name; } units[] = {
		{ 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" },
	};
	uint64_t res = span / 100 > 0 ? span / 100 : 1, scale, f;
	size_t u = 0;
	int decimals = 3, i;
	char frac[16];

	while (u < 3 && t < units[u].ns)
		u++;
	if (u == 3) {
		snprintf(buf, size, "%" PRIu64 "ns", t);
		return;
	}
	for (scale = units[u].ns / 1000; scale > 1 && scale > res;
	    scale /= 10)
		decimals++;
	f = t % units[u].ns / scale;
	for (i = decimals; i > 0; i--) {
		frac[i - 1] = (char)('0' + f % 10);
		f /= 10;
	}
	frac[decimals] = '\0';
	snprintf(buf, size, "%" PRIu64 ".%s%s", t / units[u].ns, frac,
	    units[u].name);
}

/*
 * "from 1.000s, span 500.000ms": where the window starts (since the
 * trace's start, the axis's zero) and how long it is, as the viewer's
 * span label says it.
 */
static void
span_text(const render_options *o, char *buf, size_t size)
{
	char from[48], span[48];

	if (o->t0 == 0)
		snprintf(from, sizeof (from), "0");
	else
		time_at(o->t0, o->t1 - o->t0, from, sizeof (from));
	snprintf(buf, size, "from %s, span %s", from,
	    duration_format(o->t1 - o->t0, span, sizeof (span)));
}

/* The axis's height: its labels, and ticks under them. */
static unsigned
axis_height(const render_options *o)
{
	return ((unsigned)ceil((o->font_size - 1) * 1.6) + 4);
}

/*
 * The time axis: ticks at round times since the trace's start (not since
 * the window's), labelled in their own units, with faint grid lines down
 * to bottom.  Labels stay inside the picture.
 */
static unsigned
draw_axis(canvas *c, unsigned y, unsigned bottom)
{
	const render_options *o = c->o;
	uint64_t span = o->t1 - o->t0, step, v;
	double px = (double)c->strip_width / (double)span;
	double size = o->font_size - 1;
	unsigned h = axis_height(o);

	if (!c->draw)
		return (h);
	step = tick_step(c, px, size);
	cairo_set_line_width(c->cr, 1);
	for (v = first_tick(o->t0, step); v >= o->t0 && v <= o->t1;
	    v += step) {
		double x = floor(c->strip_x + (double)(v - o->t0) * px) + 0.5;
		double w, left;
		char buf[48];

		tick_label(v, step, buf, sizeof (buf));
		w = text_width(c, size, buf);
		left = x - w / 2;
		if (left + w > o->width - o->margin)
			left = o->width - o->margin - w;
		if (left < o->margin)
			left = o->margin;
		set_color(c->cr, o->foreground);
		draw_text(c, left, y + size, size, buf, 0);
		cairo_move_to(c->cr, x, y + h - 4);
		cairo_line_to(c->cr, x, bottom);
		cairo_set_source_rgba(c->cr, o->foreground.r / 255.0,
		    o->foreground.g / 255.0, o->foreground.b / 255.0, 0.15);
		cairo_stroke(c->cr);
		if (o->t1 - v < step)
			break;
	}
	set_color(c->cr, o->foreground);
	return (h);
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
 * A value strip's colours: greys of the text on the page, so that no
 * state's colour is taken for them: the fill to the mean a mid grey
 * (#737373 for black on white), the min-max band a light one (#d9d9d9).
 */
static color
value_fill(const render_options *o)
{
	return (mix(o->foreground, o->background, 0.55));
}

static color
value_band(const render_options *o)
{
	return (mix(o->foreground, o->background, 0.15));
}

/* The value scale's pixel row for v in a strip h tall (0 at the top). */
static double
value_row(double v, double lo, double hi, unsigned h)
{
	return ((hi - v) / (hi - lo) * h);
}

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
		solid[x] = pixel_of(px[x]);
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
				line[x] = page ? pixel_of(under) :
				    c->hatch_px[h];
			else
				line[x] = pixel_of(mix(px[x], under, f));
		}
	}
}

/*
 * A value strip h pixels tall from y: per column, the band from min to
 * max, the fill from the base (0, or the scale's nearer end) to the
 * mean, the page elsewhere; strings their colour; all fading to the
 * hatch where the column is partly without a value.
 */
static void
paint_values(const canvas *c, const strip_job *j, uint32_t e, unsigned y,
    unsigned h, value_column *col)
{
	const render_options *o = c->o;
	unsigned width = c->strip_width, x, row;
	double lo, hi, base;
	int numbers = value_columns(j->p->d, e, o->t0, o->t1, width, col,
	    &lo, &hi);
	color band = value_band(o), fill = value_fill(o);

	base = lo > 0 ? lo : hi < 0 ? hi : 0;
	for (row = 0; row < h; row++) {
		uint32_t *line = (uint32_t *)(void *)(j->data +
		    (size_t)(y + row) * j->stride) + c->strip_x;
		unsigned phase = c->strip_x + y + row;
		double top = row, bottom = row + 1.0;

		for (x = 0; x < width; x++) {
			unsigned hp = (phase + x) & (HATCH_PERIOD - 1);
			const value_column *v = &col[x];
			color px = o->background;

			if (v->covered <= 0) {
				line[x] = c->hatch_px[hp];
				continue;
			}
			if (!numbers) {
				px = string_color(v->mean);
			} else {
				double ym = value_row(v->mean, lo, hi, h);
				double yb = value_row(base, lo, hi, h);
				double ya = value_row(v->max, lo, hi, h);
				double yz = value_row(v->min, lo, hi, h);

				/* A pixel row takes what covers its middle;
				 * a band thinner than a pixel still shows. */
				if (yz - ya < 1)
					yz = ya + 1;
				if ((top + bottom) / 2 >= (ym < yb ? ym : yb) &&
				    (top + bottom) / 2 <= (ym < yb ? yb : ym))
					px = fill;
				else if (bottom > ya && top < yz)
					px = band;
			}
			line[x] = v->covered >= 1 ? pixel_of(px) :
			    pixel_of(mix(px, c->hatch[hp], v->covered));
		}
	}
}

static void
draw_strip_share(void *arg)
{
	const strip_job *j = arg;
	const canvas *c = j->c;
	const render_options *o = c->o;
	const panel_rows *r = rows_of(c, j->p);
	unsigned width = c->strip_width, rh = row_height(o, j->p);
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

		if (stopping((canvas *)c))
			break;
		if (store_kind_of(j->p->d->st, e) == STORE_VALUES) {
			paint_values(c, j, e, y, r->h[k], col);
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
 * is its own rows, so the entities are shared out among the threads.
 */
static void
draw_strips_pixels(canvas *c, const render_panel *p, unsigned y0)
{
	strip_job jobs[64];
	unsigned char *data;
	int stride;
	size_t n = (size_t)threads_count(), i;

	if (n > p->nentities / 16 + 1)
		n = p->nentities / 16 + 1;	/* not worth a thread */
	cairo_surface_flush(c->surface);
	data = cairo_image_surface_get_data(c->surface);
	stride = cairo_image_surface_get_stride(c->surface);
	for (i = 0; i < n; i++) {
		jobs[i].c = c;
		jobs[i].p = p;
		jobs[i].y0 = y0;
		jobs[i].first = (uint32_t)(p->nentities * i / n);
		jobs[i].end = (uint32_t)(p->nentities * (i + 1) / n);
		jobs[i].data = data;
		jobs[i].stride = stride;
	}
	threads_run(draw_strip_share, jobs, n, sizeof (strip_job));
	cairo_surface_mark_dirty(c->surface);
}

/*
 * Vector output of per-column colours: a rectangle per run of columns
 * of one colour (those with no data keep the hatch under them).
 */
static void
draw_runs(canvas *c, double y, double h, const color *px,
    const double *covered)
{
	unsigned width = c->strip_width, x, end;

	for (x = 0; x < width; x = end) {
		end = x + 1;
		if (covered[x] <= 0)
			continue;
		while (end < width && covered[end] > 0 &&
		    memcmp(&px[end], &px[x], sizeof (color)) == 0)
			end++;
		set_color(c->cr, px[x]);
		cairo_rectangle(c->cr, c->strip_x + x, y, end - x, h);
		cairo_fill(c->cr);
	}
}

/*
 * A value strip in vector output: per run of columns alike, the page,
 * the min-max band and the fill to the mean as rectangles (a step graph
 * of few steps is few rectangles); strings as runs of their colours.
 */
static void
draw_values_vector(canvas *c, const render_panel *p, uint32_t e, double y,
    unsigned h, value_column *col, color *px, double *covered)
{
	const render_options *o = c->o;
	unsigned width = c->strip_width, x, end;
	double lo, hi, base;
	int numbers = value_columns(p->d, e, o->t0, o->t1, width, col, &lo,
	    &hi);

	if (!numbers) {
		for (x = 0; x < width; x++) {
			px[x] = string_color(col[x].mean);
			covered[x] = col[x].covered;
		}
		draw_runs(c, y, h, px, covered);
		return;
	}
	base = lo > 0 ? lo : hi < 0 ? hi : 0;
	for (x = 0; x < width; x = end) {
		const value_column *v = &col[x];
		double ym, yb, ya, yz;

		end = x + 1;
		if (v->covered <= 0)
			continue;
		while (end < width && col[end].covered > 0 &&
		    col[end].min == v->min && col[end].max == v->max &&
		    col[end].mean == v->mean)
			end++;
		ym = value_row(v->mean, lo, hi, h);
		yb = value_row(base, lo, hi, h);
		ya = value_row(v->max, lo, hi, h);
		yz = value_row(v->min, lo, hi, h);
		if (yz - ya < 1)
			yz = ya + 1;
		set_color(c->cr, o->background);
		cairo_rectangle(c->cr, c->strip_x + x, y, end - x, h);
		cairo_fill(c->cr);
		set_color(c->cr, value_band(o));
		cairo_rectangle(c->cr, c->strip_x + x, y + ya, end - x,
		    yz - ya);
		cairo_fill(c->cr);
		set_color(c->cr, value_fill(o));
		cairo_rectangle(c->cr, c->strip_x + x, y + (ym < yb ? ym : yb),
		    end - x, fabs(yb - ym));
		cairo_fill(c->cr);
	}
}

/* A nested entity's sub-rows in vector output, a batch at a time. */
static void
draw_stack_rows(canvas *c, const render_panel *p, uint32_t e,
    uint32_t levels, double y)
{
	const render_options *o = c->o;
	unsigned width = c->strip_width, rh = row_height(o, p);
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
			draw_runs(c, y + (level + m - 1) * (double)rh, rh,
			    px + (size_t)m * width, covered + (size_t)m * width);
	}
	free(px);
	free(covered);
	free(work);
}

/*
 * Vector output: the coalesced rectangles, each its states' blend; value
 * strips and nested sub-rows by pixel column (draw_runs).
 */
static void
draw_strips_vector(canvas *c, const render_panel *p, unsigned y0)
{
	const render_options *o = c->o;
	const catalog *cat = p->d->cat;
	const panel_rows *r = rows_of(c, p);
	unsigned rh = row_height(o, p), width = c->strip_width, top = 0;
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

		fill_hatch(c, c->strip_x, y0 + top, c->strip_width,
		    bottom - top);
		top = bottom + rh;
	}
	smap_from_trace(&m, p->d, p->entities, p->nentities, o->budget,
	    o->t0, o->t1);
	if (m.stopped != NULL)
		atomic_store(&c->stopped, m.stopped);
	for (k = 0; k < p->nentities && !stopping(c); k++) {
		uint32_t e = p->entities[k];
		double y = y0 + (double)r->y[k];

		if (store_kind_of(p->d->st, e) == STORE_VALUES) {
			draw_values_vector(c, p, e, y, r->h[k], vcol, cols,
			    covered);
			continue;
		}
		if (r->levels[k] > 0) {
			/* Below the first, the page where the stack is not
			 * that deep. */
			set_color(c->cr, o->background);
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
			a = rect.start < o->t0 ? o->t0 : rect.start;
			b = rect.start + rect.duration > o->t1 ? o->t1 :
			    rect.start + rect.duration;
			if (b <= a)
				continue;
			set_color(c->cr, color_blend(colors, rect.states,
			    cat->nstates));
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

/* Event markers on their entity's strip; an arrow to a shown target. */
static void
draw_events(canvas *c, const render_panel *p, unsigned y0)
{
	const render_options *o = c->o;
	const catalog *cat = p->d->cat;
	uint32_t nev = cat->event_entities != NULL ?
	    intern_count(cat->event_entities) : 0;
	uint32_t *row;
	const panel_rows *r = rows_of(c, p);
	double px = (double)c->strip_width / (double)(o->t1 - o->t0);
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

		if ((i & 0xffff) == 0 && stopping(c))
			break;
		if (ev->time < o->t0 || ev->time >= o->t1 ||
		    row[ev->entity] == UINT32_MAX)
			continue;
		x = c->strip_x + (ev->time - o->t0) * px;
		/* The middle of its strip, however tall. */
		rh = r->h[row[ev->entity]];
		y = y0 + (double)r->y[row[ev->entity]] + rh / 2.0;
		cairo_set_source_rgba(c->cr, o->foreground.r / 255.0,
		    o->foreground.g / 255.0, o->foreground.b / 255.0, 0.45);
		/* A message's arrow is draw_messages'. */
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
static void
draw_messages(canvas *c, const render_panel *p, unsigned y0)
{
	const render_options *o = c->o;
	const catalog *cat = p->d->cat;
	uint32_t *row;
	const panel_rows *rw = rows_of(c, p);
	double px = (double)c->strip_width / (double)(o->t1 - o->t0);
	const char *why = NULL;
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
		const catalog_event *s, *r;
		uint32_t from, to;
		double x0, x1, ya, yb;

		if ((i & 0xffff) == 0xffff && stopping(c))
			break;
		if ((fl->status != FLOW_MATCHED &&
		    fl->status != FLOW_DUPLICATE) || fl->send == FLOWS_NONE)
			continue;
		s = &cat->events[fl->send];
		r = &cat->events[fl->receive];
		from = row[s->entity];
		to = fl->send == fl->receive ? (s->target == CATALOG_NO_ENTITY ?
		    UINT32_MAX : row[s->target]) : row[r->entity];
		if (from == UINT32_MAX || to == UINT32_MAX || from == to)
			continue;
		/* Only arrows with an end in the span; the rest is clipped. */
		if ((fl->sent < o->t0 && fl->received < o->t0) ||
		    (fl->sent >= o->t1 && fl->received >= o->t1))
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
static void
draw_cross_messages(canvas *c, const render_panel *panels, size_t n,
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
	bottom = ys[n - 1] + rows_of(c, &panels[n - 1])->height;
	cairo_save(c->cr);
	cairo_rectangle(c->cr, c->strip_x, ys[0], c->strip_width,
	    bottom - ys[0]);
	cairo_clip(c->cr);
	cairo_set_line_width(c->cr, 0.8);
	cairo_set_source_rgba(c->cr, o->foreground.r / 255.0,
	    o->foreground.g / 255.0, o->foreground.b / 255.0, 0.6);
	for (i = 0; i < n; i++) {
		const catalog *cat = cats[i];
		const panel_rows *ri = rows_of(c, &panels[i]);

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

			if ((++tick & 0xffff) == 0 && stopping(c))
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
					    ys[target] + strip_middle(rows_of(c,
					    &panels[target]), to));
				continue;
			}
			if ((id = catalog_event_id(cat, ev, &ilen)) == NULL)
				continue;
			for (j = 0; j < n; j++) {
				const receive_ref *r = recv[j];
				const panel_rows *rj = rows_of(c, &panels[j]);
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

/*
 * Group headers: each level's path (the rest of it under the level
 * above) in the label column, indented by depth and cut to fit, and a
 * thin line across the strips above the level.
 */
static void
draw_headers(canvas *c, const render_panel *p, unsigned y0, double size)
{
	const render_options *o = c->o;
	const panel_rows *r = rows_of(c, p);
	unsigned rh = row_height(o, p);
	size_t g, n;
	uint32_t k;

	/* A line too where a group ends and entities of none follow. */
	cairo_set_source_rgba(c->cr, o->foreground.r / 255.0,
	    o->foreground.g / 255.0, o->foreground.b / 255.0, 0.3);
	cairo_set_line_width(c->cr, 1);
	for (k = 1; k < p->nentities; k++)
		if (r->skip[k] == 0 && r->skip[k - 1] > 0) {
			cairo_move_to(c->cr, o->margin, y0 + r->y[k] + 0.5);
			cairo_line_to(c->cr, o->width - o->margin,
			    y0 + r->y[k] + 0.5);
			cairo_stroke(c->cr);
		}
	for (g = 0; g < r->nheads; g++) {
		uint32_t first = r->head_first[g];
		const char *name = catalog_entity_name(p->d->cat,
		    p->entities[first], NULL);
		double y = y0 + r->head_y[g], indent;

		cairo_set_source_rgba(c->cr, o->foreground.r / 255.0,
		    o->foreground.g / 255.0, o->foreground.b / 255.0, 0.3);
		cairo_set_line_width(c->cr, 1);
		cairo_move_to(c->cr, o->margin, y + 0.5);
		cairo_line_to(c->cr, o->width - o->margin, y + 0.5);
		cairo_stroke(c->cr);
		if (size <= 0)
			continue;
		set_color(c->cr, o->foreground);
		/* Inner levels indented under outer ones. */
		indent = r->head_depth[g] * size;
		n = fit_text(c, name + r->head_off[g], r->head_len[g], NULL,
		    LABEL_NAME, size, c->strip_x - LABEL_GAP - o->margin -
		    indent);
		draw_text_n(c, o->margin + indent, y + rh - (rh - size) / 2 -
		    size * 0.15, size, c->label, n, 0);
	}
}

/*
 * Each value strip's range over the span, in grey, right-aligned under
 * its name (its strip is RENDER_VALUE_ROWS rows tall, so it has room).
 */
static void
draw_value_ranges(canvas *c, const render_panel *p, unsigned y0,
    double size)
{
	const render_options *o = c->o;
	const panel_rows *r = rows_of(c, p);
	unsigned rh = row_height(o, p);
	uint32_t k;
	char range[96];

	if (size <= 0)
		return;
	set_color(c->cr, mix(o->foreground, o->background, 0.6));
	for (k = 0; k < p->nentities; k++) {
		if (store_kind_of(p->d->st, p->entities[k]) != STORE_VALUES)
			continue;
		value_range_text(o, p, p->entities[k], range, sizeof (range));
		draw_text(c, c->strip_x - LABEL_GAP, y0 + r->y[k] + 2.0 * rh -
		    (rh - size) / 2 - size * 0.15, size, range, 1);
	}
}

/*
 * String values written on their runs where there is room: from the
 * span's start, each string's run, then on from its end (or from the
 * next pixel column, past runs too short to show), so O(width log n)
 * whatever the number of values.  Black or white text, whichever shows
 * on the run's colour.
 */
static void
draw_strings(canvas *c, const render_panel *p, unsigned y0, double size)
{
	const render_options *o = c->o;
	const panel_rows *r = rows_of(c, p);
	const catalog *cat = p->d->cat;
	double px = (double)c->strip_width / (double)(o->t1 - o->t0);
	uint32_t k;

	if (size <= 0)
		return;
	for (k = 0; k < p->nentities && !stopping(c); k++) {
		uint32_t e = p->entities[k];
		uint64_t t = o->t0, column = (o->t1 - o->t0) /
		    c->strip_width + 1;
		store_interval iv;

		if (store_kind_of(p->d->st, e) != STORE_VALUES ||
		    !values_are_strings(p->d->st, e))
			continue;
		while (t < o->t1) {
			double a, b, w;
			size_t len;
			const char *text;
			color bg;

			if (!store_value_at(p->d->st, e, t, &iv)) {
				t += column;
				continue;
			}
			a = c->strip_x + ((double)(iv.start > o->t0 ?
			    iv.start : o->t0) - (double)o->t0) * px;
			b = c->strip_x + ((double)(iv.end < o->t1 ? iv.end :
			    o->t1) - (double)o->t0) * px;
			t = iv.end > t + column ? iv.end : t + column;
			if (!value_is_string(iv.value))
				continue;
			text = intern_name(cat->value_strings,
			    value_string_id(iv.value), &len);
			w = text_width_n(c, size, text, len);
			if (w + 4 > b - a)
				continue;
			bg = string_color(value_string_id(iv.value));
			if (0.2126 * bg.r + 0.7152 * bg.g + 0.0722 * bg.b >= 128)
				cairo_set_source_rgb(c->cr, 0, 0, 0);
			else
				cairo_set_source_rgb(c->cr, 1, 1, 1);
			draw_text_n(c, (a + b) / 2, y0 + r->y[k] + r->h[k] / 2.0 +
			    size * 0.35, size, text, len, 2);
		}
	}
}

static unsigned
draw_panel(canvas *c, const render_panel *p, unsigned y)
{
	const render_options *o = c->o;
	const panel_rows *r = rows_of(c, p);
	unsigned rh = row_height(o, p), h = 0;
	double size = label_size(o, rh);
	uint32_t k;

	if (p->title != NULL) {
		h = (unsigned)ceil(o->font_size * 1.6);
		set_color(c->cr, o->foreground);
		draw_text(c, c->strip_x, y + o->font_size * 1.2, o->font_size,
		    p->title, 0);
	}
	y += h;
	if (c->draw) {
		/* Each label on its strip's first row. */
		for (k = 0; size > 0 && k < p->nentities; k++)
			draw_label(c, p, p->entities[k], r->skip[k], size,
			    y + r->y[k] + rh - (rh - size) / 2 - size * 0.15);
		draw_headers(c, p, y, size);
		draw_value_ranges(c, p, y, size);
		if (c->pixels)
			draw_strips_pixels(c, p, y);
		else
			draw_strips_vector(c, p, y);
		draw_strings(c, p, y, size);
		if (p->events) {
			draw_events(c, p, y);
			draw_messages(c, p, y);
		}
	}
	return (h + r->height);
}

/*
 * The time in each state over a panel's entities: a pass over all their
 * transitions, made once and kept for the second pass (which draws what
 * the first measured).
 */
static const uint64_t *
legend_times(canvas *c, const render_panel *p, size_t panel)
{
	const render_options *o = c->o;
	uint64_t *times;
	uint32_t k;

	if (c->legend_times[panel] != NULL)
		return (c->legend_times[panel]);
	times = xcalloc(p->d->cat->nstates + 1, sizeof (uint64_t));
	for (k = 0; k < p->nentities; k++)
		store_time_in(p->d->st, p->entities[k], o->t0, o->t1, times);
	c->legend_times[panel] = times;
	return (times);
}

/*
 * Whether any of p's strips shows no data over the span: an entity with
 * no state at its start (none yet, or the span starts before the trace),
 * or a span that runs past the trace's end.  States run from an entity's
 * first transition to the end without gaps (store.h), so that is all.
 */
static int
has_nodata(const render_options *o, const render_panel *p)
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
		set_color(c->cr, *fill);
		cairo_rectangle(c->cr, x, y, side, side);
		cairo_fill(c->cr);
	} else {
		fill_hatch(c, x, y, side, side);
	}
	set_color(c->cr, mix(o->foreground, o->background, 0.47));
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
static unsigned
draw_legend(canvas *c, const render_panel *panels, size_t first, size_t end,
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
		const uint64_t *t = legend_times(c, &panels[i], i);

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
		w = size + 4 + text_width(c, size, text) + 2 * size;
		if (x > c->strip_x && x + w > o->width - o->margin) {
			x = c->strip_x;
			y += (unsigned)line;
			h += (unsigned)line;
		}
		if (c->draw) {
			draw_swatch(c, x, y + line / 2 - size / 2, size,
			    s < cat->nstates ? &cat->states[s].color : NULL);
			set_color(c->cr, o->foreground);
			draw_text(c, x + size + 4, y + line / 2 + size * 0.35,
			    size, text, 0);
		}
		x += w;
	}
	free(times);
	return (h);
}

/* Lays everything out (and draws it, if c->draw): returns the height. */
static unsigned
draw_all(canvas *c, const render_panel *panels, size_t n, unsigned *panel_y)
{
	const render_options *o = c->o;
	const char *title = o->title != NULL ? o->title :
	    panels[0].d->cat->title != NULL ? panels[0].d->cat->title :
	    "statemap";
	double tsize = o->font_size * 1.4;
	unsigned y = o->margin, top, bottom, *strips_y;
	size_t i, end;
	char span[128];

	if (c->draw) {
		set_color(c->cr, o->background);
		cairo_paint(c->cr);
		set_color(c->cr, o->foreground);
	}
	draw_text(c, c->strip_x, y + tsize, tsize, title, 0);
	/* Where the window starts, right of the title, or under it. */
	span_text(o, span, sizeof (span));
	if (c->strip_x + text_width(c, tsize, title) + 2 * o->font_size +
	    text_width(c, o->font_size, span) > o->width - o->margin)
		y += (unsigned)ceil(tsize * 1.5);
	draw_text(c, o->width - o->margin, y + tsize, o->font_size, span, 1);
	y += (unsigned)ceil(tsize * 1.5);
	/* The axis's grid lines run down over the panels: measure first. */
	top = y;
	bottom = top + axis_height(o);
	for (i = 0; i < n; i++)
		bottom += (i > 0 ? PANEL_GAP : 0) + (panels[i].title != NULL ?
		    (unsigned)ceil(o->font_size * 1.6) : 0) +
		    rows_of(c, &panels[i])->height;
	y += draw_axis(c, y, bottom);
	strips_y = xcalloc(n + 1, sizeof (unsigned));
	for (i = 0; i < n && !(c->draw && stopping(c)); i++) {
		if (i > 0)
			y += PANEL_GAP;
		strips_y[i] = y + (panels[i].title != NULL ?
		    (unsigned)ceil(o->font_size * 1.6) : 0);
		if (panel_y != NULL)
			panel_y[i] = strips_y[i];
		y += draw_panel(c, &panels[i], y);
	}
	if (c->draw && i == n)
		draw_cross_messages(c, panels, n, strips_y);
	free(strips_y);
	/*
	 * A legend for each run of panels with the same states; the last
	 * keys the hatch, if any strip shows it.
	 */
	if (o->legend && !c->draw)
		for (i = 0; i < n && !c->nodata; i++)
			c->nodata = has_nodata(o, &panels[i]);
	for (i = 0; o->legend && i < n; i = end) {
		for (end = i + 1; end < n && catalog_same_states(
		    panels[end].d->cat, panels[end - 1].d->cat); end++)
			continue;
		y += draw_legend(c, panels, i, end, end == n && c->nodata,
		    y + 4) + 4;
	}
	return (y + o->margin);
}

static cairo_status_t
write_to_file(void *closure, const unsigned char *data, unsigned int length)
{
	return (fwrite(data, 1, length, closure) == length ?
	    CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR);
}

static void
begin_canvas(canvas *c, cairo_surface_t *surface, const render_options *o,
    int format)
{
	cairo_font_options_t *fo = cairo_font_options_create();

	c->surface = surface;
	c->cr = cairo_create(surface);
	c->o = o;
	cairo_select_font_face(c->cr, o->font, CAIRO_FONT_SLANT_NORMAL,
	    CAIRO_FONT_WEIGHT_NORMAL);
	/*
	 * Text is measured on a scratch image, then drawn on the real
	 * surface: both must agree on widths, or a label measured to fit
	 * its column is cut when drawn.  Images hint metrics (whole
	 * pixels), vector surfaces neither hint metrics nor outlines: the
	 * scratch image must do as the vector surface will.
	 */
	if (format != RENDER_PNG) {
		cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
		cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	}
	cairo_set_font_options(c->cr, fo);
	cairo_font_options_destroy(fo);
}

/* What a canvas keeps across both passes. */
static void
canvas_free(canvas *c, size_t npanels)
{
	size_t i;

	for (i = 0; i < npanels; i++) {
		free(c->legend_times[i]);
		rows_free(&c->rows[i]);
	}
	free(c->legend_times);
	free(c->rows);
	free(c->drawn);
	free(c->text);
	free(c->label);
}

static int
check_args(const render_options *o, const render_panel *panels,
    size_t n, sm_error *err)
{
	size_t i;

	if (n == 0) {
		error_set(err, "render: no panels");
		return (-1);
	}
	if (o->t1 <= o->t0) {
		error_set(err, "render: the time span is empty");
		return (-1);
	}
	if (o->width < 2 * o->margin + 40 || o->width > MAX_PIXELS) {
		error_set(err, "render: width %u is out of range (%u to %d)",
		    o->width, 2 * o->margin + 40, MAX_PIXELS);
		return (-1);
	}
	for (i = 0; i < n; i++)
		if (row_height(o, &panels[i]) == 0) {
			error_set(err, "render: row height must be at least 1");
			return (-1);
		}
	return (0);
}

int
render_file(const char *path, const render_options *o,
    const render_panel *panels, size_t npanels, render_layout *layout,
    sm_error *err)
{
	int format = render_format_of(path);
	canvas c;
	cairo_surface_t *surface;
	cairo_status_t st;
	unsigned height;
	outfile of;
	const char *why = NULL;
	size_t i;
	uint32_t k;

	if (format < 0) {
		error_set(err, "render: \"%s\": the name must end in .png, "
		    ".svg or .pdf", path);
		return (-1);
	}
	if (check_args(o, panels, npanels, err) != 0)
		return (-1);
	/* Measure on a scratch surface to learn the picture's height. */
	memset(&c, 0, sizeof (c));
	c.legend_times = xcalloc(npanels, sizeof (uint64_t *));
	c.drawn = xcalloc(npanels, sizeof (render_panel));
	c.rows = xcalloc(npanels, sizeof (panel_rows));
	for (i = 0; i < npanels; i++) {
		rows_build(&c.rows[i], &panels[i], row_height(o, &panels[i]));
		c.drawn[i] = panels[i];
		c.drawn[i].entities = c.rows[i].order;
	}
	c.npanels = npanels;
	panels = c.drawn;
	surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	begin_canvas(&c, surface, o, format);
	hatch_colors(&c);
	measure_labels(&c, panels, npanels);
	height = draw_all(&c, panels, npanels, NULL);
	cairo_destroy(c.cr);
	cairo_surface_destroy(surface);
	if (c.strip_width < 10) {
		error_set(err, "render: width %u leaves no room for the "
		    "strips", o->width);
		canvas_free(&c, npanels);
		return (-1);
	}
	/* Vector pictures too: a page beyond that is more than any viewer
	 * shows, and drawing it would take a long time. */
	if (height > MAX_PIXELS) {
		error_set(err, "render: the picture would be %u pixels tall "
		    "(at most %d): use fewer entities or lower rows", height,
		    MAX_PIXELS);
		canvas_free(&c, npanels);
		return (-1);
	}
	/* An image is made whole at once: ask before, not after. */
	if (format == RENDER_PNG) {
		size_t bytes = (size_t)o->width * height * 4;

		if (runlimit_check(bytes, &why) != 0) {
			error_set(err, "render: a %ux%u picture needs %zu MB: "
			    "%s", o->width, height, bytes >> 20, why);
			canvas_free(&c, npanels);
			return (-1);
		}
	}
	if (outfile_open(&of, path, err) != 0) {
		canvas_free(&c, npanels);
		return (-1);
	}
	if (format == RENDER_PNG)
		surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
		    (int)o->width, (int)height);
	else if (format == RENDER_SVG)
		surface = cairo_svg_surface_create_for_stream(write_to_file,
		    of.fp, o->width, height);
	else
		surface = cairo_pdf_surface_create_for_stream(write_to_file,
		    of.fp, o->width, height);
	begin_canvas(&c, surface, o, format);
	c.draw = 1;
	c.pixels = (format == RENDER_PNG);
	if (layout != NULL) {
		layout->width = o->width;
		layout->height = height;
		layout->strip_x = c.strip_x;
		layout->strip_width = c.strip_width;
	}
	if (layout != NULL && layout->entity_y != NULL)
		for (i = 0; i < npanels; i++)
			for (k = 0; k < panels[i].nentities; k++) {
				uint32_t g = c.rows[i].given[k];

				layout->entity_y[i][g] = c.rows[i].y[k];
				layout->entity_h[i][g] = c.rows[i].h[k];
			}
	draw_all(&c, panels, npanels, layout != NULL ? layout->panel_y : NULL);
	if (layout != NULL && layout->entity_y != NULL)
		for (i = 0; i < npanels; i++)
			for (k = 0; k < panels[i].nentities; k++)
				layout->entity_y[i][k] += layout->panel_y[i];
	st = cairo_status(c.cr);
	cairo_destroy(c.cr);
	if (atomic_load(&c.stopped) != NULL) {
		cairo_surface_destroy(surface);
		canvas_free(&c, npanels);
		outfile_abort(&of);
		error_at(err, path, 0, 0, "%s", atomic_load(&c.stopped));
		return (-1);
	}
	if (st == CAIRO_STATUS_SUCCESS && format == RENDER_PNG) {
		cairo_surface_flush(surface);
		if (pngout_write_rgb24(of.fp,
		    cairo_image_surface_get_data(surface), (int)o->width,
		    (int)height, cairo_image_surface_get_stride(surface),
		    &why) != 0)
			st = CAIRO_STATUS_WRITE_ERROR;
	}
	cairo_surface_finish(surface);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(surface);
	cairo_surface_destroy(surface);
	canvas_free(&c, npanels);
	if (st != CAIRO_STATUS_SUCCESS) {
		outfile_abort(&of);
		if (why != NULL)
			error_at(err, path, 0, 0, "cannot write the picture: "
			    "%s", why);
		else
			error_at(err, path, 0, 0, "cannot draw the picture: "
			    "%s", cairo_status_to_string(st));
		return (-1);
	}
	return (outfile_commit(&of, err));
}
