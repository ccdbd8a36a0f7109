#include "store/tree.h"

#include <stdlib.h>
#include <string.h>

#include "base/natural.h"
#include "base/path_escape.h"
#include "base/utf8.h"
#include "base/util.h"
#include "base/work.h"

/*
 * Nodes are numbered: the root 0, and every path (a whole name or a
 * prefix of one ending before a separator: a '/' not escaped,
 * path_escape.h) its id in paths plus one.  The
 * children of node n are child[first[n]] to child[first[n + 1] - 1].
 */
struct tree {
	intern *paths;
	uint32_t nnodes;	/* the root included */
	uint32_t nentities;
	uint32_t *entity;	/* per node */
	uint32_t *parent;	/* per node (the root's is TREE_NONE) */
	uint32_t *first;	/* nnodes + 1 */
	uint32_t *child;
};

/* The node of the prefix of len bytes, adding it if new. */
static uint32_t
node_of(tree *t, const char *path, size_t len, uint32_t parent)
{
	int added;
	uint32_t node = intern_add(t->paths, path, len, &added) + 1;

	if (added) {
		size_t cap = t->nnodes;

		/* Arrays grow by doubling: nnodes is a power of two then. */
		if ((t->nnodes & (t->nnodes - 1)) == 0) {
			cap = t->nnodes * 2;
			t->entity = xrealloc(t->entity, cap * sizeof (uint32_t));
			t->parent = xrealloc(t->parent, cap * sizeof (uint32_t));
		}
		t->entity[node] = TREE_NONE;
		t->parent[node] = parent;
		t->nnodes++;
	}
	return (node);
}

typedef struct sort_item {
	const char *last;	/* the last component */
	size_t len;
	uint32_t node;
} sort_item;

static int
compare_items(const void *pa, const void *pb)
{
	const sort_item *a = pa, *b = pb;
	size_t n = a->len < b->len ? a->len : b->len;
	int r = natural_compare(a->last, a->len, b->last, b->len);

	/* Natural order may call two names equal ("a 1", "a1"): bytes. */
	if (r == 0 && (r = memcmp(a->last, b->last, n)) == 0)
		r = a->len < b->len ? -1 : a->len > b->len;
	return (r != 0 ? r : (a->node < b->node ? -1 : 1));
}

tree *
tree_build(const intern *entities)
{
	tree *t = xcalloc(1, sizeof (*t));
	uint32_t e, n, i, *fill;
	sort_item *items;

	t->paths = intern_new();
	t->nentities = intern_count(entities);
	t->nnodes = 1;
	t->entity = xmalloc(sizeof (uint32_t));
	t->parent = xmalloc(sizeof (uint32_t));
	t->entity[TREE_ROOT] = TREE_NONE;
	t->parent[TREE_ROOT] = TREE_NONE;
	for (e = 0; e < t->nentities; e++) {
		size_t len, k;
		const char *name = intern_name(entities, e, &len);
		uint32_t parent = TREE_ROOT, node;

		for (k = path_next_separator(name, len, 0); k < len;
		    k = path_next_separator(name, len, k + 1))
			parent = node_of(t, name, k, parent);
		/* Apart: node_of may move t->entity. */
		node = node_of(t, name, len, parent);
		t->entity[node] = e;
	}
	/* The children of each node, in one array, by counting. */
	n = t->nnodes;
	t->first = xcalloc((size_t)n + 1, sizeof (uint32_t));
	t->child = xmalloc((size_t)n * sizeof (uint32_t));
	for (i = 1; i < n; i++)
		t->first[t->parent[i] + 1]++;
	for (i = 0; i < n; i++)
		t->first[i + 1] += t->first[i];
	fill = xcalloc(n, sizeof (uint32_t));
	for (i = 1; i < n; i++) {
		uint32_t p = t->parent[i];

		t->child[t->first[p] + fill[p]++] = i;
	}
	free(fill);
	items = xmalloc((size_t)n * sizeof (sort_item));
	for (i = 0; i < n; i++) {
		uint32_t a = t->first[i], b = t->first[i + 1], k;

		if (b - a < 2)
			continue;
		for (k = a; k < b; k++) {
			size_t len, plen = 0;
			const char *path = tree_path(t, t->child[k], &len);

			if (i != TREE_ROOT) {
				tree_path(t, i, &plen);
				plen++;		/* and the '/' */
			}
			items[k - a].last = path + plen;
			items[k - a].len = len - plen;
			items[k - a].node = t->child[k];
		}
		qsort(items, b - a, sizeof (sort_item), compare_items);
		for (k = a; k < b; k++)
			t->child[k] = items[k - a].node;
	}
	free(items);
	return (t);
}

