/*
 * records.c: what the other files of records build on (records_internal.h
 * lists them): errors at the reader's positions, entities with their
 * per-entity bookkeeping, and the checks at the end of the input.
 */
#include "ingest/records.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ingest/records_internal.h"

/* ---- errors ---- */

static int
vfail(records *r, size_t offset, const char *fmt, va_list ap)
{
	uint64_t line, col;
	char msg[sizeof (r->err->message)];

	vsnprintf(msg, sizeof (msg), fmt, ap);
	reader_position(r->rd, offset, &line, &col);
	error_at(r->err, r->name, line, col, "%s", msg);
	return (-1);
}

int
records_fail(records *r, size_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(r, offset, fmt, ap);
	va_end(ap);
	return (-1);
}

const char *
records_quoted(char *buf, size_t size, const char *s, size_t len)
{
	size_t i, o = 0;

	buf[o++] = '"';
	for (i = 0; i < len && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	if (i < len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return (buf);
}

/* ---- entities ---- */

void
records_grow_stacks(records *r, size_t old)
{
	r->stacks = xrealloc(r->stacks, r->last_time_cap *
	    sizeof (records_stack));
	memset(r->stacks + old, 0, (r->last_time_cap - old) *
	    sizeof (records_stack));
}

uint32_t
records_entity(records *r, const char *name, size_t len)
{
	catalog *cat = r->cat;
	uint32_t id = intern_find(cat->entities, name, len);

	if (id != INTERN_NONE)
		return (id);	/* known: its arrays are already sized */
	if (r->opts->filter != NULL) {
		uint32_t seen;
		const char *s;

		if (intern_find(r->rejected, name, len) != INTERN_NONE)
			return (CATALOG_NO_ENTITY);
		/* intern copies are NUL-terminated, as regexec needs. */
		seen = intern_add(r->rejected, name, len, NULL);
		s = intern_name(r->rejected, seen, NULL);
		if (regexec(r->opts->filter, s, 0, NULL, 0) != 0)
			return (CATALOG_NO_ENTITY);
	}
	id = catalog_entity(cat, name, len);
	if (id >= r->last_time_cap) {
		size_t old = r->last_time_cap;

		grow_array(&r->last_time, &r->last_time_cap, (size_t)id + 1,
		    sizeof (uint64_t));
		memset(r->last_time + old, 0,
		    (r->last_time_cap - old) * sizeof (uint64_t));
		r->kind = xrealloc(r->kind, r->last_time_cap);
		memset(r->kind + old, RECORDS_NEW, r->last_time_cap - old);
		if (r->stacks != NULL)
			records_grow_stacks(r, old);
	}
	return (id);
}

/* ---- the whole input ---- */

int
records_metadata_complete(const records *r)
{
	return ((r->meta_seen & (META_START | META_STATES)) ==
	    (META_START | META_STATES));
}

void
records_init(records *r, const char *name, catalog *cat, const reader *rd,
    const ingest_options *opts, ingest_datum_fn datum, void *ctx,
    sm_error *err)
{
	memset(r, 0, sizeof (*r));
	r->name = name;
	r->cat = cat;
	r->rd = rd;
	r->opts = opts;
	r->datum = datum;
	r->ctx = ctx;
	r->err = err;
	r->time_limit = INT64_MAX;	/* no datum comes before the start */
	r->rejected = intern_new();
}

void
records_fini(records *r)
{
	size_t i;

	intern_free(r->rejected);
	free(r->pushed);
	free(r->last_time);
	free(r->kind);
	if (r->stacks != NULL) {
		for (i = 0; i < r->last_time_cap; i++)
			free(r->stacks[i].states);
		free(r->stacks);
	}
}

int
records_finish(records *r, size_t pos)
{
	if (!r->any_record)
		return (records_fail(r, pos, "empty input: expected a "
		    "metadata object with \"start\" and \"states\""));
	if (!(r->meta_seen & META_STATES))
		return (records_fail(r, pos, "input ended without metadata "
		    "field \"states\""));
	if (!(r->meta_seen & META_START))
		return (records_fail(r, pos, "input ended without metadata "
		    "field \"start\""));
	return (0);
}
