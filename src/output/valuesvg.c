#include "output/valuesvg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/color.h"
#include "coalesce/valuerects.h"
#include "output/fixed.h"
#include "output/xml_escape.h"

#define VALUE_FILL	"#3b6fb6"
#define MERGED_FILL	"#86a9da"

/* A string's colour: a hue from its FNV-1a hash, mid saturation. */
static void
string_color(const char *s, size_t len, char hex[8])
{
	uint32_t h = 2166136261u;
	double hue, r, g, b, c = 0.55, x;
	size_t i;
	int sector;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	hue = (double)(h % 360) / 60.0;
	sector = (int)hue;
	x = c * (1 - fabs(fmod(hue, 2.0) - 1));
	r = g = b = 0;
	switch (sector) {
	case 0: r = c; g = x; break;
	case 1: r = x; g = c; break;
	case 2: g = c; b = x; break;
	case 3: g = x; b = c; break;
	case 4: r = x; b = c; break;
	default: r = c; b = x; break;
	}
	snprintf(hex, 8, "#%02x%02x%02x", (unsigned)((r + 0.3) * 255),
	    (unsigned)((g + 0.3) * 255), (unsigned)((b + 0.3) * 255));
}

/*
 * A rectangle, its numbers as "%.3f" writes them (fixed.h: printf's own
 * conversion was most of the classic command's time after its last
 * datum, at 100,000 rectangles of values).
 */
static void
put_rect(FILE *out, double x, double y, double w, double h, const char *fill)
{
	char buf[4 * FIXED3_MAX + 80], *p = buf;

	p = FIXED_APPEND_LITERAL(p, "<rect x=\"");
	p += fixed3_format(x, p);
	p = FIXED_APPEND_LITERAL(p, "\" y=\"");
	p += fixed3_format(y, p);
	p = FIXED_APPEND_LITERAL(p, "\" width=\"");
	p += fixed3_format(w, p);
	p = FIXED_APPEND_LITERAL(p, "\" height=\"");
	p += fixed3_format(h, p);
	p = FIXED_APPEND_LITERAL(p, "\" fill=\"");
	p = fixed_append(p, fill, strlen(fill));
	p = FIXED_APPEND_LITERAL(p, "\" />\n");
	fwrite(buf, 1, (size_t)(p - buf), out);
}

int
valuesvg_strip(FILE *out, const smap *m, uint32_t e, unsigned y,
    double span, unsigned width, unsigned height)
{
	const valuerects *v = m->values;
	double lo = 0, hi = 0;
	uint32_t r;

	if (!valuerects_seen(v, e))
		return (0);
	(void) valuerects_range(v, e, &lo, &hi);
	for (r = valuerects_first(v, e); r != VALUERECTS_NONE;
	    r = valuerects_next(v, r)) {
		valuerects_rect x;
		double left, w, h = 0;
		char hex[8] = VALUE_FILL;

		valuerects_get(v, r, &x);
		if (x.duration == 0)
			continue;
		left = ((double)x.start - (double)m->begin) / span * width;
		w = (double)x.duration / span * width + 0.4;
		if (x.numtime > 0) {
			h = hi > lo ? 1 + (x.mean - lo) / (hi - lo) *
			    (height - 1) : height;
			if (x.min < x.max)
				snprintf(hex, sizeof (hex), "%s", MERGED_FILL);
		} else if (x.nstrings > 0) {
			size_t i, most = 0, len;
			const char *s;

			for (i = 1; i < x.nstrings; i++)
				if (x.strings[i].time > x.strings[most].time)
					most = i;
			s = intern_name(m->cat->value_strings,
			    x.strings[most].id, &len);
			string_color(s, len, hex);
			h = height;
		}
		put_rect(out, left, y + height - h, w, h, hex);
	}
	return (1);
}

static void
write_number(FILE *out, double d)
{
	char buf[40];

	snprintf(buf, sizeof (buf), "%.6g", d);
	xml_escape(out, buf, strlen(buf));
}

void
valuesvg_ranges(FILE *out, const smap *m, size_t id, unsigned x,
    unsigned y, unsigned height)
{
	unsigned font = height > 4 ? height * 4 / 5 : 0;
	uint32_t k;
	int open = 0;

	if (m->values == NULL || font == 0)
		return;
	for (k = 0; k < m->nentities; k++) {
		uint32_t e = m->order[k];
		double lo, hi;

		if (!valuerects_seen(m->values, e) ||
		    !valuerects_range(m->values, e, &lo, &hi))
			continue;
		if (!open)
			fprintf(out, "<g class=\"statemap-value-ranges "
			    "sansserif\" id=\"statemap-value-ranges-%zu\" "
			    "font-size=\"%u\" text-anchor=\"end\" "
			    "fill=\"#000\" pointer-events=\"none\">\n", id,
			    font);
		open = 1;
		fprintf(out, "<text x=\"%u\" y=\"%u\" data-entity=\"%u\">",
		    x - 2, y + k * height + height - 1 - (height - font) / 2,
		    k);
		write_number(out, lo);
		fputs(" \xe2\x80\x93 ", out);
		write_number(out, hi);
		fputs("</text>\n", out);
	}
	if (open)
		fputs("</g>\n", out);
}
