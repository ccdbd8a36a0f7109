/*
 * records_metadata.c: the metadata, possibly over several objects, each
 * field once: "start", "states" (their values, names and colours), and
 * "title", "host" and "entityKind".
 */
#include "ingest/records.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/color.h"
#include "base/duration.h"
#include "base/intern.h"
#include "base/util.h"
#include "ingest/records_internal.h"
#include "store/store.h"

static int
set_string(records *r, const json_value *v, char **slot, const char *what)
{
	if (records_expect_type(r, v, JSON_STRING, what) != 0)
		return (-1);
	free(*slot);
	*slot = xstrndup(v->str, v->len);
	return (0);
}

static int
do_start(records *r, const json_value *v)
{
	const json_value *sec, *nsec;
	uint64_t s, ns;
	int64_t limit;

	if (records_expect_type(r, v, JSON_ARRAY, "\"start\"") != 0)
		return (-1);
	if (v->len != 2) {
		return (records_fail(r, v->offset, "\"start\" must be "
		    "[seconds, nanoseconds] but has %zu elements", v->len));
	}
	sec = v->child;
	nsec = sec->next;
	if (sec->type != JSON_NUMBER || !json_number_u64(sec, &s))
		return (records_fail(r, sec->offset, "\"start\" seconds must "
		    "be a non-negative integer"));
	if (nsec->type != JSON_NUMBER || !json_number_u64(nsec, &ns))
		return (records_fail(r, nsec->offset, "\"start\" nanoseconds "
		    "must be a non-negative integer"));
	/*
	 * Times count from the start, and whoever stacks or merges traces
	 * adds the two: both must be a number of ns below 2^63.
	 */
	if ((limit = catalog_time_limit(s, ns)) < 0)
		return (records_fail(r, v->offset, "\"start\" [%llu, %llu] "
		    "is past 2^63 - 1 ns since the epoch (in the year 2262): "
		    "a start and the times after it are 64-bit nanoseconds",
		    (unsigned long long)s, (unsigned long long)ns));
	if ((uint64_t)limit < r->opts->bound) {
		char b[32];

		return (records_fail(r, v->offset, "the end bound %s after "
		    "\"start\" [%llu, %llu] is past 2^63 - 1 ns since the "
		    "epoch: the files stacked under this one cannot be placed "
		    "in its window", duration_format(r->opts->bound, b,
		    sizeof (b)), (unsigned long long)s,
		    (unsigned long long)ns));
	}
	r->time_limit = (uint64_t)limit;
	r->cat->start_sec = s;
	r->cat->start_nsec = ns;
	r->cat->have_start = 1;
	return (0);
}

