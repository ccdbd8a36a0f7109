/*
 * Unit tests for the attribute tree's glob patterns (tree.h): the
 * matcher against a reference written the plain way (every "**" tried at
 * every place, recursively: exponential, so only on small inputs) on
 * random patterns and names, and its steps (work.h) in proportion to the
 * pattern times the name however many "**" a pattern has; patterns with
 * ".." parent steps (tree_select) and paths with them (tree_resolve)
 * against a reference over the paths as strings, on random trees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "base/work.h"
#include "store/tree.h"
#include "unit.h"

static uint64_t rng_state = 7;

static uint64_t
rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

/* ---- the reference ---- */

static size_t
ref_end(const char *s, size_t len, size_t i, int pattern)
{
	while (i < len && s[i] != '/') {
		if (pattern && s[i] == '\\' && i + 1 < len)
			i++;
		i++;
	}
	return (i);
}

static int
ref_globstar(const char *p, size_t i, size_t end)
{
	return (end - i == 2 && p[i] == '*' && p[i + 1] == '*');
}

/*
 * One component against one: the matcher itself on a pattern of one
 * component that is not "**" and a name of one component, which is
 * exactly its component match.  What is checked here is the path level.
 */
static int
ref_component(const char *p, size_t plen, const char *s, size_t slen)
{
	return (tree_glob_match(p, plen, s, slen));
}

/*
 * The pattern from pi against the name from si; at_end_p and at_end_s:
 * past the last component.  A non-final "**" tries zero components,
 * then one more, and so on, each with the whole rest of the pattern.
 */
static int
ref_match(const char *p, size_t plen, size_t pi, const char *s, size_t slen,
    size_t si, int at_end_p, int at_end_s)
{
	size_t pe, se;

	if (at_end_p)
		return (at_end_s);
	pe = ref_end(p, plen, pi, 1);
	if (ref_globstar(p, pi, pe)) {
		while (pe < plen && ref_globstar(p, pe + 1,
		    ref_end(p, plen, pe + 1, 1)))
			pe = ref_end(p, plen, pe + 1, 1);
		if (pe >= plen)
			return (!at_end_s);
		for (;;) {
			if (ref_match(p, plen, pe + 1, s, slen, si, 0,
			    at_end_s))
				return (1);
			if (at_end_s)
				return (0);
			se = ref_end(s, slen, si, 0);
			if (se >= slen)
				at_end_s = 1;
			else
				si = se + 1;
		}
	}
	if (at_end_s)
		return (0);
	se = ref_end(s, slen, si, 0);
	if (!ref_component(p + pi, pe - pi, s + si, se - si))
		return (0);
	return (ref_match(p, plen, pe + 1, s, slen, se + 1, pe >= plen,
	    se >= slen));
}

/* ---- random inputs ---- */

static const char *const name_parts[] = { "", "a", "b", "ab", "ba", "aa",
    "a*" };
static const char *const pattern_parts[] = { "**", "**", "**", "**", "*",
    "*", "a", "b", "?", "a*", "*a", "", "[ab]", "[!a]", "\\*", "*b*", "ab",
    "a\\/b" };

#define NPARTS(a)	(sizeof (a) / sizeof ((a)[0]))

/* Up to max components from parts, joined by '/', into buf. */
static size_t
random_path(char *buf, const char *const *parts, size_t nparts, unsigned max)
{
	unsigned n = 1 + (unsigned)(rng() % max), i;
	size_t len = 0;

	for (i = 0; i < n; i++) {
		const char *part = parts[rng() % nparts];

		if (i > 0)
			buf[len++] = '/';
		memcpy(buf + len, part, strlen(part));
		len += strlen(part);
	}
	buf[len] = '\0';
	return (len);
}

static void
test_against_reference(void)
{
	char p[256], s[256], first[1024] = "";
	unsigned i, differ = 0, matched = 0;

	for (i = 0; i < 1000000; i++) {
		size_t plen = random_path(p, pattern_parts,
		    NPARTS(pattern_parts), 6);
		size_t slen = random_path(s, name_parts, NPARTS(name_parts),
		    6);
		int got = tree_glob_match(p, plen, s, slen);
		int want = ref_match(p, plen, 0, s, slen, 0, 0, 0);

		matched += want;
		if (got != want && differ++ == 0)
			snprintf(first, sizeof (first), "\"%s\" on \"%s\": %d, "
			    "the reference %d", p, s, got, want);
	}
	UNIT_REPORT(differ == 0, "glob: the matcher agrees with the reference "
	    "on 1000000 random patterns and names", "%u differ, first %s",
	    differ, first);
	/* Both answers are common, or the comparison says little. */
	UNIT_REPORT(matched > 50000 && matched < 950000,
	    "glob: the random cases both match and fail", "%u of 1000000 "
	    "match", matched);
}

