/*
 * test_color.c: color_parse, color_generated, color_blend (dense and
 * sparse), color_format.
 */
#include <math.h>

#include "base/color.h"
#include "unit.h"

/* Parses a NUL-terminated string, expecting the colour want ("#rrggbb"). */
static void
parse_is(const char *name, const char *text, const char *want)
{
	color c = { 1, 2, 3 };
	char buf[8] = "";
	int ok;

	ok = color_parse(text, strlen(text), &c);
	if (ok)
		color_format(c, buf);
	UNIT_REPORT(ok && strcmp(buf, want) == 0, name,
	    "color_parse(\"%s\") is %d, %s; want 1, %s", text, ok,
	    ok ? buf : "-", want);
}

/* Parses len bytes, expecting failure and *out untouched. */
static void
parse_fails_len(const char *name, const char *text, size_t len)
{
	color c = { 1, 2, 3 };
	int ok;

	ok = color_parse(text, len, &c);
	UNIT_REPORT(!ok && c.r == 1 && c.g == 2 && c.b == 3, name,
	    "color_parse(\"%.*s\", %zu) is %d, want 0 and out untouched",
	    (int)len, text != NULL ? text : "", len, ok);
}

static void
parse_fails(const char *name, const char *text)
{
	parse_fails_len(name, text, strlen(text));
}

static void
test_parse_hex(void)
{
	parse_is("color_parse #rrggbb", "#1a2b3c", "#1a2b3c");
	parse_is("color_parse #rrggbb uppercase", "#1A2B3C", "#1a2b3c");
	parse_is("color_parse #rrggbb mixed case", "#aBcDeF", "#abcdef");
	parse_is("color_parse #000000", "#000000", "#000000");
	parse_is("color_parse #ffffff", "#ffffff", "#ffffff");
	parse_is("color_parse #rgb shorthand", "#abc", "#aabbcc");
	parse_is("color_parse #rgb shorthand uppercase", "#F0A", "#ff00aa");
	parse_is("color_parse #rgb digits", "#159", "#115599");
	parse_is("color_parse #000 shorthand", "#000", "#000000");
	parse_is("color_parse #fff shorthand", "#fff", "#ffffff");

	parse_fails("color_parse empty fails", "");
	parse_fails("color_parse lone # fails", "#");
	parse_fails("color_parse #1 fails", "#1");
	parse_fails("color_parse #12 fails", "#12");
	parse_fails("color_parse #1234 fails", "#1234");
	parse_fails("color_parse #12345 fails", "#12345");
	parse_fails("color_parse #1234567 fails", "#1234567");
	parse_fails("color_parse #rrggbbaa fails", "#11223344");
	parse_fails("color_parse #ggg fails", "#ggg");
	parse_fails("color_parse #12345g fails", "#12345g");
	parse_fails("color_parse #g12345 fails", "#g12345");
	parse_fails("color_parse hex without # fails", "123456");
	parse_fails("color_parse ## fails", "##123456");
	parse_fails("color_parse space in hex fails", "#12 456");
	parse_fails("color_parse sign in hex fails", "#+12345");
	parse_fails("color_parse 0x prefix fails", "#0x1234");
	parse_fails("color_parse leading space fails", " #123456");
	parse_fails("color_parse trailing space fails", "#123456 ");
	parse_fails_len("color_parse NUL in hex fails", "#12\0456", 7);
	parse_fails_len("color_parse NULL fails", NULL, 0);
}

