/*
 * store_query.c: the store's queries (store.h): state at a time, time in
 * each state, intervals over a range, values and their numbers, stacks.
 * Each finds its place in a column by binary search, and bounds what it
 * reads from a column (store_state_in, store_tag_in).
 */
#include "store/store.h"

#include <string.h>

#include "store/store_internal.h"
#include "store/value.h"
#include "store/value_summary.h"

/* ---- searches ---- */

size_t
store_count_through(const uint64_t *times, size_t count, uint64_t t)
{
	size_t lo = 0, hi = count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (times[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

size_t
store_count_before(const uint64_t *times, size_t count, uint64_t t)
{
	size_t lo = 0, hi = count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (times[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

/* ---- intervals as the queries give them ---- */

/* The number of transitions of a column at or before t. */
static size_t
upper_bound(const column *c, uint64_t t)
{
	return (store_count_through(c->time, c->count, t));
}

static uint64_t
interval_end(const store *s, const column *c, size_t i)
{
	return (i + 1 < c->count ? c->time[i + 1] : s->end);
}

/* A range clipped to the store's bounds. */
static void
clip_range(const store *s, uint64_t *t0, uint64_t *t1)
{
	if (*t0 < s->begin)
		*t0 = s->begin;
	if (*t1 > s->end)
		*t1 = s->end;
}

/* States and tags read from a column are bounded here (store.h). */
static void
fill(const store *s, const column *c, uint32_t entity, size_t i,
    store_interval *out)
{
	out->entity = entity;
	out->state = store_state_in(c->state[i], s->nstates);
	out->tag = c->tag != NULL ? store_tag_in(c->tag[i], s->tag_limit) :
	    STORE_NONE;
	out->start = c->time[i];
	out->end = interval_end(s, c, i);
	out->depth = c->depth != NULL ? c->depth[i] : 1;
	out->value = VALUE_NONE;
}

/* A value entity's interval i (depth 0, no state nor tag). */
static void
fill_value(const store *s, const values *v, uint32_t entity, size_t i,
    store_interval *out)
{
	out->entity = entity;
	out->state = STORE_NONE;
	out->tag = STORE_NONE;
	out->start = v->time[i];
	out->end = i + 1 < v->count ? v->time[i + 1] : s->end;
	out->depth = 0;
	out->value = v->value[i];
}

/* ---- states at a time, time in each ---- */

int
store_state_at(const store *s, uint32_t entity, uint64_t t,
    store_interval *out)
{
	const column *c;
	size_t n;

	if (entity >= s->ncols || t < s->begin || t >= s->end)
		return (0);
	c = &s->cols[entity];
	n = upper_bound(c, t);
	if (n == 0)
		return (0);
	fill(s, c, entity, n - 1, out);
	return (out->end > t && out->state != STORE_GAP);
}

void
store_states_at(const store *s, uint64_t t, uint32_t *states)
{
	store_interval iv;
	uint32_t e;

	for (e = 0; e < s->ncols; e++)
		states[e] = store_state_at(s, e, t, &iv) ? iv.state :
		    STORE_NONE;
}

void
store_count_at(const store *s, uint64_t t, uint64_t *counts)
{
	store_interval iv;
	uint32_t e;

	memset(counts, 0, s->nstates * sizeof (uint64_t));
	for (e = 0; e < s->ncols; e++) {
		if (store_state_at(s, e, t, &iv))
			counts[iv.state]++;
	}
}

/*
 * Up to this many states, entity_time_in adds into two tables of its own
 * in turn, with no branch: where data come at one time, whether an
 * interval is empty is a coin's toss, and additions one after another
 * into the same state's word each wait for the last.
 */
#define LOCAL_STATES	64

static void
entity_time_in(const store *s, uint32_t entity, uint64_t t0, uint64_t t1,
    uint64_t *per_state)
{
	/* The column's fields in locals: an addition into per_state might
	 * otherwise change them, and they would be read again each time. */
	const column *c = &s->cols[entity];
	const uint64_t *time = c->time;
	const uint16_t *state = c->state;
	size_t n = c->count, i = store_count_through(time, n, t0);
	uint32_t ns = s->nstates, k;
	uint64_t end = s->end, local[2][LOCAL_STATES + 1];

	if (i > 0)
		i--;		/* the interval containing t0 */
	if (ns > LOCAL_STATES) {
		for (; i < n && time[i] < t1; i++) {
			uint64_t a = time[i] > t0 ? time[i] : t0;
			uint64_t b = i + 1 < n ? time[i + 1] : end;
			uint32_t st = store_state_in(state[i], ns);

			if (b > t1)
				b = t1;
			if (b > a && st != STORE_GAP)
				per_state[st] += b - a;
		}
		return;
	}
	memset(local, 0, sizeof (local));
	for (; i < n && time[i] < t1; i++) {
		uint64_t a = time[i] > t0 ? time[i] : t0;
		uint64_t b = i + 1 < n ? time[i + 1] : end;
		uint32_t st = state[i];

		if (b > t1)
			b = t1;
		/* No data (STORE_GAP), and out of bounds (a mapped cache
		 * entry written over: store_state_in), to their own slots. */
		st = st < ns ? st : st == STORE_GAP ? LOCAL_STATES : 0;
		local[i & 1][st] += b > a ? b - a : 0;
	}
	for (k = 0; k < ns; k++)
		per_state[k] += local[0][k] + local[1][k];
}

void
store_time_in(const store *s, uint32_t entity, uint64_t t0, uint64_t t1,
    uint64_t *per_state)
{
	uint32_t e;

	clip_range(s, &t0, &t1);
	if (t1 <= t0)
		return;
	if (entity != STORE_NONE) {
		if (entity < s->ncols)
			entity_time_in(s, entity, t0, t1, per_state);
		return;
	}
	for (e = 0; e < s->ncols; e++)
		entity_time_in(s, e, t0, t1, per_state);
}

/* ---- intervals over a range ---- */

void
store_iter_init(store_iter *it, const store *s, const uint32_t *entities,
    size_t nentities, uint64_t t0, uint64_t t1)
{
	memset(it, 0, sizeof (*it));
	it->s = s;
	it->entities = entities;
	it->nentities = entities != NULL ? nentities : s->ncols;
	it->entity = STORE_NONE;
	clip_range(s, &t0, &t1);
	it->t0 = t0;
	it->t1 = t1;
}

void
store_iter_values(store_iter *it)
{
	it->values = 1;
}

/* Moves to the next entity that has transitions; 0 when there is none. */
static int
iter_next_entity(store_iter *it)
{
	const store *s = it->s;

	while (it->next_entity < it->nentities) {
		uint32_t e = it->entities != NULL ?
		    it->entities[it->next_entity] : (uint32_t)it->next_entity;
		const column *c;
		const uint64_t *times;
		size_t i, count;

		it->next_entity++;
		if (e >= s->ncols)
			continue;
		c = &s->cols[e];
		if (c->vals != NULL) {
			if (!it->values)
				continue;
			times = c->vals->time;
			count = c->vals->count;
		} else {
			times = c->time;
			count = c->count;
		}
		if (count == 0)
			continue;
		i = store_count_through(times, count, it->t0);
		it->entity = e;
		it->in_values = c->vals != NULL;
		it->index = i > 0 ? i - 1 : 0;
		it->count = count;
		return (1);
	}
	return (0);
}

int
store_iter_next(store_iter *it, store_interval *out)
{
	const store *s = it->s;

	if (it->t1 <= it->t0)
		return (0);
	for (;;) {
		const column *c;

		if (it->entity == STORE_NONE || it->index >= it->count) {
			if (!iter_next_entity(it))
				return (0);
		}
		c = &s->cols[it->entity];
		if ((it->in_values ? c->vals->time : c->time)[it->index] >=
		    it->t1) {
			it->index = it->count;	/* done with this entity */
			continue;
		}
		if (it->in_values)
			fill_value(s, c->vals, it->entity, it->index, out);
		else
			fill(s, c, it->entity, it->index, out);
		it->index++;
		if (out->start < it->t0)
			out->start = it->t0;
		if (out->end > it->t1)
			out->end = it->t1;
		/* No data (STORE_GAP) is no interval. */
		if (out->end > out->start && out->state != STORE_GAP)
			return (1);
	}
}

/* ---- values ---- */

int
store_value_at(const store *s, uint32_t entity, uint64_t t,
    store_interval *out)
{
	const values *v;
	size_t n;

	if (entity >= s->ncols || (v = s->cols[entity].vals) == NULL ||
	    t < s->begin || t >= s->end)
		return (0);
	n = store_count_through(v->time, v->count, t);
	if (n == 0)
		return (0);
	fill_value(s, v, entity, n - 1, out);
	return (out->end > t);
}

/* Below this many intervals a query adds them up without a summary. */
#define SUMMARY_WORTH	256

/* Adds value i over its interval clipped to [t0, t1). */
static void
value_clipped(const store *s, const values *v, size_t i, uint64_t t0,
    uint64_t t1, value_stats *st)
{
	uint64_t a = v->time[i], b = i + 1 < v->count ? v->time[i + 1] :
	    s->end;

	if (a < t0)
		a = t0;
	if (b > t1)
		b = t1;
	if (b > a)
		value_stats_add(st, v->value[i], b - a);
}

/*
 * How many of times[0..count) are before t (strict) or at or before it,
 * as store_count_before or store_count_through say, searched from p:
 * doubling steps forward, then halves between the last two probes.  If
 * the answer is below p, a search of the whole.
 */
static size_t
count_from(const uint64_t *times, size_t count, uint64_t t, size_t p,
    int strict)
{
	size_t lo = p, hi, step = 1;

	if (p > count || (p > 0 && (strict ? times[p - 1] >= t :
	    times[p - 1] > t)))
		return (strict ? store_count_before(times, count, t) :
		    store_count_through(times, count, t));
	/* Every time in [0, lo) counts; find hi, the first that does not. */
	for (;;) {
		hi = lo + step - 1;
		if (hi >= count) {
			hi = count;
			break;
		}
		if (strict ? times[hi] >= t : times[hi] > t)
			break;
		lo = hi + 1;
		step *= 2;
	}
	return (lo + (strict ? store_count_before(times + lo, hi - lo, t) :
	    store_count_through(times + lo, hi - lo, t)));
}

/*
 * The stats of values a (holding t0) to b (the last before t1) over
 * [t0, t1): the ends clipped, those between whole.
 */
static void
stats_between(const store *s, const values *v, size_t a, size_t b,
    uint64_t t0, uint64_t t1, value_stats *st)
{
	const summary *sum;
	size_t i;

	value_clipped(s, v, a, t0, t1, st);
	if (b == a)
		return;
	/* Those between lie whole in [t0, t1), their ends fixed. */
	if (b - a > SUMMARY_WORTH && (sum = store_values_summary(v,
	    st->ints)) != NULL)
		summary_add(sum, v->time, v->value, a + 1, b, st);
	else {
		/* Added up in a copy: the compiler keeps it in registers,
		 * not knowing the columns do not overlap *st. */
		value_stats acc = *st;

		for (i = a + 1; i < b; i++)
			value_stats_add(&acc, v->value[i],
			    v->time[i + 1] - v->time[i]);
		*st = acc;
	}
	value_clipped(s, v, b, t0, t1, st);
}

/*
 * The values of a value entity, or NULL; [t0, t1) clipped to the
 * bounds, NULL if nothing is left.
 */
static const values *
stats_values(const store *s, uint32_t entity, uint64_t *t0, uint64_t *t1)
{
	const values *v;

	if (entity >= s->ncols || (v = s->cols[entity].vals) == NULL ||
	    v->count == 0)
		return (NULL);
	clip_range(s, t0, t1);
	return (*t1 > *t0 ? v : NULL);
}

void
store_value_stats(const store *s, uint32_t entity, uint64_t t0, uint64_t t1,
    value_stats *st)
{
	size_t from = 0;

	store_value_stats_from(s, entity, t0, t1, &from, st);
}

void
store_value_stats_from(const store *s, uint32_t entity, uint64_t t0,
    uint64_t t1, size_t *from, value_stats *st)
{
	const values *v = stats_values(s, entity, &t0, &t1);
	size_t a, b;

	if (v == NULL)
		return;
	/* a: the interval holding t0 (or the first); b: the last before t1. */
	a = *from == 0 ? store_count_through(v->time, v->count, t0) :
	    count_from(v->time, v->count, t0, *from, 0);
	a = a > 0 ? a - 1 : 0;
	*from = a;
	b = count_from(v->time, v->count, t1, a, 1);
	if (b == 0 || b - 1 < a)
		return;
	stats_between(s, v, a, b - 1, t0, t1, st);
}

/* ---- stacks ---- */

uint32_t
store_stack_at(const store *s, uint32_t entity, uint64_t t,
    store_frame *frames, uint32_t max)
{
	store_interval iv;
	const column *c;
	size_t i;
	uint32_t depth, k;

	if (!store_state_at(s, entity, t, &iv))
		return (0);
	c = &s->cols[entity];
	i = store_count_through(c->time, c->count, t) - 1;
	depth = c->depth != NULL ? c->depth[i] : 1;
	/* Down the links from the top: each one is an earlier interval. */
	for (k = depth; k > 0; k--) {
		if (k <= max) {
			frames[k - 1].state = c->state[i];
			frames[k - 1].tag = c->tag != NULL ? c->tag[i] :
			    STORE_NONE;
		}
		if (k == 1)
			break;
		if (c->below[i] >= i)
			break;		/* never: links go back in time */
		i = c->below[i];
	}
	return (depth);
}
