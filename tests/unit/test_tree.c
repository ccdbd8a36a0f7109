/*
 * Unit tests for the attribute tree's glob patterns (tree.h): the
 * matcher against a reference written the plain way (every "**" tried at
 * every place, recursively: exponential, so only on small inputs) on
 * random patterns and names, and its steps (work.h) in proportion to the
 * pattern times the name however many "**" a pattern has.
 */
#include <stdlib.h>

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

int
main(void)
{
	test_against_reference();
	test_globstars_work();
	return (unit_exit());
}
