/*
 * gentrace: writes a deterministic synthetic statemap trace for
 * benchmarks.  The same arguments always give the same bytes.
 *
 *   gentrace [-n RECORDS] [-e ENTITIES] [-s STATES] [-t] [-T TAGS]
 *       [-p PERCENT] [-V] [-N] [-r REPEAT] [-d uniform|pareto] [-S SEED]
 *
 * Records are one per line, in time order overall, entities interleaved
 * at random; with -t most data carry one of a few hundred tags (-T: how
 * many tag names, -p: the percentage of data tagged), each defined (with
 * a pid and an execname) just after its first use; with -V the data are
 * counters ("value") instead of states: integers, but every fourth
 * entity's are numbers with a fraction (an entity's numbers are of one
 * kind unless it is declared numeric); with -N the states are nested: after an
 * entity's first datum, about half its data push a state (named, as often
 * as by value) and the other half pop its top one, a plain datum when it
 * has nothing pushed, and every eighth datum replaces the stack.  With -r
 * the time moves only every REPEAT records (bursts of data at one time).
 *
 * Durations (-d): uniform (the default) picks an entity at random for
 * each record, about 3 us apart, so every entity's durations look alike;
 * pareto gives each entity its own clock: its next transition comes
 * after a Pareto-distributed duration (alpha 1.2: most short, a few very
 * long), scaled per entity over three decades (some entities a thousand
 * times busier than others), with states skewed (state i about 1 / (i +
 * 1) of the time), the records merged in time order.  The defaults'
 * bytes are those of the first gentrace: bench/README.md's figures were
 * made from them.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NTAGS	300

static uint64_t rng_state;

/* splitmix64: tiny, fast, and good enough for synthetic traces. */
static uint64_t
rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

static char outbuf[1 << 20];
static size_t outlen;

static void
flush_out(void)
{
	size_t off = 0;

	while (off < outlen) {
		ssize_t n = write(STDOUT_FILENO, outbuf + off, outlen - off);

		if (n <= 0) {
			perror("gentrace: write");
			exit(1);
		}
		off += (size_t)n;
	}
	outlen = 0;
}

static void
out_bytes(const char *s, size_t len)
{
	if (outlen + len > sizeof (outbuf))
		flush_out();
	memcpy(outbuf + outlen, s, len);
	outlen += len;
}

static void
put_str(const char *s)
{
	out_bytes(s, strlen(s));
}

static void
put_u64(uint64_t v)
{
	char buf[24];
	size_t i = sizeof (buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	out_bytes(buf + i, sizeof (buf) - i);
}

static void
usage(int status)
{
	fputs("usage: gentrace [-n RECORDS] [-e ENTITIES] [-s STATES] [-t] "
	    "[-T TAGS] [-p PERCENT]\n"
	    "                [-V] [-N] [-r REPEAT] [-d uniform|pareto] "
	    "[-S SEED]\n"
	    "  -n  data records (default 10000000)\n"
	    "  -e  entities (default 1000)\n"
	    "  -s  states (default 6, at most 1000)\n"
	    "  -t  tag most data (a few hundred tags, each defined once)\n"
	    "  -T  with -t: how many tag names (default 300)\n"
	    "  -p  with -t: the percentage of data tagged (default 90)\n"
	    "  -V  counters: data with values instead of states\n"
	    "  -N  nested states: pushes and pops\n"
	    "  -r  the time moves every REPEAT records (default 1)\n"
	    "  -d  durations: uniform (default) or pareto (heavy-tailed, "
	    "per entity)\n"
	    "  -S  random seed (default 1)\n", status == 0 ? stdout : stderr);
	exit(status);
}

static void *
alloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p == NULL) {
		perror("gentrace");
		exit(1);
	}
	return (p);
}

/* A uniform double in (0, 1]. */
static double
unit(void)
{
	return ((double)((rng() >> 11) + 1) / 9007199254740992.0);
}

/*
 * -d pareto: every entity's next transition, smallest first (a binary
 * heap of entity numbers keyed by time).
 */
typedef struct eclock {
	uint64_t *next;		/* per entity: its next transition */
	double *mean;		/* per entity: its mean duration, ns */
	uint32_t *heap;
	uint64_t n;
	uint32_t *state_cdf;	/* skewed states: cumulative, out of 2^32 */
} eclock;

static int
clock_before(const eclock *c, uint32_t a, uint32_t b)
{
	return (c->next[a] < c->next[b] ||
	    (c->next[a] == c->next[b] && a < b));
}

