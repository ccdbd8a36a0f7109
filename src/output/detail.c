#include "output/detail.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "output/fixed.h"
#include "output/jsonout.h"
#include "output/kindjson.h"
#include "output/svg.h"
#include "output/viewport.h"

#define SHARE		8	/* a window's budget is level 0's / SHARE */
#define MAX_LEVEL	40	/* windows down to 1/2^40 of the span */
#define MAX_SKIPS	8	/* windows that did not fit, before giving up */

int
detail_parse_size(const char *text, uint64_t *bytes)
{
	uint64_t v = 0;
	unsigned shift = 0;
	const char *p = text;

	if (*p < '0' || *p > '9')
		return (-1);
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > DETAIL_MAX)
			return (-1);
	}
	if (*p == 'K' || *p == 'k')
		shift = 10;
	else if (*p == 'M' || *p == 'm')
		shift = 20;
	else if (*p == 'G' || *p == 'g')
		shift = 30;
	if (shift > 0)
		p++;
	if (*p != '\0' || v > (DETAIL_MAX >> shift))
		return (-1);
	*bytes = v << shift;
	return (0);
}

/* ---- level 0: the coalescer's rectangles ---- */

/* Calls fn(ctx, offset, duration, count) for each rectangle drawn. */
typedef void (*level0_fn)(void *ctx, uint64_t off, uint64_t duration,
    uint64_t count);

/* A value entity's rectangles, offsets from begin (as level0_each). */
static void
value_rects_each(const valuerects *v, uint32_t e, int64_t begin,
    level0_fn fn, void *ctx)
{
	uint32_t r;

	for (r = valuerects_first(v, e); r != VALUERECTS_NONE;
	    r = valuerects_next(v, r)) {
		valuerects_rect x;

		valuerects_get(v, r, &x);
		if (x.duration == 0)
			continue;
		fn(ctx, (uint64_t)((int64_t)x.start - begin), x.duration,
		    x.count);
	}
}

static void
level0_each(const smap *m, uint32_t k, level0_fn fn, void *ctx)
{
	uint32_t r;

	/* A value entity's strip is its value rectangles (kindjson.h). */
	if (m->values != NULL && valuerects_seen(m->values, m->order[k])) {
		value_rects_each(m->values, m->order[k], m->begin, fn, ctx);
		return;
	}
	if (m->co == NULL)
		return;
	for (r = coalesce_first(m->co, m->order[k]); r != COALESCE_NONE;
	    r = coalesce_next(m->co, r)) {
		coalesce_rect rect;

		coalesce_get(m->co, r, &rect);
		if (rect.duration == 0 || rect.nstates == 0)
			continue;	/* (no data: not written) */
		fn(ctx, (uint64_t)((int64_t)rect.start - m->begin),
		    rect.duration, rect.count);
	}
}

static void
merged_rect(void *ctx, uint64_t off, uint64_t duration, uint64_t count)
{
	int *merged = ctx;

	(void)off;
	(void)duration;
	if (count > 1)
		*merged = 1;
}

int
detail_merged(const smap *maps, size_t n)
{
	int merged = 0;
	size_t i;
	uint32_t k;

	for (i = 0; i < n && !merged; i++)
		for (k = 0; k < maps[i].nentities && !merged; k++)
			level0_each(&maps[i], k, merged_rect, &merged);
	return (merged);
}

uint64_t
detail_bytes(uint64_t asked, uint64_t transitions)
{
	if (asked != DETAIL_AUTO)
		return (asked);
	return (transitions <= DETAIL_AUTO_MAX ? DETAIL_DEFAULT : 0);
}

/* Level 0's counts: 1 for an entity all exact, else one per rectangle. */
typedef struct counts_ctx {
	FILE *out;
	int first;
} counts_ctx;

static void
count_write(void *ctx, uint64_t off, uint64_t duration, uint64_t count)
{
	counts_ctx *c = ctx;
	char buf[2 + FIXED_UINT_MAX];
	size_t len = c->first ? 0 : 2;

	(void)off;
	(void)duration;
	/* One per rectangle: printf cost more than the rest. */
	memcpy(buf, ", ", 2);
	len += fixed_uint(count, buf + len);
	fwrite(buf, 1, len, c->out);
	c->first = 0;
}

