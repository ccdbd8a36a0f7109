/*
 * store_disk.c: a store past its budget on disk (store.h, spill.h): when it
 * goes, how its columns come back mapped, and store_finish, which does that
 * and trims what stayed in memory.
 */
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/fatal.h"
#include "base/util.h"
#include "store/spill.h"
#include "store/store_internal.h"

/* Tags go to a spill as they are: its "no tag" must be the store's. */
_Static_assert(SPILL_NO_TAG == STORE_NONE, "spill.h's SPILL_NO_TAG");

/* ---- going to disk ---- */

/*
 * Moves every transition to a spill (spill.h) and frees the columns;
 * from now on appends go there, and store_finish maps them back.  The
 * spill's buffer is allocated first but written only after the columns
 * are freed, so that the pages of the two are never resident together.
 * Returns 1 on disk (or lost on the way: s->lost), 0 if there is no disk
 * to go to (s->no_disk; the store stays in memory, and s->why says why).
 */
static int
go_to_disk(store *s)
{
	size_t n = s->ncols + 1, e;
	const uint64_t **time = xcalloc(n, sizeof (*time));
	const uint16_t **state = xcalloc(n, sizeof (*state));
	const uint32_t **tag = xcalloc(n, sizeof (*tag));
	size_t *count = xcalloc(n, sizeof (*count));
	spill *sp = spill_new(s->budget, s->why);

	if (sp == NULL) {
		s->no_disk = 1;
		free(time);
		free(state);
		free(tag);
		free(count);
		return (0);
	}
	for (e = 0; e < s->ncols; e++) {
		time[e] = s->cols[e].time;
		state[e] = s->cols[e].state;
		tag[e] = s->cols[e].tag;
		count[e] = s->cols[e].count;
	}
	if (spill_write_columns(sp, (uint32_t)s->ncols, time, state, tag,
	    count, s->why) != 0)
		s->lost = 1;
	free(time);
	free(state);
	free(tag);
	free(count);
	for (e = 0; e < s->ncols; e++) {
		column *c = &s->cols[e];

		if (!c->borrowed) {
			if (!c->in_arena) {
				free(c->time);
				free(c->state);
			}
			free(c->tag);
		}
		memset(c, 0, sizeof (*c));
	}
	arena_free(s->arena);
	s->arena = NULL;
	store_drop_none(s);
	s->none_counted = 0;
	s->heap_bytes = 0;
	s->spill = sp;
	return (1);
}

/*
 * The columns, written by spill_merge_file, mapped back: the store uses
 * them in place.  On failure the store is left empty and lost.
 */
static void
map_back(store *s)
{
	spill *sp = s->spill;
	uint64_t len = 0, off = 0;
	char *map = NULL;
	size_t e;
	int fd = -1;

	s->spill = NULL;
	if (!s->lost && spill_merge_file(sp, (uint32_t)s->ncols, &fd, &len,
	    s->why) != 0)
		s->lost = 1;
	if (!s->lost && len > 0) {
		map = len <= SIZE_MAX ? mmap(NULL, (size_t)len, PROT_READ,
		    MAP_SHARED, fd, 0) : MAP_FAILED;
		if (map == MAP_FAILED) {
			snprintf(s->why, sizeof (s->why), "cannot map a "
			    "temporary file: %s", strerror(errno));
			s->lost = 1;
			map = NULL;
		}
	}
	if (fd >= 0)
		(void) close(fd);
	if (map != NULL) {
		s->map = map;
		s->map_len = (size_t)len;
		s->map_watch = fatal_watch_map(map, (size_t)len,
		    "a temporary file");
	}
	for (e = 0; e < s->ncols; e++) {
		column *c = &s->cols[e];
		size_t n = s->lost ? 0 : (size_t)spill_count(sp, (uint32_t)e);

		memset(c, 0, sizeof (*c));
		if (n == 0)
			continue;
		/* The layout spill.h gives: arrays 8-aligned, in this order. */
		c->time = (uint64_t *)(map + off);
		off += ((uint64_t)n * 8 + 7) & ~(uint64_t)7;
		c->state = (uint16_t *)(map + off);
		off += ((uint64_t)n * 2 + 7) & ~(uint64_t)7;
		if (spill_tagged(sp, (uint32_t)e)) {
			c->tag = (uint32_t *)(map + off);
			off += ((uint64_t)n * 4 + 7) & ~(uint64_t)7;
		}
		c->count = c->cap = c->populated = n;
		c->borrowed = 1;
	}
	if (s->lost)
		s->total = 0;
	s->tag_limit = spill_tag_limit(sp);
	s->mapped = 1;
	spill_free(sp);
}

