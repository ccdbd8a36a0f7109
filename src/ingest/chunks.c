#include "ingest/chunks.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "base/json.h"
#include "ingest/scan.h"
#include "base/util.h"

#define CHUNK_BYTES	((size_t)4 << 20)
#define MAX_RECORD	UINT16_MAX	/* longer records are left to us */
#define UNMAPPED	(UINT32_MAX - 1)
#define NO_STATE	UINT32_MAX	/* a name the trace has no state for */

/*
 * Scanning threads read their chunks through a window of this size, a
 * buffer of their own that stays in the core's cache, refilled when less
 * than a sixteenth of it is left ahead (see source_copy).  A record that
 * does not fit in what is left gets a full window before it is judged;
 * one longer than the window is left to the serial parse.
 */
#define WINDOW_BYTES	((size_t)256 << 10)
#define WINDOW_LOW(size)	((size) / 16 + 1)

/*
 * A size from the environment variable name, or dflt: for tests that want
 * many chunks, and windows that slide often, in a small file.
 */
static size_t
size_from_env(const char *name, size_t dflt)
{
	const char *env = getenv(name);
	char *end;
	unsigned long long n;

	if (env == NULL || *env == '\0')
		return (dflt);
	n = strtoull(env, &end, 10);
	return (*end == '\0' && n > 0 && n <= dflt * 64 ? n : dflt);
}

/*
 * A cache of the names of up to 8 bytes a chunk has numbered (see
 * short_name_id), one for entity names and one for tag names.
 */
typedef struct short_names {
	uint64_t *keys;		/* names as numbers; 0: empty */
	uint32_t *ids;		/* their numbers in the chunk */
	size_t n;
} short_names;

typedef struct chunk_datum {
	uint64_t time;
	uint32_t record;	/* the record's offset in the chunk */
	uint32_t entity;	/* the chunk's own number for the name */
	uint32_t tag;		/* 1 + the chunk's number for it; 0: none */
	uint16_t state;
	uint8_t op;		/* SCAN_OP_STATE... */
} chunk_datum;

/*
 * What a datum of the generic state system has besides its chunk_datum
 * (a push keeps its tag there): a value's string, or the name of a state
 * pushed or popped.  A value's own word is in the chunk's vals.
 */
typedef union chunk_special {
	struct {
		uint32_t at;	/* its offset in the record; 0: none */
		uint32_t len;
	} str;
	uint32_t named;		/* 1 + the chunk's number for it; 0: by value */
} chunk_special;

/* What a run sorted for bulk holds (see below). */
typedef enum run_kind {
	RUN_STATES,		/* plain states */
	RUN_VALUES,		/* numbers and nulls */
	RUN_STACKS		/* plain states, pushes and pops */
} run_kind;

typedef struct chunk_run {
	size_t start, end;	/* its first record; past its last, spaces too */
	size_t first, count;	/* its data */
	size_t group, ngroups;	/* its entities, if sorted for bulk */
	run_kind kind;		/* if sorted */
} chunk_run;

/*
 * For a consumer that takes data in bulk, a run without tags is also
 * sorted by entity (stably, so each entity's data stay in file order),
 * its entities in the order they first appear in it.  So is a run of
 * values that are all numbers or nulls (strings are numbered in file
 * order as they are taken, so they are taken one by one), and, for a
 * consumer that takes nested states in bulk, an untagged run with pushes
 * and pops in it.
 */
typedef struct chunk_group {
	uint32_t entity;	/* the chunk's number */
	size_t first, count;	/* in the chunk's sorted times and states */
	int numbers;		/* of values: whether any is a number */
	int stacked;		/* of states: whether any is a push or pop */
} chunk_group;

/*
 * In a sorted run of stacks, an op (ops) whose state is named: its
 * states entry is the chunk's number for the name until the run is
 * taken.
 */
#define OP_NAMED	0x80