static void
write_counts(FILE *out, const smap *maps, size_t n, const size_t *order)
{
	size_t i;
	uint32_t k;

	fputs("\"counts\": [", out);
	for (i = 0; i < n; i++) {
		const smap *m = &maps[order[i]];

		fputs(i > 0 ? ",\n [" : "\n [", out);
		for (k = 0; k < m->nentities; k++) {
			int merged = 0;

			if (k > 0)
				fputs(", ", out);
			level0_each(m, k, merged_rect, &merged);
			if (merged) {
				counts_ctx c = { out, 1 };

				fputc('[', out);
				level0_each(m, k, count_write, &c);
				fputc(']', out);
			} else {
				fputc('1', out);
			}
		}
		fputc(']', out);
	}
	fputs("]", out);
}

/* ---- candidate windows ---- */

typedef struct cand {
	double hidden;		/* transitions hidden in it, prorated */
	uint64_t k;
	unsigned level;
} cand;

typedef struct builder {
	const smap *maps;
	size_t n;
	const size_t *order;
	uint64_t span;
	unsigned width;
	uint64_t budget;	/* a window's */
	uint64_t level0;	/* level 0's */
	viewport_panel *panels;	/* display order */
	int64_t ref_begin;	/* the query's zero: the largest begin */
	uint32_t **tag_map;	/* a panel's store tag ids to level 0's */
	uint32_t *ntag_map;
	jsonout_names **names;
	cand *heap;
	size_t nheap, heap_cap;
	uint64_t *seen;		/* open addressing: key + 1, 0 empty */
	size_t seen_cap, nseen;
	coalesce_tag *tags;	/* scratch for remapped tags */
	size_t tags_cap;
	uint32_t *ids;		/* scratch for depth rows' states */
	uint64_t *times;
	size_t ids_cap, times_cap;
} builder;

/* The offsets [lo, hi) of window k at level d. */
static uint64_t
window_edge(uint64_t span, unsigned level, uint64_t k)
{
	return ((uint64_t)(((unsigned __int128)span * k) >> (level + 1)));
}

static void
window_bounds(const builder *b, unsigned level, uint64_t k, uint64_t *lo,
    uint64_t *hi)
{
	*lo = window_edge(b->span, level, k);
	*hi = window_edge(b->span, level, k + 2);
}

/* Windows at a level: k runs from 0 to 2^(level + 1) - 2. */
static uint64_t
window_count(unsigned level)
{
	return (((uint64_t)2 << level) - 1);
}

static int
cand_before(const cand *x, const cand *y)
{
	if (x->hidden != y->hidden)
		return (x->hidden > y->hidden);
	if (x->level != y->level)
		return (x->level < y->level);
	return (x->k < y->k);
}

static void
heap_push(builder *b, cand c)
{
	size_t i;

	grow_array(&b->heap, &b->heap_cap, b->nheap + 1, sizeof (cand));
	i = b->nheap++;
	while (i > 0 && cand_before(&c, &b->heap[(i - 1) / 2])) {
		b->heap[i] = b->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	b->heap[i] = c;
}

static cand
heap_pop(builder *b)
{
	cand top = b->heap[0], last = b->heap[--b->nheap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= b->nheap)
			break;
		if (c + 1 < b->nheap && cand_before(&b->heap[c + 1], &b->heap[c]))
			c++;
		if (!cand_before(&b->heap[c], &last))
			break;
		b->heap[i] = b->heap[c];
		i = c;
	}
	if (b->nheap > 0)
		b->heap[i] = last;
	return (top);
}

