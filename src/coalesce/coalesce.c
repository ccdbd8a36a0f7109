#include "coalesce/coalesce.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "coalesce/coalesce_merge.h"
#include "coalesce/coalesce_rects.h"
#include "coalesce/coalesce_state.h"
#include "coalesce/taglog.h"

/* The other files of the coalescer say "none" under their own names. */
_Static_assert(RECT_NONE == COALESCE_NONE, "RECT_NONE is COALESCE_NONE");
_Static_assert(RECT_GAP == COALESCE_GAP, "RECT_GAP is COALESCE_GAP");
_Static_assert(RECT_NO_TAG == COALESCE_NO_TAG,
    "RECT_NO_TAG is COALESCE_NO_TAG");

static ent_state *
entity_get(coalesce *c, uint32_t id)
{
	if (id >= c->nents) {
		size_t old = c->ents_cap;

		grow_array(&c->ents, &c->ents_cap, (size_t)id + 1,
		    sizeof (ent_state));
		if (c->ents_cap != old) {
			memset(c->ents + old, 0,
			    (c->ents_cap - old) * sizeof (ent_state));
			if (c->dense && !dense_fits(c, c->ents_cap,
			    c->rects_cap))
				coalesce_rects_undense(c);
			if (c->dense) {
				c->totals = xrealloc(c->totals, c->ents_cap *
				    c->nstates * sizeof (uint64_t));
				memset(c->totals + old * c->nstates, 0,
				    (c->ents_cap - old) * c->nstates *
				    sizeof (uint64_t));
			} else if (!c->from_puts) {
				c->slogs = xrealloc(c->slogs,
				    c->ents_cap * sizeof (taglog));
				memset(c->slogs + old, 0, (c->ents_cap - old) *
				    sizeof (taglog));
			}
			if (c->logs != NULL) {
				c->logs = xrealloc(c->logs,
				    c->ents_cap * sizeof (taglog));
				memset(c->logs + old, 0, (c->ents_cap - old) *
				    sizeof (taglog));
			}
		}
		while (c->nents <= id) {
			c->ents[c->nents].first = COALESCE_NONE;
			c->ents[c->nents].last = COALESCE_NONE;
			c->nents++;
		}
	}
	return (&c->ents[id]);
}

/* The tag logs, made when the first tag comes. */
static void
need_logs(coalesce *c)
{
	if (c->logs == NULL)
		c->logs = xcalloc(c->ents_cap > 0 ? c->ents_cap : 1,
		    sizeof (taglog));
}

/* The reference compares times with signed bounds: time as i64 > bound. */
static int
after(uint64_t time, int64_t bound)
{
	return (bound < 0 || time > (uint64_t)bound);
}

/* ---- the interface ---- */

coalesce *
coalesce_new(uint32_t nstates, uint64_t budget, int64_t begin, int64_t end)
{
	coalesce *c = xcalloc(1, sizeof (*c));

	c->nstates = nstates;
	c->dense = 1;
	c->dense_words = DENSE_WORDS;
	c->budget = budget;
	c->begin = begin;
	c->end = end;
	c->free_list = COALESCE_NONE;
	return (c);
}

void
coalesce_free(coalesce *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; c->logs != NULL && i < c->nents; i++)
		taglog_free(&c->logs[i]);
	free(c->logs);
	for (i = 0; c->slogs != NULL && i < c->nents; i++)
		taglog_free(&c->slogs[i]);
	free(c->slogs);
	free(c->rects);
	free(c->info);
	free(c->state_time);
	free(c->ents);
	free(c->totals);
	free(c->pair_state);
	free(c->pair_time);
	free(c->pair_lo);
	free(c->heap_mem);
	free(c->heap_pos);
	taglog_sorter_free(&c->sorter);
	free(c);
}

void
coalesce_set_dense_words(coalesce *c, size_t words)
{
	c->dense_words = words;
}

int
coalesce_in_bounds(const coalesce *c, uint64_t time)
{
	return (c->end == 0 || !after(time, c->end));
}