typedef struct chunk {
	size_t seq;		/* which chunk of the file */
	size_t start, end;	/* records starting in [start, end) */
	int done;		/* scanned, ready to be taken */
	chunk_datum *data;
	size_t ndata, data_cap;
	/*
	 * Per datum, of value data only: a number's bits, VALUE_NONE, or
	 * VALUE_STRING when its string is in specials.  Apart from data,
	 * so that a state trace's data stay small and a counter's value
	 * costs eight bytes.
	 */
	sm_value *vals;
	size_t vals_cap;
	chunk_special *specials;	/* per datum: pushes, pops, strings */
	size_t specials_cap;
	chunk_run *runs;
	size_t nruns, runs_cap;
	intern *names;		/* entity names by the chunk's numbers */
	uint32_t *ids;		/* their ids in the trace, or UNMAPPED */
	size_t ids_cap;
	/*
	 * Tag names likewise: numbered here, by the thread that has the
	 * record's bytes in its cache, so that the one taking the data in
	 * file order looks a tag up once a chunk, not once a datum.
	 */
	intern *tags;
	uint32_t *tag_names;	/* their ids in the catalog, or UNMAPPED */
	size_t tag_names_cap;
	/*
	 * And the names of states pushed and popped, for the same reason:
	 * a nested trace by name would otherwise look one up a datum.
	 */
	intern *states_named;
	uint32_t *state_ids;	/* their states, NO_STATE, or UNMAPPED */
	size_t state_ids_cap;
	chunk_group *groups;	/* the runs' entities, when sorted */
	size_t ngroups, groups_cap;
	uint64_t *times;	/* the sorted data, parallel to data */
	uint16_t *states;
	sm_value *values;	/* for runs of values */
	uint8_t *ops;		/* for runs of stacks: INGEST_SET... */
	size_t sorted_cap;
	short_names short_entities, short_tags, short_states;
	size_t *slot_of;	/* scratch: an entity's group in a run... */
	size_t *seen_in;	/* ...valid if seen_in is that run + 1 */
	size_t scratch_cap;
	scan_shapes shapes;	/* the layouts of its data */
} chunk;

typedef struct window {
	char *buf;
	size_t size;		/* of buf */
	size_t len;		/* bytes in it */
	size_t base;		/* the input offset of buf[0] */
	int end;		/* it reaches the end of the input */
} window;

typedef struct scanner {
	const source *src;
	const char *buf;	/* the input, mapped: for its length and lines */
	size_t len;
	uint32_t nstates;
	int bulk;		/* sort untagged runs by entity */
	int bulk_values;	/* and runs of numbers */
	int bulk_stacks;	/* and runs with pushes and pops */
	size_t chunk_bytes;
	size_t window_bytes;
	chunk *slots;		/* chunk seq is in slots[seq % nslots] */
	size_t nslots;
	size_t next_seq;	/* the next chunk to hand out */
	size_t next_start;	/* and where it starts */
	int stop;
	pthread_mutex_t lock;
	pthread_cond_t work;	/* a slot was freed, or stop */
	pthread_cond_t ready;	/* a chunk was scanned */
} scanner;

static void
add_run(chunk *c, size_t start, size_t end, size_t first)
{
	if (c->ndata == first)
		return;
	grow_array(&c->runs, &c->runs_cap, c->nruns + 1, sizeof (chunk_run));
	c->runs[c->nruns].start = start;
	c->runs[c->nruns].end = end;
	c->runs[c->nruns].first = first;
	c->runs[c->nruns].count = c->ndata - first;
	c->runs[c->nruns].ngroups = 0;
	c->runs[c->nruns].kind = RUN_STATES;
	c->nruns++;
}

/*
 * Whether datum k can be taken in bulk in a run of values (a number or
 * null), or else of states: an untagged plain state, or with stacks, an
 * untagged push or pop (whose name's number, if named, fits a state's
 * 16 bits).
 */
static inline int
bulk_datum(const chunk *c, size_t k, int values, int stacks)
{
	const chunk_datum *cd = &c->data[k];

	if (values)
		return (cd->op == SCAN_OP_VALUE && c->vals[k] != VALUE_STRING);
	if ((cd->tag | cd->op) == 0)	/* SCAN_OP_STATE: 0 */
		return (1);
	return (stacks && cd->tag == 0 && cd->op != SCAN_OP_VALUE &&
	    c->specials[k].named <= UINT16_MAX + 1);
}

/* The op and state of datum k of a run of stacks, as ops and states
 * keep them. */
static uint8_t
stack_op(const chunk *c, size_t k, uint16_t *state)
{
	const chunk_datum *cd = &c->data[k];

	*state = cd->state;
	if (cd->op == SCAN_OP_STATE)
		return (INGEST_SET);
	if (c->specials[k].named != 0) {
		*state = (uint16_t)(c->specials[k].named - 1);
		return ((uint8_t)((cd->op == SCAN_OP_PUSH ? INGEST_PUSH :
		    INGEST_POP) | OP_NAMED));
	}
	return (cd->op == SCAN_OP_PUSH ? INGEST_PUSH : INGEST_POP);
}

/*
 * Counts run i's data per entity (its groups, from c->ngroups on), if
 * every one can be taken in bulk in a run of values or else of states:
 * the run's kind, or -1.  Inline, so that each kind of run gets a loop
 * of its own.
 */
