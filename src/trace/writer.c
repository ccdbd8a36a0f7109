#include "trace/writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "base/json.h"
#include "base/outfile.h"
#include "base/runlimit.h"
#include "base/util.h"

/* Lines between two looks at the script's limits. */
#define CHECK_EVERY	65536

typedef struct writer {
	FILE *out;
	const trace *d;
	uint64_t lines;
	const char **why;
	uint32_t held;		/* whose last datum is written last, or STORE_NONE */
	int end_record;		/* whether the data end with {"time": end} */
} writer;

/* What a datum of a state entity is written as. */
enum { AS_STATE, AS_PUSH, AS_POP, AS_GAP };

static void
write_name(FILE *out, const char *s, size_t len)
{
	json_write_string(out, s, len);
}

/*
 * A number that reads back to the same double: a declared numeric
 * entity's (numeric) whole ones as integers, a double entity's with a
 * fraction or an exponent always, so that they read back as doubles.
 */
static void
write_number(FILE *out, double v, int numeric)
{
	char buf[40];
	int64_t i;

	if (numeric && value_integer(v, &i) && !(v == 0 && signbit(v))) {
		fprintf(out, "%" PRId64, i);
		return;
	}
	snprintf(buf, sizeof (buf), "%.17g", v);
	fputs(buf, out);
	if (strspn(buf, "-0123456789") == strlen(buf))
		fputs(".0", out);
}

static void
write_value(writer *w, uint32_t e, sm_value v)
{
	if (value_is_none(v)) {
		fputs("null", w->out);
	} else if (catalog_value_ints(w->d->cat, e)) {
		fprintf(w->out, "%" PRId64, value_to_int(v));
	} else if (value_is_string(v)) {
		size_t len;
		const char *s = intern_name(w->d->cat->value_strings,
		    value_string_id(v), &len);

		write_name(w->out, s, len);
	} else {
		write_number(w->out, value_to_double(v), catalog_value_type(
		    w->d->cat, e) == CATALOG_VALUES_NUMBER);
	}
}

static int
line_done(writer *w)
{
	fputc('\n', w->out);
	if (++w->lines % CHECK_EVERY == 0 && runlimit_check(0, w->why) != 0)
		return (-1);
	return (0);
}

static void
write_metadata(writer *w)
{
	const catalog *cat = w->d->cat;
	uint32_t s;

	fprintf(w->out, "{\"start\": [%" PRIu64 ", %" PRIu64 "]",
	    cat->start_sec, cat->start_nsec);
	if (cat->title != NULL) {
		fputs(", \"title\": ", w->out);
		write_name(w->out, cat->title, strlen(cat->title));
	}
	if (cat->host != NULL) {
		fputs(", \"host\": ", w->out);
		write_name(w->out, cat->host, strlen(cat->host));
	}
	if (cat->entity_kind != NULL) {
		fputs(", \"entityKind\": ", w->out);
		write_name(w->out, cat->entity_kind, strlen(cat->entity_kind));
	}
	fputs(", \"states\": {", w->out);
	for (s = 0; s < cat->nstates; s++) {
		const catalog_state *st = &cat->states[s];
		char hex[8];

		if (s > 0)
			fputs(", ", w->out);
		write_name(w->out, st->name, st->name_len);
		fprintf(w->out, ": {\"value\": %" PRIu32 ", \"color\": ", s);
		if (st->color_text != NULL) {
			write_name(w->out, st->color_text,
			    strlen(st->color_text));
		} else {
			color_format(st->color, hex);
			write_name(w->out, hex, strlen(hex));
		}
		fputc('}', w->out);
	}
	fputs("}}", w->out);
}

/*
 * Tags 0 to n - 1: a defined tag as its definition, an undefined one
 * declared ("description": null), so that reading numbers them so.
 */
