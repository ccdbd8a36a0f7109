#include "output/svg.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/color.h"
#include "base/duration.h"
#include "base/utf8.h"
#include "base/util.h"
#include "output/fixed.h"
#include "output/group_slots.h"
#include "output/label.h"
#include "output/rowwriter.h"
#include "output/smap_json.h"
#include "output/valuesvg.h"
#include "output/viewer.h"
#include "output/xml_escape.h"

/* Layout, in pixels. */
#define LEGEND_X	20
#define LEGEND_WIDTH	138	/* the left column: legend */
#define LABEL_WIDTH	150	/* the right column: entity names, at least */
#define LABEL_MAX_WIDTH	260	/* and at most (so 1280 pixels hold it all) */
#define LABEL_PAD	6	/* between the strips and the names */
#define LABEL_TITLE_MAX	1000	/* bytes of a cut label in its tooltip */
#define TOP_MARGIN	70	/* title, span and axis above the strips */
#define STACK_GAP	20	/* between stacked statemaps */
#define AXIS_Y		58
#define SWATCH_HEIGHT	15
#define LEGEND_CHARS	20	/* characters on a line of a legend name */
#define SWATCH_BORDER	"#888"	/* so that white states show */
#define NODATA_KEY	35	/* the height of the "no data" key */

/*
 * The JSON data block is character data too, but a JSON string may hold
 * U+FFFE and U+FFFF as they are (json.c writes them raw, as JSON allows),
 * which XML does not.  The document goes through this filter on its way
 * into the CDATA section, and each of them becomes the escape \ufffe or
 * \uffff: the same string to a JSON parser.  Outside strings the JSON is
 * ASCII, so every such sequence is inside a string.  Up to two bytes of
 * a sequence cut between writes wait in held[].
 */
typedef struct json_filter {
	FILE *out;
	unsigned char held[2];
	size_t nheld;
} json_filter;

static void
json_filter_byte(json_filter *f, unsigned char c)
{
	if (f->nheld == 2) {
		f->nheld = 0;
		if ((c & 0xfe) == 0xbe) {
			fputs(c == 0xbe ? "\\ufffe" : "\\uffff", f->out);
			return;
		}
		fwrite("\xef\xbf", 1, 2, f->out);
	} else if (f->nheld == 1) {
		f->nheld = 0;
		if (c == 0xbf) {
			f->nheld = 2;
			return;
		}
		fputc(0xef, f->out);
	}
	if (c == 0xef)
		f->nheld = 1;
	else
		fputc(c, f->out);
}

static ssize_t
json_filter_write(void *cookie, const char *buf, size_t size)
{
	json_filter *f = cookie;
	size_t i = 0;

	while (i < size) {
		const char *ef;
		size_t run;

		if (f->nheld > 0) {
			json_filter_byte(f, (unsigned char)buf[i++]);
			continue;
		}
		ef = memchr(buf + i, 0xef, size - i);
		run = (ef != NULL ? (size_t)(ef - buf) : size) - i;
		fwrite(buf + i, 1, run, f->out);
		i += run;
		if (i < size)
			json_filter_byte(f, (unsigned char)buf[i++]);
	}
	return ((ssize_t)size);
}

static int
json_filter_close(void *cookie)
{
	json_filter *f = cookie;

	fwrite("\xef\xbf", 1, f->nheld, f->out);
	f->nheld = 0;
	return (0);
}

/* A stream into the filter above, to out. */
static FILE *
json_filter_open(json_filter *f, FILE *out)
{
	cookie_io_functions_t io = { NULL, json_filter_write, NULL,
	    json_filter_close };
	FILE *fp;

	f->out = out;
	f->nheld = 0;
	if ((fp = fopencookie(f, "w", io)) == NULL)
		out_of_memory(BUFSIZ);
	return (fp);
}

static void
write_json_cdata(FILE *out, const smap *maps, size_t n, const size_t *order)
{
	json_filter f;
	FILE *fp = json_filter_open(&f, out);

	smap_json_write(fp, maps, n, order);
	fclose(fp);
}