static inline __attribute__((always_inline)) int
count_run(chunk *c, size_t i, int values, int stacks)
{
	const chunk_run *r = &c->runs[i];
	const chunk_datum *data = c->data;
	size_t k;
	int stacked = 0;

	for (k = r->first; k < r->first + r->count; k++) {
		uint32_t e = data[k].entity;
		chunk_group *grp;

		if (!bulk_datum(c, k, values, stacks))
			return (-1);
		if (c->seen_in[e] != i + 1) {
			c->seen_in[e] = i + 1;
			c->slot_of[e] = c->ngroups;
			grow_array(&c->groups, &c->groups_cap, c->ngroups + 1,
			    sizeof (chunk_group));
			c->groups[c->ngroups].entity = e;
			c->groups[c->ngroups].count = 0;
			c->groups[c->ngroups].numbers = 0;
			c->groups[c->ngroups].stacked = 0;
			c->ngroups++;
		}
		grp = &c->groups[c->slot_of[e]];
		grp->count++;
		if (values)
			grp->numbers |= value_is_number(c->vals[k]);
		else if (data[k].op != SCAN_OP_STATE)
			grp->stacked = stacked = 1;
	}
	return (values ? RUN_VALUES : stacked ? RUN_STACKS : RUN_STATES);
}

/*
 * Scatters run r's data, counted, to their groups, each its time and
 * what a run of this kind keeps: 0 if an entity's time goes backwards.
 * Inline, for a loop of each kind.
 */
static inline __attribute__((always_inline)) int
scatter_run(chunk *c, const chunk_run *r, run_kind kind)
{
	const chunk_datum *data = c->data;
	size_t k;

	for (k = r->first; k < r->first + r->count; k++) {
		const chunk_datum *cd = &data[k];
		chunk_group *grp = &c->groups[c->slot_of[cd->entity]];
		size_t at = grp->first + grp->count++;

		if (grp->count > 1 && cd->time < c->times[at - 1])
			return (0);
		c->times[at] = cd->time;
		if (kind == RUN_VALUES)
			c->values[at] = c->vals[k];
		else if (kind == RUN_STACKS)
			c->ops[at] = stack_op(c, k, &c->states[at]);
		else
			c->states[at] = cd->state;
	}
	return (1);
}

/*
 * Sorts run i by entity for bulk delivery, unless it has a tag, a string
 * value or another op, or an entity's time goes backwards in it (the
 * serial code reports that).  Sorting scatters every datum to its
 * entity's group, so each pass writes only what the consumer reads.  A
 * run of states with a push or pop in it is a run of stacks, its ops
 * kept too.
 */
static void
sort_run(const scanner *sc, chunk *c, size_t i)
{
	chunk_run *r = &c->runs[i];
	size_t k, g;
	int kind, scattered;

	if (c->data[r->first].op == SCAN_OP_VALUE && !sc->bulk_values)
		return;
	r->group = c->ngroups;
	kind = c->data[r->first].op == SCAN_OP_VALUE ? count_run(c, i, 1, 0) :
	    count_run(c, i, 0, sc->bulk_stacks);
	if (kind < 0) {
		c->ngroups = r->group;
		return;
	}
	for (g = r->group, k = r->first; g < c->ngroups; g++) {
		c->groups[g].first = k;
		k += c->groups[g].count;
		c->groups[g].count = 0;
	}
	scattered = kind == RUN_VALUES ? scatter_run(c, r, RUN_VALUES) :
	    kind == RUN_STACKS ? scatter_run(c, r, RUN_STACKS) :
	    scatter_run(c, r, RUN_STATES);
	if (!scattered) {
		c->ngroups = r->group;	/* one by one, then */
		return;
	}
	r->kind = (run_kind)kind;
	r->ngroups = c->ngroups - r->group;
}

/*
 * The chunk's number for a name in names (an entity's or a tag's).  Names
 * are mostly short (thread and CPU ids, pids), and a name of up to 8
 * bytes with no NUL in it (a plain string has none) is one 64-bit number:
 * one multiply and a compare find it, where the names table hashes and
 * compares bytes.
 */
#define SHORT_BITS	12
#define SHORT_SLOTS	((size_t)1 << SHORT_BITS)

/* The mask of the first n bytes of a little-endian word. */
static const uint64_t low_bytes[9] = {
	0, 0xff, 0xffff, 0xffffff, 0xffffffffULL, 0xffffffffffULL,
	0xffffffffffffULL, 0xffffffffffffffULL, UINT64_MAX
};

static void
short_names_reset(short_names *t)
{
	if (t->keys == NULL) {
		t->keys = xmalloc(SHORT_SLOTS * sizeof (uint64_t));
		t->ids = xmalloc(SHORT_SLOTS * sizeof (uint32_t));
	} else if (t->n == 0) {
		return;		/* still empty: a trace without tags, say */
	}
	memset(t->keys, 0, SHORT_SLOTS * sizeof (uint64_t));
	t->n = 0;
}