static int
write_tags(writer *w, uint32_t n)
{
	const catalog *cat = w->d->cat;
	uint32_t i;

	for (i = 0; i < n; i++) {
		const catalog_tag *tag = &cat->tags[i];
		size_t len;
		const char *name;

		name = intern_name(cat->tag_names, tag->name, &len);
		fprintf(w->out, "{\"state\": %" PRIu32 ", \"tag\": ",
		    tag->state);
		write_name(w->out, name, len);
		if (tag->members == NULL)
			fputs(", \"description\": null", w->out);
		else if (tag->members[0] != '\0')
			fprintf(w->out, ", %s", tag->members);
		fputc('}', w->out);
		if (line_done(w) != 0)
			return (-1);
	}
	return (0);
}

/* The opening of a datum of entity e at time. */
static void
datum_head(writer *w, uint32_t e, uint64_t time)
{
	size_t len;
	const char *name = catalog_entity_name(w->d->cat, e, &len);

	fprintf(w->out, "{\"time\": \"%" PRIu64 "\", \"entity\": ", time);
	write_name(w->out, name, len);
}

static void
write_tag_member(writer *w, uint32_t tag)
{
	size_t len;
	const char *name;

	if (tag == STORE_NONE)
		return;
	name = intern_name(w->d->cat->tag_names, w->d->cat->tags[tag].name,
	    &len);
	fputs(", \"tag\": ", w->out);
	write_name(w->out, name, len);
}

/*
 * What datum i of a state entity e is written as: a transition to depth
 * 1 a plain datum ("state", which replaces the whole stack), one deeper
 * a push, one shallower a pop; and a return to depth 1 that gives back
 * the bottom frame a pop too, as it was most likely made; the first of
 * a nested entity a push.  The end of its data (STORE_GAP, depth 0) is
 * "state": null, which ends the whole stack.
 */
static int
written_as(const store *st, uint32_t e, size_t i)
{
	const uint16_t *depths = store_depths(st, e);
	uint32_t depth, prev;

	if (store_states(st, e)[i] == STORE_GAP)
		return (AS_GAP);
	if (depths == NULL)
		return (AS_STATE);
	depth = depths[i];
	prev = i > 0 ? depths[i - 1] : 0;
	if (depth == 1 && prev == 2) {
		const uint16_t *states = store_states(st, e);
		const uint32_t *tags = store_has_tags(st, e) ?
		    store_tags(st, e) : NULL;
		uint32_t j = store_below(st, e)[i - 1];

		if (states[j] == states[i] && (tags == NULL ||
		    tags[j] == tags[i]))
			return (AS_POP);
	}
	/*
	 * A nested entity's first datum is a push on no state, whatever
	 * comes after: it says from the first line that the entity is
	 * nested, so a reader that spills plain data to disk never meets
	 * a push after plain data it no longer holds.
	 */
	if (i == 0)
		return (AS_PUSH);
	if (depth == 1)
		return (AS_STATE);
	return (depth == prev + 1 ? AS_PUSH : AS_POP);
}

/* Writes datum i of entity e. */
static int
write_datum(writer *w, uint32_t e, size_t i)
{
	const store *st = w->d->st;

	if (store_kind_of(st, e) == STORE_VALUES) {
		datum_head(w, e, store_value_times(st, e)[i]);
		fputs(", \"value\": ", w->out);
		write_value(w, e, store_values(st, e)[i]);
	} else {
		const uint16_t *states = store_states(st, e);
		const uint32_t *tags = store_has_tags(st, e) ?
		    store_tags(st, e) : NULL;
		int as = written_as(st, e, i);

		datum_head(w, e, store_times(st, e)[i]);
		if (as == AS_GAP) {
			fputs(", \"state\": null", w->out);
		} else if (as == AS_POP) {
			/* The state left is the one before. */
			fprintf(w->out, ", \"pop\": %u", states[i - 1]);
		} else {
			fprintf(w->out, as == AS_PUSH ? ", \"push\": %u" :
			    ", \"state\": %u", states[i]);
			write_tag_member(w, tags != NULL ? tags[i] :
			    STORE_NONE);
		}
	}
	fputc('}', w->out);
	return (line_done(w));
}