/* Marks window (level, k) as a candidate; 0 if it already was one. */
static int
mark_seen(builder *b, unsigned level, uint64_t k)
{
	uint64_t key = ((uint64_t)level << 48 | k) + 1;
	size_t i;

	if (2 * (b->nseen + 1) > b->seen_cap) {
		size_t cap = b->seen_cap == 0 ? 64 : 2 * b->seen_cap, j;
		uint64_t *keys = xcalloc(cap, sizeof (uint64_t));

		for (j = 0; j < b->seen_cap; j++) {
			if (b->seen[j] == 0)
				continue;
			i = (size_t)(b->seen[j] * 0x9e3779b97f4a7c15u) & (cap - 1);
			while (keys[i] != 0)
				i = (i + 1) & (cap - 1);
			keys[i] = b->seen[j];
		}
		free(b->seen);
		b->seen = keys;
		b->seen_cap = cap;
	}
	i = (size_t)(key * 0x9e3779b97f4a7c15u) & (b->seen_cap - 1);
	while (b->seen[i] != 0) {
		if (b->seen[i] == key)
			return (0);
		i = (i + 1) & (b->seen_cap - 1);
	}
	b->seen[i] = key;
	b->nseen++;
	return (1);
}

/* Hidden transitions of a rectangle [off, off + duration) inside [lo, hi). */
static double
hidden_in(uint64_t off, uint64_t duration, uint64_t count, uint64_t lo,
    uint64_t hi)
{
	uint64_t a = off > lo ? off : lo;
	uint64_t z = off + duration < hi ? off + duration : hi;

	if (count < 2 || z <= a)
		return (0);
	return ((double)(count - 1) * (double)(z - a) / (double)duration);
}

/* The first level's candidates, from level 0's rectangles. */
typedef struct first_ctx {
	const builder *b;
	unsigned level;
	double *hidden;		/* per window */
} first_ctx;

static void
first_add(void *ctx, uint64_t off, uint64_t duration, uint64_t count)
{
	first_ctx *f = ctx;
	uint64_t last = window_count(f->level) - 1, k, from, to;
	unsigned __int128 h = (unsigned __int128)2 << f->level;

	if (count < 2 || f->b->span == 0)
		return;
	from = (uint64_t)(off * h / f->b->span);
	to = (uint64_t)((off + duration) * h / f->b->span);
	from = from >= 2 ? from - 2 : 0;
	if (to > last)
		to = last;
	for (k = from; k <= to; k++) {
		uint64_t lo, hi;

		window_bounds(f->b, f->level, k, &lo, &hi);
		f->hidden[k] += hidden_in(off, duration, count, lo, hi);
	}
}

static void
first_candidates(builder *b, unsigned level)
{
	first_ctx f;
	uint64_t k, n = window_count(level);
	size_t i;
	uint32_t e;

	f.b = b;
	f.level = level;
	f.hidden = xcalloc(n, sizeof (double));
	for (i = 0; i < b->n; i++) {
		const smap *m = &b->maps[b->order[i]];

		for (e = 0; e < m->nentities; e++)
			level0_each(m, e, first_add, &f);
	}
	for (k = 0; k < n; k++) {
		cand c = { f.hidden[k], k, level };

		mark_seen(b, level, k);
		if (c.hidden > 0)
			heap_push(b, c);
	}
	free(f.hidden);
}

/* The next level's three windows inside a window, from its rectangles. */
typedef struct child_ctx {
	int64_t begin;		/* the panel's own begin */
	uint64_t lo[3], hi[3];
	double hidden[3];
} child_ctx;

static void
child_add_span(void *ctx, uint64_t off, uint64_t duration, uint64_t count)
{
	child_ctx *c = ctx;
	int i;

	for (i = 0; i < 3; i++)
		c->hidden[i] += hidden_in(off, duration, count, c->lo[i],
		    c->hi[i]);
}

static void
child_add(void *ctx, const jsonout_rect *r)
{
	child_ctx *c = ctx;

	child_add_span(ctx, (uint64_t)((int64_t)r->start - c->begin),
	    r->duration, r->count);
}