static uint32_t
short_name_id(intern *names, short_names *t, const char *name, size_t len,
    const char *end)
{
	uint64_t key;
	uint32_t id;
	size_t i;

	if (len == 0 || len > 8 || end - name < 8)
		return (intern_add(names, name, len, NULL));
	memcpy(&key, name, sizeof (key));
	key &= low_bytes[len];
	i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - SHORT_BITS));
	while (t->keys[i] != 0) {
		if (t->keys[i] == key)
			return (t->ids[i]);
		i = (i + 1) & (SHORT_SLOTS - 1);
	}
	id = intern_add(names, name, len, NULL);
	if (t->n < SHORT_SLOTS / 2) {	/* else the table still works */
		t->keys[i] = key;
		t->ids[i] = id;
		t->n++;
	}
	return (id);
}

/*
 * Moves the window to start at its offset pos and fills it.  Returns 0 if
 * the input cannot be read (the serial parse will say why).
 */
static int
window_slide(const scanner *sc, window *w, size_t *pos)
{
	long n;

	memmove(w->buf, w->buf + *pos, w->len - *pos);
	w->base += *pos;
	w->len -= *pos;
	*pos = 0;
	n = source_copy(sc->src, w->base + w->len, w->buf + w->len,
	    w->size - w->len);
	if (n < 0)
		return (0);
	w->len += (size_t)n;
	w->end = w->base + w->len >= sc->len || w->len < w->size;
	return (1);
}

/*
 * The value or string of datum k, which has another op; names of states
 * end before end.
 */
static void
keep_special(chunk *c, size_t k, const scanned *d, const char *record,
    const char *end)
{
	chunk_special *sp;

	if (d->op == SCAN_OP_VALUE) {
		if (k >= c->vals_cap)
			grow_array(&c->vals, &c->vals_cap, k + 1,
			    sizeof (sm_value));
		c->vals[k] = d->value;
		if (d->str == NULL)
			return;		/* a number or null: no string */
	}
	if (k >= c->specials_cap)
		grow_array(&c->specials, &c->specials_cap, k + 1,
		    sizeof (chunk_special));
	sp = &c->specials[k];
	if (d->op != SCAN_OP_VALUE) {
		sp->named = d->str == NULL ? 0 : 1 + short_name_id(
		    c->states_named, &c->short_states, d->str, d->str_len, end);
		return;
	}
	sp->str.at = (uint32_t)(d->str - record);
	sp->str.len = (uint32_t)d->str_len;
}

/*
 * Keeps n data scanned, each starting at its at in the window.  What the
 * loop needs is read once before it: stores to the data could otherwise
 * be the chunk's fields, for all the compiler knows, and each datum
 * would read them again.
 */
static void
keep_run(chunk *c, const window *w, const scanned *run, size_t n)
{
	const char *end = w->buf + w->len;
	uint32_t base = (uint32_t)(w->base - c->start);
	size_t first = c->ndata, k;
	chunk_datum *cd;

	if (first + n > c->data_cap)
		grow_array(&c->data, &c->data_cap, first + n,
		    sizeof (chunk_datum));
	cd = c->data + first;
	for (k = 0; k < n; k++, cd++) {
		const scanned *d = &run[k];
		const char *record = w->buf + d->at;

		if (d->op != SCAN_OP_STATE)
			keep_special(c, first + k, d, record, end);
		cd->op = (uint8_t)d->op;
		cd->time = d->time;
		cd->record = base + (uint32_t)d->at;
		cd->entity = short_name_id(c->names, &c->short_entities,
		    d->entity, d->entity_len, end);
		cd->state = (uint16_t)d->state;
		cd->tag = d->tag == NULL ? 0 : 1 + short_name_id(c->tags,
		    &c->short_tags, d->tag, d->tag_len, end);
	}
	c->ndata = first + n;
}

/*
 * How many data scan_quick_run reads at once: a run of them costs one
 * call, not one each, and they stay in the core's cache.
 */
#define QUICK_RUN	32

