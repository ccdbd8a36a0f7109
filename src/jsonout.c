#include "jsonout.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"

static void
write_cstring(FILE *out, const char *s)
{
	if (s == NULL)
		fputs("null", out);
	else
		json_write_string(out, s, strlen(s));
}

static void
write_states(FILE *out, const catalog *cat)
{
	uint32_t i;

	fputs("  \"states\": [", out);
	for (i = 0; i < cat->nstates; i++) {
		const catalog_state *st = &cat->states[i];
		char hex[8];

		color_format(st->color, hex);
		fprintf(out, "%s\n   {\"name\": ", i > 0 ? "," : "");
		json_write_string(out, st->name, st->name_len);
		fprintf(out, ", \"value\": %u, \"color\": ", i);
		if (st->color_text != NULL)
			json_write_string(out, st->color_text,
			    strlen(st->color_text));
		else
			fprintf(out, "\"%s\"", hex);
		fputc('}', out);
	}
	fputs("],\n", out);
}

static void
write_tags(FILE *out, const catalog *cat)
{
	uint32_t i, n = catalog_ntags(cat);

	fputs("  \"tags\": [", out);
	for (i = 0; i < n; i++) {
		const catalog_tag *tag = &cat->tags[i];
		size_t len;
		const char *name = intern_name(cat->tag_names, tag->name, &len);

		fprintf(out, "%s\n   {\"id\": %u, \"state\": %u, \"tag\": ",
		    i > 0 ? "," : "", i, tag->state);
		json_write_string(out, name, len);
		/* The definition's own members apart, so that one named like
		 * ours ("id") can never make a key appear twice. */
		fprintf(out, ", \"members\": {%s}}", tag->members != NULL ?
		    tag->members : "");
	}
	fputs("],\n", out);
}

static void
write_rect(FILE *out, const catalog *cat, const coalesce_rect *r)
{
	uint32_t s;
	size_t i;
	int n = 0;

	fprintf(out, "{\"start\": %" PRIu64 ", \"duration\": %" PRIu64
	    ", \"states\": {", r->start, r->duration);
	for (s = 0; s < cat->nstates; s++) {
		if (r->states[s] == 0)
			continue;
		if (n++ > 0)
			fputs(", ", out);
		json_write_string(out, cat->states[s].name,
		    cat->states[s].name_len);
		fprintf(out, ": %" PRIu64, r->states[s]);
	}
	fputs("}, \"tags\": {", out);
	for (i = 0; i < r->ntags; i++)
		fprintf(out, "%s\"%u\": %" PRIu64, i > 0 ? ", " : "",
		    r->tags[i].tag, r->tags[i].time);
	fputs("}}", out);
}

static void
write_entity(FILE *out, const smap *m, uint32_t e)
{
	const catalog *cat = m->cat;
	const char *name;
	size_t len;
	int n = 0;

	name = catalog_entity_name(cat, e, &len);
	fputs("   {\"name\": ", out);
	json_write_string(out, name, len);
	fputs(", \"description\": ", out);
	write_cstring(out, cat->descriptions[e]);
	fputs(", \"rects\": [", out);
	if (m->co != NULL) {
		uint32_t r;

		for (r = coalesce_first(m->co, e); r != COALESCE_NONE;
		    r = coalesce_next(m->co, r)) {
			coalesce_rect rect;

			coalesce_get(m->co, r, &rect);
			if (rect.duration == 0)
				continue;
			fputs(n++ > 0 ? ",\n    " : "\n    ", out);
			write_rect(out, cat, &rect);
		}
	}
	fputs("]}", out);
}

/*
 * Events inside the window, in file order, at most JSONOUT_MAX_EVENTS of
 * them (a viewer draws each one; the rest are only counted).
 */
static void
write_events(FILE *out, const smap *m)
{
	const catalog *cat = m->cat;
	uint64_t end = m->end, omitted = 0;
	size_t k, n = 0;

	if (m->end_bound > 0 && (uint64_t)m->end_bound > end)
		end = (uint64_t)m->end_bound;
	fputs(",\n  \"events\": [", out);
	for (k = 0; k < cat->nevents; k++) {
		const catalog_event *ev = &cat->events[k];
		const char *name;
		size_t len;

		if ((m->begin > 0 && ev->time < (uint64_t)m->begin) ||
		    ev->time > end)
			continue;
		if (n == JSONOUT_MAX_EVENTS) {
			omitted++;
			continue;
		}
		fputs(n++ > 0 ? ",\n   " : "\n   ", out);
		fprintf(out, "{\"time\": %" PRIu64 ", \"entity\": ", ev->time);
		name = intern_name(cat->event_entities, ev->entity, &len);
		json_write_string(out, name, len);
		fputs(", \"event\": ", out);
		name = intern_name(cat->event_kinds, ev->kind, &len);
		json_write_string(out, name, len);
		fputs(", \"target\": ", out);
		if (ev->target == CATALOG_NO_ENTITY) {
			fputs("null", out);
		} else {
			name = intern_name(cat->event_entities, ev->target,
			    &len);
			json_write_string(out, name, len);
		}
		fputc('}', out);
	}
	fprintf(out, "], \"events_omitted\": %" PRIu64, omitted);
}

void
jsonout_write(FILE *out, const smap *maps, size_t n, const size_t *order)
{
	size_t i;

	fputs("{\"statemaps\": [", out);
	for (i = 0; i < n; i++) {
		const smap *m = &maps[order[i]];
		uint32_t k;

		fputs(i > 0 ? ",\n {" : "\n {", out);
		fputs("\"title\": ", out);
		write_cstring(out, m->cat->title);
		fputs(", \"host\": ", out);
		write_cstring(out, m->cat->host);
		fputs(", \"entityKind\": ", out);
		write_cstring(out, m->cat->entity_kind);
		fprintf(out, ", \"start\": [%" PRIu64 ", %" PRIu64 "]",
		    m->cat->start_sec, m->cat->start_nsec);
		fprintf(out, ", \"begin\": %" PRId64 ", \"end\": %" PRIu64
		    ",\n", m->begin, m->end);
		write_states(out, m->cat);
		write_tags(out, m->cat);
		fputs("  \"entities\": [", out);
		for (k = 0; k < m->nentities; k++) {
			fputs(k > 0 ? ",\n" : "\n", out);
			write_entity(out, m, m->order[k]);
		}
		fputc(']', out);
		write_events(out, m);
		fputc('}', out);
	}
	fputs("]}\n", out);
}
