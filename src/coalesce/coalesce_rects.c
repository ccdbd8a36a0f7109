/*
 * coalesce_rects.c: the coalescer's arrays (coalesce_state.h): a new
 * rectangle, an entity's tag log compacted, and at the end the arrays
 * renumbered in the order readers walk them and every log settled.
 */
#include <stdlib.h>
#include <string.h>

#include "base/threads.h"
#include "base/util.h"
#include "coalesce/coalesce_rects.h"

uint32_t
coalesce_rects_alloc(coalesce *c)
{
	uint32_t r;

	if (c->free_list != RECT_NONE) {
		r = c->free_list;
		c->free_list = c->rects[r].next;
	} else {
		size_t old = c->rects_cap;

		if (c->nrects >= RECT_NONE - 1)
			abort();
		grow_array(&c->rects, &c->rects_cap, c->nrects + 1,
		    sizeof (rect));
		if (c->rects_cap != old) {
			c->info = xrealloc(c->info,
			    c->rects_cap * sizeof (rect_info));
			if (c->dense && !dense_fits(c, c->ents_cap,
			    c->rects_cap))
				coalesce_rects_undense(c);
			if (c->dense)
				c->state_time = xrealloc(c->state_time,
				    c->rects_cap * c->nstates *
				    sizeof (uint64_t));
			c->heap_pos = xrealloc(c->heap_pos,
			    c->rects_cap * sizeof (uint32_t));
			memset(c->info + old, 0,
			    (c->rects_cap - old) * sizeof (rect_info));
		}
		r = (uint32_t)c->nrects++;
	}
	c->heap_pos[r] = RECT_NONE;
	return (r);
}

/*
 * Moves the times per state from the dense arrays to state logs, for
 * good (coalesce_state.h): each rectangle's times, the difference of its
 * totals and the next one's (or its entity's), become its range of its
 * entity's log, settled; the open state, not yet in any, goes to the
 * log when it closes.  Once, at most DENSE_WORDS of work.
 */
void
coalesce_rects_undense(coalesce *c)
{
	taglog_pair *run = xmalloc(((size_t)c->nstates + 1) *
	    sizeof (taglog_pair));
	size_t id;

	c->slogs = xcalloc(c->ents_cap > 0 ? c->ents_cap : 1,
	    sizeof (taglog));
	for (id = 0; id < c->nents; id++) {
		taglog *l = &c->slogs[id];
		uint32_t r;

		for (r = c->ents[id].first; r != RECT_NONE;
		    r = c->rects[r].next) {
			uint32_t next = c->rects[r].next, s, n = 0;
			const uint64_t *t = states_of(c, r);
			const uint64_t *to = next != RECT_NONE ?
			    states_of(c, next) : totals_of(c, (uint32_t)id);

			for (s = 0; s < c->nstates; s++) {
				if (to[s] == t[s])
					continue;
				run[n].tag = s;
				run[n++].time = to[s] - t[s];
			}
			c->info[r].state_lo = l->n;
			taglog_append_range(l, run, n);
		}
	}
	free(run);
	free(c->state_time);
	free(c->totals);
	c->state_time = NULL;
	c->totals = NULL;
	c->dense = 0;
}

/*
 * Compacts an entity's tag log, or its state log: each rectangle's range
 * sorted, summed and moved down, first to last (a range's end is read
 * before the next range moves).  A held entry stays held, the last
 * range's.
 */
void
coalesce_rects_compact(coalesce *c, uint32_t id, int states,
    taglog_sorter *sorter)
{
	taglog *l = states ? &c->slogs[id] : &c->logs[id];
	uint32_t r, to = 0, last = c->ents[id].last;

	for (r = c->ents[id].first; r != RECT_NONE; r = c->rects[r].next) {
		uint32_t *lo = states ? &c->info[r].state_lo :
		    &c->info[r].tag_lo;
		uint32_t hi = states ? state_hi(c, r) : tag_hi(c, r);
		uint32_t from = *lo;

		*lo = to;
		to += taglog_settle_range(l, from, hi, to, sorter);
	}
	taglog_cut(l, to, last == RECT_NONE ? to : states ?
	    c->info[last].state_lo : c->info[last].tag_lo);
}

/*
 * Entities' rectangle lists walked side by side when renumbering: a
 * walk is a chain of loads that each wait for the one before, so one
 * list at a time would wait on memory at every rectangle.
 */
#define RENUMBER_LANES	16

