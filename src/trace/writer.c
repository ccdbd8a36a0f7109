#include "trace/writer.h"

#include <inttypes.h>
#include <string.h>

#include "base/intern.h"
#include "base/json.h"
#include "base/outfile.h"
#include "base/runlimit.h"

/* Lines between two looks at the script's limits. */
#define CHECK_EVERY	65536

typedef struct writer {
	FILE *out;
	const trace *d;
	uint64_t lines;
	const char **why;
} writer;

static void
write_name(FILE *out, const char *s, size_t len)
{
	json_write_string(out, s, len);
}

/* A number that reads back to the same double: integers as integers. */
static void
write_number(FILE *out, double v)
{
	int64_t i;

	if (value_integer(v, &i) && !(v == 0 && signbit(v)))
		fprintf(out, "%" PRId64, i);
	else
		fprintf(out, "%.17g", v);
}

static void
write_value(writer *w, sm_value v)
{
	if (value_is_none(v)) {
		fputs("null", w->out);
	} else if (value_is_string(v)) {
		size_t len;
		const char *s = intern_name(w->d->cat->value_strings,
		    value_string_id(v), &len);

		write_name(w->out, s, len);
	} else {
		write_number(w->out, value_to_double(v));
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

static int
write_tags(writer *w)
{
	const catalog *cat = w->d->cat;
	uint32_t i, n = catalog_ntags(cat);

	for (i = 0; i < n; i++) {
		const catalog_tag *tag = &cat->tags[i];
		size_t len;
		const char *name;

		if (tag->members == NULL)
			continue;
		name = intern_name(cat->tag_names, tag->name, &len);
		fprintf(w->out, "{\"state\": %" PRIu32 ", \"tag\": ",
		    tag->state);
		write_name(w->out, name, len);
		if (tag->members[0] != '\0')
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
 * Writes datum i of entity e (at time, or its own time if time is
 * UINT64_MAX); again: the state or value it already has, as a plain
 * datum (the no-op at the end).
 */
static int
write_datum(writer *w, uint32_t e, size_t i, uint64_t time, int again)
{
	const store *st = w->d->st;

	if (store_kind_of(st, e) == STORE_VALUES) {
		datum_head(w, e, time != UINT64_MAX ? time :
		    store_value_times(st, e)[i]);
		fputs(", \"value\": ", w->out);
		write_value(w, store_values(st, e)[i]);
	} else {
		const uint16_t *states = store_states(st, e);
		const uint16_t *depths = store_depths(st, e);
		const uint32_t *tags = store_tags(st, e);
		uint32_t depth = depths != NULL ? depths[i] : 1;
		uint32_t prev = depths != NULL && i > 0 ? depths[i - 1] : 0;

		datum_head(w, e, time != UINT64_MAX ? time :
		    store_times(st, e)[i]);
		/* A return to depth 1 is a pop if it gives back the bottom. */
		if (!again && depth == 1 && prev == 2) {
			const uint32_t *below = store_below(st, e);
			uint32_t j = below[i - 1];

			if (states[j] == states[i] && (tags == NULL ||
			    tags[j] == tags[i]))
				depth = 0;	/* the pop below */
		}
		if (again || depth == 1) {
			fprintf(w->out, ", \"state\": %u", states[i]);
			write_tag_member(w, tags != NULL ? tags[i] :
			    STORE_NONE);
		} else if (depth == prev + 1 && depth > 1) {
			fprintf(w->out, ", \"push\": %u", states[i]);
			write_tag_member(w, tags != NULL ? tags[i] :
			    STORE_NONE);
		} else {
			/* A pop: the state left is the one before. */
			fprintf(w->out, ", \"pop\": %u", states[i - 1]);
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

int
writer_write(FILE *out, const trace *d, const char **why)
{
	writer w = { out, d, 0, why };
	uint32_t e, n = catalog_nentities(d->cat), held = STORE_NONE;
	uint64_t latest = 0;
	size_t held_n = 0, i;

	write_metadata(&w);
	if (line_done(&w) != 0 || write_tags(&w) != 0)
		return (-1);
	/* The datum to write last: the latest one (the first such entity). */
	for (e = 0; e < n; e++) {
		uint64_t last = 0;
		size_t k = data_in(d, e, &last);

		if (k > 0 && (held == STORE_NONE || last > latest)) {
			held = e;
			held_n = k;
			latest = last;
		}
	}
	for (e = 0; e < n; e++) {
		uint64_t last;
		size_t k = data_in(d, e, &last);

		if (d->cat->descriptions[e] != NULL) {
			fputs("{\"entity\": ", out);
			{
				size_t len;
				const char *name = catalog_entity_name(d->cat,
				    e, &len);

				write_name(out, name, len);
			}
			fputs(", \"description\": ", out);
			write_name(out, d->cat->descriptions[e],
			    strlen(d->cat->descriptions[e]));
			fputc('}', out);
			if (line_done(&w) != 0)
				return (-1);
		}
		if (e == held)
			k--;
		for (i = 0; i < k; i++)
			if (write_datum(&w, e, i, UINT64_MAX, 0) != 0)
				return (-1);
	}
	if (held != STORE_NONE) {
		if (write_datum(&w, held, held_n - 1, UINT64_MAX, 0) != 0)
			return (-1);
		if (latest < d->end && write_datum(&w, held, held_n - 1,
		    d->end, 1) != 0)
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