static int
do_states(records *r, const json_value *v)
{
	catalog *cat = r->cat;
	const json_value *m, *f;
	catalog_state *states;
	size_t n = v->len;
	char q[96], q2[96];

	if (records_expect_type(r, v, JSON_OBJECT, "\"states\"") != 0)
		return (-1);
	if (n == 0)
		return (records_fail(r, v->offset, "\"states\" is empty: a "
		    "statemap needs at least one state"));
	/* So that any trace can be loaded into a store. */
	if (n > STORE_MAX_STATES)
		return (records_fail(r, v->offset, "\"states\" defines %zu "
		    "states; at most %d are supported", n, STORE_MAX_STATES));
	states = xcalloc(n, sizeof (catalog_state));
	cat->states = states;
	cat->nstates = (uint32_t)n;
	/* Names in file order, to find one given twice; then by value. */
	cat->state_names = intern_new();
	for (m = v->child; m != NULL; m = m->next) {
		const json_value *value = NULL, *colour = NULL;
		uint64_t val;

		if (records_expect_type(r, m, JSON_OBJECT, "a state") != 0)
			return (-1);
		for (f = m->child; f != NULL; f = f->next) {
			if (records_key_is(f, "value", 5) && value == NULL) {
				value = f;
			} else if (records_key_is(f, "color", 5) &&
			    colour == NULL) {
				colour = f;
			} else {
				return (records_fail(r, f->key_offset,
				    "unexpected member %s in state %s: a state "
				    "has \"value\" and \"color\"",
				    records_quoted(q, sizeof (q), f->key,
				    f->key_len), records_quoted(q2, sizeof (q2),
				    m->key, m->key_len)));
			}
		}
		if (value == NULL)
			return (records_fail(r, m->offset, "state %s is "
			    "missing member \"value\"",
			    records_quoted(q, sizeof (q), m->key, m->key_len)));
		if (value->type != JSON_NUMBER ||
		    !json_number_u64(value, &val))
			return (records_fail(r, value->offset, "value of state "
			    "%s must be a non-negative integer",
			    records_quoted(q, sizeof (q), m->key, m->key_len)));
		if (val >= n)
			return (records_fail(r, value->offset, "state %s has "
			    "value %llu, but with %zu states values must be 0 "
			    "to %zu", records_quoted(q, sizeof (q), m->key,
			    m->key_len), (unsigned long long)val, n, n - 1));
		if (states[val].name != NULL)
			return (records_fail(r, value->offset, "state %s has "
			    "value %llu, which state %s already has",
			    records_quoted(q, sizeof (q), m->key, m->key_len),
			    (unsigned long long)val,
			    records_quoted(q2, sizeof (q2), states[val].name,
			    states[val].name_len)));
		if (intern_find(cat->state_names, m->key, m->key_len) !=
		    INTERN_NONE)
			return (records_fail(r, m->key_offset, "state %s is "
			    "defined twice", records_quoted(q, sizeof (q),
			    m->key, m->key_len)));
		intern_add(cat->state_names, m->key, m->key_len, NULL);
		if (colour != NULL && colour->type != JSON_NULL) {
			if (records_expect_type(r, colour, JSON_STRING,
			    "a colour"))
				return (-1);
			if (!color_parse(colour->str, colour->len,
			    &states[val].color))
				return (records_fail(r, colour->offset,
				    "colour %s of state %s is not a colour: "
				    "use #rrggbb or a CSS colour name",
				    records_quoted(q, sizeof (q), colour->str,
				    colour->len),
				    records_quoted(q2, sizeof (q2), m->key,
				    m->key_len)));
			states[val].color_text = xstrndup(colour->str,
			    colour->len);
		}
		states[val].name = xstrndup(m->key, m->key_len);
		states[val].name_len = m->key_len;
	}
	catalog_assign_colors(cat);
	catalog_index_states(cat);
	return (0);
}

int
records_take_metadata(records *r, const records_fields *f)
{
	struct {
		json_value *v;
		unsigned bit;
	} given[] = {
		{ f->start, META_START }, { f->states, META_STATES },
		{ f->title, META_TITLE }, { f->host, META_HOST },
		{ f->kind, META_KIND }
	};
	char q[96];
	size_t i;

	for (i = 0; i < sizeof (given) / sizeof (given[0]); i++) {
		json_value *v = given[i].v;

		if (v == NULL)
			continue;
		if (r->meta_seen & given[i].bit)
			return (records_fail(r, v->key_offset, "metadata field "
			    "%s is given twice", records_quoted(q, sizeof (q),
			    v->key, v->key_len)));
		r->meta_seen |= given[i].bit;
	}
	if ((f->start != NULL && do_start(r, f->start) != 0) ||
	    (f->states != NULL && do_states(r, f->states) != 0) ||
	    (f->title != NULL &&
	    set_string(r, f->title, &r->cat->title, "\"title\"") != 0) ||
	    (f->host != NULL &&
	    set_string(r, f->host, &r->cat->host, "\"host\"") != 0) ||
	    (f->kind != NULL && set_string(r, f->kind,
	    &r->cat->entity_kind, "\"entityKind\"") != 0))
		return (-1);
	return (0);
}