/* ---- work in proportion ---- */

/*
 * The pattern "**" / "x" repeated k times, then "**" or tail, against a
 * name of n components "x": each "**" could start at any of n places, and
 * a matcher that tries each combination takes n^k steps.
 */
static void
test_globstars_work(void)
{
	char name[1024], pattern[256];
	size_t nlen = 0, plen;
	unsigned k, i;
	int ok = 1;
	uint64_t worst = 0;

	for (i = 0; i < 200; i++) {
		if (i > 0)
			name[nlen++] = '/';
		name[nlen++] = 'x';
	}
	for (k = 1; k <= 8; k++) {
		static const char *const tails[] = { "**", "x", "y", "x/y" };
		unsigned t;

		for (t = 0; t < 4; t++) {
			int got, want = t < 2;
			uint64_t steps;

			plen = 0;
			for (i = 0; i < k; i++)
				plen += (size_t)snprintf(pattern + plen,
				    sizeof (pattern) - plen, "**/x/");
			plen += (size_t)snprintf(pattern + plen,
			    sizeof (pattern) - plen, "%s", tails[t]);
			work_reset(0, 0, NULL);
			got = tree_glob_match(pattern, plen, name, nlen);
			steps = work_done();
			if (steps > worst)
				worst = steps;
			if (got != want || steps > 4 * plen * nlen) {
				ok = 0;
				UNIT_REPORT(0, "glob: many ** in proportion",
				    "\"%s\": %d in %llu steps", pattern, got,
				    (unsigned long long)steps);
			}
		}
	}
	UNIT_REPORT(ok, "glob: 1 to 8 ** against 200 components, matching "
	    "and not, in steps at most 4 times pattern times name",
	    "worst %llu", (unsigned long long)worst);
	work_reset(0, 0, NULL);
}

/* ---- parent steps ---- */

#define PS_NAMES	24
#define PS_NODES	128

/* Every node's path (prefixes of the names), the root as "" at 0. */
static size_t
ps_nodes(char names[][32], size_t n, char nodes[][32])
{
	size_t k = 1, i, j, m;

	nodes[0][0] = '\0';
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		for (j = 0; j <= len; j++) {
			if (j < len && names[i][j] != '/')
				continue;
			for (m = 1; m < k; m++)
				if (strlen(nodes[m]) == j &&
				    memcmp(nodes[m], names[i], j) == 0)
					break;
			if (m == k && k < PS_NODES) {
				memcpy(nodes[k], names[i], j);
				nodes[k++][j] = '\0';
			}
		}
	}
	return (k);
}

/* The parent's index of node i (0 for the top's; -1 for the root's). */
static int
ps_parent(char nodes[][32], size_t k, size_t i)
{
	const char *slash = strrchr(nodes[i], '/');
	size_t len, m;

	if (i == 0)
		return (-1);
	if (slash == NULL)
		return (0);
	len = (size_t)(slash - nodes[i]);
	for (m = 1; m < k; m++)
		if (strlen(nodes[m]) == len && memcmp(nodes[m], nodes[i],
		    len) == 0)
			return ((int)m);
	return (-1);
}

/*
 * The reference: the pattern split at its ".." components; each run of
 * other components matched below each node selected so far, each ".."
 * going to the parents (the root's none).
 */
static int
ps_reference(char nodes[][32], size_t k, const char *p, uint8_t *sel)
{
	uint8_t cur[PS_NODES] = { 1 }, next[PS_NODES];
	size_t plen = strlen(p), seg = 0, i = 0, end, a, b;

	for (;;) {
		end = ref_end(p, plen, i, 1);
		if ((end - i == 2 && p[i] == '.' && p[i + 1] == '.') ||
		    end >= plen) {
			int up = end - i == 2 && p[i] == '.' && p[i + 1] == '.';
			size_t stop = up ? (i > 0 ? i - 1 : 0) : plen;

			if (up && i == 0)
				return (-1);
			if (stop > seg || (!up && seg < plen)) {
				memset(next, 0, sizeof (next));
				for (b = 1; b < k; b++)
					for (a = 0; a < k; a++) {
						size_t al = strlen(nodes[a]);
						size_t off = a == 0 ? 0 : al + 1;

						if (!cur[a] || strlen(nodes[b]) <=
						    al || (a != 0 && (memcmp(
						    nodes[b], nodes[a], al) != 0 ||
						    nodes[b][al] != '/')))
							continue;
						if (tree_glob_match(p + seg,
						    stop - seg, nodes[b] + off,
						    strlen(nodes[b]) - off))
							next[b] = 1;
					}
				memcpy(cur, next, sizeof (cur));
			}
			if (up) {
				memset(next, 0, sizeof (next));
				for (b = 1; b < k; b++) {
					int q = ps_parent(nodes, k, b);

					if (cur[b] && q > 0)
						next[q] = 1;
				}
				memcpy(cur, next, sizeof (cur));
				seg = end + 1;
			}
		}
		if (end >= plen)
			break;
		i = end + 1;
	}
	memcpy(sel, cur, k);
	return (0);
}

