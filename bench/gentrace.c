/*
 * gentrace: writes a deterministic synthetic statemap trace for
 * benchmarks.  The same arguments always give the same bytes.
 *
 *   gentrace [-n RECORDS] [-e ENTITIES] [-s STATES] [-t] [-V] [-N] [-S SEED]
 *
 * Records are one per line, in time order overall, entities interleaved
 * at random; with -t most data carry one of a few hundred tags, each
 * defined (with a pid and an execname) just after its first use; with -V
 * the data are counters ("value": an integer, or every fourth a number
 * with a fraction) instead of states; with -N the states are nested: after
 * an entity's first datum, about half its data push a state (named, as
 * often as by value) and the other half pop its top one, a plain datum
 * when it has nothing pushed, and every eighth datum replaces the stack.
 */
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
put(const char *s, size_t len)
{
	if (outlen + len > sizeof (outbuf))
		flush_out();
	memcpy(outbuf + outlen, s, len);
	outlen += len;
}

static void
put_str(const char *s)
{
	put(s, strlen(s));
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
	put(buf + i, sizeof (buf) - i);
}

static void
usage(int status)
{
	fputs("usage: gentrace [-n RECORDS] [-e ENTITIES] [-s STATES] [-t] "
	    "[-V] [-N] [-S SEED]\n"
	    "  -n  data records (default 10000000)\n"
	    "  -e  entities (default 1000)\n"
	    "  -s  states (default 6)\n"
	    "  -t  tag most data (a few hundred tags, each defined once)\n"
	    "  -V  counters: data with values instead of states\n"
	    "  -N  nested states: pushes and pops\n"
	    "  -S  random seed (default 1)\n", status == 0 ? stdout : stderr);
	exit(status);
}

int
main(int argc, char **argv)
{
	static const char *colors[] = { "#2ca02c", "#f9f9f9", "#f0f0f0",
	    "#ffc300", "#c70039", "#581845", "#1f77b4", "#ff7f0e" };
	uint64_t records = 10000000, entities = 1000, states = 6, seed = 1;
	uint64_t i, t = 0;
	unsigned char defined[NTAGS][8];
	int tags = 0, values = 0, nested = 0, c;
	uint32_t *depth = NULL;	/* per entity, with -N: how much is pushed */
	uint16_t *top = NULL;	/* ...and its stack */
	uint8_t *started = NULL;	/* ...and whether it has a state */

	if (argc > 1 && strcmp(argv[1], "--help") == 0)
		usage(0);
	while ((c = getopt(argc, argv, "n:e:s:tVNS:")) != -1) {
		switch (c) {
		case 'n': records = strtoull(optarg, NULL, 10); break;
		case 'e': entities = strtoull(optarg, NULL, 10); break;
		case 's': states = strtoull(optarg, NULL, 10); break;
		case 't': tags = 1; break;
		case 'V': values = 1; break;
		case 'N': nested = 1; break;
		case 'S': seed = strtoull(optarg, NULL, 10); break;
		default: usage(2);
		}
	}
	if (entities == 0 || states == 0 || states > 1000)
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
	rng_state = seed;
	memset(defined, 0, sizeof (defined));

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
		uint64_t r = rng();
		uint64_t entity = 1 + r % entities;
		uint64_t state = (r >> 20) % states;

		/* About 3 us between records: ~30 s over 10M records. */
		t += (r >> 40) % 6000;
		put_str("{\"time\": \"");
		put_u64(t);
		put_str("\", \"entity\": \"");
		put_u64(entity);
		if (values) {
			put_str("\", \"value\": ");
			put_u64((r >> 24) % 100000);
			if ((r >> 12) % 4 == 0)
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
		if (tags && (r >> 32) % 10 != 0) {
			uint64_t tag = (r >> 12) % NTAGS;

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
	free(depth);
	free(top);
	free(started);
	return (0);
}