/* ---- room in a column, or disk ---- */

/*
 * Room for need transitions in a column of the store's own.  Returns 1
 * if instead the store went to disk (the column would have taken it past
 * its budget), 0 when there is room.
 */
int
store_column_reserve(store *s, column *c, size_t need)
{
	int by_estimate;
	size_t cap;
	void *state = c->state;

	cap = store_new_capacity(s, c->cap, c->count, need, TIME_STATE,
	    &by_estimate);
	/* Nested and value entities stay in memory: spill.c knows neither. */
	if (!s->no_disk && s->special == 0 && store_memory(s) + cap *
	    (TIME_STATE + (c->tag != NULL ? sizeof (uint32_t) : 0)) >
	    s->budget && go_to_disk(s))
		return (1);
	store_grow_columns(s, &c->time, &state, sizeof (uint16_t), c->count,
	    c->cap, cap, by_estimate, c->in_arena);
	c->state = state;
	if (c->tag != NULL) {
		c->tag = store_grown(c->tag, c->count * sizeof (uint32_t),
		    cap * sizeof (uint32_t), NULL, 0);
		s->heap_bytes += (cap - c->cap) * sizeof (uint32_t);
	}
	if (c->depth != NULL) {
		c->depth = xrealloc(c->depth, cap * sizeof (uint16_t));
		c->below = xrealloc(c->below, cap * sizeof (uint32_t));
		s->heap_bytes += (cap - c->cap) * NESTED_BYTES;
	}
	c->in_arena = by_estimate;
	c->cap = cap;
	c->populated = c->count;	/* the copies faulted theirs in */
	return (0);
}

/* ---- finishing ---- */

void
store_finish(store *s, uint64_t begin, uint64_t end)
{
	size_t i, longest = 1;

	s->begin = begin;
	s->end = end;
	if (s->spill != NULL)
		map_back(s);
	for (i = 0; i < s->ncols; i++) {
		column *c = &s->cols[i];

		if (c->tag == NULL && c->count > longest)
			longest = c->count;
		if (c->count == c->cap || c->count == 0 || c->borrowed ||
		    c->in_arena)
			continue;
		c->time = xrealloc(c->time, c->count * sizeof (uint64_t));
		c->state = xrealloc(c->state, c->count * sizeof (uint16_t));
		s->heap_bytes -= (c->cap - c->count) * TIME_STATE;
		if (c->tag != NULL) {
			c->tag = xrealloc(c->tag, c->count * sizeof (uint32_t));
			s->heap_bytes -= (c->cap - c->count) *
			    sizeof (uint32_t);
		}
		if (c->depth != NULL) {
			c->depth = xrealloc(c->depth,
			    c->count * sizeof (uint16_t));
			c->below = xrealloc(c->below,
			    c->count * sizeof (uint32_t));
			s->heap_bytes -= (c->cap - c->count) * NESTED_BYTES;
		}
		c->cap = c->populated = c->count;
	}
	for (i = 0; i < s->ncols; i++) {
		if (s->cols[i].vals != NULL)
			store_values_finish(s, s->cols[i].vals);
	}
	/*
	 * One shared column of "no tag" for every untagged entity; for
	 * mapped columns, which may be far larger than memory, made when
	 * first asked for (store_tags).
	 */
	if (s->none_counted)
		s->heap_bytes -= s->none_len * sizeof (uint32_t);
	store_drop_none(s);
	s->none_want = longest;
	s->none_counted = !s->mapped;
	if (!s->mapped) {
		store_make_none(s);
		s->heap_bytes += s->none_len * sizeof (uint32_t);
	}
}