/* Proposes the runs of data in a chunk (see above). */
static void
scan_chunk(const scanner *sc, chunk *c, window *w, json_arena *arena)
{
	size_t pos = 0, run_start = SIZE_MAX, first = 0;

	c->ndata = c->nruns = 0;
	intern_free(c->names);
	c->names = intern_new();
	intern_free(c->tags);
	c->tags = intern_new();
	intern_free(c->states_named);
	c->states_named = intern_new();
	short_names_reset(&c->short_entities);
	short_names_reset(&c->short_tags);
	short_names_reset(&c->short_states);
	w->base = c->start;
	w->len = 0;
	if (!window_slide(sc, w, &pos))
		return;
	for (;;) {
		scanned d, run[QUICK_RUN];
		json_error jerr;
		size_t next, n;

		if (w->len - pos < WINDOW_LOW(w->size) && !w->end &&
		    !window_slide(sc, w, &pos))
			break;
		pos = json_skip_space(w->buf, w->len, pos);
		if (pos == w->len && !w->end)
			continue;
		if (w->base + pos >= c->end)
			break;
		if (run_start == SIZE_MAX)
			run_start = w->base + pos;
		/* Data read quickly are far shorter than MAX_RECORD. */
		if ((n = scan_quick_run(&c->shapes, w->buf, w->len, &pos,
		    c->end - w->base, sc->nstates, run, QUICK_RUN)) > 0) {
			keep_run(c, w, run, n);
			continue;
		}
		if (scan_record_shaped(&c->shapes, w->buf, w->len, pos,
		    sc->nstates, &d) &&
		    d.next - pos <= MAX_RECORD) {
			d.at = pos;
			keep_run(c, w, &d, 1);
			pos = d.next;
			continue;
		}
		/* It may only be cut short by the window: see it whole. */
		if (!w->end && pos > 0 && w->len - pos <= MAX_RECORD) {
			if (!window_slide(sc, w, &pos))
				break;
			continue;
		}
		/* Anything else ends the run; step over it if we can. */
		add_run(c, run_start, w->base + pos, first);
		json_arena_reset(arena);
		next = pos;
		if (json_parse_value(arena, w->buf, w->len, &next, &jerr) ==
		    NULL)
			break;	/* the rest is for the serial parse to judge */
		pos = next;
		run_start = SIZE_MAX;	/* where the next record is */
		first = c->ndata;
	}
	add_run(c, run_start, w->base + pos, first);
}

/* Scans a chunk, then sorts its runs for a consumer that takes bulk. */
static void
scan_and_sort(const scanner *sc, chunk *c, window *w, json_arena *arena)
{
	size_t i, nnames;

	scan_chunk(sc, c, w, arena);
	nnames = intern_count(c->names);
	c->ngroups = 0;
	if (!sc->bulk)
		return;
	if (c->sorted_cap < c->ndata) {
		c->sorted_cap = c->data_cap;
		c->times = xrealloc(c->times, c->sorted_cap * sizeof (uint64_t));
		c->states = xrealloc(c->states,
		    c->sorted_cap * sizeof (uint16_t));
		if (sc->bulk_values)
			c->values = xrealloc(c->values,
			    c->sorted_cap * sizeof (sm_value));
		if (sc->bulk_stacks)
			c->ops = xrealloc(c->ops, c->sorted_cap);
	}
	if (c->scratch_cap < nnames) {
		c->scratch_cap = nnames;
		c->slot_of = xrealloc(c->slot_of, nnames * sizeof (size_t));
		c->seen_in = xrealloc(c->seen_in, nnames * sizeof (size_t));
	}
	if (nnames > 0)
		memset(c->seen_in, 0, nnames * sizeof (size_t));
	for (i = 0; i < c->nruns; i++)
		sort_run(sc, c, i);
}

/* The end of a chunk that starts at start: just past a line end. */
static size_t
chunk_end(const scanner *sc, size_t start)
{
	const char *nl;

	if (sc->len - start <= sc->chunk_bytes)
		return (sc->len);
	nl = memchr(sc->buf + start + sc->chunk_bytes, '\n',
	    sc->len - start - sc->chunk_bytes);
	return (nl == NULL ? sc->len : (size_t)(nl + 1 - sc->buf));
}

/*
 * Scanning threads run a little nicer than the rest of the program.
 * What they scan is taken in file order by a consumer that is slower
 * than they are (the coalescer, with tags or a large budget): at equal
 * priority, four threads on two cores share them evenly, the scanners
 * run ahead into the queues, and the coalescer is left alone at the end
 * with everything queued while a core idles.  Behind a lower priority,
 * the consumer gets the core it needs and the scanners take the rest:
 * the tagged classic command in 0.92 of the time, the plain one in 0.95
 * (README, "Performance").  Linux gives each thread its own nice value;
 * elsewhere, and where it cannot be changed, nothing changes.
 */
#define SCAN_NICER	5

static void
scan_nicer(void)
{
#if defined(__linux__)
	id_t self = (id_t)gettid();
	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, self);
	if (errno == 0 && nice < 19)
		(void) setpriority(PRIO_PROCESS, self, nice + SCAN_NICER > 19 ?
		    19 : nice + SCAN_NICER);