static void
test_parse_named(void)
{
	color c;

	parse_is("color_parse red", "red", "#ff0000");
	parse_is("color_parse RED (case-insensitive)", "RED", "#ff0000");
	parse_is("color_parse DarkSlateGray mixed case", "DarkSlateGray",
	    "#2f4f4f");
	parse_is("color_parse darkslategrey (grey spelling)", "darkslategrey",
	    "#2f4f4f");
	parse_is("color_parse gray", "gray", "#808080");
	parse_is("color_parse grey", "grey", "#808080");
	parse_is("color_parse CSS green, not X11 green", "green", "#008000");
	parse_is("color_parse CSS maroon, not X11 maroon", "maroon",
	    "#800000");
	parse_is("color_parse CSS purple, not X11 purple", "purple",
	    "#800080");
	parse_is("color_parse lime", "lime", "#00ff00");
	parse_is("color_parse rebeccapurple", "rebeccapurple", "#663399");
	parse_is("color_parse RebeccaPurple", "RebeccaPurple", "#663399");
	parse_is("color_parse aliceblue (first in table)", "aliceblue",
	    "#f0f8ff");
	parse_is("color_parse yellowgreen (last in table)", "yellowgreen",
	    "#9acd32");
	parse_is("color_parse lightgoldenrodyellow (longest)",
	    "LIGHTGOLDENRODYELLOW", "#fafad2");
	parse_is("color_parse tan (shortest-ish)", "tan", "#d2b48c");
	parse_is("color_parse aqua equals cyan", "aqua", "#00ffff");
	parse_is("color_parse cyan", "cyan", "#00ffff");
	parse_is("color_parse fuchsia equals magenta", "fuchsia", "#ff00ff");
	parse_is("color_parse magenta", "magenta", "#ff00ff");
	parse_is("color_parse lightslategrey", "lightslategrey", "#778899");
	parse_is("color_parse dimgrey", "dimgrey", "#696969");
	parse_is("color_parse silver", "silver", "#c0c0c0");
	parse_is("color_parse teal", "teal", "#008080");
	parse_is("color_parse navajowhite", "navajowhite", "#ffdead");
	parse_is("color_parse mediumspringgreen", "mediumspringgreen",
	    "#00fa9a");

	parse_fails("color_parse leading space before name fails", " red");
	parse_fails("color_parse trailing space after name fails", "red ");
	parse_fails("color_parse transparent is not a colour", "transparent");
	parse_fails("color_parse currentColor is not a colour",
	    "currentColor");
	parse_fails("color_parse unknown name fails", "redd");
	parse_fails("color_parse prefix of a name fails", "re");
	parse_fails("color_parse name with extra suffix fails",
	    "aliceblueish");
	parse_fails("color_parse name sorting before table fails", "aaa");
	parse_fails("color_parse name sorting after table fails", "zzz");
	parse_fails("color_parse name with hyphen fails", "dark-red");
	parse_fails("color_parse name with space fails", "dark red");
	parse_fails("color_parse name with underscore fails", "dark_red");
	parse_fails("color_parse X11-only name fails", "navyblue");
	parse_fails("color_parse non-ASCII name fails", "r\xc3\xa9" "d");
	parse_fails_len("color_parse NUL inside name fails", "red\0", 4);

	/* The length decides, not a NUL: these bytes are not terminated. */
	CHECK_INT("color_parse uses len, not NUL (prefix \"red\" of "
	    "\"redish\")", color_parse("redish", 3, &c), 1);
	CHECK("color_parse uses len, value", c.r == 255 && c.g == 0 &&
	    c.b == 0);
	CHECK_INT("color_parse uses len for hex (\"#abc\" of \"#abcdef\")",
	    color_parse("#abcdef", 4, &c), 1);
	CHECK("color_parse uses len for hex, value", c.r == 0xaa &&
	    c.g == 0xbb && c.b == 0xcc);
	CHECK_INT("color_parse NULL out only validates",
	    color_parse("blue", 4, NULL), 1);
	CHECK_INT("color_parse NULL out, bad name", color_parse("bleu", 4,
	    NULL), 0);
}

/*
 * The whole table: every name once, each in three casings, checked
 * against the CSS Color 4 values; and 148 of them.
 */
