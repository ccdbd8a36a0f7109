/*
 * chunks.c: the calling thread's side of the threaded parse (chunks.h).
 * It starts the scanning threads (chunks_scan.c), takes their chunks in
 * file order, and of each hands records the runs that start where its
 * own position is, sorted runs of an entity at once; everything else it
 * parses serially.
 */
#include "ingest/chunks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ingest/chunks_internal.h"
#include "ingest/records_deliver.h"

#define CHUNK_BYTES	((size_t)4 << 20)
#define UNMAPPED	(UINT32_MAX - 1)

/*
 * A chunk with at least this many tag names (entity names) looks up at
 * once those the catalog has (take_chunk); with fewer, each on first use
 * costs no more.
 */
#define MANY_NAMES	256
#define NO_STATE	UINT32_MAX	/* a name the trace has no state for */

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

/* The trace's id for a chunk's entity number, on its first use. */
static __attribute__((noinline)) uint32_t
chunk_entity_lookup(chunks_host *h, chunk *c, uint32_t local)
{
	size_t len;
	const char *name = intern_name(c->names, local, &len);

	c->ids[local] = records_entity(h->rec, name, len);
	return (c->ids[local]);
}

/*
 * The trace's id for a chunk's entity number (the catalog's id itself if
 * known to the scan), UNMAPPED if not yet looked up.
 */
static inline uint32_t
chunk_entity_mapped(const chunk *c, uint32_t local)
{
	return (local & CHUNK_KNOWN ? local & ~CHUNK_KNOWN : c->ids[local]);
}

/* The same, looked up on first use: inline once known. */
static inline uint32_t
chunk_entity(chunks_host *h, chunk *c, uint32_t local)
{
	uint32_t id = chunk_entity_mapped(c, local);

	return (id != UNMAPPED ? id : chunk_entity_lookup(h, c, local));
}

/*
 * The catalog's id for a datum's tag by its chunk_datum tag (not 0), the
 * id itself if known to the scan, UNMAPPED if not yet looked up.
 */
static inline uint32_t
chunk_tag_mapped(const chunk *c, uint32_t tag)
{
	return ((tag - 1) & CHUNK_KNOWN ? (tag - 1) & ~CHUNK_KNOWN :
	    c->tag_names[tag - 1]);
}

/*
 * The text of a datum's tag by its chunk_datum tag (not 0): the catalog's
 * name if known to the scan, else the chunk's.
 */
static const char *
chunk_tag_text(const chunks_host *h, const chunk *c, uint32_t tag,
    size_t *len)
{
	if ((tag - 1) & CHUNK_KNOWN)
		return (intern_name(h->rec->cat->tag_names,
		    (tag - 1) & ~CHUNK_KNOWN, len));
	return (intern_name(c->tags, tag - 1, len));
}

/* The catalog's id for a chunk's tag name, on its first use. */
static uint32_t
chunk_tag_name(chunks_host *h, chunk *c, uint32_t tag, const char *text,
    size_t len)
{
	uint32_t name = chunk_tag_mapped(c, tag);

	if (name == UNMAPPED)
		name = c->tag_names[tag - 1] = catalog_tag_name(h->rec->cat,
		    text, len);
	return (name);
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
	text = chunk_tag_text(h, c, tag, len);
	if (entity != CATALOG_NO_ENTITY && !h->rec->opts->ignore_tags)
		*name = chunk_tag_name(h, c, tag, text, *len);
	return (text);
}

/* Takes datum k of a chunk, a tag definition read whole. */
static int
take_definition(chunks_host *h, chunk *c, size_t k)
{
	const chunk_datum *cd = &c->data[k];
	const chunk_special *sp = &c->specials[k];
	size_t len;
	const char *tag = chunk_tag_text(h, c, cd->tag, &len);

	return (records_deliver_tag_definition(h->rec, cd->state, tag, len,
	    h->rec->opts->ignore_tags ? CATALOG_NO_TAG :
	    chunk_tag_name(h, c, cd->tag, tag, len), c->defs + sp->str.at,
	    sp->str.len));
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
	    (r->kind == RUN_VALUES ? records_takes_numbers(h->rec, e,
	    grp->numbers) :
	    !grp->stacked && records_takes_plain(h->rec, e)));
}

/*
 * How many groups ahead take_sorted_run asks for what an entity's group
 * will touch: its records while checking the groups, then, delivering
 * them, its store column's record (BULK_AHEAD) and the ends of the
 * column's arrays (half as many), which the record, then in hand, says
 * where.  (The column asked for while checking was gone by delivery.)
 */
#define BULK_AHEAD	32

/* The entity of group g + ahead of run r, or CATALOG_NO_ENTITY
 * (UNMAPPED for one the catalog does not have yet). */
static inline uint32_t
group_ahead(const chunk *c, const chunk_run *r, size_t g, size_t ahead)
{
	return (g + ahead < r->group + r->ngroups ? chunk_entity_mapped(c,
	    c->groups[g + ahead].entity) : CATALOG_NO_ENTITY);
}