/*
 * An entity's rectangles, renumbered in order into info and (dense)
 * times: each one's totals taken from the next one's (the entity's, for
 * the last), in ascending order, so a next one's totals are read before
 * they change.
 */
static void
totals_to_times(const coalesce *c, uint32_t id, rect_info *info,
    uint64_t *times)
{
	const ent_state *e = &c->ents[id];
	size_t n, i, k, first = e->first;

	if (e->first == RECT_NONE || c->from_puts)
		return;
	n = e->nrects;
	for (i = first; i < first + n; i++) {
		uint64_t next_count = i + 1 < first + n ? info[i + 1].count :
		    e->count;

		info[i].count = count_clamp(next_count - info[i].count);
		if (times != NULL) {
			const uint64_t *next = i + 1 < first + n ?
			    &times[(i + 1) * c->nstates] : totals_of(c, id);
			uint64_t *t = &times[i * c->nstates];

			for (k = 0; k < c->nstates; k++)
				t[k] = next[k] - t[k];
		}
	}
}

/*
 * Gives the rectangles new numbers in the order readers walk them, each
 * entity's list in time order, entity after entity, and drops the freed
 * ones: after merging, a list hops all over the arrays, and the writers
 * walk every list two or three times.  Sequential, those walks run at
 * the speed of memory instead of waiting for it at each step.  In order,
 * a rectangle's totals are followed by its right neighbour's, and become
 * its times per state and count (see coalesce_state.h).
 */
void
coalesce_rects_renumber(coalesce *c)
{
	size_t live = 0, cap, id, next_ent = 0, to;
	uint32_t lane_rect[RENUMBER_LANES];
	size_t lane_to[RENUMBER_LANES];
	uint32_t *renum;
	rect *rects;
	rect_info *info;
	uint64_t *times = NULL;
	uint32_t *pos;
	int k, active = 0, dense = c->dense;

	for (id = 0; id < c->nents; id++)
		live += c->ents[id].nrects;
	cap = live > 0 ? live : 1;
	renum = xmalloc(c->nrects * sizeof (uint32_t));
	rects = xmalloc(cap * sizeof (rect));
	info = xmalloc(cap * sizeof (rect_info));
	if (dense)
		times = xmalloc(cap * c->nstates * sizeof (uint64_t));
	pos = xmalloc(cap * sizeof (uint32_t));

	/* Each lane copies one entity's list to where that entity begins. */
	for (k = 0; k < RENUMBER_LANES; k++)
		lane_rect[k] = RECT_NONE;
	to = 0;
	for (;;) {
		for (k = 0; k < RENUMBER_LANES; k++) {
			uint32_t r = lane_rect[k];
			size_t n;

			while (r == RECT_NONE && next_ent < c->nents) {
				r = c->ents[next_ent].first;
				lane_to[k] = to;
				to += c->ents[next_ent++].nrects;
				active += r != RECT_NONE;
			}
			if (r == RECT_NONE)
				continue;
			n = lane_to[k]++;
			renum[r] = (uint32_t)n;
			rects[n] = c->rects[r];
			info[n] = c->info[r];
			pos[n] = c->heap_pos[r];
			if (dense)
				memcpy(&times[n * c->nstates], states_of(c, r),
				    c->nstates * sizeof (uint64_t));
			lane_rect[k] = c->rects[r].next;
			active -= lane_rect[k] == RECT_NONE;
		}
		if (active == 0 && next_ent >= c->nents)
			break;
	}

	/* The links, the lists' ends and the set's entries follow. */
	for (to = 0; to < live; to++) {
		if (rects[to].prev != RECT_NONE)
			rects[to].prev = renum[rects[to].prev];
		if (rects[to].next != RECT_NONE)
			rects[to].next = renum[rects[to].next];
	}
	for (id = 0; id < c->nents; id++) {
		if (c->ents[id].first != RECT_NONE) {
			c->ents[id].first = renum[c->ents[id].first];
			c->ents[id].last = renum[c->ents[id].last];
		}
	}
	for (to = 0; to < c->heap_len; to++)
		c->heap[to].rect = renum[c->heap[to].rect];
	for (id = 0; id < c->nents; id++)
		totals_to_times(c, (uint32_t)id, info, times);

	free(renum);
	free(c->rects);
	free(c->info);
	free(c->state_time);
	free(c->heap_pos);
	c->rects = rects;
	c->info = info;
	c->state_time = times;
	c->heap_pos = pos;
	c->nrects = live;
	c->rects_cap = cap;
	c->free_list = RECT_NONE;
}