static void
test_parse_all_names(void)
{
	static const struct {
		const char *name;
		const char *hex;
	} css[] = {
		{ "aliceblue", "#f0f8ff" }, { "antiquewhite", "#faebd7" },
		{ "aqua", "#00ffff" }, { "aquamarine", "#7fffd4" },
		{ "azure", "#f0ffff" }, { "beige", "#f5f5dc" },
		{ "bisque", "#ffe4c4" }, { "black", "#000000" },
		{ "blanchedalmond", "#ffebcd" }, { "blue", "#0000ff" },
		{ "blueviolet", "#8a2be2" }, { "brown", "#a52a2a" },
		{ "burlywood", "#deb887" }, { "cadetblue", "#5f9ea0" },
		{ "chartreuse", "#7fff00" }, { "chocolate", "#d2691e" },
		{ "coral", "#ff7f50" }, { "cornflowerblue", "#6495ed" },
		{ "cornsilk", "#fff8dc" }, { "crimson", "#dc143c" },
		{ "cyan", "#00ffff" }, { "darkblue", "#00008b" },
		{ "darkcyan", "#008b8b" }, { "darkgoldenrod", "#b8860b" },
		{ "darkgray", "#a9a9a9" }, { "darkgreen", "#006400" },
		{ "darkgrey", "#a9a9a9" }, { "darkkhaki", "#bdb76b" },
		{ "darkmagenta", "#8b008b" }, { "darkolivegreen", "#556b2f" },
		{ "darkorange", "#ff8c00" }, { "darkorchid", "#9932cc" },
		{ "darkred", "#8b0000" }, { "darksalmon", "#e9967a" },
		{ "darkseagreen", "#8fbc8f" }, { "darkslateblue", "#483d8b" },
		{ "darkslategray", "#2f4f4f" }, { "darkslategrey", "#2f4f4f" },
		{ "darkturquoise", "#00ced1" }, { "darkviolet", "#9400d3" },
		{ "deeppink", "#ff1493" }, { "deepskyblue", "#00bfff" },
		{ "dimgray", "#696969" }, { "dimgrey", "#696969" },
		{ "dodgerblue", "#1e90ff" }, { "firebrick", "#b22222" },
		{ "floralwhite", "#fffaf0" }, { "forestgreen", "#228b22" },
		{ "fuchsia", "#ff00ff" }, { "gainsboro", "#dcdcdc" },
		{ "ghostwhite", "#f8f8ff" }, { "gold", "#ffd700" },
		{ "goldenrod", "#daa520" }, { "gray", "#808080" },
		{ "green", "#008000" }, { "greenyellow", "#adff2f" },
		{ "grey", "#808080" }, { "honeydew", "#f0fff0" },
		{ "hotpink", "#ff69b4" }, { "indianred", "#cd5c5c" },
		{ "indigo", "#4b0082" }, { "ivory", "#fffff0" },
		{ "khaki", "#f0e68c" }, { "lavender", "#e6e6fa" },
		{ "lavenderblush", "#fff0f5" }, { "lawngreen", "#7cfc00" },
		{ "lemonchiffon", "#fffacd" }, { "lightblue", "#add8e6" },
		{ "lightcoral", "#f08080" }, { "lightcyan", "#e0ffff" },
		{ "lightgoldenrodyellow", "#fafad2" },
		{ "lightgray", "#d3d3d3" }, { "lightgreen", "#90ee90" },
		{ "lightgrey", "#d3d3d3" }, { "lightpink", "#ffb6c1" },
		{ "lightsalmon", "#ffa07a" }, { "lightseagreen", "#20b2aa" },
		{ "lightskyblue", "#87cefa" }, { "lightslategray", "#778899" },
		{ "lightslategrey", "#778899" },
		{ "lightsteelblue", "#b0c4de" }, { "lightyellow", "#ffffe0" },
		{ "lime", "#00ff00" }, { "limegreen", "#32cd32" },
		{ "linen", "#faf0e6" }, { "magenta", "#ff00ff" },
		{ "maroon", "#800000" }, { "mediumaquamarine", "#66cdaa" },
		{ "mediumblue", "#0000cd" }, { "mediumorchid", "#ba55d3" },
		{ "mediumpurple", "#9370db" }, { "mediumseagreen", "#3cb371" },
		{ "mediumslateblue", "#7b68ee" },
		{ "mediumspringgreen", "#00fa9a" },
		{ "mediumturquoise", "#48d1cc" },
		{ "mediumvioletred", "#c71585" },
		{ "midnightblue", "#191970" }, { "mintcream", "#f5fffa" },
		{ "mistyrose", "#ffe4e1" }, { "moccasin", "#ffe4b5" },
		{ "navajowhite", "#ffdead" }, { "navy", "#000080" },
		{ "oldlace", "#fdf5e6" }, { "olive", "#808000" },
		{ "olivedrab", "#6b8e23" }, { "orange", "#ffa500" },
		{ "orangered", "#ff4500" }, { "orchid", "#da70d6" },
		{ "palegoldenrod", "#eee8aa" }, { "palegreen", "#98fb98" },
		{ "paleturquoise", "#afeeee" }, { "palevioletred", "#db7093" },
		{ "papayawhip", "#ffefd5" }, { "peachpuff", "#ffdab9" },
		{ "peru", "#cd853f" }, { "pink", "#ffc0cb" },
		{ "plum", "#dda0dd" }, { "powderblue", "#b0e0e6" },
		{ "purple", "#800080" }, { "rebeccapurple", "#663399" },
		{ "red", "#ff0000" }, { "rosybrown", "#bc8f8f" },
		{ "royalblue", "#4169e1" }, { "saddlebrown", "#8b4513" },
		{ "salmon", "#fa8072" }, { "sandybrown", "#f4a460" },
		{ "seagreen", "#2e8b57" }, { "seashell", "#fff5ee" },
		{ "sienna", "#a0522d" }, { "silver", "#c0c0c0" },
		{ "skyblue", "#87ceeb" }, { "slateblue", "#6a5acd" },
		{ "slategray", "#708090" }, { "slategrey", "#708090" },
		{ "snow", "#fffafa" }, { "springgreen", "#00ff7f" },
		{ "steelblue", "#4682b4" }, { "tan", "#d2b48c" },
		{ "teal", "#008080" }, { "thistle", "#d8bfd8" },
		{ "tomato", "#ff6347" }, { "turquoise", "#40e0d0" },
		{ "violet", "#ee82ee" }, { "wheat", "#f5deb3" },
		{ "white", "#ffffff" }, { "whitesmoke", "#f5f5f5" },
		{ "yellow", "#ffff00" }, { "yellowgreen", "#9acd32" },
	};
	size_t i, j, len, bad = 0, nbad_names = 0;
	char upper[32], mixed[32], buf[8];
	const char *first_bad = NULL;
	color c;
	int ok;

	CHECK_INT("color_parse table has 148 CSS names",
	    sizeof (css) / sizeof (css[0]), 148);
	for (i = 0; i < sizeof (css) / sizeof (css[0]); i++) {
		len = strlen(css[i].name);
		for (j = 0; j <= len; j++) {
			upper[j] = (char)(css[i].name[j] >= 'a' ?
			    css[i].name[j] - 'a' + 'A' : css[i].name[j]);
			mixed[j] = j % 2 == 0 ? upper[j] : css[i].name[j];
		}
		ok = color_parse(css[i].name, len, &c);
		color_format(c, buf);
		ok = ok && strcmp(buf, css[i].hex) == 0;
		ok = ok && color_parse(upper, len, &c);
		color_format(c, buf);
		ok = ok && strcmp(buf, css[i].hex) == 0;
		ok = ok && color_parse(mixed, len, &c);
		color_format(c, buf);
		ok = ok && strcmp(buf, css[i].hex) == 0;
		/* No CSS name is another one plus a byte, so this must fail. */
		if (color_parse(css[i].name, len - 1, NULL))
			nbad_names++;
		if (!ok) {
			bad++;
			if (first_bad == NULL)
				first_bad = css[i].name;
		}
	}
	UNIT_REPORT(bad == 0, "color_parse all 148 names in 3 casings",
	    "%zu wrong, first \"%s\"", bad, first_bad != NULL ? first_bad :
	    "");
	CHECK_INT("color_parse no name minus its last byte is a colour",
	    nbad_names, 0);
}