void
tree_free(tree *t)
{
	if (t == NULL)
		return;
	intern_free(t->paths);
	free(t->entity);
	free(t->parent);
	free(t->first);
	free(t->child);
	free(t);
}

uint32_t
tree_nentities(const tree *t)
{
	return (t->nentities);
}

uint32_t
tree_find(const tree *t, const char *path, size_t len)
{
	uint32_t id = intern_find(t->paths, path, len);

	return (id == INTERN_NONE ? TREE_NONE : id + 1);
}

uint32_t
tree_nchildren(const tree *t, uint32_t node)
{
	return (t->first[node + 1] - t->first[node]);
}

const uint32_t *
tree_children(const tree *t, uint32_t node)
{
	return (t->child + t->first[node]);
}

const char *
tree_path(const tree *t, uint32_t node, size_t *len)
{
	if (node == TREE_ROOT) {
		*len = 0;
		return (NULL);
	}
	return (intern_name(t->paths, node - 1, len));
}

uint32_t
tree_entity(const tree *t, uint32_t node)
{
	return (t->entity[node]);
}

/* ---- patterns ---- */

/* Steps of a match counted locally before they are added to work.h's. */
#define WORK_BATCH	4096

/* One character of s (a whole UTF-8 character if it is one). */
static size_t
char_len(const char *s, size_t n)
{
	int k = utf8_char((const unsigned char *)s, n);

	return (k > 0 ? (size_t)k : 1);
}

/*
 * Whether the set at p ("[...]", plen bytes from its '[') holds the
 * character c (clen bytes); *used gets the set's length, 0 if the '['
 * opens no set (then it is a literal '[').  Ranges compare bytes, so
 * they are meant for ASCII.
 */
static int
set_match(const char *p, size_t plen, const char *c, size_t clen,
    size_t *used)
{
	size_t i = 1;
	int negate = 0, found = 0;

	if (i < plen && (p[i] == '!' || p[i] == '^')) {
		negate = 1;
		i++;
	}
	/* A ']' first is a member, not the end. */
	for (; i < plen && (p[i] != ']' || i == 1 + (size_t)negate); ) {
		size_t k = char_len(p + i, plen - i);

		if (i + k + 1 < plen && p[i + k] == '-' && p[i + k + 1] != ']') {
			size_t k2 = char_len(p + i + k + 1, plen - i - k - 1);

			if (clen == 1 && k == 1 && k2 == 1 &&
			    (unsigned char)*c >= (unsigned char)p[i] &&
			    (unsigned char)*c <= (unsigned char)p[i + 2])
				found = 1;
			i += k + 1 + k2;
			continue;
		}
		if (k == clen && memcmp(p + i, c, k) == 0)
			found = 1;
		i += k;
	}
	if (i >= plen) {
		*used = 0;
		return (0);
	}
	*used = i + 1;
	return (found != negate);
}

/* 1 if a name's escape starts at i (its character is the next), else 0. */
static size_t
name_escape(const char *s, size_t len, size_t i)
{
	char c;

	return (path_char(s, len, i, &c) - 1);
}

/*
 * Whether one component matches one pattern component: '*' backtracks
 * to its last position only, which is enough (a later '*' can take over
 * anything an earlier one would have taken), so the steps (added to
 * *steps) are at most the pattern component's characters times the name
 * component's.
 */