void
coalesce_datum(coalesce *c, uint32_t id, uint64_t time, uint32_t state,
    uint32_t tag)
{
	ent_state *e;

	if (!coalesce_in_bounds(c, time))
		return;
	e = entity_get(c, id);
	e->seen = 1;
	if (tag != COALESCE_NO_TAG && c->logs == NULL)
		need_logs(c);
	if (e->has_state && after(time, c->begin)) {
		if (c->begin > 0 && e->start < (uint64_t)c->begin)
			e->start = (uint64_t)c->begin;
		coalesce_merge_append(c, id, time, 0);
	}
	e->has_state = 1;
	e->start = time;
	e->state = state;
	e->tag = tag;
	while (c->heap_len > 0 && c->set_size >= c->budget)
		coalesce_merge_trim(c);
}

/* Entities from which their states alone outgrow a core's cache. */
#define PREFETCH_ENTITIES	16384

int
coalesce_worth_prefetching(const coalesce *c)
{
	return (c->logs != NULL || !c->dense || c->nents >= PREFETCH_ENTITIES);
}

void
coalesce_prefetch(const coalesce *c, uint32_t id, int stage)
{
	const ent_state *e;

	if (id >= c->nents)
		return;
	e = &c->ents[id];
	if (stage == 0) {
		/* Both ends: an entity or its totals can straddle two lines. */
		__builtin_prefetch(e);
		__builtin_prefetch((const char *)(e + 1) - 1);
		if (c->dense) {
			__builtin_prefetch(totals_of(c, id));
			__builtin_prefetch(totals_of(c, id) + c->nstates - 1);
		} else {
			__builtin_prefetch(&c->slogs[id]);
		}
		if (c->logs != NULL)
			__builtin_prefetch(&c->logs[id]);
		return;
	}
	/* Read from lines asked for at stage 0, which have come by now. */
	if (e->last != COALESCE_NONE)
		__builtin_prefetch(&c->rects[e->last]);
	if (!c->dense && c->slogs[id].n > 0)
		__builtin_prefetch(c->slogs[id].v + c->slogs[id].n - 1, 1);
	if (c->logs != NULL && c->logs[id].v != NULL)
		__builtin_prefetch(c->logs[id].v + c->logs[id].n, 1);
}

void
coalesce_finish(coalesce *c, uint64_t last_time)
{
	uint64_t end = last_time;
	size_t id;

	c->end_used = end;
	if (c->from_puts)
		return;		/* its rectangles are final, and read as they are */
	if (c->end < 0)
		goto settle;
	if (c->end != 0 && (uint64_t)c->end < end)
		end = (uint64_t)c->end;
	c->end_used = end;
	for (id = 0; id < c->nents; id++) {
		ent_state *e = &c->ents[id];

		if (!e->has_state || e->start >= end ||
		    e->state == COALESCE_GAP)
			continue;
		if (c->begin > 0 && e->start < (uint64_t)c->begin)
			e->start = (uint64_t)c->begin;
		coalesce_merge_append(c, (uint32_t)id, end, 1);
		e->has_state = 0;
	}
settle:
	coalesce_rects_renumber(c);
	if (c->logs != NULL || !c->dense)
		coalesce_rects_settle_logs(c);
	coalesce_rects_pairs(c);
}

void
coalesce_put(coalesce *c, uint32_t id, uint64_t start, uint64_t duration,
    uint64_t count, const uint32_t *states, const uint64_t *times,
    size_t nstates, const coalesce_tag *tags, size_t ntags)
{
	ent_state *e;
	uint32_t r;
	rect *x;
	size_t i;

	/* Its times go straight where readers read them. */
	c->from_puts = 1;
	c->dense = 0;
	e = entity_get(c, id);
	r = coalesce_rects_alloc(c);
	x = &c->rects[r];
	e->seen = 1;
	c->info[r].start = start;
	c->info[r].entity = id;
	x->duration = duration;
	c->info[r].count = count_clamp(count);
	x->prev = e->last;
	x->next = COALESCE_NONE;
	grow_array(&c->pair_lo, &c->pair_lo_cap, (size_t)r + 2,
	    sizeof (size_t));
	c->pair_lo[r] = c->npairs;
	for (i = 0; i < nstates; i++) {
		if (times[i] == 0)
			continue;
		if (c->npairs == c->pairs_cap) {
			size_t cap = c->pairs_cap;

			grow_array(&c->pair_state, &cap, c->npairs + 1,
			    sizeof (uint32_t));
			grow_array(&c->pair_time, &c->pairs_cap, c->npairs + 1,
			    sizeof (uint64_t));
		}
		c->pair_state[c->npairs] = states[i];
		c->pair_time[c->npairs++] = times[i];
	}
	c->pair_lo[r + 1] = c->npairs;
	if (ntags > 0)
		need_logs(c);
	c->info[r].tag_lo = c->logs != NULL ?
	    taglog_begin_range(&c->logs[id]) : 0;
	if (ntags > UINT32_MAX)
		out_of_memory((size_t)-1);
	if (ntags > 0)
		taglog_append_range(&c->logs[id], tags, (uint32_t)ntags);
	if (e->last == COALESCE_NONE)
		e->first = r;
	else
		c->rects[e->last].next = r;
	e->last = r;
	e->nrects++;
}