static int
same(color a, color b)
{
	return (a.r == b.r && a.g == b.g && a.b == b.b);
}

/*
 * OKLab (Björn Ottosson, 2020), the perceptual space CSS Color 4 measures
 * colour differences in: Euclidean distance there (deltaE OK) follows
 * what people see far better than RGB distance does.  CSS Color 4 takes
 * 0.02 as a just-noticeable difference.
 */
typedef struct lab {
	double l, a, b;
} lab;

static double
linear(uint8_t v)
{
	double c = v / 255.0;

	return (c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4));
}

static lab
oklab(color c)
{
	double r = linear(c.r), g = linear(c.g), b = linear(c.b);
	double l = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
	double m = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
	double s = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
	lab out;

	out.l = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s;
	out.a = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s;
	out.b = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s;
	return (out);
}

static double
delta_e(color x, color y)
{
	lab p = oklab(x), q = oklab(y);

	return (sqrt((p.l - q.l) * (p.l - q.l) + (p.a - q.a) * (p.a - q.a) +
	    (p.b - q.b) * (p.b - q.b)));
}

/* The smallest deltaE OK between two of the generated colours lo..hi-1. */
static double
closest_pair(uint32_t lo, uint32_t hi, uint32_t *pn, uint32_t *pm)
{
	double d, best = 1e9;
	uint32_t n, m;

	for (n = lo; n < hi; n++) {
		for (m = n + 1; m < hi; m++) {
			d = delta_e(color_generated(n), color_generated(m));
			if (d < best) {
				best = d;
				*pn = n;
				*pm = m;
			}
		}
	}
	return (best);
}

