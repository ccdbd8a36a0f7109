/*
 * chunks_scan.c: the scanning threads.  Each takes the next chunk of the
 * file (cut just past a line end) into a free slot, reads it through a
 * window of its own, and keeps the runs of data it scanned, each datum's
 * names numbered in the chunk, for chunks.c to take in file order.
 */
#include "ingest/chunks_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "base/json.h"
#include "base/util.h"
#include "ingest/records_deliver.h"

#define MAX_RECORD	UINT16_MAX	/* longer ones: the serial parse's */

typedef struct window {
	char *buf;
	size_t size;		/* of buf */
	size_t len;		/* bytes in it */
	size_t base;		/* the input offset of buf[0] */
	int end;		/* it reaches the end of the input */
} window;

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
 * The chunk's number for a name in names (an entity's or a tag's), or the
 * catalog's id for it with CHUNK_KNOWN if known has it.  Names are mostly
 * short (thread and CPU ids, pids), and a name of up to 8 bytes with no
 * NUL in it (a plain string has none) is one 64-bit number: one multiply
 * and a compare find it, where the names table hashes and compares bytes.
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

/*
 * A name of 1 to 8 bytes as known_names_key makes it: with 8 bytes to
 * read before end, on a little-endian machine, one load and a mask.
 */
static inline uint64_t
short_key(const char *name, size_t len, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t key;

	if (end - name >= 8) {
		memcpy(&key, name, sizeof (key));
		return (key & low_bytes[len]);
	}
#else
	(void)end;
#endif
	return (known_names_key(name, len));
}

static uint32_t
short_name_id(intern *names, short_names *t, const known_names *known,
    const char *name, size_t len, const char *end)
{
	uint64_t key;
	uint32_t id;
	size_t i;

	if (len == 0 || len > 8)
		return (intern_add(names, name, len, NULL));
	key = short_key(name, len, end);
	if (known != NULL &&
	    (id = known_names_find(known, key, len)) != KNOWN_NONE)
		return (id | CHUNK_KNOWN);
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
		    c->states_named, &c->short_states, NULL, d->str,
		    d->str_len, end);
		return;
	}
	sp->str.at = (uint32_t)(d->str - record);
	sp->str.len = (uint32_t)d->str_len;
}

/*
 * A known table this large (in slots) is past the core's cache: a name's
 * probe is a miss, so keep_run asks for the slots of a run's names all
 * at once before it looks any up, and their misses overlap.
 */
#define KNOWN_FAR	((size_t)1 << 14)

static inline void
prefetch_known(const known_names *known, const char *name, size_t len,
    const char *end)
{
	if (known != NULL && known->mask >= KNOWN_FAR && len - 1 < 8)
		__builtin_prefetch(&known->slots[known_names_home(known,
		    short_key(name, len, end))]);
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
	if ((c->known_entities != NULL &&
	    c->known_entities->mask >= KNOWN_FAR) ||
	    (c->known_tags != NULL && c->known_tags->mask >= KNOWN_FAR))
		for (k = 0; k < n; k++) {
			prefetch_known(c->known_entities, run[k].entity,
			    run[k].entity_len, end);
			if (run[k].tag != NULL)
				prefetch_known(c->known_tags, run[k].tag,
				    run[k].tag_len, end);
		}
	for (k = 0; k < n; k++, cd++) {
		const scanned *d = &run[k];
		const char *record = w->buf + d->at;

		if (d->op != SCAN_OP_STATE)
			keep_special(c, first + k, d, record, end);
		cd->op = (uint8_t)d->op;
		cd->time = d->time;
		cd->record = base + (uint32_t)d->at;
		cd->entity = short_name_id(c->names, &c->short_entities,
		    c->known_entities, d->entity, d->entity_len, end);
		cd->state = (uint16_t)d->state;
		cd->tag = d->tag == NULL ? 0 : 1 + short_name_id(c->tags,
		    &c->short_tags, c->known_tags, d->tag, d->tag_len, end);
	}
	c->ndata = first + n;
}

/*
 * Keeps the record at pos, parsed as v, if it is a tag definition the
 * parse would take (records_scan_tag_definition), as a datum of op
 * CHUNK_OP_DEFINITION, its members written to defs (opened on the first,
 * into the chunk's defs; *defs_len bytes so far): 1, or 0.
 */
