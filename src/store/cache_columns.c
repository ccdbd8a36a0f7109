/*
 * cache_columns.c: an entry's columns read (cache.h): times checked in
 * order where they lie, in the mapping; states and tags copied to private
 * memory and checked there; nested and value entities copied, checked and
 * replayed into the store.  Every byte is hashed in file order as it goes.
 */
#include "store/cache.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/runlimit.h"
#include "base/util.h"
#include "store/cache_internal.h"
#include "store/catalog.h"
#include "store/spill.h"
#include "store/store.h"
#include "store/value.h"

#define CHUNK		8192	/* transitions checked and hashed at a time */

/* ---- the checksum ---- */

/* Hashes the file from r->off up to at (padding) from the mapping. */
void
cache_hash_to(entry_reader *r, uint64_t at)
{
	XXH3_64bits_update(&r->hash, r->base + r->off, (size_t)(at - r->off));
	r->off = at;
}

/* Hashes a part of the file from a private copy of it. */
void
cache_hash_copy(entry_reader *r, uint64_t at, const void *copy, size_t len)
{
	cache_hash_to(r, at);
	XXH3_64bits_update(&r->hash, copy, len);
	r->off = at + len;
}

/* ---- plain columns: checked, states and tags copied ---- */

/*
 * A column of times, left in the mapping: hashed, and checked to be in
 * order, a chunk at a time while the chunk is in the cache, the last
 * within what the start allows (as the ingest checks each).
 */
static int
check_times(entry_reader *r, uint64_t at, size_t n)
{
	const uint64_t *t = (const uint64_t *)(r->base + at);
	uint64_t last = 0;
	size_t i, k;
	int bad = 0;

	cache_hash_to(r, at);
	for (i = 0; i < n; i += CHUNK) {
		size_t m = n - i < CHUNK ? n - i : CHUNK;

		XXH3_64bits_update(&r->hash, t + i, m * 8);
		bad |= t[i] < last;
		for (k = 1; k < m; k++)
			bad |= t[i + k] < t[i + k - 1];
		last = t[i + m - 1];
		if (bad)
			return (-1);
	}
	if (last > r->time_limit)
		return (-1);
	r->off = at + n * 8;
	return (0);
}

/*
 * Whether any of a whole chunk of states or tags is out of range: loops
 * of a fixed count, which compilers make vector code of at -O2.
 */
static int
states_bad(const uint16_t *s, uint32_t nstates)
{
	size_t k;
	int bad = 0;

	for (k = 0; k < CHUNK; k++)
		bad |= s[k] >= nstates && s[k] != STORE_GAP;
	return (bad);
}

static int
tags_bad(const uint32_t *t, uint32_t ntags)
{
	size_t k;
	int bad = 0;

	for (k = 0; k < CHUNK; k++)
		bad |= t[k] >= ntags && t[k] != STORE_NONE;
	return (bad);
}

/*
 * A column of states copied to private memory, where they are checked
 * and hashed: values from the mapping could change after the check, and
 * queries index arrays by them.
 */
static int
copy_states(entry_reader *r, uint64_t at, size_t n, uint16_t *to,
    uint32_t nstates)
{
	size_t i, k;
	int bad = 0;

	cache_hash_to(r, at);
	for (i = 0; i < n; i += CHUNK) {
		size_t m = n - i < CHUNK ? n - i : CHUNK;

		memcpy(to + i, r->base + at + i * 2, m * 2);
		if (m == CHUNK) {
			bad = states_bad(to + i, nstates);
		} else {
			for (k = 0; k < m; k++)
				bad |= to[i + k] >= nstates &&
				    to[i + k] != STORE_GAP;
		}
		if (bad)
			return (-1);
		XXH3_64bits_update(&r->hash, to + i, m * 2);
	}
	r->off = at + n * 2;
	return (0);
}

/* The same for tags: each a tag id, or STORE_NONE. */
static int
copy_tags(entry_reader *r, uint64_t at, size_t n, uint32_t *to, uint32_t ntags)
{
	size_t i, k;
	int bad = 0;

	cache_hash_to(r, at);
	for (i = 0; i < n; i += CHUNK) {
		size_t m = n - i < CHUNK ? n - i : CHUNK;

		memcpy(to + i, r->base + at + i * 4, m * 4);
		if (m == CHUNK) {
			bad = tags_bad(to + i, ntags);
		} else {
			for (k = 0; k < m; k++)
				bad |= to[i + k] >= ntags &&
				    to[i + k] != STORE_NONE;
		}
		if (bad)
			return (-1);
		XXH3_64bits_update(&r->hash, to + i, m * 4);
	}
	r->off = at + n * 4;
	return (0);
}