static void
clock_sift(eclock *c, uint64_t i)
{
	uint32_t x = c->heap[i];

	for (;;) {
		uint64_t m = 2 * i + 1;

		if (m >= c->n)
			break;
		if (m + 1 < c->n && clock_before(c, c->heap[m + 1],
		    c->heap[m]))
			m++;
		if (!clock_before(c, c->heap[m], x))
			break;
		c->heap[i] = c->heap[m];
		i = m;
	}
	c->heap[i] = x;
}

/*
 * A Pareto duration of the given mean, alpha 1.2 (x_min = mean / 6),
 * at least 1 ns and at most a thousand times the mean.
 */
static uint64_t
pareto(double mean)
{
	double d = mean / 6.0 * pow(unit(), -1.0 / 1.2);

	if (d > mean * 1000.0)
		d = mean * 1000.0;
	return (d < 1.0 ? 1 : (uint64_t)d);
}

/*
 * Entity e's mean duration is scaled by 10^(3u) for a uniform u, and all
 * are set so that the records span about 3 us each, as with uniform
 * durations: sum over entities of span / mean = records.
 */
static void
clock_init(eclock *c, uint64_t entities, uint64_t states, uint64_t records)
{
	double inv = 0, span = (double)records * 3000.0, w = 0, acc = 0;
	uint64_t e, i;

	c->next = alloc(entities + 1, sizeof (*c->next));
	c->mean = alloc(entities + 1, sizeof (*c->mean));
	c->heap = alloc(entities, sizeof (*c->heap));
	c->state_cdf = alloc(states, sizeof (*c->state_cdf));
	for (e = 1; e <= entities; e++) {
		c->mean[e] = pow(10.0, 3.0 * unit());
		inv += 1.0 / c->mean[e];
	}
	for (e = 1; e <= entities; e++) {
		c->mean[e] *= span * inv / (double)(records > 0 ? records : 1);
		c->next[e] = pareto(c->mean[e]) / 2;
		c->heap[e - 1] = (uint32_t)e;
	}
	c->n = entities;
	for (i = c->n / 2; i-- > 0;)
		clock_sift(c, i);
	for (i = 0; i < states; i++)
		w += 1.0 / (double)(i + 1);
	for (i = 0; i < states; i++) {
		acc += 1.0 / (double)(i + 1) / w;
		c->state_cdf[i] = i + 1 == states ? UINT32_MAX :
		    (uint32_t)(acc * 4294967295.0);
	}
}

/* The next record's entity and time; its state, skewed, from r. */
static uint64_t
clock_next(eclock *c, uint64_t *t)
{
	uint32_t e = c->heap[0];

	*t = c->next[e];
	c->next[e] += pareto(c->mean[e]);
	clock_sift(c, 0);
	return (e);
}