#endif
}

static void *
scan_thread(void *arg)
{
	scanner *sc = arg;
	json_arena *arena = json_arena_new();
	window w;

	scan_nicer();
	w.size = sc->window_bytes;
	w.buf = xmalloc(w.size);
	pthread_mutex_lock(&sc->lock);
	for (;;) {
		chunk *c = &sc->slots[sc->next_seq % sc->nslots];

		if (sc->stop || sc->next_start >= sc->len)
			break;
		if (c->seq != SIZE_MAX) {	/* not yet taken */
			pthread_cond_wait(&sc->work, &sc->lock);
			continue;
		}
		c->seq = sc->next_seq++;
		c->done = 0;
		c->start = sc->next_start;
		c->end = chunk_end(sc, c->start);
		sc->next_start = c->end;
		pthread_mutex_unlock(&sc->lock);
		scan_and_sort(sc, c, &w, arena);
		pthread_mutex_lock(&sc->lock);
		c->done = 1;
		pthread_cond_broadcast(&sc->ready);
	}
	pthread_mutex_unlock(&sc->lock);
	json_arena_free(arena);
	free(w.buf);
	return (NULL);
}

/* The trace's id for a chunk's entity number, on its first use. */
static __attribute__((noinline)) uint32_t
chunk_entity_lookup(chunks_host *h, chunk *c, uint32_t local)
{
	size_t len;
	const char *name = intern_name(c->names, local, &len);

	c->ids[local] = records_entity(h->rec, name, len);
	return (c->ids[local]);
}

/* The trace's id for a chunk's entity number: inline once known. */
static inline uint32_t
chunk_entity(chunks_host *h, chunk *c, uint32_t local)
{
	uint32_t id = c->ids[local];

	return (id != UNMAPPED ? id : chunk_entity_lookup(h, c, local));
}

/*
 * A datum's tag: its text (*len bytes; NULL if it has none) and, for an
 * entity taken with its tags, its id in the catalog's tag names, looked
 * up on first use (else CATALOG_NO_TAG: only a consumer adds names).
 */
static const char *
chunk_tag(chunks_host *h, chunk *c, uint32_t entity, uint32_t tag,
    size_t *len, uint32_t *name)
{
	const char *text;

	*name = CATALOG_NO_TAG;
	*len = 0;
	if (tag == 0)
		return (NULL);
	text = intern_name(c->tags, tag - 1, len);
	if (entity == CATALOG_NO_ENTITY || h->rec->opts->ignore_tags)
		return (text);
	if (c->tag_names[tag - 1] == UNMAPPED)
		c->tag_names[tag - 1] = catalog_tag_name(h->rec->cat, text,
		    *len);
	*name = c->tag_names[tag - 1];
	return (text);
}

/*
 * The state a push or pop names by the chunk's number for the name, or
 * NO_STATE: looked up on first use.
 */
static uint32_t
chunk_named_state(chunks_host *h, chunk *c, uint32_t local)
{
	size_t len;
	const char *name;
	int64_t state;

	if (c->state_ids[local] == UNMAPPED) {
		name = intern_name(c->states_named, local, &len);
		state = catalog_state_by_name(h->rec->cat, name, len);
		c->state_ids[local] = state < 0 ? NO_STATE : (uint32_t)state;
	}
	return (c->state_ids[local]);
}

/*
 * The states a sorted run of stacks names, in place of the chunk's
 * numbers for their names: 0 if one names no state (then one by one
 * finds which, and says so).
 */
static int
name_stack_states(chunks_host *h, chunk *c, const chunk_run *r)
{
	size_t k;
	uint32_t state;

	for (k = r->first; k < r->first + r->count; k++) {
		if (!(c->ops[k] & OP_NAMED))
			continue;
		if ((state = chunk_named_state(h, c, c->states[k])) == NO_STATE)
			return (0);
		c->ops[k] &= (uint8_t)~OP_NAMED;
		c->states[k] = (uint16_t)state;
	}
	return (1);
}

/*
 * Whether a group of a sorted run, of entity e (not left out), can be
 * taken in bulk as it is: in a run of stacks, a nested entity's by
 * records_takes_stacked, another's only if it has plain states alone.
 */
static int
group_fits(chunks_host *h, const chunk *c, const chunk_run *r,
    const chunk_group *grp, uint32_t e)
{
	const uint64_t *times = c->times + grp->first;

	if (r->kind == RUN_STACKS && !records_takes_plain(h->rec, e))
		return (records_takes_stacked(h->rec, e, times,
		    c->ops + grp->first, c->states + grp->first, grp->count));
	return (times[0] >= records_last_time(h->rec, e) &&
	    (r->kind == RUN_VALUES ? records_takes_numbers(h->rec, e) :
	    !grp->stacked && records_takes_plain(h->rec, e)));
}