static int
component_match(const char *p, size_t plen, const char *s, size_t slen,
    uint64_t *steps)
{
	size_t pi = 0, si = 0, star_p = SIZE_MAX, star_s = 0;

	++*steps;
	while (si < slen) {
		++*steps;
		if (pi < plen && p[pi] == '*') {
			star_p = ++pi;
			star_s = si;
			continue;
		}
		if (pi < plen) {
			/* A name's escape is the character it stands for. */
			size_t skip = name_escape(s, slen, si);
			size_t clen = skip + char_len(s + si + skip,
			    slen - si - skip), used = 0;
			const char *sc = s + si + skip;
			int ok = 0;

			if (p[pi] == '?') {
				ok = 1;
				used = 1;
			} else if (p[pi] == '[') {
				ok = set_match(p + pi, plen - pi, sc,
				    clen - skip, &used);
				if (used == 0) {	/* a plain '[' */
					used = 1;
					ok = *sc == '[';
				}
			} else {
				size_t at = pi;

				if (p[at] == '\\' && at + 1 < plen)
					at++;
				used = char_len(p + at, plen - at);
				ok = used == clen - skip &&
				    memcmp(p + at, sc, used) == 0;
				used += at - pi;
			}
			if (ok) {
				pi += used;
				si += clen;
				continue;
			}
		}
		if (star_p == SIZE_MAX)
			break;
		pi = star_p;
		star_s += name_escape(s, slen, star_s);
		star_s += char_len(s + star_s, slen - star_s);
		si = star_s;
	}
	if (si < slen)
		return (0);
	while (pi < plen && p[pi] == '*')
		pi++;
	return (pi == plen);
}

/*
 * The end of the component that starts at i (a '/' or the end): in a
 * pattern '\\' takes any next character, in a name only '/' and '\\'
 * (path_escape.h).
 */
static size_t
component_end(const char *s, size_t len, size_t i, int pattern)
{
	if (!pattern)
		return (path_next_separator(s, len, i));
	while (i < len && s[i] != '/') {
		if (s[i] == '\\' && i + 1 < len)
			i++;
		i++;
	}
	return (i);
}

static int
is_globstar(const char *p, size_t i, size_t end)
{
	return (end - i == 2 && p[i] == '*' && p[i + 1] == '*');
}

/*
 * Matches the pattern against the name, component by component.  Each
 * non-final "**" is tried at the name's components from where it starts,
 * fewest first, and a mismatch after it goes back to the last "**" seen
 * only, to take one component more: as '*' within a component, a later
 * "**" can take over anything an earlier one would have (what lies
 * between them matched at its first place, leaving the most room), so
 * the work is at most the pattern's components times the name's
 * component matches, never the exponential of trying every "**" at every
 * place.  Positions past the last component are the length plus one:
 * a pattern or a name ending in '/' ends with an empty component.
 */
static int
path_match(const char *p, size_t plen, const char *s, size_t slen,
    uint64_t *steps)
{
	size_t pi = 0, si = 0, pe, se, star_p = SIZE_MAX, star_s = 0;

	for (;;) {
		/* Counted a few thousand at a time: the count is shared. */
		if (*steps >= WORK_BATCH) {
			work_steps(*steps);
			*steps = 0;
		}
		if (pi > plen) {	/* the whole pattern matched */
			if (si > slen)
				return (1);
			goto back;
		}
		pe = component_end(p, plen, pi, 1);
		if (is_globstar(p, pi, pe)) {
			/* Several in a row are one. */
			while (pe < plen && is_globstar(p, pe + 1,
			    component_end(p, plen, pe + 1, 1)))
				pe = component_end(p, plen, pe + 1, 1);
			if (pe >= plen) {	/* last: one or more */
				if (si <= slen)
					return (1);
				goto back;
			}
			/* Zero components first, then one more each time. */
			star_p = pi = pe + 1;
			star_s = si;
			continue;
		}
		if (si <= slen) {
			se = component_end(s, slen, si, 0);
			*steps += se - si;
			if (component_match(p + pi, pe - pi, s + si, se - si,
			    steps)) {
				pi = pe + 1;
				si = se + 1;
				continue;
			}
		}
back:
		/* The last "**" takes one more component, if there is one. */
		if (star_p == SIZE_MAX || star_s > slen)
			return (0);
		star_s = component_end(s, slen, star_s, 0) + 1;
		pi = star_p;
		si = star_s;
	}
}

int
tree_glob_match(const char *pattern, size_t plen, const char *name,
    size_t nlen)
{
	uint64_t steps = 0;
	int matched = path_match(pattern, plen, name, nlen, &steps);

	work_steps(steps);
	return (matched);
}

/* ---- patterns with parent steps ---- */

static int
is_parent_step(const char *p, size_t i, size_t end)
{
	return (end - i == 2 && p[i] == '.' && p[i + 1] == '.');
}