/* The detail block (detail.h): JSON text, filtered as the data block. */
static void
write_detail(FILE *out, const svg_options *opts)
{
	json_filter f;
	FILE *fp;

	fputs("<script type=\"application/json\" id=\"statemap-detail\">"
	    "<![CDATA[\n", out);
	fp = json_filter_open(&f, out);
	fwrite(opts->detail, 1, opts->detail_len, fp);
	fclose(fp);
	fputs("]]></script>\n", out);
}


static void
escape_cstring(FILE *out, const char *s)
{
	xml_escape(out, s, strlen(s));
}

/*
 * The time span the x axis shows (ns, at least 1), shared by stacked
 * statemaps.  Worked out in integers: as a double it can be 2^64, which
 * no uint64_t holds (times run to 2^64 - 1, and begin may be negative).
 */
uint64_t
svg_span(const smap *m)
{
	uint64_t end = m->end, before;

	if (m->end_bound > 0 && (uint64_t)m->end_bound > end)
		end = (uint64_t)m->end_bound;
	if (m->begin < 0) {
		before = (uint64_t)(-(m->begin + 1)) + 1;
		return (end > UINT64_MAX - before ? UINT64_MAX : end + before);
	}
	return (end > (uint64_t)m->begin ? end - (uint64_t)m->begin : 1);
}


/* A tick label: "1.500s" reads better as "1.5s", "2.000ms" as "2ms". */
static const char *
tick_label(uint64_t t, char *buf, size_t size)
{
	char *dot, *end;

	duration_format(t, buf, size);
	if ((dot = strchr(buf, '.')) == NULL)
		return (buf);
	for (end = dot + 1; *end >= '0' && *end <= '9'; end++)
		continue;
	{
		char *last = end;

		while (last > dot + 1 && last[-1] == '0')
			last--;
		if (last == dot + 1)
			last = dot;
		memmove(last, end, strlen(end) + 1);
	}
	return (buf);
}

static void
write_axis(FILE *out, double span, unsigned width)
{
	uint64_t step = duration_step(span / 10), t;
	char buf[64];

	fprintf(out, "<g class=\"statemap-axis\">\n"
	    "<line x1=\"%d\" y1=\"%d\" x2=\"%u\" y2=\"%d\" "
	    "stroke=\"#888\" />\n", LEGEND_WIDTH, AXIS_Y,
	    LEGEND_WIDTH + width, AXIS_Y);
	for (t = 0; (double)t <= span; t += step) {
		double x = LEGEND_WIDTH + (double)t / span * width;

		fprintf(out, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" "
		    "y2=\"%d\" stroke=\"#888\" />", x, AXIS_Y - 4, x, AXIS_Y);
		fprintf(out, "<text x=\"%.2f\" y=\"%d\" font-size=\"9\" "
		    "text-anchor=\"middle\" class=\"sansserif\">%s</text>\n",
		    x, AXIS_Y - 6, tick_label(t, buf, sizeof (buf)));
		if (t > UINT64_MAX - step)
			break;
	}
	fputs("</g>\n", out);
}

/*
 * A legend entry's name, in one line or two of at most LEGEND_CHARS
 * characters (an estimate, as for labels: the column is 124 pixels about
 * the swatch's middle, at 10 pixels).  A longer name breaks after a
 * separator (space : / . _ -) or before a capital that follows a small
 * letter ("Request" "AnimationFrame"): the last such place that leaves the
 * rest one line, else the last in the second half of the first line,
 * else between any two characters.  The second line of a name longer
 * still keeps the end, after an ellipsis: "sourceFetcher::" over
 * "…ResourceFromNetwork".
 */
typedef struct legend_name {
	size_t n1;		/* bytes of the first line */
	size_t at2, n2;		/* the second line: offset and bytes, or 0 */
	int cut;		/* something is left out */
} legend_name;


/*
 * Whether a line may break between s[p - 1] and s[p]: 2 after a
 * separator, 1 between a small letter and a capital, else 0.
 */
static int
legend_break(const char *s, size_t p)
{
	char a = s[p - 1], b = s[p];

	if (a == ' ' || a == ':' || a == '/' || a == '.' || a == '_' ||
	    a == '-')
		return (b != a ? 2 : 0);	/* "::" stays whole */
	return (a >= 'a' && a <= 'z' && b >= 'A' && b <= 'Z');
}