static void
child_candidates(builder *b, const viewport *v, unsigned level, uint64_t k)
{
	child_ctx c;
	size_t i;
	uint32_t e;
	int j;

	memset(&c, 0, sizeof (c));
	for (j = 0; j < 3; j++)
		window_bounds(b, level + 1, 2 * k + (uint64_t)j, &c.lo[j],
		    &c.hi[j]);
	for (i = 0; i < b->n; i++) {
		const valuerects *vr = viewport_values(v, i);

		c.begin = b->maps[b->order[i]].begin;
		for (e = 0; e < viewport_panel_entities(v, i); e++) {
			uint32_t id = viewport_entity_id(v, i, e);

			if (vr != NULL && valuerects_seen(vr, id))
				value_rects_each(vr, id, c.begin,
				    child_add_span, &c);
			else
				viewport_entity_rects(v, i, e, child_add, &c);
		}
	}
	for (j = 0; j < 3; j++) {
		cand x = { c.hidden[j], 2 * k + (uint64_t)j, level + 1 };

		if (mark_seen(b, x.level, x.k) && x.hidden > 0)
			heap_push(b, x);
	}
}

/* ---- writing a window ---- */

typedef struct write_ctx {
	builder *b;
	FILE *out;
	const jsonout_names *names;
	const uint32_t *tag_map;
	uint32_t ntag_map;
	int first;
	uint64_t transitions;	/* of the strips' rectangles (their n) */
	uint64_t rects;		/* the strips' (not depth rows') */
} write_ctx;

static int
compare_tag(const void *pa, const void *pb)
{
	const coalesce_tag *a = pa, *b = pb;

	return (a->tag < b->tag ? -1 : a->tag > b->tag);
}

static void
write_rect(void *ctx, const jsonout_rect *r)
{
	write_ctx *w = ctx;
	jsonout_rect x = *r;
	size_t i, n = 0;

	if (r->ntags > 0) {
		grow_array(&w->b->tags, &w->b->tags_cap, r->ntags,
		    sizeof (coalesce_tag));
		for (i = 0; i < r->ntags; i++) {
			uint32_t id = r->tags[i].tag < w->ntag_map ?
			    w->tag_map[r->tags[i].tag] : CATALOG_NO_TAG;

			if (id == CATALOG_NO_TAG)
				continue;
			w->b->tags[n].tag = id;
			w->b->tags[n++].time = r->tags[i].time;
		}
		qsort(w->b->tags, n, sizeof (coalesce_tag), compare_tag);
		x.tags = n > 0 ? w->b->tags : NULL;
		x.ntags = n;
	}
	jsonout_rect_write(w->out, w->names, &x, w->first);
	w->first = 0;
}

/* A strip's rectangle: written, and counted in the window's figures. */
static void
write_strip_rect(void *ctx, const jsonout_rect *r)
{
	write_ctx *w = ctx;

	write_rect(ctx, r);
	w->transitions += r->count;
	w->rects++;
}

/*
 * A nested entity's depth rows in a window, as the live server's
 * ("depths": one list of rectangles per depth, bottom first), their
 * tags those of level 0 like the top's.
 */
static void
write_depths(write_ctx *w, const depthrows *dr, uint32_t e, uint32_t nstates)
{
	builder *b = w->b;
	uint32_t d, n = depthrows_ndepths(dr, e);

	/* The builder's, made once: not a scratch per entity and window. */
	grow_array(&b->ids, &b->ids_cap, (size_t)nstates + 2,
	    sizeof (uint32_t));
	grow_array(&b->times, &b->times_cap, (size_t)nstates + 2,
	    sizeof (uint64_t));
	fputs(", \"kind\": \"nested\", \"depths\": [", w->out);
	for (d = 1; d <= n; d++) {
		fputs(d > 1 ? ", [" : "[", w->out);
		w->first = 1;
		jsonout_row_each(depthrows_coalescer(dr), depthrows_row(dr, e, d),
		    nstates, b->ids, b->times, 1, write_rect, w);
		fputc(']', w->out);
	}
	fputc(']', w->out);
}