/*
 * Every log compacted, so that each rectangle's tags (and states, when
 * not dense) are one sorted run.  Entities' logs and rectangles are their own, so they are
 * settled on every core, in jobs of neighbouring entities, each with a
 * sorter of its own: with many tags this came after the last datum, on
 * one core while the other had nothing to do.
 */
#define SETTLE_JOBS	16

typedef struct settle_job {
	coalesce *c;
	size_t from, to;	/* entities */
} settle_job;

static void
settle_logs(void *arg)
{
	const settle_job *job = arg;
	taglog_sorter sorter;
	size_t id;

	memset(&sorter, 0, sizeof (sorter));
	for (id = job->from; id < job->to; id++) {
		if (job->c->logs != NULL) {
			taglog_flush(&job->c->logs[id]);
			coalesce_rects_compact(job->c, (uint32_t)id, 0,
			    &sorter);
		}
		if (!job->c->dense) {
			taglog_flush(&job->c->slogs[id]);
			coalesce_rects_compact(job->c, (uint32_t)id, 1,
			    &sorter);
		}
	}
	taglog_sorter_free(&sorter);
}

void
coalesce_rects_settle_logs(coalesce *c)
{
	settle_job jobs[SETTLE_JOBS];
	size_t i;

	for (i = 0; i < SETTLE_JOBS; i++) {
		jobs[i].c = c;
		jobs[i].from = c->nents * i / SETTLE_JOBS;
		jobs[i].to = c->nents * (i + 1) / SETTLE_JOBS;
	}
	threads_run(settle_logs, jobs, SETTLE_JOBS, sizeof (settle_job));
}

/*
 * After renumbering (and settling, when not dense): every rectangle's
 * states with time, in rectangle order, to pair_state and pair_time,
 * and the arrays they came from freed.  Dense times are moved down in
 * place, in one pass, to be pair_time (no entry is written past the one
 * read), and pair_state is made as large as they might need (its pages
 * untouched past what they do need) and cut to size; a log's entries
 * are copied out, entity by entity, each log freed once read.
 */
void
coalesce_rects_pairs(coalesce *c)
{
	size_t r, id, i, n = 0;

	c->pair_lo = xmalloc((c->nrects + 1) * sizeof (size_t));
	c->pair_lo_cap = c->nrects + 1;
	c->npairs = 0;
	if (c->dense) {
		uint64_t *t = c->state_time;

		c->pair_state = xmalloc((c->nrects * c->nstates + 1) *
		    sizeof (uint32_t));
		for (r = 0; r < c->nrects; r++) {
			c->pair_lo[r] = c->npairs;
			for (i = 0; i < c->nstates; i++) {
				uint64_t v = t[r * c->nstates + i];

				if (v == 0)
					continue;
				c->pair_state[c->npairs] = (uint32_t)i;
				t[c->npairs++] = v;
			}
		}
		c->pair_time = t;
		c->state_time = NULL;
	} else {
		for (id = 0; id < c->nents; id++)
			n += c->slogs[id].n;
		c->pair_state = xmalloc((n + 1) * sizeof (uint32_t));
		c->pair_time = xmalloc((n + 1) * sizeof (uint64_t));
		for (id = 0; id < c->nents; id++) {
			taglog *l = &c->slogs[id];
			uint32_t x;

			for (x = c->ents[id].first; x != RECT_NONE;
			    x = c->rects[x].next) {
				uint32_t k, hi = state_hi(c, x);

				c->pair_lo[x] = c->npairs;
				for (k = c->info[x].state_lo; k < hi; k++) {
					taglog_pair p = taglog_entry(l, k);

					if (p.time == 0)
						continue;
					c->pair_state[c->npairs] = p.tag;
					c->pair_time[c->npairs++] = p.time;
				}
			}
			taglog_free(l);
		}
		free(c->slogs);
		c->slogs = NULL;
	}
	c->pair_lo[c->nrects] = c->npairs;
	c->pair_state = xrealloc(c->pair_state,
	    (c->npairs + 1) * sizeof (uint32_t));
	c->pair_time = xrealloc(c->pair_time,
	    (c->npairs + 1) * sizeof (uint64_t));
	c->pairs_cap = c->npairs + 1;
	free(c->totals);
	c->totals = NULL;
}