static void
test_generated(void)
{
	/*
	 * "No data" is drawn as a light grey hatch on white (svg.c); its
	 * average is near #f0f0f0.
	 */
	color nodata = { 0xf0, 0xf0, 0xf0 }, white = { 0xff, 0xff, 0xff };
	color a, b;
	double d, mind;
	uint32_t n, m = 0, k = 0, ndup = 0, worst = 0;
	char buf[8];

	color_format(color_generated(0), buf);
	CHECK_STR("color_generated 0 is the first palette colour", buf,
	    "#4e79a7");
	color_format(color_generated(1), buf);
	CHECK_STR("color_generated 1 is the second palette colour", buf,
	    "#f28e2b");

	/* Same n, same colour: including across calls far apart. */
	for (n = 0; n < 200; n++) {
		a = color_generated(n);
		(void)color_generated(n + 1000);
		b = color_generated(n);
		if (!same(a, b))
			ndup++;
	}
	CHECK_INT("color_generated is deterministic", ndup, 0);
	color_format(color_generated(41), buf);
	CHECK_STR("color_generated 41 is always the same", buf, "#195fa0");
	color_format(color_generated(1000), buf);
	CHECK_STR("color_generated 1000 is always the same", buf, "#0b6c65");

	/*
	 * Any number of states up to 64 gets colours told apart at a glance.
	 * The colours for n states are the first n of the sequence, so the
	 * closest pair among the first 64 bounds every smaller set.  The
	 * bound is 0.075 deltaE OK, nearly four times a just-noticeable
	 * difference: enough for two thin rectangles side by side (a real
	 * Chrome trace has 42 states; with the old palette two of them
	 * shared #4e79a7).  The first 10, the states most traces have, are
	 * at least 0.10 apart.
	 */
	mind = closest_pair(0, 10, &n, &m);
	UNIT_REPORT(mind >= 0.10, "color_generated first 10 are 0.10 apart",
	    "%u and %u are %.4f apart", n, m, mind);
	mind = closest_pair(0, 42, &n, &m);
	UNIT_REPORT(mind >= 0.075, "color_generated first 42 are 0.075 apart",
	    "%u and %u are %.4f apart", n, m, mind);
	mind = closest_pair(0, 64, &n, &m);
	UNIT_REPORT(mind >= 0.075, "color_generated first 64 are 0.075 apart",
	    "%u and %u are %.4f apart", n, m, mind);

	/* Past 64 there is no such bound, but neighbours still differ. */
	mind = 1e9;
	for (n = 64; n < 5000; n++) {
		d = delta_e(color_generated(n), color_generated(n + 1));
		if (d < mind) {
			mind = d;
			worst = n;
		}
	}
	UNIT_REPORT(mind >= 0.05, "color_generated neighbours past 64 differ",
	    "%u and the next are %.4f apart", worst, mind);

	/* None is near the look of no data, nor white, for many n. */
	mind = 1e9;
	for (n = 0; n < 100000; n++) {
		a = color_generated(n);
		d = delta_e(a, nodata);
		if (delta_e(a, white) < d)
			d = delta_e(a, white);
		if (d < mind) {
			mind = d;
			k = n;
		}
	}
	UNIT_REPORT(mind >= 0.15, "color_generated never near no data",
	    "%u is %.4f from #f0f0f0 or white", k, mind);

	a = color_generated(UINT32_MAX);
	b = color_generated(UINT32_MAX);
	CHECK("color_generated UINT32_MAX is deterministic", same(a, b));
	CHECK("color_generated UINT32_MAX is far from no data",
	    delta_e(a, nodata) >= 0.15);
}