/*
 * Takes a sorted run in bulk, all or nothing: returns 0, having taken
 * nothing, if an entity's group does not fit (group_fits), or has a time
 * past the records' time_limit (an entity left out too): then one by one
 * finds which datum does not, and says why.
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
		uint32_t e = chunk_entity(h, c, grp->entity), a;

		a = group_ahead(c, r, g, BULK_AHEAD);
		if (a != CATALOG_NO_ENTITY && a != UNMAPPED)
			records_prefetch_entity(h->rec, a);
		/* A group's times are in order: the last is the latest. */
		if (c->times[grp->first + grp->count - 1] >
		    h->rec->time_limit ||
		    (e != CATALOG_NO_ENTITY && !group_fits(h, c, r, grp, e)))
			return (0);
	}
	for (g = r->group; g < r->group + r->ngroups; g++) {
		const chunk_group *grp = &c->groups[g];
		const uint64_t *times = c->times + grp->first;
		uint32_t e = chunk_entity_mapped(c, grp->entity), a;

		a = group_ahead(c, r, g, BULK_AHEAD);
		if (a != CATALOG_NO_ENTITY && a != UNMAPPED)
			records_prefetch_bulk(h->rec, a, 0);
		a = group_ahead(c, r, g, BULK_AHEAD / 2);
		if (a != CATALOG_NO_ENTITY && a != UNMAPPED)
			records_prefetch_bulk(h->rec, a, 1);

		if (grp->entity & CHUNK_KNOWN)
			h->known_entities += grp->count;
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
	const char *record = h->rd->buf + at, *tag;
	uint32_t e, tag_name, state = cd->state;
	const chunk_special *sp;
	size_t tag_len;

	if (cd->op == CHUNK_OP_DEFINITION)
		return (take_definition(h, c, k));
	h->known_entities += (cd->entity & CHUNK_KNOWN) != 0;
	h->known_tags += cd->tag != 0 && ((cd->tag - 1) & CHUNK_KNOWN) != 0;
	e = chunk_entity(h, c, cd->entity);
	tag = chunk_tag(h, c, e, cd->tag, &tag_len, &tag_name);
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
 * With many tag names, a datum's tag is a miss in the chunk's list of
 * them and then one in the catalog's tag ids (catalog_tag_id_named):
 * datum k + TAG_AHEAD's entry in the list is asked for, and datum
 * k + TAG_AHEAD / 2's tag id, so that each is there when its datum is
 * taken.  On a trace of 100,000 tag names it takes a sixth off the
 * classic command's time.
 */
#define TAG_AHEAD	16

static void
prefetch_tags(const chunks_host *h, const chunk *c, size_t k, size_t end)
{
	const chunk_datum *cd;
	uint32_t name;

	if (k + TAG_AHEAD < end && (cd = &c->data[k + TAG_AHEAD])->tag != 0) {
		if ((cd->tag - 1) & CHUNK_KNOWN) {
			intern_prefetch(h->rec->cat->tag_names,
			    (cd->tag - 1) & ~CHUNK_KNOWN);
		} else {
			__builtin_prefetch(&c->tag_names[cd->tag - 1]);
			intern_prefetch(c->tags, cd->tag - 1);
		}
	}
	if (k + TAG_AHEAD / 2 < end &&
	    (cd = &c->data[k + TAG_AHEAD / 2])->tag != 0 &&
	    cd->op == SCAN_OP_STATE &&
	    (name = chunk_tag_mapped(c, cd->tag)) != UNMAPPED)
		catalog_tag_prefetch(h->rec->cat, cd->state, name);
}

/* How many data ahead a chunk of many entities asks for their records. */
#define ENTITY_AHEAD	8

/*
 * Always inlined: a function that does nothing but prefetch is taken for
 * one without effect, and gcc drops a call to it (a prefetch written in
 * the caller's body stays).
 */
static inline __attribute__((always_inline)) void
prefetch_entity(const chunks_host *h, const chunk *c, size_t k, size_t end)
{
	const chunk_datum *cd;
	uint32_t id;

	if (k + ENTITY_AHEAD < end &&
	    (cd = &c->data[k + ENTITY_AHEAD])->op == SCAN_OP_STATE &&
	    (id = chunk_entity_mapped(c, cd->entity)) != UNMAPPED &&
	    id != CATALOG_NO_ENTITY)
		records_prefetch_entity(h->rec, id);
}

/*
 * Takes the runs of a scanned chunk that line up with *pos, and parses
 * everything else in it here.
 */
static int
take_chunk(chunks_host *h, chunk *c, size_t *pos)
{
	size_t i, k, n = intern_count(c->names);
	int many_tags, many_names = n >= MANY_NAMES;
	/* Many names the scan found known are as many to prefetch. */
	int known_entities = c->known_entities != NULL &&
	    c->known_entities->from >= MANY_NAMES;
	int known_tags = c->known_tags != NULL &&
	    c->known_tags->from >= MANY_NAMES;

	if (h->checkpoint(h->ctx, *pos) != 0)
		return (-1);
	grow_array(&c->ids, &c->ids_cap, n + 1, sizeof (uint32_t));
	/* Likewise the entities the catalog has: a trace of 100,000
	 * entities names tens of thousands a chunk. */
	if (many_names)
		catalog_find_entities(h->rec->cat, c->names, c->ids);
	else
		for (k = 0; k < n; k++)
			c->ids[k] = INTERN_NONE;
	for (k = 0; k < n; k++)
		if (c->ids[k] == INTERN_NONE)
			c->ids[k] = UNMAPPED;
	n = intern_count(c->tags);
	grow_array(&c->tag_names, &c->tag_names_cap, n + 1, sizeof (uint32_t));
	/* The chunk's tag names the catalog has already, found at once (a
	 * trace of many tag names would miss on each, one datum at a time);
	 * the others on first use, which adds them. */
	many_tags = n >= MANY_NAMES && !h->rec->opts->ignore_tags;
	if (many_tags)
		catalog_find_tag_names(h->rec->cat, c->tags, c->tag_names);
	else
		for (k = 0; k < n; k++)
			c->tag_names[k] = INTERN_NONE;
	for (k = 0; k < n; k++)
		if (c->tag_names[k] == INTERN_NONE)
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

			if (many_tags || known_tags)
				prefetch_tags(h, c, k, r->first + r->count);
			if (many_names || known_entities)
				prefetch_entity(h, c, k, r->first + r->count);
			if (!take_datum(h, c, k, at)) {
				/* Backwards in time: the serial code says so. */
				*pos = at;
				return (h->serial(h->ctx, pos, c->end));
			}
			if (cd->op == CHUNK_OP_DEFINITION)
				h->definitions++;
			else if ((++h->threaded & 0xffff) == 0 &&
			    h->checkpoint(h->ctx, at) != 0)
				return (-1);
		}
		*pos = r->end;
	}
	return (h->serial(h->ctx, pos, c->end));
}

