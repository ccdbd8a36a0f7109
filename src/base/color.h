/*
 * color.h: state colours: parsing, generation and blending.
 *
 * Colours are 8-bit sRGB.  Accepted spellings: "#rrggbb", "#rgb" (either
 * case) and the 148 CSS Color Module Level 4 named colours (case
 * insensitive, e.g. "DarkSlateGray", "rebeccapurple").
 */
#ifndef SM_COLOR_H
#define SM_COLOR_H

#include <stddef.h>
#include <stdint.h>

typedef struct color {
	uint8_t r, g, b;
} color;

/* a's share of a mix of a and b, channel by channel, rounded. */
static inline color
color_mix(color a, color b, double share)
{
	color m;

	m.r = (uint8_t)(a.r * share + b.r * (1 - share) + 0.5);
	m.g = (uint8_t)(a.g * share + b.g * (1 - share) + 0.5);
	m.b = (uint8_t)(a.b * share + b.b * (1 - share) + 0.5);
	return (m);
}

/* Parses name (len bytes); returns 1 and sets *out, or 0 if not a colour. */
int color_parse(const char *name, size_t len, color *out);

/*
 * The colour for the n-th state (n counts from 0 over the states that
 * have no colour of their own).  Deterministic; the first n colours are
 * told apart for any n up to 64 (no two closer than 0.075 deltaE OK, see
 * color.c), and none is close to white or to the light grey of "no
 * data".
 */
color color_generated(uint32_t n);

/*
 * Blends colours as a coalesced rectangle is drawn: start from the colour
 * of the state with the most time (the first such state on ties), then for
 * each other state with time, in state order, move towards its colour by
 * that state's fraction of the total (a linear mix of sRGB components).
 * times[i] is the time in state i; colors has n entries.  If all times
 * are zero, returns colors[0].
 */
color color_blend(const color *colors, const uint64_t *times, size_t n);

/*
 * The same blend of only the states with time: times[i] is the time in
 * state states[i], the states ascending (a coalesced rectangle's, as
 * coalesce.h gives them), colors indexed by state.  The same colour as
 * color_blend of the dense times; with no time at all, black.
 */
color color_blend_sparse(const color *colors, const uint32_t *states,
    const uint64_t *times, size_t n);

/*
 * How far apart two colours look: deltaE OK, the Euclidean distance in
 * OKLab (CSS Color 4 takes 0.02 as just noticeable).  Colours closer
 * than COLOR_TOO_CLOSE are hard to tell apart in a strip (#f9f9f9 and
 * #f0f0f0 are 0.027 apart; the generated colours at least 0.079).
 */
#define COLOR_TOO_CLOSE	0.04
double color_distance(color a, color b);

/*
 * The same in two steps, for comparing one colour with many: c in OKLab
 * (lab[3]), and the distance of two such points; color_distance(a, b) is
 * color_lab_distance of color_oklab(a) and color_oklab(b), bit for bit.
 */
void color_oklab(color c, double lab[3]);
double color_lab_distance(const double x[3], const double y[3]);

/* Writes "#rrggbb" (lowercase) and a NUL into buf[8]. */
void color_format(color c, char buf[8]);

#endif