uint64_t
coalesce_size(const coalesce *c)
{
	return (c->set_size);
}

uint64_t
coalesce_end(const coalesce *c)
{
	return (c->end_used);
}

uint32_t
coalesce_nentities(const coalesce *c)
{
	return ((uint32_t)c->nents);
}

uint32_t
coalesce_first(const coalesce *c, uint32_t entity)
{
	return (entity < c->nents ? c->ents[entity].first : COALESCE_NONE);
}

uint32_t
coalesce_next(const coalesce *c, uint32_t r)
{
	return (c->rects[r].next);
}

void
coalesce_get(const coalesce *c, uint32_t r, coalesce_rect *out)
{
	const rect_info *info = &c->info[r];

	out->start = info->start;
	out->duration = c->rects[r].duration;
	out->count = info->count;
	if (c->pair_lo != NULL) {
		out->states = c->pair_state + c->pair_lo[r];
		out->times = c->pair_time + c->pair_lo[r];
		out->nstates = c->pair_lo[r + 1] - c->pair_lo[r];
	} else {
		/* Not to be read yet (coalesce.h): as if it had no time. */
		out->states = NULL;
		out->times = NULL;
		out->nstates = 0;
	}
	out->ntags = tags_of(c, r);
}

void
coalesce_tags(const coalesce *c, uint32_t r, coalesce_tag **buf,
    size_t *cap)
{
	uint32_t n = tags_of(c, r);

	if (n == 0)
		return;
	grow_array(buf, cap, n, sizeof (coalesce_tag));
	taglog_read(&c->logs[c->info[r].entity], c->info[r].tag_lo,
	    c->info[r].tag_lo + n, *buf);
}

int
coalesce_seen(const coalesce *c, uint32_t entity)
{
	return (entity < c->nents && c->ents[entity].seen);
}

int
coalesce_current(const coalesce *c, uint32_t entity, uint32_t *state,
    uint32_t *tag)
{
	if (entity >= c->nents || !c->ents[entity].has_state ||
	    c->ents[entity].state == COALESCE_GAP)
		return (0);
	*state = c->ents[entity].state;
	*tag = c->ents[entity].tag;
	return (1);
}

uint64_t
coalesce_state_time(const coalesce *c, uint32_t entity, uint32_t state)
{
	uint64_t total = 0;
	uint32_t r;

	if (c->pair_lo == NULL)
		return (0);
	for (r = coalesce_first(c, entity); r != COALESCE_NONE;
	    r = c->rects[r].next) {
		/* The rectangle's states ascend: a binary search. */
		size_t lo = c->pair_lo[r], hi = c->pair_lo[r + 1];

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (c->pair_state[mid] < state)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < c->pair_lo[r + 1] && c->pair_state[lo] == state)
			total += c->pair_time[lo];
	}
	return (total);
}

void
coalesce_add_state_times(const coalesce *c, uint32_t entity, uint64_t *times)
{
	uint32_t r;
	size_t i;

	if (c->pair_lo == NULL)
		return;
	for (r = coalesce_first(c, entity); r != COALESCE_NONE;
	    r = c->rects[r].next)
		for (i = c->pair_lo[r]; i < c->pair_lo[r + 1]; i++)
			times[c->pair_state[i]] += c->pair_time[i];
}

int
coalesce_current_since(const coalesce *c, uint32_t entity, uint64_t *time)
{
	if (entity >= c->nents || !c->ents[entity].has_state ||
	    c->ents[entity].state == COALESCE_GAP)
		return (0);
	*time = c->ents[entity].start;
	return (1);
}