static legend_name
legend_split(const char *s, size_t len)
{
	legend_name ln = { len, 0, 0, 0 };
	size_t first, half, p, nrest;
	size_t fits[3] = { 0, 0, 0 }, late[3] = { 0, 0, 0 };
	int kind;

	if (utf8_count(s, len, LEGEND_CHARS + 1) <= LEGEND_CHARS)
		return (ln);
	first = utf8_offset(s, len, LEGEND_CHARS);
	half = utf8_offset(s, len, LEGEND_CHARS / 2);
	/* The last break of each kind that leaves one line, or is late. */
	for (p = first; p > 0; p--) {
		if (utf8_continues((unsigned char)s[p]) ||
		    (kind = legend_break(s, p)) == 0)
			continue;
		if (fits[kind] == 0 && utf8_count(s + p, len - p,
		    LEGEND_CHARS + 1) <= LEGEND_CHARS)
			fits[kind] = p;
		if (late[kind] == 0 && p >= half)
			late[kind] = p;
	}
	ln.n1 = fits[2] ? fits[2] : fits[1] ? fits[1] : late[2] ? late[2] :
	    late[1] ? late[1] : first;
	for (ln.at2 = ln.n1; ln.at2 < len && s[ln.at2] == ' '; ln.at2++)
		continue;
	nrest = utf8_count(s + ln.at2, len - ln.at2, (size_t)-1);
	if (nrest > LEGEND_CHARS) {
		ln.at2 += utf8_offset(s + ln.at2, len - ln.at2,
		    nrest - (LEGEND_CHARS - 1));
		ln.cut = 1;
	}
	ln.n2 = len - ln.at2;
	return (ln);
}

/* Pixels a statemap's legend takes: its entries and the gap after it. */
static unsigned
legend_height(const smap *m)
{
	unsigned h = 20;
	uint32_t s;

	for (s = 0; s < m->cat->nstates; s++) {
		const catalog_state *st = &m->cat->states[s];

		h += SWATCH_HEIGHT + 20 +
		    (legend_split(st->name, st->name_len).n2 > 0 ? 11 : 0);
	}
	return (h);
}

static void
write_legend(FILE *out, const smap *m, size_t id, unsigned *y)
{
	unsigned cx = LEGEND_X + (LEGEND_WIDTH - 2 * LEGEND_X - 10) / 2;
	uint64_t *total = xcalloc((size_t)m->cat->nstates + 1,
	    sizeof (uint64_t));
	uint32_t s;

	smap_state_times(m, total);
	for (s = 0; s < m->cat->nstates; s++) {
		const catalog_state *st = &m->cat->states[s];
		legend_name ln = legend_split(st->name, st->name_len);
		char hex[8], buf[64];

		color_format(st->color, hex);
		fprintf(out, "<rect x=\"%d\" y=\"%u\" width=\"%d\" height=\"%d\" "
		    "id=\"statemap-legend-%zu-%u\" class=\"statemap-legend\" "
		    "style=\"fill:%s\" stroke=\"%s\" />\n", LEGEND_X, *y,
		    LEGEND_WIDTH - 2 * LEGEND_X - 10, SWATCH_HEIGHT, id, s, hex,
		    SWATCH_BORDER);
		*y += SWATCH_HEIGHT + 10;
		fprintf(out, "<text x=\"%u\" y=\"%u\" font-size=\"10\" "
		    "text-anchor=\"middle\" class=\"statemap-legendlabel "
		    "sansserif\">", cx, *y);
		xml_escape(out, st->name, ln.n1);
		if (ln.n2 > 0) {
			fprintf(out, "<tspan x=\"%u\" dy=\"11\">%s", cx,
			    ln.cut ? "\xe2\x80\xa6" : "");
			xml_escape(out, st->name + ln.at2, ln.n2);
			fputs("</tspan>", out);
			*y += 11;
		}
		fputs("<title>", out);
		if (ln.cut) {
			xml_escape(out, st->name, st->name_len);
			fputs(": ", out);
		}
		fprintf(out, "%s in all</title></text>\n",
		    duration_format(total[s], buf, sizeof (buf)));
		*y += 10;
	}
	free(total);
}