static int
keep_definition(const scanner *sc, chunk *c, const window *w, size_t pos,
    const json_value *v, FILE **defs, size_t *defs_len)
{
	const json_value *tag;
	uint32_t state;
	size_t k = c->ndata, at;
	chunk_datum *cd;

	if (*defs == NULL &&
	    (*defs = open_memstream(&c->defs, defs_len)) == NULL)
		return (0);
	at = *defs_len;
	if (at > UINT32_MAX / 2 ||
	    !records_scan_tag_definition(v, sc->nstates, &state, &tag, *defs))
		return (0);
	if (fflush(*defs) != 0 || *defs_len - at > UINT32_MAX / 2 ||
	    state > UINT16_MAX)
		return (0);	/* the parse reads it again */
	if (k >= c->data_cap)
		grow_array(&c->data, &c->data_cap, k + 1, sizeof (chunk_datum));
	if (k >= c->specials_cap)
		grow_array(&c->specials, &c->specials_cap, k + 1,
		    sizeof (chunk_special));
	cd = &c->data[k];
	cd->op = CHUNK_OP_DEFINITION;
	cd->time = 0;
	cd->record = (uint32_t)(w->base - c->start + pos);
	cd->entity = 0;
	cd->state = (uint16_t)state;
	cd->tag = 1 + short_name_id(c->tags, &c->short_tags, c->known_tags,
	    tag->str, tag->len, tag->str + tag->len);
	c->specials[k].str.at = (uint32_t)at;
	c->specials[k].str.len = (uint32_t)(*defs_len - at);
	c->ndata = k + 1;
	return (1);
}

static void
fresh_names(intern **tab)
{
	if (*tab == NULL)
		*tab = intern_new();
	else
		intern_clear(*tab);
}

/*
 * How many data scan_quick_run reads at once: a run of them costs one
 * call, not one each, and they stay in the core's cache.
 */
#define QUICK_RUN	32

/* Proposes the runs of data in a chunk (chunks.h). */
static void
scan_chunk(const scanner *sc, chunk *c, window *w, json_arena *arena)
{
	size_t pos = 0, run_start = SIZE_MAX, first = 0, defs_len = 0;
	FILE *defs = NULL;

	c->ndata = c->nruns = 0;
	free(c->defs);
	c->defs = NULL;
	/* A slot's tables are emptied, not made anew: a chunk of tens of
	 * thousands of names would otherwise grow them from nothing and
	 * fault their memory in again, chunk after chunk. */
	fresh_names(&c->names);
	fresh_names(&c->tags);
	fresh_names(&c->states_named);
	short_names_reset(&c->short_entities);
	short_names_reset(&c->short_tags);
	short_names_reset(&c->short_states);
	w->base = c->start;
	w->len = 0;
	if (!window_slide(sc, w, &pos))
		return;
	for (;;) {
		scanned d, run[QUICK_RUN];
		const json_value *v;
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
		/* Anything else but a tag definition ends the run; step
		 * over it if we can. */
		json_arena_reset(arena);
		next = pos;
		v = json_parse_value(arena, w->buf, w->len, &next, &jerr);
		if (v != NULL &&
		    keep_definition(sc, c, w, pos, v, &defs, &defs_len)) {
			pos = next;
			continue;
		}
		add_run(c, run_start, w->base + pos, first);
		if (v == NULL)
			break;	/* the rest is for the serial parse to judge */
		pos = next;
		run_start = SIZE_MAX;	/* where the next record is */
		first = c->ndata;
	}
	add_run(c, run_start, w->base + pos, first);
	if (defs != NULL)
		fclose(defs);
}

/* Scans a chunk, then sorts its runs for a consumer that takes bulk. */
static void
scan_and_sort(const scanner *sc, chunk *c, window *w, json_arena *arena)
{
	scan_chunk(sc, c, w, arena);
	chunks_sort_runs(sc, c);
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
 * (bench/README.md).  Linux gives each thread its own nice value;
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

/* The table of kt for chunk seq, held (chunks_internal.h), or NULL. */
static known_names *
known_for(const known_tables *kt, size_t seq)
{
	if (kt->cur != NULL && kt->cur_from <= seq)
		return (known_names_hold(kt->cur));
	if (kt->prev != NULL && kt->prev_from <= seq)
		return (known_names_hold(kt->prev));
	return (NULL);
}

void *
chunks_scan_thread(void *arg)
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
		known_names_drop(c->known_entities);
		known_names_drop(c->known_tags);
		c->known_entities = known_for(&sc->known_entities, c->seq);
		c->known_tags = known_for(&sc->known_tags, c->seq);
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