/* Window (level, k) as JSON text (malloc'd), its length in *len. */
static char *
write_window(builder *b, const viewport *v, unsigned level, uint64_t k,
    size_t *len)
{
	uint64_t lo, hi;
	char *text = NULL;
	write_ctx w;
	size_t i;
	uint32_t e;

	window_bounds(b, level, k, &lo, &hi);
	memset(&w, 0, sizeof (w));
	w.b = b;
	if ((w.out = open_memstream(&text, len)) == NULL)
		out_of_memory(0);
	fprintf(w.out, "{\"from\": %" PRIu64 ", \"to\": %" PRIu64
	    ", \"level\": %u, \"statemaps\": [", lo, hi, level);
	for (i = 0; i < b->n; i++) {
		const catalog *cat = b->panels[i].t->cat;
		const valuerects *vr = viewport_values(v, i);
		const depthrows *dr = viewport_depths(v, i);

		fputs(i > 0 ? ",\n  {\"entities\": [" : "\n  {\"entities\": [",
		    w.out);
		w.names = b->names[i];
		w.tag_map = b->tag_map[i];
		w.ntag_map = b->ntag_map[i];
		for (e = 0; e < viewport_panel_entities(v, i); e++) {
			uint32_t id = viewport_entity_id(v, i, e);

			fputs(e > 0 ? ",\n   {" : "\n   {", w.out);
			if (vr != NULL && valuerects_seen(vr, id)) {
				fputs("\"kind\": \"values\", \"rects\": [", w.out);
				w.transitions += kindjson_value_rects(w.out, cat,
				    vr, id, 1, &w.rects);
				fputs("]}", w.out);
				continue;
			}
			fputs("\"rects\": [", w.out);
			w.first = 1;
			viewport_entity_rects(v, i, e, write_strip_rect, &w);
			fputc(']', w.out);
			if (dr != NULL && depthrows_ndepths(dr, id) > 0)
				write_depths(&w, dr, id, cat->nstates);
			fputc('}', w.out);
		}
		fputs("]}", w.out);
	}
	fprintf(w.out, "],\n \"transitions\": %" PRIu64 ", \"rects\": %"
	    PRIu64 "}", w.transitions, w.rects);
	if (fclose(w.out) != 0)
		out_of_memory(*len);
	return (text);
}

/* ---- the panels: level 0's entities and tags in the stores ---- */

static int
make_panels(builder *b, const trace *const *traces)
{
	size_t i;
	uint32_t k;

	b->panels = xcalloc(b->n, sizeof (viewport_panel));
	b->tag_map = xcalloc(b->n, sizeof (uint32_t *));
	b->ntag_map = xcalloc(b->n, sizeof (uint32_t));
	b->names = xcalloc(b->n, sizeof (jsonout_names *));
	b->ref_begin = b->maps[0].begin;
	for (i = 0; i < b->n; i++)
		if (b->maps[i].begin > b->ref_begin)
			b->ref_begin = b->maps[i].begin;
	for (i = 0; i < b->n; i++) {
		const smap *m = &b->maps[b->order[i]];
		const trace *t = traces[b->order[i]];
		viewport_panel *p = &b->panels[i];
		uint32_t *ids, ntags, tag;

		if (t == NULL)
			return (-1);
		ids = xcalloc((size_t)m->nentities + 1, sizeof (uint32_t));
		p->order = ids;
		for (k = 0; k < m->nentities; k++) {
			size_t len;
			const char *name = catalog_entity_name(m->cat,
			    m->order[k], &len);

			ids[k] = intern_find(t->cat->entities, name, len);
			if (ids[k] == INTERN_NONE)
				return (-1);
		}
		p->t = t;
		p->n = m->nentities;
		p->offset = b->ref_begin - m->begin;
		ntags = catalog_ntags(t->cat);
		b->ntag_map[i] = ntags;
		b->tag_map[i] = xcalloc((size_t)ntags + 1, sizeof (uint32_t));
		for (tag = 0; tag < ntags; tag++) {
			const catalog_tag *ct = &t->cat->tags[tag];
			size_t len;
			const char *name = intern_name(t->cat->tag_names,
			    ct->name, &len);

			b->tag_map[i][tag] = catalog_find_tag(m->cat, ct->state,
			    name, len);
		}
		b->names[i] = jsonout_names_new(t->cat, 1);
	}
	return (0);
}