/* The key to the hatch of "no data", below the legends. */
static void
write_nodata_key(FILE *out, unsigned y)
{
	fprintf(out, "<rect x=\"%d\" y=\"%u\" width=\"%d\" height=\"%d\" "
	    "class=\"statemap-legend-nodata\" fill=\"url(#statemap-nodata)\" "
	    "stroke=\"%s\" />\n", LEGEND_X, y, LEGEND_WIDTH - 2 * LEGEND_X - 10,
	    SWATCH_HEIGHT, SWATCH_BORDER);
	fprintf(out, "<text x=\"%d\" y=\"%u\" font-size=\"10\" "
	    "text-anchor=\"middle\" class=\"statemap-legend-nodatalabel "
	    "sansserif\">no data<title>no state known: before an entity's "
	    "first datum, or outside the trace</title></text>\n",
	    LEGEND_X + (LEGEND_WIDTH - 2 * LEGEND_X - 10) / 2,
	    y + SWATCH_HEIGHT + 10);
}

/* The tooltip of a strip: "Kind name: description". */
static void
write_entity_title(FILE *out, const smap *m, uint32_t e)
{
	const catalog *cat = m->cat;
	const char *name;
	size_t len;

	name = catalog_entity_name(cat, e, &len);
	fputs("<title>", out);
	escape_cstring(out, cat->entity_kind != NULL ? cat->entity_kind :
	    "Entity");
	fputc(' ', out);
	xml_escape(out, name, len);
	if (cat->descriptions[e] != NULL) {
		fputs(": ", out);
		escape_cstring(out, cat->descriptions[e]);
	}
	fputs("</title>", out);
}

/*
 * One rectangle of a strip, as '<rect x="%.3f" y="%u" width="%.3f"
 * height="%u" fill="%s" />' would write it: there is one per rectangle
 * kept, and printf's general float conversion was most of their cost.
 */
static void
write_rect(FILE *out, double x, unsigned y, double w, unsigned height,
    const char *fill)
{
	char line[2 * FIXED3_MAX + 128], *p = line;

	p = FIXED_APPEND_LITERAL(p, "<rect x=\"");
	p += fixed3_format(x, p);
	p = FIXED_APPEND_LITERAL(p, "\" y=\"");
	p += fixed_uint(y, p);
	p = FIXED_APPEND_LITERAL(p, "\" width=\"");
	p += fixed3_format(w, p);
	p = FIXED_APPEND_LITERAL(p, "\" height=\"");
	p += fixed_uint(height, p);
	p = FIXED_APPEND_LITERAL(p, "\" fill=\"");
	p = fixed_append(p, fill, strlen(fill));
	p = FIXED_APPEND_LITERAL(p, "\" />\n");
	fwrite(line, 1, (size_t)(p - line), out);
}

static void
write_strip(FILE *out, const smap *m, size_t id, uint32_t e, unsigned y,
    double span, const svg_options *opts, const color *mix)
{
	uint32_t r;

	fprintf(out, "<g id=\"statemap-%zu-entity-%u\">", id, e);
	write_entity_title(out, m, e);
	fputc('\n', out);
	/* A value entity's step graph (valuesvg.h). */
	if (m->values != NULL && valuesvg_strip(out, m, e, y, span,
	    opts->strip_width, opts->strip_height))
		goto done;
	if (m->co == NULL)
		goto done;
	for (r = coalesce_first(m->co, e); r != COALESCE_NONE;
	    r = coalesce_next(m->co, r)) {
		coalesce_rect rect;
		color c;
		char hex[8];
		double x, w;

		coalesce_get(m->co, r, &rect);
		/* No data (coalesce.h's COALESCE_GAP): the hatch shows. */
		if (rect.duration == 0 || rect.nstates == 0)
			continue;
		c = color_blend_sparse(mix, rect.states, rect.times,
		    rect.nstates);
		color_format(c, hex);
		x = ((double)rect.start - (double)m->begin) / span *
		    opts->strip_width;
		/*
		 * A little wider than exact, so the background never shows
		 * between neighbours; the next rectangle covers the excess.
		 */
		w = (double)rect.duration / span * opts->strip_width + 0.4;
		write_rect(out, x, y, w, opts->strip_height, hex);
	}
done:
	fputs("</g>\n", out);
}

