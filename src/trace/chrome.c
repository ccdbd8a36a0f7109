/*
 * chrome.c: a trace as Chrome trace-event JSON (the mapping is in
 * chrome.h).
 */
#include "trace/chrome.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "base/json.h"
#include "base/outfile.h"
#include "base/path_escape.h"
#include "base/runlimit.h"
#include "base/util.h"

/* Records between two looks at the script's limits. */
#define CHECK_EVERY	65536

typedef struct chrome {
	FILE *out;
	const trace *d;
	uint64_t records;
	const char **why;
	intern *procs;		/* first path components: pid - 1 */
	uint32_t *pid;		/* by entity */
	/* an open frame of a nested entity: its state, tag and start */
	uint32_t *fstate, *ftag;
	uint64_t *fstart;
	size_t fcap;
} chrome;

/* Nanoseconds as microseconds with three decimals. */
static void
write_us(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/* Ends a record; 0, or -1 when the limits say stop. */
static int
record_done(chrome *c)
{
	fputs("},\n", c->out);
	if (++c->records % CHECK_EVERY == 0 && runlimit_check(0, c->why) != 0)
		return (-1);
	return (0);
}

/* The pid of an entity's name: its first component's number. */
static uint32_t
pid_of(chrome *c, const char *name, size_t len)
{
	size_t sep = path_next_separator(name, len, 0);

	if (sep > len)
		sep = len;
	return (intern_add(c->procs, name, sep, NULL) + 1);
}

static void
track(chrome *c, uint32_t pid, uint32_t tid)
{
	fprintf(c->out, ", \"pid\": %u, \"tid\": %u", pid, tid);
}

/* "M" records: each process's name, then each thread's. */
static int
write_names(chrome *c)
{
	const catalog *cat = c->d->cat;
	uint32_t e, n = catalog_nentities(cat), p;

	for (p = 0; p < intern_count(c->procs); p++) {
		size_t len;
		const char *s = intern_name(c->procs, p, &len);

		fputs("{\"name\": \"process_name\", \"ph\": \"M\"", c->out);
		track(c, p + 1, 0);
		fputs(", \"args\": {\"name\": ", c->out);
		json_write_string(c->out, s, len);
		fputc('}', c->out);
		if (record_done(c) != 0)
			return (-1);
	}
	for (e = 0; e < n; e++) {
		size_t len;
		const char *s = catalog_entity_name(cat, e, &len);

		fputs("{\"name\": \"thread_name\", \"ph\": \"M\"", c->out);
		track(c, c->pid[e], e + 1);
		fputs(", \"args\": {\"name\": ", c->out);
		json_write_string(c->out, s, len);
		fputc('}', c->out);
		if (record_done(c) != 0)
			return (-1);
	}
	return (0);
}

/* A complete event: state from start to end on entity e's track. */
static int
slice(chrome *c, uint32_t e, uint32_t state, uint32_t tag, uint64_t start,
    uint64_t end)
{
	const catalog *cat = c->d->cat;

	fputs("{\"name\": ", c->out);
	if (state < cat->nstates)
		json_write_string(c->out, cat->states[state].name,
		    cat->states[state].name_len);
	else
		fprintf(c->out, "\"%u\"", state);
	fputs(", \"ph\": \"X\", \"ts\": ", c->out);
	write_us(c->out, start);
	fputs(", \"dur\": ", c->out);
	write_us(c->out, end - start);
	track(c, c->pid[e], e + 1);
	if (tag != STORE_NONE && tag < catalog_ntags(cat)) {
		size_t len;
		const char *s = intern_name(cat->tag_names,
		    cat->tags[tag].name, &len);

		fputs(", \"args\": {\"tag\": ", c->out);
		json_write_string(c->out, s, len);
		fputc('}', c->out);
	}
	return (record_done(c));
}

/* The frames of a nested entity from depth on, closed at time t. */
static int
close_frames(chrome *c, uint32_t e, size_t depth, size_t *open, uint64_t t)
{
	while (*open > depth) {
		(*open)--;
		if (slice(c, e, c->fstate[*open], c->ftag[*open],
		    c->fstart[*open], t) != 0)
			return (-1);
	}
	return (0);
}

static void
open_frame(chrome *c, size_t *open, uint32_t state, uint32_t tag,
    uint64_t t)
{
	if (*open >= c->fcap) {
		size_t cap = c->fcap;

		grow_array(&c->fstate, &cap, *open + 1, sizeof (uint32_t));
		cap = c->fcap;
		grow_array(&c->ftag, &cap, *open + 1, sizeof (uint32_t));
		cap = c->fcap;
		grow_array(&c->fstart, &cap, *open + 1, sizeof (uint64_t));
		c->fcap = cap;
	}
	c->fstate[*open] = state;
	c->ftag[*open] = tag;
	c->fstart[*open] = t;
	(*open)++;
}

/*
 * A state entity's intervals; a nested one's frames: a transition to
 * depth d closes the frames above d, and the one at d unless it is a
 * pop back to that frame's state, then opens its state at d.
 */
static int
write_states(chrome *c, uint32_t e)
{
	const store *st = c->d->st;
	const uint64_t *times = store_times(st, e);
	const uint16_t *states = store_states(st, e);
	const uint16_t *depths = store_depths(st, e);
	const uint32_t *tags = store_has_tags(st, e) ? store_tags(st, e) :
	    NULL;
	uint64_t end = c->d->end;
	size_t n = store_count_through(times, store_count(st, e), end), i;
	size_t open = 0;

	for (i = 0; i < n; i++) {
		uint32_t tag = tags != NULL ? tags[i] : STORE_NONE;
		size_t d = depths != NULL && depths[i] > 0 ? depths[i] : 1;

		if (states[i] == STORE_GAP) {	/* no data: nothing open */
			if (close_frames(c, e, 0, &open, times[i]) != 0)
				return (-1);
			continue;
		}
		if (depths == NULL) {
			uint64_t to = i + 1 < n ? times[i + 1] : end;

			if (slice(c, e, states[i], tag, times[i], to) != 0)
				return (-1);
			continue;
		}
		if (close_frames(c, e, d, &open, times[i]) != 0)
			return (-1);
		if (open == d && d < (size_t)(i > 0 ? depths[i - 1] : 0) &&
		    c->fstate[d - 1] == states[i])
			continue;	/* a pop back to the frame below */
		if (close_frames(c, e, d - 1 < open ? d - 1 : open, &open,
		    times[i]) != 0)
			return (-1);
		open_frame(c, &open, states[i], tag, times[i]);
	}
	return (close_frames(c, e, 0, &open, end));
}

/* A value entity's numbers as counters, its strings as instants. */
static int
write_values(chrome *c, uint32_t e)
{
	const store *st = c->d->st;
	const uint64_t *times = store_value_times(st, e);
	const sm_value *v = store_values(st, e);
	size_t n = store_count_through(times, store_value_count(st, e),
	    c->d->end), i, len;
	const char *name = catalog_entity_name(c->d->cat, e, &len);

	for (i = 0; i < n; i++) {
		if (value_is_none(v[i]))
			continue;
		fputs("{\"name\": ", c->out);
		if (value_is_string(v[i])) {
			size_t sl;
			const char *s = intern_name(c->d->cat->value_strings,
			    value_string_id(v[i]), &sl);

			json_write_string(c->out, s, sl);
			fputs(", \"ph\": \"i\", \"s\": \"t\", \"ts\": ", c->out);
			write_us(c->out, times[i]);
			track(c, c->pid[e], e + 1);
		} else {
			json_write_string(c->out, name, len);
			fputs(", \"ph\": \"C\", \"ts\": ", c->out);
			write_us(c->out, times[i]);
			track(c, c->pid[e], e + 1);
			fputs(", \"args\": {\"value\": ", c->out);
			fprintf(c->out, "%.17g", value_to_double(v[i]));
			fputc('}', c->out);
		}
		if (record_done(c) != 0)
			return (-1);
	}
	return (0);
}

/* An event entity's track: the entity of that name, else one past them. */
static void
event_track(chrome *c, uint32_t ev_entity, uint32_t *pid, uint32_t *tid)
{
	const catalog *cat = c->d->cat;
	size_t len;
	const char *s = intern_name(cat->event_entities, ev_entity, &len);
	uint32_t e = intern_find(cat->entities, s, len);

	if (e != INTERN_NONE && e < catalog_nentities(cat)) {
		*pid = c->pid[e];
		*tid = e + 1;
	} else {
		*pid = pid_of(c, s, len);
		*tid = catalog_nentities(cat) + 1 + ev_entity;
	}
}

static int
write_events(chrome *c)
{
	const catalog *cat = c->d->cat;
	size_t i;

	for (i = 0; i < cat->nevents; i++) {
		const catalog_event *ev = &cat->events[i];
		uint64_t end = catalog_event_end(cat, ev);
		uint32_t pid, tid, tpid, ttid;
		size_t len;
		const char *kind = intern_name(cat->event_kinds, ev->kind, &len);

		if (ev->time > c->d->end)
			continue;
		event_track(c, ev->entity, &pid, &tid);
		fputs("{\"name\": ", c->out);
		json_write_string(c->out, kind, len);
		fputs(", \"ph\": \"i\", \"s\": \"t\", \"ts\": ", c->out);
		write_us(c->out, ev->time);
		track(c, pid, tid);
		if (record_done(c) != 0)
			return (-1);
		if (ev->target == CATALOG_NO_ENTITY)
			continue;
		event_track(c, ev->target, &tpid, &ttid);
		fputs("{\"name\": ", c->out);
		json_write_string(c->out, kind, len);
		fprintf(c->out, ", \"cat\": \"message\", \"ph\": \"s\", "
		    "\"id\": %zu, \"ts\": ", i);
		write_us(c->out, ev->time);
		track(c, pid, tid);
		if (record_done(c) != 0)
			return (-1);
		fputs("{\"name\": ", c->out);
		json_write_string(c->out, kind, len);
		fprintf(c->out, ", \"cat\": \"message\", \"ph\": \"f\", "
		    "\"bp\": \"e\", \"id\": %zu, \"ts\": ", i);
		write_us(c->out, end != CATALOG_NO_END && end >= ev->time ?
		    end : ev->time);
		track(c, tpid, ttid);
		if (record_done(c) != 0)
			return (-1);
	}
	return (0);
}

int
chrome_write(FILE *out, const trace *d, const char **why)
{
	chrome c;
	uint32_t e, n = catalog_nentities(d->cat);
	int rv = 0;

	memset(&c, 0, sizeof (c));
	c.out = out;
	c.d = d;
	c.why = why;
	c.procs = intern_new();
	c.pid = xcalloc((size_t)n + 1, sizeof (uint32_t));
	for (e = 0; e < n; e++) {
		size_t len;
		const char *s = catalog_entity_name(d->cat, e, &len);

		c.pid[e] = pid_of(&c, s, len);
	}
	fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n", out);
	rv = write_names(&c);
	for (e = 0; rv == 0 && e < n; e++)
		rv = store_kind_of(d->st, e) == STORE_VALUES ?
		    write_values(&c, e) : write_states(&c, e);
	if (rv == 0)
		rv = write_events(&c);
	/* the last record's comma is followed by this one, which is valid */
	if (rv == 0)
		fputs("{\"name\": \"statemap-lua\", \"ph\": \"M\", "
		    "\"pid\": 0, \"tid\": 0, \"args\": {}}\n]}\n", out);
	intern_free(c.procs);
	free(c.pid);
	free(c.fstate);
	free(c.ftag);
	free(c.fstart);
	return (rv);
}

int
chrome_save(const trace *d, const char *path, sm_error *err)
{
	outfile of;
	const char *why = NULL;

	if (outfile_open(&of, path, err) != 0)
		return (-1);
	if (chrome_write(of.fp, d, &why) != 0 ||
	    runlimit_check(0, &why) != 0) {
		outfile_abort(&of);
		error_set(err, "%s", why);
		return (-1);
	}
	return (outfile_commit(&of, err));
}