static void
free_builder(builder *b)
{
	size_t i;

	for (i = 0; b->panels != NULL && i < b->n; i++) {
		free((void *)b->panels[i].order);
		free(b->tag_map[i]);
		jsonout_names_free(b->names[i]);
	}
	free(b->panels);
	free(b->tag_map);
	free(b->ntag_map);
	free(b->names);
	free(b->heap);
	free(b->seen);
	free(b->tags);
	free(b->ids);
	free(b->times);
}

/*
 * The windows, greedily within bytes: appended to out as the members of
 * a JSON array.
 */
static void
choose_windows(builder *b, FILE *out, uint64_t bytes)
{
	unsigned first = 1;
	uint64_t used = 0;
	int skips = 0, any = 0;

	/* Windows twice as dense as level 0, at least. */
	while (first < MAX_LEVEL && (b->budget << first) < 2 * b->level0)
		first++;
	if ((b->span >> first) < 2)
		return;
	first_candidates(b, first);
	while (b->nheap > 0 && skips < MAX_SKIPS) {
		cand c = heap_pop(b);
		viewport_query q;
		viewport *v;
		uint64_t lo, hi;
		char *text;
		size_t len;

		window_bounds(b, c.level, c.k, &lo, &hi);
		if (hi - lo < 2)
			continue;
		q.begin = (uint64_t)b->ref_begin + lo;
		q.end = (uint64_t)b->ref_begin + hi;
		q.width = b->width;
		q.budget = b->budget;
		q.entities = NULL;
		v = viewport_compute(b->panels, b->n, &q);
		text = write_window(b, v, c.level, c.k, &len);
		if (used + len + 2 > bytes) {
			skips++;
		} else {
			fputs(any ? ",\n" : "\n", out);
			fwrite(text, 1, len, out);
			used += len + 2;
			any = 1;
			if (c.level < MAX_LEVEL)
				child_candidates(b, v, c.level, c.k);
		}
		free(text);
		viewport_free(v);
	}
}

char *
detail_json(const smap *maps, size_t n, const size_t *order,
    const trace *const *traces, unsigned width, uint64_t budget,
    uint64_t bytes, size_t *len)
{
	builder b;
	char *text = NULL, *head = NULL;
	size_t head_len = 0, i;
	uint64_t rows = 0;
	FILE *out;

	if (n == 0 || !detail_merged(maps, n))
		return (NULL);
	memset(&b, 0, sizeof (b));
	b.maps = maps;
	b.n = n;
	b.order = order;
	b.span = svg_span(&maps[0]);
	b.width = width > 0 ? width : 1;
	b.level0 = budget > 0 ? budget : 1;
	/* An eighth of level 0's, but two a row at least (at most all). */
	b.budget = b.level0 / SHARE;
	for (i = 0; i < n; i++)
		rows += maps[i].nentities;
	if (b.budget < 2 * rows)
		b.budget = 2 * rows;
	if (b.budget > b.level0)
		b.budget = b.level0;
	if (b.budget == 0)
		b.budget = 1;
	if ((out = open_memstream(&head, &head_len)) == NULL)
		out_of_memory(0);
	fprintf(out, "{\"version\": 1, \"span\": %" PRIu64 ", \"width\": %u, "
	    "\"coalesce\": %" PRIu64 ",\n", b.span, b.width, b.budget);
	write_counts(out, maps, n, order);
	fputs(",\n\"windows\": [", out);
	if (fflush(out) != 0)
		out_of_memory(head_len);
	if (traces != NULL && bytes > head_len + 4 &&
	    make_panels(&b, traces) == 0)
		choose_windows(&b, out, bytes - head_len - 4);
	fputs("]}\n", out);
	if (fclose(out) != 0)
		out_of_memory(head_len);
	free_builder(&b);
	text = head;
	*len = head_len;
	return (text);
}