/*
 * Takes a sorted run in bulk, all or nothing: returns 0, having taken
 * nothing, if an entity's group does not fit (group_fits: then one by
 * one finds which datum does not, and says why).
 */
static int
take_sorted_run(chunks_host *h, chunk *c, const chunk_run *r)
{
	double done = (double)r->end / (double)h->rd->len;
	size_t g;

	if (r->kind == RUN_STACKS && !name_stack_states(h, c, r))
		return (0);
	for (g = r->group; g < r->group + r->ngroups; g++) {
		const chunk_group *grp = &c->groups[g];
		uint32_t e = chunk_entity(h, c, grp->entity);

		if (e != CATALOG_NO_ENTITY && !group_fits(h, c, r, grp, e))
			return (0);
	}
	for (g = r->group; g < r->group + r->ngroups; g++) {
		const chunk_group *grp = &c->groups[g];
		const uint64_t *times = c->times + grp->first;
		uint32_t e = c->ids[grp->entity];

		if (e == CATALOG_NO_ENTITY)
			continue;
		if (r->kind == RUN_VALUES)
			records_deliver_numbers(h->rec, e, times,
			    c->values + grp->first, grp->count, grp->numbers,
			    done);
		else if (r->kind == RUN_STACKS &&
		    !records_takes_plain(h->rec, e))
			records_deliver_stacked(h->rec, e, times,
			    c->ops + grp->first, c->states + grp->first,
			    grp->count, done);
		else
			records_deliver_many(h->rec, e, times,
			    c->states + grp->first, grp->count, done);
	}
	records_count(h->rec, r->count, c->data[r->first + r->count - 1].time);
	h->threaded += r->count;
	h->bulk += r->count;
	return (1);
}

/*
 * Takes datum k of a chunk (its record at offset at in the input), as
 * records_deliver and the like do: 1, or 0 to parse it as JSON.
 */
static int
take_datum(chunks_host *h, chunk *c, size_t k, size_t at)
{
	const chunk_datum *cd = &c->data[k];
	const char *record = h->rd->buf + at;
	uint32_t e = chunk_entity(h, c, cd->entity), tag_name;
	const chunk_special *sp;
	size_t tag_len;
	const char *tag = chunk_tag(h, c, e, cd->tag, &tag_len, &tag_name);
	uint32_t state = cd->state;

	if (c->data[k].op == SCAN_OP_STATE)
		return (records_deliver(h->rec, e, cd->time, cd->state, tag,
		    tag_len, tag_name));
	if (c->data[k].op == SCAN_OP_VALUE) {
		if (c->vals[k] != VALUE_STRING)
			return (records_deliver_value(h->rec, e, cd->time,
			    c->vals[k], NULL, 0));
		sp = &c->specials[k];
		return (records_deliver_value(h->rec, e, cd->time, VALUE_STRING,
		    record + sp->str.at, sp->str.len));
	}
	sp = &c->specials[k];
	if (sp->named != 0 &&
	    (state = chunk_named_state(h, c, sp->named - 1)) == NO_STATE)
		return (0);	/* the serial parse says which name */
	return (records_deliver_stack(h->rec, e, cd->time,
	    c->data[k].op == SCAN_OP_PUSH ? INGEST_PUSH : INGEST_POP, state,
	    NULL, 0, tag, tag_len));
}

/*
 * Takes the runs of a scanned chunk that line up with *pos, and parses
 * everything else in it here.
 */
static int
take_chunk(chunks_host *h, chunk *c, size_t *pos)
{
	size_t i, k, n = intern_count(c->names);

	if (h->checkpoint(h->ctx, *pos) != 0)
		return (-1);
	grow_array(&c->ids, &c->ids_cap, n + 1, sizeof (uint32_t));
	for (k = 0; k < n; k++)
		c->ids[k] = UNMAPPED;
	n = intern_count(c->tags);
	grow_array(&c->tag_names, &c->tag_names_cap, n + 1, sizeof (uint32_t));
	for (k = 0; k < n; k++)
		c->tag_names[k] = UNMAPPED;
	n = intern_count(c->states_named);
	grow_array(&c->state_ids, &c->state_ids_cap, n + 1, sizeof (uint32_t));
	for (k = 0; k < n; k++)
		c->state_ids[k] = UNMAPPED;
	for (i = 0; i < c->nruns; i++) {
		const chunk_run *r = &c->runs[i];

		if (r->start > *pos && h->serial(h->ctx, pos, r->start) != 0)
			return (-1);
		if (r->start != *pos)
			continue;
		if (r->ngroups > 0 && take_sorted_run(h, c, r)) {
			*pos = r->end;
			if (h->checkpoint(h->ctx, *pos) != 0)
				return (-1);
			continue;
		}
		for (k = r->first; k < r->first + r->count; k++) {
			const chunk_datum *cd = &c->data[k];
			size_t at = c->start + cd->record;

			if (!take_datum(h, c, k, at)) {
				/* Backwards in time: the serial code says so. */
				*pos = at;
				return (h->serial(h->ctx, pos, c->end));
			}
			h->threaded++;
			if ((h->threaded & 0xffff) == 0 &&
			    h->checkpoint(h->ctx, at) != 0)
				return (-1);
		}
		*pos = r->end;
	}
	return (h->serial(h->ctx, pos, c->end));
}

