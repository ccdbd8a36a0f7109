#include "base/color.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Parsing ------------------------------------------------------------ */

typedef struct named_color {
	const char *name;	/* lowercase */
	color c;
} named_color;

/*
 * CSS Color Module Level 4, section 6.1: all 148 named colours, both the
 * gray and grey spellings.  Sorted by name (byte order) for the binary
 * search in color_named(); the unit test checks the order and the count.
 * "transparent" and "currentColor" are keywords, not colours, so they are
 * not here.
 */
static const named_color named_colors[] = {
	{ "aliceblue", { 0xf0, 0xf8, 0xff } },
	{ "antiquewhite", { 0xfa, 0xeb, 0xd7 } },
	{ "aqua", { 0x00, 0xff, 0xff } },
	{ "aquamarine", { 0x7f, 0xff, 0xd4 } },
	{ "azure", { 0xf0, 0xff, 0xff } },
	{ "beige", { 0xf5, 0xf5, 0xdc } },
	{ "bisque", { 0xff, 0xe4, 0xc4 } },
	{ "black", { 0x00, 0x00, 0x00 } },
	{ "blanchedalmond", { 0xff, 0xeb, 0xcd } },
	{ "blue", { 0x00, 0x00, 0xff } },
	{ "blueviolet", { 0x8a, 0x2b, 0xe2 } },
	{ "brown", { 0xa5, 0x2a, 0x2a } },
	{ "burlywood", { 0xde, 0xb8, 0x87 } },
	{ "cadetblue", { 0x5f, 0x9e, 0xa0 } },
	{ "chartreuse", { 0x7f, 0xff, 0x00 } },
	{ "chocolate", { 0xd2, 0x69, 0x1e } },
	{ "coral", { 0xff, 0x7f, 0x50 } },
	{ "cornflowerblue", { 0x64, 0x95, 0xed } },
	{ "cornsilk", { 0xff, 0xf8, 0xdc } },
	{ "crimson", { 0xdc, 0x14, 0x3c } },
	{ "cyan", { 0x00, 0xff, 0xff } },
	{ "darkblue", { 0x00, 0x00, 0x8b } },
	{ "darkcyan", { 0x00, 0x8b, 0x8b } },
	{ "darkgoldenrod", { 0xb8, 0x86, 0x0b } },
	{ "darkgray", { 0xa9, 0xa9, 0xa9 } },
	{ "darkgreen", { 0x00, 0x64, 0x00 } },
	{ "darkgrey", { 0xa9, 0xa9, 0xa9 } },
	{ "darkkhaki", { 0xbd, 0xb7, 0x6b } },
	{ "darkmagenta", { 0x8b, 0x00, 0x8b } },
	{ "darkolivegreen", { 0x55, 0x6b, 0x2f } },
	{ "darkorange", { 0xff, 0x8c, 0x00 } },
	{ "darkorchid", { 0x99, 0x32, 0xcc } },
	{ "darkred", { 0x8b, 0x00, 0x00 } },
	{ "darksalmon", { 0xe9, 0x96, 0x7a } },
	{ "darkseagreen", { 0x8f, 0xbc, 0x8f } },
	{ "darkslateblue", { 0x48, 0x3d, 0x8b } },
	{ "darkslategray", { 0x2f, 0x4f, 0x4f } },
	{ "darkslategrey", { 0x2f, 0x4f, 0x4f } },
	{ "darkturquoise", { 0x00, 0xce, 0xd1 } },
	{ "darkviolet", { 0x94, 0x00, 0xd3 } },
	{ "deeppink", { 0xff, 0x14, 0x93 } },
	{ "deepskyblue", { 0x00, 0xbf, 0xff } },
	{ "dimgray", { 0x69, 0x69, 0x69 } },
	{ "dimgrey", { 0x69, 0x69, 0x69 } },
	{ "dodgerblue", { 0x1e, 0x90, 0xff } },
	{ "firebrick", { 0xb2, 0x22, 0x22 } },
	{ "floralwhite", { 0xff, 0xfa, 0xf0 } },
	{ "forestgreen", { 0x22, 0x8b, 0x22 } },
	{ "fuchsia", { 0xff, 0x00, 0xff } },
	{ "gainsboro", { 0xdc, 0xdc, 0xdc } },
	{ "ghostwhite", { 0xf8, 0xf8, 0xff } },
	{ "gold", { 0xff, 0xd7, 0x00 } },
	{ "goldenrod", { 0xda, 0xa5, 0x20 } },
	{ "gray", { 0x80, 0x80, 0x80 } },
	{ "green", { 0x00, 0x80, 0x00 } },
	{ "greenyellow", { 0xad, 0xff, 0x2f } },
	{ "grey", { 0x80, 0x80, 0x80 } },
	{ "honeydew", { 0xf0, 0xff, 0xf0 } },
	{ "hotpink", { 0xff, 0x69, 0xb4 } },
	{ "indianred", { 0xcd, 0x5c, 0x5c } },
	{ "indigo", { 0x4b, 0x00, 0x82 } },
	{ "ivory", { 0xff, 0xff, 0xf0 } },
	{ "khaki", { 0xf0, 0xe6, 0x8c } },
	{ "lavender", { 0xe6, 0xe6, 0xfa } },
	{ "lavenderblush", { 0xff, 0xf0, 0xf5 } },
	{ "lawngreen", { 0x7c, 0xfc, 0x00 } },
	{ "lemonchiffon", { 0xff, 0xfa, 0xcd } },
	{ "lightblue", { 0xad, 0xd8, 0xe6 } },
	{ "lightcoral", { 0xf0, 0x80, 0x80 } },
	{ "lightcyan", { 0xe0, 0xff, 0xff } },
	{ "lightgoldenrodyellow", { 0xfa, 0xfa, 0xd2 } },
	{ "lightgray", { 0xd3, 0xd3, 0xd3 } },
	{ "lightgreen", { 0x90, 0xee, 0x90 } },
	{ "lightgrey", { 0xd3, 0xd3, 0xd3 } },
	{ "lightpink", { 0xff, 0xb6, 0xc1 } },
	{ "lightsalmon", { 0xff, 0xa0, 0x7a } },
	{ "lightseagreen", { 0x20, 0xb2, 0xaa } },
	{ "lightskyblue", { 0x87, 0xce, 0xfa } },
	{ "lightslategray", { 0x77, 0x88, 0x99 } },
	{ "lightslategrey", { 0x77, 0x88, 0x99 } },
	{ "lightsteelblue", { 0xb0, 0xc4, 0xde } },
	{ "lightyellow", { 0xff, 0xff, 0xe0 } },
	{ "lime", { 0x00, 0xff, 0x00 } },
	{ "limegreen", { 0x32, 0xcd, 0x32 } },
	{ "linen", { 0xfa, 0xf0, 0xe6 } },
	{ "magenta", { 0xff, 0x00, 0xff } },
	{ "maroon", { 0x80, 0x00, 0x00 } },
	{ "mediumaquamarine", { 0x66, 0xcd, 0xaa } },
	{ "mediumblue", { 0x00, 0x00, 0xcd } },
	{ "mediumorchid", { 0xba, 0x55, 0xd3 } },
	{ "mediumpurple", { 0x93, 0x70, 0xdb } },
	{ "mediumseagreen", { 0x3c, 0xb3, 0x71 } },
	{ "mediumslateblue", { 0x7b, 0x68, 0xee } },
	{ "mediumspringgreen", { 0x00, 0xfa, 0x9a } },
	{ "mediumturquoise", { 0x48, 0xd1, 0xcc } },
	{ "mediumvioletred", { 0xc7, 0x15, 0x85 } },
	{ "midnightblue", { 0x19, 0x19, 0x70 } },
	{ "mintcream", { 0xf5, 0xff, 0xfa } },
	{ "mistyrose", { 0xff, 0xe4, 0xe1 } },
	{ "moccasin", { 0xff, 0xe4, 0xb5 } },
	{ "navajowhite", { 0xff, 0xde, 0xad } },
	{ "navy", { 0x00, 0x00, 0x80 } },
	{ "oldlace", { 0xfd, 0xf5, 0xe6 } },
	{ "olive", { 0x80, 0x80, 0x00 } },
	{ "olivedrab", { 0x6b, 0x8e, 0x23 } },
	{ "orange", { 0xff, 0xa5, 0x00 } },
	{ "orangered", { 0xff, 0x45, 0x00 } },
	{ "orchid", { 0xda, 0x70, 0xd6 } },
	{ "palegoldenrod", { 0xee, 0xe8, 0xaa } },
	{ "palegreen", { 0x98, 0xfb, 0x98 } },
	{ "paleturquoise", { 0xaf, 0xee, 0xee } },
	{ "palevioletred", { 0xdb, 0x70, 0x93 } },
	{ "papayawhip", { 0xff, 0xef, 0xd5 } },
	{ "peachpuff", { 0xff, 0xda, 0xb9 } },
	{ "peru", { 0xcd, 0x85, 0x3f } },
	{ "pink", { 0xff, 0xc0, 0xcb } },
	{ "plum", { 0xdd, 0xa0, 0xdd } },
	{ "powderblue", { 0xb0, 0xe0, 0xe6 } },
	{ "purple", { 0x80, 0x00, 0x80 } },
	{ "rebeccapurple", { 0x66, 0x33, 0x99 } },
	{ "red", { 0xff, 0x00, 0x00 } },
	{ "rosybrown", { 0xbc, 0x8f, 0x8f } },
	{ "royalblue", { 0x41, 0x69, 0xe1 } },
	{ "saddlebrown", { 0x8b, 0x45, 0x13 } },
	{ "salmon", { 0xfa, 0x80, 0x72 } },
	{ "sandybrown", { 0xf4, 0xa4, 0x60 } },
	{ "seagreen", { 0x2e, 0x8b, 0x57 } },
	{ "seashell", { 0xff, 0xf5, 0xee } },
	{ "sienna", { 0xa0, 0x52, 0x2d } },
	{ "silver", { 0xc0, 0xc0, 0xc0 } },
	{ "skyblue", { 0x87, 0xce, 0xeb } },
	{ "slateblue", { 0x6a, 0x5a, 0xcd } },
	{ "slategray", { 0x70, 0x80, 0x90 } },
	{ "slategrey", { 0x70, 0x80, 0x90 } },
	{ "snow", { 0xff, 0xfa, 0xfa } },
	{ "springgreen", { 0x00, 0xff, 0x7f } },
	{ "steelblue", { 0x46, 0x82, 0xb4 } },
	{ "tan", { 0xd2, 0xb4, 0x8c } },
	{ "teal", { 0x00, 0x80, 0x80 } },
	{ "thistle", { 0xd8, 0xbf, 0xd8 } },
	{ "tomato", { 0xff, 0x63, 0x47 } },
	{ "turquoise", { 0x40, 0xe0, 0xd0 } },
	{ "violet", { 0xee, 0x82, 0xee } },
	{ "wheat", { 0xf5, 0xde, 0xb3 } },
	{ "white", { 0xff, 0xff, 0xff } },
	{ "whitesmoke", { 0xf5, 0xf5, 0xf5 } },
	{ "yellow", { 0xff, 0xff, 0x00 } },
	{ "yellowgreen", { 0x9a, 0xcd, 0x32 } },
};