/* One statemap's strips, as rows for rowwriter.h; mix: its states' colours. */
typedef struct strips {
	const smap *m;
	size_t id;
	double span;
	const svg_options *opts;
	const color *mix;
} strips;

static void
strip_row(FILE *out, size_t k, void *scratch, void *ctx)
{
	const strips *st = ctx;

	(void)scratch;
	write_strip(out, st->m, st->id, st->m->order[k],
	    (unsigned)k * st->opts->strip_height, st->span, st->opts, st->mix);
}

/* The names column: font size, or 0 when strips are too thin to label. */
static unsigned
label_font(const svg_options *opts)
{
	if (opts->strip_height < 6)
		return (0);	/* too small to read: tooltips suffice */
	return (opts->strip_height > 12 ? 11 : opts->strip_height - 1);
}

/*
 * How many characters of a label fit in w pixels at this font size.  No
 * font metrics here: the estimate is 0.62 em a character, a little wider
 * than DejaVu Sans's lowercase and digits, which browsers on Debian use
 * for sans-serif.
 */
static size_t
label_chars_in(unsigned w, unsigned font)
{
	return ((size_t)((double)w / (0.62 * font)));
}

/*
 * The names column is wide enough for the longest label (name and
 * description, by the label mode) between LABEL_WIDTH and
 * LABEL_MAX_WIDTH pixels; longer labels are cut with an ellipsis.
 */
static unsigned
label_column(const smap *maps, size_t n, const svg_options *opts,
    label_mode mode)
{
	unsigned font = label_font(opts), w;
	size_t i, most = 0, cap;
	uint32_t k;

	if (font == 0)
		return (LABEL_WIDTH);
	cap = label_chars_in(LABEL_MAX_WIDTH - LABEL_PAD, font) + 1;
	for (i = 0; i < n && most < cap; i++) {
		const catalog *cat = maps[i].cat;

		for (k = 0; k < maps[i].nentities && most < cap; k++) {
			uint32_t e = maps[i].order[k];
			const char *name, *desc = cat->descriptions[e];
			size_t len, c = 0;

			name = catalog_entity_name(cat, e, &len);
			if (desc != NULL && desc[0] == '\0')
				desc = NULL;
			if (mode != LABEL_DESCRIPTION || desc == NULL)
				c = utf8_count(name, len, cap);
			if (mode != LABEL_NAME && desc != NULL)
				c += (c > 0) + utf8_count(desc, strlen(desc), cap);
			if (c > most)
				most = c;
		}
	}
	w = LABEL_PAD + (unsigned)(most * 0.62 * font + 0.999);
	return (w < LABEL_WIDTH ? LABEL_WIDTH : w > LABEL_MAX_WIDTH ?
	    LABEL_MAX_WIDTH : w);
}

/*
 * Each entity's label (label.h) in the names column, cut to the column's
 * width at a character boundary; a cut label has the whole one (up to
 * LABEL_TITLE_MAX bytes) as its tooltip.  The label budget is in bytes,
 * so names outside ASCII are cut a little early rather than too late.
 */