static void
free_chunk(chunk *c)
{
	free(c->data);
	free(c->vals);
	free(c->specials);
	free(c->runs);
	free(c->ids);
	intern_free(c->names);
	intern_free(c->tags);
	free(c->tag_names);
	intern_free(c->states_named);
	free(c->state_ids);
	free(c->groups);
	free(c->times);
	free(c->states);
	free(c->values);
	free(c->ops);
	free(c->slot_of);
	free(c->seen_in);
	free(c->short_entities.keys);
	free(c->short_entities.ids);
	free(c->short_tags.keys);
	free(c->short_tags.ids);
	free(c->short_states.keys);
	free(c->short_states.ids);
}

size_t
chunks_bytes(void)
{
	return (size_from_env("STATEMAP_CHUNK_BYTES", CHUNK_BYTES));
}

int
chunks_parse(chunks_host *h, size_t *pos, int nthreads)
{
	scanner sc;
	pthread_t *threads = xcalloc((size_t)nthreads, sizeof (pthread_t));
	int started = 0, rv = 0;
	size_t seq, i;

	memset(&sc, 0, sizeof (sc));
	sc.src = h->rd->src;
	sc.buf = h->rd->buf;
	sc.len = h->rd->len;
	sc.nstates = h->rec->cat->nstates;
	sc.bulk = h->rec->opts->data != NULL;
	sc.bulk_values = sc.bulk && h->rec->opts->value != NULL &&
	    h->rec->opts->values != NULL;
	sc.bulk_stacks = sc.bulk && h->rec->opts->nested != NULL &&
	    h->rec->opts->stack != NULL;
	sc.chunk_bytes = chunks_bytes();
	sc.window_bytes = size_from_env("STATEMAP_WINDOW_BYTES", WINDOW_BYTES);
	sc.nslots = 2 * (size_t)nthreads + 2;
	sc.slots = xcalloc(sc.nslots, sizeof (chunk));
	for (i = 0; i < sc.nslots; i++)
		sc.slots[i].seq = SIZE_MAX;
	sc.next_start = *pos;
	pthread_mutex_init(&sc.lock, NULL);
	pthread_cond_init(&sc.work, NULL);
	pthread_cond_init(&sc.ready, NULL);
	while (started < nthreads && pthread_create(&threads[started], NULL,
	    scan_thread, &sc) == 0)
		started++;

	for (seq = 0; started > 0 && rv == 0; seq++) {
		chunk *c = &sc.slots[seq % sc.nslots];

		pthread_mutex_lock(&sc.lock);
		while (!(c->seq == seq && c->done) &&
		    !(seq >= sc.next_seq && sc.next_start >= sc.len))
			pthread_cond_wait(&sc.ready, &sc.lock);
		pthread_mutex_unlock(&sc.lock);
		if (!(c->seq == seq && c->done))
			break;		/* every chunk taken */
		rv = take_chunk(h, c, pos);
		h->nchunks++;
		reader_release(h->rd, *pos);
		pthread_mutex_lock(&sc.lock);
		c->seq = SIZE_MAX;
		pthread_cond_broadcast(&sc.work);
		pthread_mutex_unlock(&sc.lock);
	}

	pthread_mutex_lock(&sc.lock);
	sc.stop = 1;
	pthread_cond_broadcast(&sc.work);
	pthread_mutex_unlock(&sc.lock);
	for (i = 0; i < (size_t)started; i++)
		pthread_join(threads[i], NULL);
	pthread_mutex_destroy(&sc.lock);
	pthread_cond_destroy(&sc.work);
	pthread_cond_destroy(&sc.ready);
	for (i = 0; i < sc.nslots; i++)
		free_chunk(&sc.slots[i]);
	free(sc.slots);
	free(threads);
	/* Whatever no chunk covered (all of it if no thread started). */
	return (rv != 0 ? -1 : h->serial(h->ctx, pos, SIZE_MAX));
}