int
tree_pattern_has_parent(const char *pattern, size_t plen)
{
	size_t i = 0, end;

	for (;;) {
		end = component_end(pattern, plen, i, 1);
		if (is_parent_step(pattern, i, end))
			return (1);
		if (end >= plen)
			return (0);
		i = end + 1;
	}
}

/*
 * next = the nodes below a node of cur whose path under it matches the
 * glob g (glen bytes): each node tried against each of its ancestors.
 */
static void
select_below(const tree *t, const uint8_t *cur, uint8_t *next,
    const char *g, size_t glen)
{
	uint32_t m, a;
	uint64_t steps = 0;

	memset(next, 0, t->nnodes);
	for (m = 1; m < t->nnodes; m++) {
		size_t mlen, alen;
		const char *mp = tree_path(t, m, &mlen);

		for (a = t->parent[m]; a != TREE_NONE; a = t->parent[a]) {
			steps++;
			if (!cur[a])
				continue;
			(void) tree_path(t, a, &alen);
			if (a != TREE_ROOT)
				alen++;		/* and its '/' */
			if (path_match(g, glen, mp + alen, mlen - alen,
			    &steps)) {
				next[m] = 1;
				break;
			}
		}
	}
	work_steps(steps);
}

/* cur = the parents of the nodes of cur (the top's have none); next scratch. */
static void
select_parents(const tree *t, uint8_t *cur, uint8_t *next)
{
	uint32_t n;

	memset(next, 0, t->nnodes);
	for (n = 1; n < t->nnodes; n++)
		if (cur[n] && t->parent[n] != TREE_ROOT)
			next[t->parent[n]] = 1;
	memcpy(cur, next, t->nnodes);
}

int
tree_select(const tree *t, const char *pattern, size_t plen,
    uint8_t *marks, const char **why)
{
	uint8_t *base = xcalloc(t->nnodes, 2);
	uint8_t *cur = base, *next = base + t->nnodes, *tmp;
	size_t i = 0, seg = 0, end;
	uint32_t n;

	cur[TREE_ROOT] = 1;
	for (;;) {
		end = component_end(pattern, plen, i, 1);
		if (is_parent_step(pattern, i, end)) {
			if (i == 0) {
				free(base);
				*why = "a pattern cannot start with \"..\": "
				    "the top has no parent";
				return (-1);
			}
			/* The components since the last step, as one glob. */
			if (i > seg) {
				select_below(t, cur, next, pattern + seg,
				    i - 1 - seg);
				tmp = cur;
				cur = next;
				next = tmp;
			}
			select_parents(t, cur, next);
			seg = end + 1;
		}
		if (end >= plen)
			break;
		i = end + 1;
	}
	if (seg < plen) {
		select_below(t, cur, next, pattern + seg, plen - seg);
		cur = next;
	}
	memset(marks, 0, t->nentities);
	for (n = 1; n < t->nnodes; n++)
		if (cur[n] && t->entity[n] != TREE_NONE)
			marks[t->entity[n]] = 1;
	free(base);
	return (0);
}

/* The child of node whose last component is c (clen bytes), or TREE_NONE. */
static uint32_t
child_named(const tree *t, uint32_t node, const char *c, size_t clen)
{
	size_t plen, klen, skip;
	const uint32_t *kids = tree_children(t, node);
	uint32_t i, n = tree_nchildren(t, node);

	(void) tree_path(t, node, &plen);
	skip = node == TREE_ROOT ? 0 : plen + 1;
	for (i = 0; i < n; i++) {
		const char *k = tree_path(t, kids[i], &klen);

		if (klen == skip + clen && memcmp(k + skip, c, clen) == 0)
			return (kids[i]);
	}
	return (TREE_NONE);
}

uint32_t
tree_resolve(const tree *t, const char *path, size_t len)
{
	uint32_t node = tree_find(t, path, len);
	size_t i = 0, end;

	if (node != TREE_NONE)
		return (node);
	node = TREE_ROOT;
	for (;;) {
		end = component_end(path, len, i, 0);
		if (is_parent_step(path, i, end)) {
			if (node == TREE_ROOT)
				return (TREE_NONE);
			node = t->parent[node];
		} else if ((node = child_named(t, node, path + i, end - i)) ==
		    TREE_NONE) {
			return (TREE_NONE);
		}
		if (end >= len)
			return (node);
		i = end + 1;
	}
}