static void
write_labels(FILE *out, const smap *m, size_t id, unsigned x, unsigned y,
    const svg_options *opts, unsigned column, label_mode mode)
{
	unsigned size = label_font(opts);
	size_t max;
	char *buf;
	uint32_t k;

	if (size == 0)
		return;
	max = label_chars_in(column - LABEL_PAD, size);
	buf = xmalloc((max > LABEL_TITLE_MAX ? max : LABEL_TITLE_MAX) + 1);
	fprintf(out, "<g class=\"statemap-labels sansserif\" "
	    "id=\"statemap-labels-%zu\" font-size=\"%u\">\n", id, size);
	for (k = 0; k < m->nentities; k++) {
		uint32_t e = m->order[k];
		const char *name, *desc = m->cat->descriptions[e];
		size_t len, nlen, shown;

		name = catalog_entity_name(m->cat, e, &len);
		fprintf(out, "<text x=\"%u\" y=\"%u\">", x,
		    y + k * opts->strip_height + opts->strip_height - 1 -
		    (opts->strip_height - 1 - size) / 2);
		shown = label_compose(name, len, desc, mode, max, buf);
		/* (Longer than the name and a space: the name is whole.) */
		nlen = label_name_length(name, len);
		if (mode == LABEL_BOTH && shown > nlen + 1 &&
		    buf[nlen] == ' ') {
			/* The name, then the description in grey. */
			xml_escape(out, buf, nlen);
			fputs("<tspan class=\"statemap-label-description\">",
			    out);
			xml_escape(out, buf + nlen, shown - nlen);
			fputs("</tspan>", out);
		} else {
			xml_escape(out, buf, shown);
		}
		if (label_length(name, len, desc, mode) > shown) {
			fputs("<title>", out);
			xml_escape(out, buf, label_compose(name, len, desc,
			    mode, LABEL_TITLE_MAX, buf));
			fputs("</title>", out);
		}
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
	free(buf);
}

static void
write_style(FILE *out)
{
	fputs("<style type=\"text/css\"><![CDATA[\n"
	    ".sansserif { font-family: sans-serif; }\n"
	    ".statemap-title { font-size: 16px; text-anchor: middle; }\n"
	    ".statemap-timelabel { font-size: 12px; text-anchor: middle; }\n"
	    ".statemap-border { fill: none; stroke: #666; }\n"
	    ".statemap-label-description { fill: #666; }\n"
	    "]]></style>\n", out);
	/*
	 * "No data" is a light grey hatch on white, which no solid state
	 * colour can be mistaken for (the old #f0f0f0 background was next
	 * to common colours for sleeping states, #e8e8e8 and #f2f2f2).  It is
	 * drawn under each statemap in the document's own coordinates, so
	 * the viewer's zoom does not stretch it.
	 */
	fputs("<defs><pattern id=\"statemap-nodata\" width=\"6\" "
	    "height=\"6\" patternUnits=\"userSpaceOnUse\" "
	    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" "
	    "fill=\"#fff\" /><line x1=\"1\" y1=\"0\" x2=\"1\" y2=\"6\" "
	    "stroke=\"#c8c8c8\" stroke-width=\"2\" /></pattern></defs>\n",
	    out);
}

/*
 * The viewer last, so that when it runs the document (and the data block)
 * is complete.  embed_text.lua guarantees neither text holds "]]>".
 */
static void
write_viewer(FILE *out)
{
	fputs("<style type=\"text/css\" id=\"statemap-viewer-style\">"
	    "<![CDATA[\n", out);
	fwrite(viewer_css, 1, viewer_css_len, out);
	fputs("]]></style>\n<script type=\"text/javascript\" "
	    "id=\"statemap-viewer\"><![CDATA[\n", out);
	fwrite(viewer_js, 1, viewer_js_len, out);
	fputs("]]></script>\n", out);
}

void
svg_defaults(svg_options *opts)
{
	opts->strip_height = SVG_STRIP_HEIGHT;
	opts->strip_width = SVG_STRIP_WIDTH;
	opts->labels = LABEL_BOTH;
	opts->detail = NULL;
	opts->detail_len = 0;
	opts->detail_exact = 0;
}

void
svg_write(FILE *out, const smap *maps, size_t n, const size_t *order,
    const svg_options *opts)
{
	label_mode labels = opts->labels;
	uint64_t span_ns = svg_span(&maps[0]);
	double span = (double)span_ns;
	unsigned width = opts->strip_width, height = TOP_MARGIN, legend_y;
	unsigned column = label_column(maps, n, opts, labels);
	unsigned total_width = LEGEND_WIDTH + width + column;
	uint32_t maxstates = 0, s;
	color *mix;
	char *title;
	char buf[64];
	size_t i;
	/* Each statemap's group headers in the viewer: a slot each. */
	uint32_t *heads = xcalloc(n > 0 ? n : 1, sizeof (uint32_t));

	for (i = 0; i < n; i++) {
		heads[i] = group_slots_count(maps[i].cat, maps[i].order,
		    maps[i].nentities);
		height += (maps[i].nentities + heads[i]) * opts->strip_height;
		if (i > 0)
			height += STACK_GAP;
		if (maps[i].cat->nstates > maxstates)
			maxstates = maps[i].cat->nstates;
	}
	/* The legend can be taller than the strips. */
	legend_y = TOP_MARGIN + NODATA_KEY;
	for (i = 0; i < n; i++) {
		if (i == 0 || !catalog_same_states(maps[order[i]].cat,
		    maps[order[i - 1]].cat))
			legend_y += legend_height(&maps[order[i]]);
	}
	if (legend_y > height)
		height = legend_y;
	height += 10;
	mix = xcalloc(maxstates > 0 ? maxstates : 1, sizeof (color));

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	    "width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
	    "data-span=\"%.0f\"%s>\n", total_width, height, total_width,
	    height, span, opts->detail_exact && opts->detail == NULL ?
	    " data-detail=\"exact\"" : "");
	write_style(out);

	title = smap_title(maps, n);
	fprintf(out, "<text x=\"%u\" y=\"18\" class=\"statemap-title "
	    "sansserif\" id=\"statemap-title\">", LEGEND_WIDTH + width / 2);
	escape_cstring(out, title);
	fputs("</text>\n", out);
	free(title);
	fprintf(out, "<text x=\"%u\" y=\"36\" class=\"statemap-timelabel "
	    "sansserif\" id=\"statemap-timelabel\">span = %s</text>\n",
	    LEGEND_WIDTH + width / 2,
	    duration_format(span_ns, buf, sizeof (buf)));
	write_axis(out, span, width);

	{
		unsigned y = TOP_MARGIN;

		for (i = 0; i < n; i++) {
			const smap *m = &maps[order[i]];
			unsigned h = (m->nentities + heads[order[i]]) *
			    opts->strip_height;
			strips st = { m, i, span, opts, mix };

			fprintf(out, "<rect class=\"statemap-nodata\" x=\"%d\" "
			    "y=\"%u\" width=\"%u\" height=\"%u\" "
			    "fill=\"url(#statemap-nodata)\" />\n", LEGEND_WIDTH,
			    y, width, h);
			fprintf(out, "<svg x=\"%d\" y=\"%u\" width=\"%u\" "
			    "height=\"%u\" id=\"statemap-%zu\"", LEGEND_WIDTH,
			    y, width, h, i);
			/* With header slots below the rows, the rows' height. */
			if (heads[order[i]] > 0)
				fprintf(out, " data-strip-height=\"%u\"",
				    opts->strip_height);
			fputs(">\n", out);
			for (s = 0; s < m->cat->nstates; s++)
				mix[s] = m->cat->states[s].color;
			rowwriter_run(out, m->nentities, strip_row, &st, 0);
			fputs("</svg>\n", out);
			fprintf(out, "<rect class=\"statemap-border\" x=\"%d\" "
			    "y=\"%u\" width=\"%u\" height=\"%u\" />\n",
			    LEGEND_WIDTH, y, width, h);
			valuesvg_ranges(out, m, i, LEGEND_WIDTH + width, y,
			    opts->strip_height);
			write_labels(out, m, i, LEGEND_WIDTH + width +
			    LABEL_PAD, y, opts, column, labels);
			y += h + STACK_GAP;
		}
	}

	legend_y = TOP_MARGIN;
	for (i = 0; i < n; i++) {
		if (i == 0 || !catalog_same_states(maps[order[i]].cat,
		    maps[order[i - 1]].cat)) {
			write_legend(out, &maps[order[i]], i, &legend_y);
			legend_y += 20;
		}
	}
	write_nodata_key(out, legend_y);

	/* The data for the viewer: inert JSON, every string escaped. */
	fputs("<script type=\"application/json\" id=\"statemap-data\">"
	    "<![CDATA[\n", out);
	write_json_cdata(out, maps, n, order);
	fputs("]]></script>\n", out);
	if (opts->detail != NULL)
		write_detail(out, opts);
	write_viewer(out);
	fputs("</svg>\n", out);
	free(mix);
	free(heads);
}
