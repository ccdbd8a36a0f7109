/*
 * store_values.c: value entities (store.h): their columns of times and
 * values, grown as columns of states are, and their summaries
 * (value_summary.h).
 */
#include "store/store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/util.h"
#include "store/store_internal.h"
#include "store/value.h"
#include "store/value_summary.h"

values *
store_values_of(store *s, column *c)
{
	if (c->vals == NULL) {
		if (c->count > 0)
			store_bug("store_append_value to a state entity");
		c->vals = xcalloc(1, sizeof (values));
		s->heap_bytes += sizeof (values);
		s->special++;
	}
	return (c->vals);
}

/*
 * Room for need values, and their memory faulted in, as columns of states
 * have theirs (store_column_reserve, store_column_populate): sized by
 * estimate in the arena's huge pages once the input says where the
 * column is heading.
 * A counter trace writes 16 bytes a value: faulted in 4 KiB at a time,
 * its load took 7% longer (bench/README.md).
 */
static void
values_reserve(store *s, values *v, size_t need)
{
	if (need > v->cap) {
		int by_estimate;
		size_t cap;
		void *value = v->value;

		cap = store_new_capacity(s, v->cap, v->count, need,
		    VALUE_BYTES, &by_estimate);
		store_grow_columns(s, &v->time, &value, sizeof (sm_value),
		    v->count, v->cap, cap, by_estimate, v->in_arena);
		v->value = value;
		v->in_arena = by_estimate;
		v->cap = cap;
		v->populated = v->count;
	}
	if (need > v->populated) {
		size_t to = store_populate_to(v->populated, v->cap, need);

		store_populate(v->time, v->populated * sizeof (uint64_t),
		    to * sizeof (uint64_t));
		store_populate(v->value, v->populated * sizeof (sm_value),
		    to * sizeof (sm_value));
		v->populated = to;
	}
}

void
store_append_value(store *s, uint32_t entity, uint64_t time, sm_value value)
{
	values *v;

	if (store_refuse_on_disk(s))
		return;
	v = store_values_of(s, store_column_of(s, entity));
	if (v->count == v->populated)
		values_reserve(s, v, v->count + 1);
	v->time[v->count] = time;
	v->value[v->count] = value;
	v->count++;
	s->values_total++;
}

void
store_append_values(store *s, uint32_t entity, const uint64_t *time,
    const sm_value *value, size_t n)
{
	values *v;

	if (store_refuse_on_disk(s) || n == 0)
		return;
	v = store_values_of(s, store_column_of(s, entity));
	if (v->count + n > v->populated)
		values_reserve(s, v, v->count + n);
	memcpy(v->time + v->count, time, n * sizeof (uint64_t));
	memcpy(v->value + v->count, value, n * sizeof (sm_value));
	v->count += n;
	s->values_total += n;
}

/* ---- what they hold ---- */

size_t
store_value_count(const store *s, uint32_t entity)
{
	return (entity < s->ncols && s->cols[entity].vals != NULL ?
	    s->cols[entity].vals->count : 0);
}

const uint64_t *
store_value_times(const store *s, uint32_t entity)
{
	return (entity < s->ncols && s->cols[entity].vals != NULL ?
	    s->cols[entity].vals->time : NULL);
}

const sm_value *
store_values(const store *s, uint32_t entity)
{
	return (entity < s->ncols && s->cols[entity].vals != NULL ?
	    s->cols[entity].vals->value : NULL);
}

uint64_t
store_values_total(const store *s)
{
	return (s->values_total);
}

/* ---- their summaries ---- */

/*
 * Trims a value entity's columns and makes ready for their summary
 * (value_summary.h), which store_values_summary makes when a query first
 * wants it: a load that never asks for statistics never pays for it (a
 * tenth of loading a counter trace), and its memory is counted from now,
 * so the store's size does not change under a query.  A summary depends on
 * nothing but the values, so a later store_finish (new bounds) keeps it
 * unless values were added since.
 */
void
store_values_finish(store *s, values *v)
{
	summary *sum = atomic_load_explicit(&v->sum, memory_order_relaxed);

	if (v->count < v->cap && !v->in_arena) {
		v->time = xrealloc(v->time, v->count * sizeof (uint64_t));
		v->value = xrealloc(v->value, v->count * sizeof (sm_value));
		s->heap_bytes -= (v->cap - v->count) * VALUE_BYTES;
		v->cap = v->populated = v->count;
	}
	if (sum != NULL && v->summed == v->count)
		return;
	summary_free(sum);
	atomic_store_explicit(&v->sum, NULL, memory_order_relaxed);
	s->heap_bytes -= v->sum_bytes;
	v->summed = v->count;
	v->sum_bytes = summary_memory_for(v->count);
	s->heap_bytes += v->sum_bytes;
}

static pthread_mutex_t summary_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The summary of a finished value entity, made now if it is not yet:
 * queries run on any thread (a served trace's answers, a picture's
 * strips), so the first to want it makes it under a lock and publishes
 * it; the others wait for it or find it made.  NULL if the values grew
 * since store_finish.  The summary is a cache of the values, so making
 * it through a const store changes nothing a reader can see but speed.
 */
const summary *
store_values_summary(const values *cv, int ints)
{
	values *v = (values *)cv;
	summary *sum = atomic_load_explicit(&v->sum, memory_order_acquire);

	if (sum != NULL || v->summed != v->count)
		return (sum);
	pthread_mutex_lock(&summary_lock);
	sum = atomic_load_explicit(&v->sum, memory_order_relaxed);
	if (sum == NULL) {
		sum = summary_build(v->time, v->value, v->count, ints);
		atomic_store_explicit(&v->sum, sum, memory_order_release);
	}
	pthread_mutex_unlock(&summary_lock);
	return (sum);
}