/* Blends and formats, expecting want. */
static void
blend_is(const char *name, const color *colors, const uint64_t *times,
    size_t n, const char *want)
{
	char buf[8];

	color_format(color_blend(colors, times, n), buf);
	CHECK_STR(name, buf, want);
}

static void
test_blend(void)
{
	color rgb[3] = { { 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 } };
	color bw[2] = { { 0, 0, 0 }, { 255, 255, 255 } };
	color four[4] = {
		{ 10, 20, 30 }, { 200, 100, 0 }, { 0, 0, 0 }, { 255, 255, 255 }
	};
	uint64_t t[4];
	color one = { 0x12, 0x34, 0x56 };
	char buf[8];

	t[0] = 5; t[1] = 0; t[2] = 0;
	blend_is("color_blend one state is its colour", rgb, t, 3, "#ff0000");
	t[0] = 0; t[1] = 0; t[2] = 7;
	blend_is("color_blend only the last state has time", rgb, t, 3,
	    "#0000ff");
	t[0] = 0; t[1] = 0; t[2] = 0;
	blend_is("color_blend all zero is colors[0]", rgb, t, 3, "#ff0000");
	t[0] = 0;
	blend_is("color_blend one state all zero", &one, t, 1, "#123456");
	t[0] = 9;
	blend_is("color_blend one state", &one, t, 1, "#123456");
	color_format(color_blend(rgb, t, 0), buf);
	CHECK_STR("color_blend n == 0 is black", buf, "#000000");

	/*
	 * Max is state 0 (3/4).  Start at red; move 1/4 towards green:
	 * (191.25, 63.75, 0) rounds to (191, 64, 0).
	 */
	t[0] = 3; t[1] = 1; t[2] = 0;
	blend_is("color_blend 3:1 red/green", rgb, t, 3, "#bf4000");

	/*
	 * Start at black (first of the tied states), move half way to
	 * white: 127.5 rounds to nearest, up, to 128.
	 */
	t[0] = 1; t[1] = 1;
	blend_is("color_blend tie, half way rounds up", bw, t, 2, "#808080");

	/*
	 * Ties: max is the first of the tied states (state 0 over 2).
	 * times 2,1,2 (total 5): start red (255,0,0); green at 0.2:
	 * (204,51,0); blue at 0.4: (122.4,30.6,102) -> (122,31,102).
	 * Had state 2 been chosen: blue, then red at .4 -> (102,0,153),
	 * green at .2 -> (81.6,51,122.4) -> (82,51,122).
	 */
	t[0] = 2; t[1] = 1; t[2] = 2;
	blend_is("color_blend tie goes to the first state", rgb, t, 3,
	    "#7a1f66");

	/*
	 * Order matters: the others are applied in state order after the
	 * max.  times 1,1,3 (total 5): start blue (0,0,255); red at .2:
	 * (51,0,204); green at .2: (40.8,51,163.2) -> (41,51,163).
	 */
	t[0] = 1; t[1] = 1; t[2] = 3;
	blend_is("color_blend others in state order after the max", rgb, t,
	    3, "#2933a3");

	/*
	 * Four states, max in the middle, a zero-time state between:
	 * times 1,0,5,4 (total 10).  Start black (0,0,0); state 0 at 0.1:
	 * (1,2,3); state 3 at 0.4: (102.6,103.2,103.8) -> (103,103,104).
	 */
	t[0] = 1; t[1] = 0; t[2] = 5; t[3] = 4;
	blend_is("color_blend four states, zero skipped", four, t, 4,
	    "#676768");

	/* Rounding happens once at the end, not per step. */
	{
		color c3[3] = { { 0, 0, 0 }, { 1, 1, 1 }, { 1, 1, 1 } };

		/*
		 * Colours 0,3,3, times 2,1,1: start 0; towards 3 by .25:
		 * 0.75; towards 3 by .25: 1.3125 -> 1.  Rounding each step
		 * would give 0.75 -> 1, then 1.5 -> 2.
		 */
		c3[1].r = c3[1].g = c3[1].b = 3;
		c3[2].r = c3[2].g = c3[2].b = 3;
		t[0] = 2; t[1] = 1; t[2] = 1;
		blend_is("color_blend rounds once, at the end", c3, t, 3,
		    "#010101");
	}

	/*
	 * A total past UINT64_MAX saturates rather than wrapping to a
	 * small number: start black (first of the tie), white's ratio is
	 * UINT64_MAX / UINT64_MAX = 1, so the result is white, in range.
	 */
	t[0] = UINT64_MAX; t[1] = UINT64_MAX;
	blend_is("color_blend total past UINT64_MAX saturates", bw, t, 2,
	    "#ffffff");
	t[0] = (uint64_t)INT64_MAX; t[1] = (uint64_t)INT64_MAX;
	blend_is("color_blend INT64_MAX times blend half way", bw, t, 2,
	    "#808080");
	t[0] = 3000000000000ULL; t[1] = 1000000000000ULL; t[2] = 0;
	blend_is("color_blend large times, same as small", rgb, t, 3,
	    "#bf4000");
}