static uint64_t
clock_state(const eclock *c, uint64_t states, uint64_t r)
{
	uint32_t x = (uint32_t)(r >> 20);
	uint64_t lo = 0, hi = states - 1;

	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;

		if (c->state_cdf[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

int
main(int argc, char **argv)
{
	static const char *colors[] = { "#2ca02c", "#f9f9f9", "#f0f0f0",
	    "#ffc300", "#c70039", "#581845", "#1f77b4", "#ff7f0e" };
	uint64_t records = 10000000, entities = 1000, states = 6, seed = 1;
	uint64_t i, t = 0, ntags = NTAGS, percent = 90, repeat = 1;
	unsigned char (*defined)[8];
	int tags = 0, values = 0, nested = 0, heavy = 0, c;
	eclock clk;
	uint32_t *depth = NULL;	/* per entity, with -N: how much is pushed */
	uint16_t *top = NULL;	/* ...and its stack */
	uint8_t *started = NULL;	/* ...and whether it has a state */

	if (argc > 1 && strcmp(argv[1], "--help") == 0)
		usage(0);
	while ((c = getopt(argc, argv, "n:e:s:tT:p:VNr:d:S:")) != -1) {
		switch (c) {
		case 'n': records = strtoull(optarg, NULL, 10); break;
		case 'e': entities = strtoull(optarg, NULL, 10); break;
		case 's': states = strtoull(optarg, NULL, 10); break;
		case 't': tags = 1; break;
		case 'T': ntags = strtoull(optarg, NULL, 10); break;
		case 'p': percent = strtoull(optarg, NULL, 10); break;
		case 'V': values = 1; break;
		case 'N': nested = 1; break;
		case 'r': repeat = strtoull(optarg, NULL, 10); break;
		case 'd':
			if (strcmp(optarg, "pareto") == 0)
				heavy = 1;
			else if (strcmp(optarg, "uniform") != 0)
				usage(2);
			break;
		case 'S': seed = strtoull(optarg, NULL, 10); break;
		default: usage(2);
		}
	}
	if (entities == 0 || entities > UINT32_MAX - 1 || states == 0 ||
	    states > 1000 || ntags == 0 || ntags > 1U << 30 ||
	    percent > 100 || repeat == 0)
		usage(2);
	if (nested) {
		/* A pop names its state: the top of each stack is kept. */
		depth = calloc(entities + 1, sizeof (*depth));
		top = calloc((entities + 1) * 1024, sizeof (*top));
		started = calloc(entities + 1, 1);
		if (depth == NULL || top == NULL || started == NULL) {
			perror("gentrace");
			return (1);
		}
	}
	defined = alloc(ntags, sizeof (*defined));
	rng_state = seed;
	if (heavy)
		clock_init(&clk, entities, states, records);

	put_str("{\"start\": [1700000000, 0], \"title\": \"bench\", "
	    "\"host\": \"benchhost\", \"entityKind\": \"Thread\", "
	    "\"states\": {");
	for (i = 0; i < states; i++) {
		put_str(i > 0 ? ", \"state" : "\"state");
		put_u64(i);
		put_str("\": {\"value\": ");
		put_u64(i);
		if (i < sizeof (colors) / sizeof (colors[0])) {
			put_str(", \"color\": \"");
			put_str(colors[i]);
			put_str("\"");
		}
		put_str("}");
	}
	put_str("}}\n");

	for (i = 0; i < records; i++) {
		uint64_t r = rng(), entity, state;

		if (heavy) {
			uint64_t at;

			entity = clock_next(&clk, &at);
			if (i % repeat == 0)
				t = at > t ? at : t;
			state = clock_state(&clk, states, r);
		} else {
			entity = 1 + r % entities;
			state = (r >> 20) % states;
			/* About 3 us between records: ~30 s over 10M
			 * records (with -r, as long between bursts). */
			if (i % repeat == 0)
				t += (r >> 40) % 6000 * repeat;
		}
		put_str("{\"time\": \"");
		put_u64(t);
		put_str("\", \"entity\": \"");
		put_u64(entity);
		if (values) {
			put_str("\", \"value\": ");
			put_u64((r >> 24) % 100000);
			if (entity % 4 == 0)
				put_str(".25");
			put_str("}\n");
			continue;
		}
		if (nested && started[entity] && (r >> 16) % 8 != 0) {
			uint32_t *n = &depth[entity];
			uint16_t *stack = top + entity * 1024;

			if ((r >> 8) % 2 == 0 && *n > 0) {
				put_str("\", \"pop\": ");
				state = stack[--*n];
			} else if (*n < 1000) {
				put_str("\", \"push\": ");
				stack[(*n)++] = (uint16_t)state;
			} else {
				put_str("\", \"state\": ");
				*n = 0;
			}
			if ((r >> 4) % 2 == 0) {
				put_str("\"state");
				put_u64(state);
				put_str("\"");
			} else {
				put_u64(state);
			}
			put_str("}\n");
			continue;
		}
		if (nested) {
			started[entity] = 1;
			depth[entity] = 0;
		}
		put_str("\", \"state\": ");
		put_u64(state);
		/* 90%, the default, as the first gentrace chose them. */
		if (tags && (percent == 90 ? (r >> 32) % 10 != 0 :
		    (r >> 32) % 100 < percent)) {
			uint64_t tag = (r >> 12) % ntags;

			put_str(", \"tag\": \"t");
			put_u64(tag);
			put_str("\"");
			if (!defined[tag][state % 8]) {
				/* Defined right after its first use. */
				defined[tag][state % 8] = 1;
				put_str("}\n{\"state\": ");
				put_u64(state);
				put_str(", \"tag\": \"t");
				put_u64(tag);
				put_str("\", \"pid\": ");
				put_u64(1000 + tag);
				put_str(", \"execname\": \"proc");
				put_u64(tag % 37);
				put_str("\"");
			}
		}
		put_str("}\n");
	}
	flush_out();
	free(defined);
	if (heavy) {
		free(clk.next);
		free(clk.mean);
		free(clk.heap);
		free(clk.state_cdf);
	}
	free(depth);
	free(top);
	free(started);
	return (0);
}
