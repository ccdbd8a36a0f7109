#include "color.h"

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
 * Picked by hand for the first states, which are the ones people look at:
 * mid-saturation hues and one dark grey that stay apart from each other
 * (the closest pair is about 18 CIE76 delta-E, 53 in RGB) and from the
 * #f0f0f0 background (at least 33 delta-E).  The most distinct come
 * first, since most statemaps have few states.
 */
static const color palette[] = {
	{ 0x4e, 0x79, 0xa7 },	/* blue */
	{ 0xf2, 0x8e, 0x2b },	/* orange */
	{ 0xe1, 0x57, 0x59 },	/* red */
	{ 0x76, 0xb7, 0xb2 },	/* teal */
	{ 0x59, 0xa1, 0x4f },	/* green */
	{ 0xed, 0xc9, 0x48 },	/* yellow */
	{ 0xb0, 0x7a, 0xa1 },	/* mauve */
	{ 0xff, 0x9d, 0xa7 },	/* pink */
	{ 0x9c, 0x75, 0x5f },	/* brown */
	{ 0x17, 0xbe, 0xcf },	/* cyan */
	{ 0x6a, 0x3d, 0x9a },	/* purple */
	{ 0xb6, 0x99, 0x2d },	/* olive */
	{ 0xe7, 0x29, 0x8a },	/* magenta */
	{ 0x00, 0x79, 0x6b },	/* dark teal */
	{ 0x8c, 0x2d, 0x04 },	/* rust */
	{ 0x84, 0x3c, 0x39 },	/* brick */
	{ 0x8c, 0xd1, 0x7d },	/* light green */
	{ 0x63, 0x63, 0x63 },	/* dark grey */
	{ 0x1f, 0x3a, 0x93 },	/* navy */
	{ 0xc0, 0x60, 0x30 },	/* burnt orange */
};

#define NPALETTE	(sizeof (palette) / sizeof (palette[0]))

/*
 * The golden angle as a fraction of a turn, times 2^32 (2^32 / phi^2).
 * Stepping the hue by it never repeats and keeps successive hues far
 * apart; doing it in uint32_t arithmetic makes the hue exact, so the same
 * n gives the same colour on every machine.
 */
#define GOLDEN_TURN	UINT32_C(0x61c88647)

/* One HSL channel; h6 is the hue in sixths of a turn, 0 <= h6 < 6. */
static double
hsl_channel(double h6, double lo, double hi)
{
	if (h6 < 1)
		return (lo + (hi - lo) * h6);
	if (h6 < 3)
		return (hi);
	if (h6 < 4)
		return (lo + (hi - lo) * (4 - h6));
	return (lo);
}

static uint8_t
to_byte(double v)
{
	/* Round to nearest without libm; v is never negative here. */
	if (v <= 0)
		return (0);
	if (v >= 255)
		return (255);
	return ((uint8_t)(v + 0.5));
}

color
color_generated(uint32_t n)
{
	/*
	 * Lightness and saturation cycle with periods 3 and 2, so
	 * neighbouring states differ in more than hue.  Every combination
	 * keeps the colour far from the near-white background: the lowest
	 * channel is at most 110 (L 0.62, S 0.50), 130 below its 240.
	 */
	static const double light[] = { 0.50, 0.38, 0.62 };
	static const double sat[] = { 0.65, 0.50 };
	uint32_t k, hue;
	double h6, l, s, hi, lo, t;
	color c;

	if (n < NPALETTE)
		return (palette[n]);
	k = n - (uint32_t)NPALETTE;
	hue = k * GOLDEN_TURN;		/* wraps mod 2^32: a full turn */
	h6 = (double)hue / 4294967296.0 * 6.0;
	l = light[k % 3];
	s = sat[(k / 3) % 2];
	hi = l < 0.5 ? l * (1 + s) : l + s - l * s;
	lo = 2 * l - hi;
	/* Red leads green by a third of a turn, and green leads blue. */
	t = h6 + 2;
	c.r = to_byte(255 * hsl_channel(t >= 6 ? t - 6 : t, lo, hi));
	c.g = to_byte(255 * hsl_channel(h6, lo, hi));
	t = h6 - 2;
	c.b = to_byte(255 * hsl_channel(t < 0 ? t + 6 : t, lo, hi));
	return (c);
}

/* ---- Blending and formatting -------------------------------------------- */

/*
 * Blends as the reference statemap tool does, so coalesced rectangles
 * look the same: components stay in sRGB doubles through every step and
 * are rounded once, at the end.  With n == 0 there is no colour to
 * return, so the answer is black rather than a read past the array.
 */
color
color_blend(const color *colors, const uint64_t *times, size_t n)
{
	color black = { 0, 0, 0 };
	double r, g, b, ratio;
	uint64_t total = 0;
	size_t i, max = 0;
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
		return (colors[0]);
	r = colors[max].r;
	g = colors[max].g;
	b = colors[max].b;
	for (i = 0; i < n; i++) {
		if (i == max || times[i] == 0)
			continue;
		ratio = (double)times[i] / (double)total;
		r = r * (1 - ratio) + colors[i].r * ratio;
		g = g * (1 - ratio) + colors[i].g * ratio;
		b = b * (1 - ratio) + colors[i].b * ratio;
	}
	out.r = to_byte(r);
	out.g = to_byte(g);
	out.b = to_byte(b);
	return (out);
}

void
color_format(color c, char buf[8])
{
	snprintf(buf, 8, "#%02x%02x%02x", c.r, c.g, c.b);
}