/*
 * color_blend_sparse of only the states with time is color_blend of the
 * dense times, on random ones (a few with ties, some all zero but one);
 * with none at all it is black.
 */
static void
test_blend_sparse(void)
{
	color colors[40];
	uint64_t dense[40], times[40], x = 88172645463325252ULL;
	uint32_t states[40];
	int round, bad = 0;
	size_t i, n;
	char a[8], b[8];

	for (i = 0; i < 40; i++)
		colors[i] = color_generated((uint32_t)i);
	for (round = 0; round < 2000; round++) {
		size_t ns = 1 + (size_t)round % 40;

		n = 0;
		for (i = 0; i < ns; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			dense[i] = x % 3 == 0 ? x % 5 * 1000 : 0;
			if (dense[i] != 0) {
				states[n] = (uint32_t)i;
				times[n++] = dense[i];
			}
		}
		if (n == 0)
			continue;
		color_format(color_blend(colors, dense, ns), a);
		color_format(color_blend_sparse(colors, states, times, n), b);
		bad += strcmp(a, b) != 0;
	}
	CHECK_INT("color_blend_sparse is color_blend of the dense times", bad,
	    0);
	color_format(color_blend_sparse(colors, states, times, 0), a);
	CHECK_STR("color_blend_sparse of no time is black", a, "#000000");
}

static void
test_format(void)
{
	char buf[8];
	color c = { 0, 0, 0 };

	color_format(c, buf);
	CHECK_STR("color_format black", buf, "#000000");
	c.r = 255; c.g = 255; c.b = 255;
	color_format(c, buf);
	CHECK_STR("color_format white", buf, "#ffffff");
	c.r = 0xab; c.g = 0x0c; c.b = 0xd1;
	color_format(c, buf);
	CHECK_STR("color_format lowercase, zero-padded", buf, "#ab0cd1");
	CHECK_INT("color_format writes the NUL", buf[7], '\0');
	{
		char want[8];
		int v, bad = 0;

		/* Every value in every channel, the others fixed apart. */
		for (v = 0; v < 256; v++) {
			c.r = (uint8_t)v; c.g = (uint8_t)(255 - v);
			c.b = (uint8_t)(v * 7);
			color_format(c, buf);
			snprintf(want, sizeof (want), "#%02x%02x%02x", c.r, c.g,
			    c.b);
			bad += strcmp(buf, want) != 0;
		}
		CHECK_INT("color_format as printf's #%02x%02x%02x, each "
		    "channel's 256 values", bad, 0);
	}
}

int
main(void)
{
	test_parse_hex();
	test_parse_named();
	test_parse_all_names();
	test_generated();
	test_blend();
	test_blend_sparse();
	test_format();
	return (unit_exit());
}