/* How many of e's data are not after the end, and the last one's time. */
static size_t
data_in(const trace *d, uint32_t e, uint64_t *last)
{
	const store *st = d->st;
	const uint64_t *times;
	size_t n;

	if (store_kind_of(st, e) == STORE_VALUES) {
		times = store_value_times(st, e);
		n = store_value_count(st, e);
	} else {
		times = store_times(st, e);
		n = store_count(st, e);
	}
	n = store_count_through(times, n, d->end);
	if (n > 0)
		*last = times[n - 1];
	return (n);
}

/*
 * A message event's "end", "id" and other members (catalog.h), only
 * where it has them; the members as they were read, already JSON.
 */
static void
write_event_extra(FILE *out, const catalog *cat, const catalog_event *ev)
{
	uint64_t end = catalog_event_end(cat, ev);
	size_t len;
	const char *s;

	if (end != CATALOG_NO_END)
		fprintf(out, ", \"end\": \"%" PRIu64 "\"", end);
	if ((s = catalog_event_id(cat, ev, &len)) != NULL) {
		fputs(", \"id\": ", out);
		write_name(out, s, len);
	}
	if ((s = catalog_event_members(cat, ev, &len)) != NULL) {
		fputs(", ", out);
		fwrite(s, 1, len, out);
	}
}

static int
write_events(writer *w)
{
	const catalog *cat = w->d->cat;
	size_t i;

	for (i = 0; i < cat->nevents; i++) {
		const catalog_event *ev = &cat->events[i];
		size_t len;
		const char *s;

		s = intern_name(cat->event_entities, ev->entity, &len);
		fprintf(w->out, "{\"time\": \"%" PRIu64 "\", \"entity\": ",
		    ev->time);
		write_name(w->out, s, len);
		s = intern_name(cat->event_kinds, ev->kind, &len);
		fputs(", \"event\": ", w->out);
		write_name(w->out, s, len);
		if (ev->target != CATALOG_NO_ENTITY) {
			s = intern_name(cat->event_entities, ev->target, &len);
			fputs(", \"target\": ", w->out);
			write_name(w->out, s, len);
		}
		write_event_extra(w->out, cat, ev);
		fputc('}', w->out);
		if (line_done(w) != 0)
			return (-1);
	}
	return (0);
}

/*
 * How the file reaches the trace's end, since a file ends at its last
 * datum in file order.  A datum at the end is written last: that of the
 * first entity whose last datum is there and which has a line before it
 * (its description or another datum), so that holding it back moves no
 * entity in the order, or else of the last entity, whose data come last
 * anyway.  With no such datum, an end record says the end.  A trace
 * without data that ends at 0 needs neither.
 */
static void
choose_end(writer *w)
{
	const trace *d = w->d;
	uint32_t e, n = catalog_nentities(d->cat);
	int any = 0;

	w->held = STORE_NONE;
	w->end_record = 0;
	for (e = 0; e < n; e++) {
		uint64_t last = 0;
		size_t k = data_in(d, e, &last);

		if (k == 0)
			continue;
		any = 1;
		if (last == d->end && (k > 1 ||
		    d->cat->descriptions[e] != NULL || e == n - 1 ||
		    catalog_value_type(d->cat, e) == CATALOG_VALUES_NUMBER)) {
			w->held = e;
			return;
		}
	}
	w->end_record = any || d->end > 0;
}

/*
 * How many tags, from id 0, are written before the data.  Reading
 * numbers a tag where it first comes: its definition, its declaration
 * or the first datum naming it (a push or a plain datum; a pop names
 * none).  So every defined tag is written before the data, and every
 * undefined one with it but for the last ids, when the data name them
 * first in the order of their ids: those the data number as they are.
 */
