#include "render/layout.h"

#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "base/path_escape.h"
#include "base/util.h"

/*
 * The next separator of a name past i (path_escape.h: a '/' not
 * escaped), or len; a '/' first starts no level ("/x/y" groups under
 * "/x"), so the first looked for (i == 0) is past it.
 */
static size_t
next_level(const char *name, size_t len, size_t i)
{
	if (i == 0 && len > 0 && name[0] == '/')
		i = 1;
	return (path_next_separator(name, len, i));
}

/*
 * The length of the path that groups a name (render.h): up to its last
 * separator, or with levels > 0 up to its levels-th if that comes
 * before; 0 for none.
 */
static size_t
path_prefix(const char *name, size_t len, int levels)
{
	size_t i, end = path_last_separator(name, len);
	int seen = 0;

	if (end == len)
		return (0);
	for (i = next_level(name, len, 0); levels > 0 && i < end;
	    i = path_next_separator(name, len, i + 1))
		if (++seen == levels)
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
		/* Each level of the path: a separator past the start, then
		 * plen. */
		for (i = plen > 0 ? next_level(name, plen, 0) : 1;
		    plen > 0 && i <= plen;
		    i = i < plen ? path_next_separator(name, plen, i + 1) :
		    plen + 1) {
			uint32_t id;
			int added;

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
void
layout_rows(panel_rows *r, const render_panel *p, unsigned rh)
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

void
layout_rows_free(panel_rows *r)
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

unsigned
layout_row_height(const render_options *o, const render_panel *p)
{
	return (p->row_height != 0 ? p->row_height : o->row_height);
}