/* A part of the file copied to private memory and hashed there. */
static void
copy_hashed(entry_reader *r, uint64_t at, void *to, size_t len)
{
	cache_hash_to(r, at);
	memcpy(to, r->base + at, len);
	XXH3_64bits_update(&r->hash, to, len);
	r->off = at + len;
}

/* In order, and the last within what the start allows. */
static int
times_in_order(const entry_reader *r, const uint64_t *t, size_t n)
{
	size_t i;
	int bad = 0;

	for (i = 1; i < n; i++)
		bad |= t[i] < t[i - 1];
	return (!bad && (n == 0 || t[n - 1] <= r->time_limit));
}

/* ---- nested and value entities: replayed ---- */

/*
 * A nested entity, copied out, checked and replayed into the store
 * (which makes its links down the stacks again): each depth must be one
 * that a plain datum (1), a push on a state (one deeper) or a pop (one
 * shallower, from 2 or more) leads to, or 0 for the end of its data
 * (STORE_GAP, which has depth 0 and no other).
 */
static int
replay_nested(entry_reader *r, const col_desc *c, const catalog *cat, store *st,
    uint32_t entity)
{
	size_t n = (size_t)c->count, i;
	uint64_t *time = xmalloc(n * sizeof (uint64_t));
	uint16_t *state = xmalloc(n * sizeof (uint16_t));
	uint16_t *depth = xmalloc(n * sizeof (uint16_t));
	uint32_t *tag = c->tag_off != 0 ? xmalloc(n * sizeof (uint32_t)) :
	    NULL;
	uint32_t now;
	int ok = 0;

	copy_hashed(r, c->time_off, time, n * sizeof (uint64_t));
	if (!times_in_order(r, time, n) ||
	    copy_states(r, c->state_off, n, state, cat->nstates) != 0 ||
	    (tag != NULL &&
	    copy_tags(r, c->tag_off, n, tag, catalog_ntags(cat)) != 0))
		goto out;
	copy_hashed(r, c->depth_off, depth, n * sizeof (uint16_t));
	for (i = 0; i < n; i++) {
		uint32_t d = depth[i];

		/* The store's own depth: what store_append_depth checks. */
		now = store_depth_now(st, entity);
		if (state[i] == STORE_GAP ? d != 0 : !(d == 1 ||
		    (now >= 1 && d == now + 1) || (now >= 2 && d + 1 == now)))
			goto out;
		store_append_depth(st, entity, time[i], state[i],
		    tag != NULL ? tag[i] : STORE_NONE, d);
	}
	ok = 1;
out:
	free(time);
	free(state);
	free(depth);
	free(tag);
	return (ok ? 0 : -1);
}

/*
 * A value entity, copied out and checked: times in order, each value a
 * number, none, or a string the catalog has.
 */
static int
replay_values(entry_reader *r, const col_desc *c, const catalog *cat, store *st,
    uint32_t entity)
{
	size_t n = (size_t)c->vcount, i;
	uint64_t *time = xmalloc(n * sizeof (uint64_t));
	sm_value *value = xmalloc(n * sizeof (sm_value));
	uint32_t nstrings = intern_count(cat->value_strings);
	int bad = 0;

	copy_hashed(r, c->vtime_off, time, n * sizeof (uint64_t));
	copy_hashed(r, c->value_off, value, n * sizeof (sm_value));
	for (i = 0; i < n; i++) {
		sm_value v = value[i];

		if (catalog_value_ints(cat, entity))
			continue;	/* any word: an integer or null */
		if (value_is_string(v))
			bad |= value_string_id(v) >= nstrings ||
			    (v >> 32) != (VALUE_STRING >> 32);
		else if (value_is_number(v))
			bad |= isnan(value_to_double(v));
		else
			bad |= !value_is_none(v);
	}
	bad |= !times_in_order(r, time, n);
	if (!bad)
		store_append_values(st, entity, time, value, n);
	free(time);
	free(value);
	return (bad ? -1 : 0);
}

/*
 * Gives back the pages wholly within [from, to) of the mapping, once
 * replayed into the store: nothing reads them again, and a trace of
 * nested or value entities would otherwise hold both its entry and the
 * store made from it.
 */
static void
drop_replayed(const entry_reader *r, uint64_t from, uint64_t to)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)r->base + (uintptr_t)from;
	uintptr_t b = (uintptr_t)r->base + (uintptr_t)to;

	a = (a + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	b &= ~((uintptr_t)page - 1);
	if (b > a)
		(void) madvise((void *)a, (size_t)(b - a), MADV_DONTNEED);
}

/*
 * A nested or value entity's columns (c->kind), replayed into the store,
 * then their pages given back.  -1 if they are not sound.
 */