static uint32_t
tags_before_data(const writer *w)
{
	const trace *d = w->d;
	const store *st = d->st;
	uint32_t ntags = catalog_ntags(d->cat), n = catalog_nentities(d->cat);
	uint32_t e, k;
	uint64_t *first, pos = 0;

	if (ntags == 0 || d->cat->tags[ntags - 1].members != NULL)
		return (ntags);
	first = xmalloc((size_t)ntags * sizeof (uint64_t));
	for (k = 0; k < ntags; k++)
		first[k] = UINT64_MAX;
	for (e = 0; e < n; e++) {
		uint64_t last;
		size_t count = data_in(d, e, &last), i;
		const uint32_t *tags;

		if (count == 0 || store_kind_of(st, e) == STORE_VALUES ||
		    !store_has_tags(st, e)) {
			pos += count;
			continue;
		}
		tags = store_tags(st, e);
		for (i = 0; i < count; i++) {
			/* The held datum comes after every other. */
			uint64_t at = e == w->held && i == count - 1 ?
			    UINT64_MAX - 1 : pos++;

			if (tags[i] < ntags && at < first[tags[i]] &&
			    written_as(st, e, i) != AS_POP)
				first[tags[i]] = at;
		}
	}
	k = ntags;
	while (k > 0 && d->cat->tags[k - 1].members == NULL &&
	    first[k - 1] != UINT64_MAX &&
	    (k == ntags || first[k - 1] < first[k]))
		k--;
	free(first);
	return (k);
}

/*
 * Entity e's lines: its description, or if it has neither that nor any
 * datum, its declaration ("description": null), which keeps it in its
 * place; then its data but the held one.
 */
static int
write_entity(writer *w, uint32_t e)
{
	const trace *d = w->d;
	uint64_t last;
	size_t k = data_in(d, e, &last), i, len;
	const char *name = catalog_entity_name(d->cat, e, &len);

	if (d->cat->descriptions[e] != NULL || k == 0) {
		fputs("{\"entity\": ", w->out);
		write_name(w->out, name, len);
		fputs(", \"description\": ", w->out);
		if (d->cat->descriptions[e] != NULL)
			write_name(w->out, d->cat->descriptions[e],
			    strlen(d->cat->descriptions[e]));
		else
			fputs("null", w->out);
		fputc('}', w->out);
		if (line_done(w) != 0)
			return (-1);
	}
	if (catalog_value_type(d->cat, e) == CATALOG_VALUES_NUMBER) {
		fputs("{\"entity\": ", w->out);
		write_name(w->out, name, len);
		fputs(", \"type\": \"number\"}", w->out);
		if (line_done(w) != 0)
			return (-1);
	}
	if (e == w->held)
		k--;
	for (i = 0; i < k; i++)
		if (write_datum(w, e, i) != 0)
			return (-1);
	return (0);
}

int
writer_write(FILE *out, const trace *d, const char **why)
{
	writer w = { out, d, 0, why, STORE_NONE, 0 };
	uint32_t e, n = catalog_nentities(d->cat);

	write_metadata(&w);
	if (line_done(&w) != 0)
		return (-1);
	choose_end(&w);
	if (write_tags(&w, tags_before_data(&w)) != 0)
		return (-1);
	for (e = 0; e < n; e++)
		if (write_entity(&w, e) != 0)
			return (-1);
	if (w.held != STORE_NONE) {
		uint64_t last;

		if (write_datum(&w, w.held, data_in(d, w.held, &last) - 1) != 0)
			return (-1);
	} else if (w.end_record) {
		fprintf(out, "{\"time\": \"%" PRIu64 "\"}", d->end);
		if (line_done(&w) != 0)
			return (-1);
	}
	return (write_events(&w));
}

int
writer_save(const trace *d, const char *path, sm_error *err)
{
	outfile of;
	const char *why = NULL;

	if (outfile_open(&of, path, err) != 0)
		return (-1);
	/*
	 * Checked once more at the end, however few lines there were: a
	 * Ctrl-C while writing leaves no file, as it would a longer one.
	 */
	if (writer_write(of.fp, d, &why) != 0 ||
	    runlimit_check(0, &why) != 0) {
		outfile_abort(&of);
		error_set(err, "%s", why);
		return (-1);
	}
	return (outfile_commit(&of, err));
}