static void
test_parent_steps(void)
{
	static const char *const parts[] = { "a", "b", "ab", "x1", "" };
	static const char *const pparts[] = { "a", "b", "*", "?", "**", "..",
	    "..", "x*", "[ab]" };
	char names[PS_NAMES][32], nodes[PS_NODES][32], pattern[64];
	int round, ok = 1, resolved = 1, nonempty = 0;

	for (round = 0; round < 400; round++) {
		intern *in = intern_new();
		uint8_t marks[PS_NAMES], want[PS_NODES];
		size_t n = 3 + rng() % (PS_NAMES - 3), k, i, plen;
		tree *t;
		const char *why;
		int got;

		for (i = 0; i < n; i++) {
			size_t depth = 1 + rng() % 4, c, len = 0;

			for (c = 0; c < depth; c++)
				len += (size_t)snprintf(names[i] + len,
				    sizeof (names[i]) - len, "%s%s",
				    c > 0 ? "/" : "", parts[rng() % 4]);
			if (intern_find(in, names[i], len) != INTERN_NONE) {
				i--;
				n--;
				continue;
			}
			intern_add(in, names[i], len, NULL);
		}
		t = tree_build(in);
		k = ps_nodes(names, n, nodes);
		plen = 0;
		for (i = 0; i < 1 + rng() % 5; i++)
			plen += (size_t)snprintf(pattern + plen,
			    sizeof (pattern) - plen, "%s%s", i > 0 ? "/" : "",
			    pparts[rng() % 9]);
		got = tree_select(t, pattern, plen, marks, &why);
		if (ps_reference(nodes, k, pattern, want) != 0) {
			if (got != -1) {
				ok = 0;
				UNIT_REPORT(0, "parent steps: a leading ..",
				    "\"%s\" accepted", pattern);
			}
		} else if (got != 0) {
			ok = 0;
			UNIT_REPORT(0, "parent steps: refused", "\"%s\": %s",
			    pattern, why);
		} else {
			for (i = 1; i < k; i++) {
				uint32_t node = tree_find(t, nodes[i],
				    strlen(nodes[i]));
				uint32_t e = tree_entity(t, node);

				if (e == TREE_NONE)
					continue;
				nonempty += want[i];
				if (marks[e] != want[i]) {
					ok = 0;
					UNIT_REPORT(0, "parent steps: selection",
					    "\"%s\" on \"%s\": %d, want %d",
					    pattern, nodes[i], marks[e],
					    want[i]);
				}
			}
		}
		/* A path with a step up: the node it comes back to. */
		for (i = 1; i < k; i++) {
			char path[80];
			int q = ps_parent(nodes, k, i);
			uint32_t r;

			snprintf(path, sizeof (path), "%s/..", nodes[i]);
			r = tree_resolve(t, path, strlen(path));
			if (tree_find(t, path, strlen(path)) != TREE_NONE)
				continue;	/* a name holds it as it is */
			if (r != (q == 0 ? TREE_ROOT : tree_find(t, nodes[q],
			    strlen(nodes[q])))) {
				resolved = 0;
				UNIT_REPORT(0, "tree_resolve: a step up",
				    "\"%s\"", path);
			}
		}
		tree_free(t);
		intern_free(in);
	}
	UNIT_REPORT(ok && nonempty > 100, "parent steps: 400 random trees "
	    "and patterns with \"..\" select as the reference does",
	    "%d entities selected in all", nonempty);
	UNIT_REPORT(resolved, "tree_resolve: each node's \"/..\" is its "
	    "parent", "%s", "");
}

int
main(void)
{
	test_against_reference();
	test_globstars_work();
	test_parent_steps();
	return (unit_exit());
}
