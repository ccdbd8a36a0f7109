#include "output/kindjson.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "coalesce/depthrows.h"
#include "coalesce/valuerects.h"
#include "output/fixed.h"
#include "output/jsonout.h"

void
kindjson_number(FILE *out, double d)
{
	char buf[FIXED_G_MAX];
	int64_t i;

	if (value_integer(d, &i) && !(d == 0 && signbit(d))) {
		size_t len = 0;

		if (i < 0)
			buf[len++] = '-';
		len += fixed_uint(i < 0 ? (uint64_t)0 - (uint64_t)i :
		    (uint64_t)i, buf + len);
		fwrite(buf, 1, len, out);
		return;
	}
	if (!isfinite(d)) {
		fputs("null", out);	/* never: values are finite */
		return;
	}
	/* The fewest digits (15 to 17) that read back exactly. */
	fwrite(buf, 1, fixed_round_trip(d, buf), out);
}

void
kindjson_values(FILE *out, const catalog *cat, const valuerects *v,
    uint32_t e, int first, int counts)
{
	jsonout_entity_open(out, cat, e, first, "values");
	(void) kindjson_value_rects(out, cat, v, e, counts, NULL);
	fputs("]}", out);
}

uint64_t
kindjson_value_rects(FILE *out, const catalog *cat, const valuerects *v,
    uint32_t e, int counts, uint64_t *nrects)
{
	uint64_t total = 0;
	uint32_t r;
	int n = 0;

	for (r = valuerects_first(v, e); r != VALUERECTS_NONE;
	    r = valuerects_next(v, r)) {
		valuerects_rect x;
		size_t i;

		valuerects_get(v, r, &x);
		if (x.duration == 0)
			continue;
		fprintf(out, "%s\n    {\"start\": %" PRIu64 ", \"duration\": %"
		    PRIu64, n++ > 0 ? "," : "", x.start, x.duration);
		if (x.numtime > 0) {
			fputs(", \"min\": ", out);
			if (x.ints)
				fprintf(out, "%" PRId64, x.imin);
			else
				kindjson_number(out, x.min);
			fputs(", \"max\": ", out);
			if (x.ints)
				fprintf(out, "%" PRId64, x.imax);
			else
				kindjson_number(out, x.max);
			fputs(", \"mean\": ", out);
			/* Equal integers are their own mean, exactly. */
			if (x.ints && x.imin == x.imax)
				fprintf(out, "%" PRId64, x.imin);
			else
				kindjson_number(out, x.mean);
		}
		if (x.nstrings > 0) {
			fputs(", \"strings\": {", out);
			for (i = 0; i < x.nstrings; i++) {
				size_t len;
				const char *s = intern_name(
				    cat->value_strings, x.strings[i].id,
				    &len);

				if (i > 0)
					fputs(", ", out);
				json_write_string(out, s, len);
				fprintf(out, ": %" PRIu64, x.strings[i].time);
			}
			fputc('}', out);
		}
		if (counts)
			fprintf(out, ", \"n\": %" PRIu64, x.count);
		fputc('}', out);
		total += x.count;
	}
	if (nrects != NULL)
		*nrects += (uint64_t)n;
	return (total);
}

void
kindjson_nested_open(FILE *out, const catalog *cat, uint32_t e, int first)
{
	jsonout_entity_open(out, cat, e, first, "nested");
}

void
kindjson_nested_close(FILE *out, const catalog *cat, const depthrows *dr,
    const jsonout_names *names, uint32_t e, uint32_t *ids, uint64_t *times)
{
	uint32_t d, n = depthrows_ndepths(dr, e);
	const coalesce *co = depthrows_coalescer(dr);

	fputs("], \"depths\": [", out);
	for (d = 1; d <= n; d++) {
		fputs(d > 1 ? ",\n    [" : "\n    [", out);
		jsonout_row_rects(out, names, co, depthrows_row(dr, e, d),
		    cat->nstates, ids, times, 1);
		fputc(']', out);
	}
	fputs("]}", out);
}

static void
write_nested(FILE *out, const smap *m, const jsonout_names *names,
    uint32_t e, int first, uint32_t *ids, uint64_t *times)
{
	kindjson_nested_open(out, m->cat, e, first);
	if (m->co != NULL)
		jsonout_row_rects(out, names, m->co, e, m->cat->nstates, ids,
		    times, 1);
	kindjson_nested_close(out, m->cat, m->depths, names, e, ids, times);
}

int
kindjson_entity(FILE *out, const smap *m, const jsonout_names *names,
    uint32_t e, int first, uint32_t *ids, uint64_t *times)
{
	if (valuerects_seen(m->values, e)) {
		kindjson_values(out, m->cat, m->values, e, first, 0);
		return (1);
	}
	if (depthrows_ndepths(m->depths, e) > 0) {
		write_nested(out, m, names, e, first, ids, times);
		return (1);
	}
	return (0);
}