static int
replay_column(entry_reader *r, const col_desc *c, const catalog *cat, store *st,
    uint32_t entity)
{
	uint64_t from = c->kind == STORE_NESTED ? c->time_off : c->vtime_off;

	if (c->kind == STORE_VALUES && c->vcount == 0)
		return (0);
	if ((c->kind == STORE_NESTED ? replay_nested(r, c, cat, st, entity) :
	    replay_values(r, c, cat, st, entity)) != 0)
		return (-1);
	drop_replayed(r, from, r->off);
	return (0);
}

/* ---- the columns ---- */

/* Round up to 8 bytes: the copies keep their columns 8-aligned. */
#define ALIGN8(n)	(((n) + 7) & ~(uint64_t)7)

/*
 * Copies bigger than the memory budget (spill.h) go to an unnamed
 * temporary file of this process's own, mapped shared: no other process
 * can open it by name to change what was checked, and the kernel pages
 * it in and out like the entry itself.  Its blocks are allocated first,
 * so that a write through the mapping cannot meet a full disk (which
 * would be SIGBUS).  NULL if that cannot be had: then memory after all.
 */
static char *
copies_on_disk(cache_entry *e, uint64_t bytes)
{
	char why[SPILL_WHY];
	void *map;
	int fd;

	if (bytes > SIZE_MAX || bytes > (uint64_t)INT64_MAX ||
	    (fd = spill_temp_file(why)) < 0)
		return (NULL);
	if (posix_fallocate(fd, 0, (off_t)bytes) != 0) {
		(void) close(fd);
		return (NULL);
	}
	map = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0);
	(void) close(fd);
	if (map == MAP_FAILED)
		return (NULL);
	e->copies_map = map;
	e->copies_len = (size_t)bytes;
	return (map);
}

/*
 * The columns: checked against the layout, states and tags copied, every
 * byte hashed in file order.  Fills st and e->copies (or the others).
 */
int
cache_read_columns(entry_reader *r, const header *h, const col_desc *cols,
    const catalog *cat, store *st, cache_entry *e)
{
	uint32_t ntags = catalog_ntags(cat);
	uint64_t i, bytes = 0;
	char *copies, *next;
	const char *why;

	for (i = 0; i < h->ncols; i++) {
		const col_desc *c = &cols[i];

		/* Each kind with the columns it may have, and no others. */
		if (c->kind == STORE_STATES ? c->vcount != 0 :
		    c->kind == STORE_NESTED ? c->vcount != 0 || c->count == 0 :
		    c->kind == STORE_VALUES ? c->count != 0 : 1)
			return (-1);
		if (c->kind != STORE_STATES)
			continue;
		bytes += ALIGN8(c->count * 2);
		if (c->tag_off != 0)
			bytes += ALIGN8(c->count * 4);
	}
	/* Big copies in huge pages, which fill without a fault per 4 KiB. */
	if (bytes > spill_budget() &&
	    (copies = copies_on_disk(e, bytes)) != NULL) {
		/* copies_map, made read-only once filled */
	} else if (bytes >= ((uint64_t)2 << 20)) {
		e->copies_arena = arena_new();
		copies = arena_alloc(e->copies_arena, (size_t)bytes);
	} else {
		copies = e->copies = xmalloc(bytes > 0 ? (size_t)bytes : 1);
	}
	next = copies;
	for (i = 0; i < h->ncols; i++) {
		const col_desc *c = &cols[i];
		size_t n = (size_t)c->count;
		uint16_t *state;
		uint32_t *tag = NULL;

		/*
		 * Replayed columns are memory a script's limit counts: past
		 * it, the entry is left for a fresh load, which stops with
		 * the reason.
		 */
		if (c->kind != STORE_STATES) {
			if (replay_column(r, c, cat, st, (uint32_t)i) != 0 ||
			    runlimit_check(store_memory(st), &why) != 0)
				return (-1);
			continue;
		}
		if (n == 0)
			continue;
		state = (uint16_t *)next;
		next += ALIGN8(c->count * 2);
		if (c->tag_off != 0) {
			tag = (uint32_t *)next;
			next += ALIGN8(c->count * 4);
		}
		if (check_times(r, c->time_off, n) != 0 ||
		    copy_states(r, c->state_off, n, state, cat->nstates) != 0 ||
		    (tag != NULL &&
		    copy_tags(r, c->tag_off, n, tag, ntags) != 0))
			return (-1);
		store_adopt(st, (uint32_t)i,
		    (const uint64_t *)(r->base + c->time_off), state, tag, n);
	}
	if (e->copies_map != NULL)
		(void) mprotect(e->copies_map, e->copies_len, PROT_READ);
	cache_hash_to(r, h->file_size);
	return (0);
}