/*
 * What the calling thread knows of a catalog table's names, to decide
 * when to freeze them anew for the scans (known_names.h).
 */
typedef struct known_growth {
	const intern *names;	/* the catalog's table */
	size_t before;		/* its names before the chunk being taken */
	size_t data;		/* data taken since the last table was made */
} known_growth;

/*
 * After chunk seq, of ndata data, is taken: makes the scans a new table
 * of what names holds (kt, under the scanner's lock; chunks_internal.h)
 * if that is worth its making.  It is when the last is in force, the
 * names have grown by an eighth since it was made (the scans would
 * otherwise miss what the catalog has), the chunk's data named mostly
 * names the catalog had before it (a trace of ever new names would find
 * nothing), and as many data have been taken since the last table as it
 * has names: making one costs a probe a name, so all of them together
 * cost at most a probe a datum.
 */
static void
renew_known(scanner *sc, known_tables *kt, known_growth *g, size_t seq,
    size_t ndata)
{
	size_t n = intern_count(g->names);
	size_t had = kt->cur != NULL ? kt->cur->from : 0;
	known_names *k, *old;

	g->data += ndata;
	if (n > CHUNK_KNOWN - 1)
		n = CHUNK_KNOWN - 1;	/* ids must stay below the flag */
	if ((kt->cur != NULL && seq < kt->cur_from) || n <= had + had / 8 ||
	    (n - g->before) * 2 > ndata || g->data < n)
		return;
	k = known_names_make(g->names, (uint32_t)n);
	g->data = 0;
	pthread_mutex_lock(&sc->lock);
	old = kt->prev;
	kt->prev = kt->cur;
	kt->prev_from = kt->cur_from;
	kt->cur = k;
	kt->cur_from = seq + sc->nslots;
	pthread_mutex_unlock(&sc->lock);
	known_names_drop(old);
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
	free(c->defs);
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
	known_names_drop(c->known_entities);
	known_names_drop(c->known_tags);
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
	known_growth entities = { h->rec->cat->entities, 0, 0 };
	known_growth tags = { h->rec->cat->tag_names, 0, 0 };

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
	    chunks_scan_thread, &sc) == 0)
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
		entities.before = intern_count(entities.names);
		tags.before = intern_count(tags.names);
		rv = take_chunk(h, c, pos);
		h->nchunks++;
		renew_known(&sc, &sc.known_entities, &entities, seq, c->ndata);
		if (!h->rec->opts->ignore_tags)
			renew_known(&sc, &sc.known_tags, &tags, seq, c->ndata);
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
	known_names_drop(sc.known_entities.cur);
	known_names_drop(sc.known_entities.prev);
	known_names_drop(sc.known_tags.cur);
	known_names_drop(sc.known_tags.prev);
	free(sc.slots);
	free(threads);
	/* Whatever no chunk covered (all of it if no thread started). */
	return (rv != 0 ? -1 : h->serial(h->ctx, pos, SIZE_MAX));
}