#define NNAMED	(sizeof (named_colors) / sizeof (named_colors[0]))

/* ASCII only: the locale must not change which names are colours. */
static int
ascii_lower(int ch)
{
	return (ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
}

/*
 * Compares the len bytes at name, folded to lowercase, with a table name.
 * The text is not NUL-terminated, so the lengths decide when one is a
 * prefix of the other; a NUL inside the text never matches.
 */
static int
name_cmp(const char *name, size_t len, const char *tname)
{
	size_t i;
	int a, b;

	for (i = 0; i < len && tname[i] != '\0'; i++) {
		a = ascii_lower((unsigned char)name[i]);
		b = (unsigned char)tname[i];
		if (a != b)
			return (a < b ? -1 : 1);
	}
	if (i < len)
		return (1);
	return (tname[i] == '\0' ? 0 : -1);
}

static const named_color *
color_named(const char *name, size_t len)
{
	size_t lo = 0, hi = NNAMED, mid;
	int cmp;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		cmp = name_cmp(name, len, named_colors[mid].name);
		if (cmp == 0)
			return (&named_colors[mid]);
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return (NULL);
}

static int
hex_digit(int ch)
{
	if (ch >= '0' && ch <= '9')
		return (ch - '0');
	if (ch >= 'a' && ch <= 'f')
		return (ch - 'a' + 10);
	if (ch >= 'A' && ch <= 'F')
		return (ch - 'A' + 10);
	return (-1);
}

/* Parses ndigits (3 or 6) hex digits at p; returns 0 on any non-digit. */
static int
color_hex(const char *p, size_t ndigits, color *out)
{
	int v[6];
	size_t i;

	for (i = 0; i < ndigits; i++) {
		if ((v[i] = hex_digit((unsigned char)p[i])) < 0)
			return (0);
	}
	/* "#rgb" means "#rrggbb": each digit doubled, i.e. times 17. */
	if (ndigits == 3) {
		out->r = (uint8_t)(v[0] * 17);
		out->g = (uint8_t)(v[1] * 17);
		out->b = (uint8_t)(v[2] * 17);
	} else {
		out->r = (uint8_t)(v[0] * 16 + v[1]);
		out->g = (uint8_t)(v[2] * 16 + v[3]);
		out->b = (uint8_t)(v[4] * 16 + v[5]);
	}
	return (1);
}

/*
 * *out is written only on success, so a caller may keep a default in it.
 * out may be NULL to ask only whether name is a colour.
 */
int
color_parse(const char *name, size_t len, color *out)
{
	const named_color *nc;
	color c;

	if (name == NULL || len == 0)
		return (0);
	if (name[0] == '#') {
		if ((len != 4 && len != 7) || !color_hex(name + 1, len - 1, &c))
			return (0);
	} else {
		if ((nc = color_named(name, len)) == NULL)
			return (0);
		c = nc->c;
	}
	if (out != NULL)
		*out = c;
	return (1);
}

/* ---- Generated colours -------------------------------------------------- */

/*
 * The first 64 colours, each as far as it can be from those before it.
 * Distances are deltaE OK: Euclidean distance in OKLab, the perceptual
 * space of CSS Color 4 (which takes 0.02 as just noticeable).  The first
 * nine are the classic Tableau colours the tool always began with; each
 * later one is, of the sRGB colours on a grid of step 5 with OKLab
 * lightness 0.42 to 0.86, chroma at most 0.18 (nothing garish) and at
 * least 0.2 from #f0f0f0, the one farthest from all before it (greedy
 * farthest-point selection).  Any first n are therefore well spread: the
 * closest pair among the first 10 is 0.10 apart, among the first 42 0.09
 * and among all 64 0.079 (tests/unit/test_color.c checks it).  Lightness
 * at most 0.86 keeps every colour clear of white and of the light grey
 * hatch that marks "no data".
 */
static const color palette[] = {
	{ 0x4e, 0x79, 0xa7 }, { 0xf2, 0x8e, 0x2b }, { 0xe1, 0x57, 0x59 }, { 0x76, 0xb7, 0xb2 },
	{ 0x59, 0xa1, 0x4f }, { 0xed, 0xc9, 0x48 }, { 0xb0, 0x7a, 0xa1 }, { 0xff, 0x9d, 0xa7 },
	{ 0x9c, 0x75, 0x5f }, { 0x87, 0x05, 0x69 }, { 0x00, 0x5f, 0x00 }, { 0x41, 0x37, 0xaa },
	{ 0x00, 0xf5, 0xb4 }, { 0x78, 0x3c, 0x0a }, { 0xdc, 0x8c, 0xff }, { 0x6e, 0x9b, 0xff },
	{ 0x19, 0x55, 0x69 }, { 0x8c, 0x4b, 0xbe }, { 0xb4, 0x23, 0x37 }, { 0x8c, 0xc8, 0x3c },
	{ 0x23, 0x7d, 0x5f }, { 0x78, 0x50, 0x73 }, { 0xbe, 0x41, 0x8c }, { 0x00, 0xd7, 0xff },
	{ 0xf0, 0x6e, 0xb4 }, { 0xa5, 0x73, 0xeb }, { 0xb9, 0xaa, 0xd7 }, { 0xaf, 0x8c, 0x00 },
	{ 0x78, 0x69, 0x00 }, { 0x00, 0xa0, 0xc8 }, { 0xbe, 0x9b, 0x87 }, { 0x46, 0x5f, 0xd2 },
	{ 0x19, 0x87, 0x00 }, { 0x00, 0xcd, 0x96 }, { 0xbe, 0x50, 0x00 }, { 0x64, 0x91, 0x87 },
	{ 0xbe, 0xaf, 0x50 }, { 0x00, 0x87, 0xeb }, { 0x50, 0x5a, 0x3c }, { 0x6e, 0x23, 0x96 },
	{ 0xaf, 0xe6, 0x5a }, { 0x19, 0x5f, 0xa0 }, { 0xff, 0x78, 0x6e }, { 0x87, 0x96, 0xc3 },
	{ 0x8c, 0x19, 0x37 }, { 0xd2, 0x73, 0x28 }, { 0x69, 0x6e, 0x6e }, { 0x91, 0x55, 0x3c },
	{ 0xc8, 0x5f, 0xbe }, { 0x78, 0xb9, 0xf5 }, { 0x87, 0x6e, 0xb4 }, { 0x00, 0xaf, 0x96 },
	{ 0x96, 0x37, 0x8c }, { 0xff, 0x9b, 0xe6 }, { 0x50, 0x41, 0x7d }, { 0x6e, 0x73, 0xeb },
	{ 0xb4, 0x55, 0x64 }, { 0x91, 0xa0, 0x6e }, { 0x64, 0x55, 0xa5 }, { 0xd7, 0x8c, 0xaa },
	{ 0x91, 0xc8, 0x8c }, { 0x7d, 0x87, 0x46 }, { 0x91, 0xaa, 0x14 }, { 0xb4, 0x8c, 0xd7 },
};

#define NPALETTE	(sizeof (palette) / sizeof (palette[0]))

/*
 * The golden angle as a fraction of a turn, times 2^32 (2^32 / phi^2).
 * Stepping the hue by it never repeats and keeps successive hues far
 * apart; doing it in uint32_t arithmetic makes the hue exact, so the same
 * n gives the same colour on every machine.
 */
#define GOLDEN_TURN	UINT32_C(0x61c88647)

static uint8_t
to_byte(double v)
{
	/* Round to nearest; v is never negative here. */
	if (v <= 0)
		return (0);
	if (v >= 255)
		return (255);
	return ((uint8_t)(v + 0.5));
}

/* Linear-light sRGB (0..1) to the 8-bit sRGB encoding. */
static uint8_t
srgb_byte(double v)
{
	v = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
	return (to_byte(255 * v));
}

/*
 * OKLab to linear sRGB (Ottosson's matrices); returns whether the colour
 * is inside the sRGB gamut.
 */
static int
oklab_to_linear(double L, double a, double b, double rgb[3])
{
	double l = L + 0.3963377774 * a + 0.2158037573 * b;
	double m = L - 0.1055613458 * a - 0.0638541728 * b;
	double s = L - 0.0894841775 * a - 1.2914855480 * b;
	int i;

	l = l * l * l;
	m = m * m * m;
	s = s * s * s;
	rgb[0] = 4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s;
	rgb[1] = -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s;
	rgb[2] = -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s;
	for (i = 0; i < 3; i++) {
		if (rgb[i] < -1e-9 || rgb[i] > 1 + 1e-9)
			return (0);
	}
	return (1);
}

color
color_generated(uint32_t n)
{
	/*
	 * Past the table: hues a golden angle apart in OKLCH, with lightness
	 * cycling through five bands and chroma through two, so that
	 * colours close in hue differ in lightness or chroma.  Lightness
	 * stays within the table's (0.45 to 0.75, clear of no data); chroma
	 * is reduced until the colour is inside sRGB.
	 */
	static const double light[] = { 0.62, 0.48, 0.74, 0.55, 0.68 };
	static const double chroma[] = { 0.14, 0.09 };
	uint32_t k;
	double h, L, C, rgb[3];
	int i;
	color c;

	if (n < NPALETTE)
		return (palette[n]);
	k = n - (uint32_t)NPALETTE;
	h = (double)(k * GOLDEN_TURN) / 4294967296.0 * 6.283185307179586;
	L = light[k % 5];
	C = chroma[(k / 5) % 2];
	for (i = 0; i < 40 && !oklab_to_linear(L, C * cos(h), C * sin(h), rgb);
	    i++)
		C *= 0.9;
	if (i == 40)
		(void)oklab_to_linear(L, 0, 0, rgb);
	c.r = srgb_byte(rgb[0]);
	c.g = srgb_byte(rgb[1]);
	c.b = srgb_byte(rgb[2]);
	return (c);
}

/* ---- Blending and formatting -------------------------------------------- */

/*
 * Blends as the reference statemap tool does, so coalesced rectangles
 * look the same: components stay in sRGB doubles through every step and
 * are rounded once, at the end.  Entry i is state i, or states[i] when
 * states is not NULL; the colour of no time is that of state 0 (dense:
 * the reference's) or black (sparse: there may be no state at all).
 */
static color
blend(const color *colors, const uint32_t *states, const uint64_t *times,
    size_t n)
{
	color black = { 0, 0, 0 };
	double r, g, b, ratio;
	uint64_t total = 0;
	size_t i, max = 0;
	const color *c;
	color out;

	if (n == 0)
		return (black);
	for (i = 0; i < n; i++) {
		/*
		 * A rectangle spans at most the trace, so the sum fits; if a
		 * caller passes more, saturate rather than wrap into a small
		 * total and fractions above 1.
		 */
		total = times[i] > UINT64_MAX - total ? UINT64_MAX :
		    total + times[i];
		if (times[i] > times[max])
			max = i;
	}
	if (total == 0)
		return (states == NULL ? colors[0] : black);
	c = &colors[states != NULL ? states[max] : max];
	r = c->r;
	g = c->g;
	b = c->b;
	for (i = 0; i < n; i++) {
		if (i == max || times[i] == 0)
			continue;
		c = &colors[states != NULL ? states[i] : i];
		ratio = (double)times[i] / (double)total;
		r = r * (1 - ratio) + c->r * ratio;
		g = g * (1 - ratio) + c->g * ratio;
		b = b * (1 - ratio) + c->b * ratio;
	}
	out.r = to_byte(r);
	out.g = to_byte(g);
	out.b = to_byte(b);
	return (out);
}

color
color_blend(const color *colors, const uint64_t *times, size_t n)
{
	return (blend(colors, NULL, times, n));
}

color
color_blend_sparse(const color *colors, const uint32_t *states,
    const uint64_t *times, size_t n)
{
	return (blend(colors, states, times, n));
}

void
color_format(color c, char buf[8])
{
	/* By hand: the SVG writers format one per rectangle. */
	static const char hex[] = "0123456789abcdef";

	buf[0] = '#';
	buf[1] = hex[c.r >> 4];
	buf[2] = hex[c.r & 15];
	buf[3] = hex[c.g >> 4];
	buf[4] = hex[c.g & 15];
	buf[5] = hex[c.b >> 4];
	buf[6] = hex[c.b & 15];
	buf[7] = '\0';
}

/* ---- Distances ---------------------------------------------------------- */

/* An 8-bit sRGB component in linear light (0..1). */
static double
linear_of(uint8_t v)
{
	double c = v / 255.0;

	return (c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4));
}

/* sRGB to OKLab (Ottosson's matrices, the inverse of oklab_to_linear). */
void
color_oklab(color c, double lab[3])
{
	double r = linear_of(c.r), g = linear_of(c.g), b = linear_of(c.b);
	double l = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
	double m = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
	double s = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);

	lab[0] = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s;
	lab[1] = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s;
	lab[2] = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s;
}

double
color_lab_distance(const double x[3], const double y[3])
{
	return (sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) *
	    (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2])));
}

double
color_distance(color a, color b)
{
	double x[3], y[3];

	color_oklab(a, x);
	color_oklab(b, y);
	return (color_lab_distance(x, y));
}
