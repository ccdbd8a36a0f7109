#include "render/axis.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "base/duration.h"

#define TICK_SPACING	90	/* at least this many pixels between ticks */

/*
 * A tick's label: the time since the trace's start (the metadata start),
 * in the largest unit the value reaches, as the viewer's axis writes it
 * ("900ms", "1s", "1.05s"): as many decimals as the step needs, trailing
 * zeros dropped.  In integers, so times past 2^53 ns stay exact.
 */
static void
tick_label(uint64_t v, uint64_t step, char *buf, size_t size)
{
	static const struct { uint64_t ns; const char *name; } units[] = {
		{ 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" },
		{ 1, "ns" },
	};
	size_t u = 0;
	int decimals = 0, i;
	uint64_t scale, f;
	char frac[16];

	if (v == 0) {
		snprintf(buf, size, "0");
		return;
	}
	while (u < 3 && v < units[u].ns)
		u++;
	for (scale = units[u].ns; scale > 1 && step % scale != 0;
	    scale /= 10)
		decimals++;		/* at most 9 */
	f = v % units[u].ns / scale;
	for (i = decimals; i > 0; i--) {
		frac[i - 1] = (char)('0' + f % 10);
		f /= 10;
	}
	while (decimals > 0 && frac[decimals - 1] == '0')
		decimals--;
	frac[decimals] = '\0';
	snprintf(buf, size, "%" PRIu64 "%s%s%s", v / units[u].ns,
	    decimals > 0 ? "." : "", frac, units[u].name);
}

/* The first multiple of step at or after t (t itself if it overflows). */
static uint64_t
first_tick(uint64_t t, uint64_t step)
{
	uint64_t r = t % step;

	return (r == 0 || t > UINT64_MAX - (step - r) ? t : t + (step - r));
}

/*
 * The tick step: the round step (duration_step) that puts ticks at
 * least TICK_SPACING pixels apart, made larger while the widest label
 * would not fit between its neighbours.
 */
static uint64_t
tick_step(canvas *c, double px, double size)
{
	const render_options *o = c->o;
	uint64_t step = duration_step(TICK_SPACING / px);
	char buf[48];
	int tries, k;

	for (tries = 0; tries < 20 && step < o->t1 - o->t0; tries++) {
		/* Labels grow with the time: try the last few. */
		uint64_t last = o->t1 - o->t1 % step;
		double widest = 0;

		for (k = 0; k < 3 && last >= o->t0 + (uint64_t)k * step;
		    k++) {
			double w;

			tick_label(last - (uint64_t)k * step, step, buf,
			    sizeof (buf));
			if ((w = canvas_text_width(c, size, buf)) > widest)
				widest = w;
		}
		if (widest + size * 1.5 <= step * px)
			break;
		step = duration_step((double)step + 1);
	}
	return (step);
}

/*
 * A point in time in its own unit, with as many decimals as a hundredth
 * of span needs, at least 3: the start of a 200us span at 1.0001s is
 * "1.000100s", not "1.000s".  Truncated, not rounded, as
 * duration_format.  (The viewer's span label resolves a thousandth, for
 * a time bar placed by the pixel; a picture's start needs less.)
 */
static void
time_at(uint64_t t, uint64_t span, char *buf, size_t size)
{
	static const struct { uint64_t ns; const char *name; } units[] = {
		{ 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" },
	};
	uint64_t res = span / 100 > 0 ? span / 100 : 1, scale, f;
	size_t u = 0;
	int decimals = 3, i;
	char frac[16];

	while (u < 3 && t < units[u].ns)
		u++;
	if (u == 3) {
		snprintf(buf, size, "%" PRIu64 "ns", t);
		return;
	}
	for (scale = units[u].ns / 1000; scale > 1 && scale > res;
	    scale /= 10)
		decimals++;
	f = t % units[u].ns / scale;
	for (i = decimals; i > 0; i--) {
		frac[i - 1] = (char)('0' + f % 10);
		f /= 10;
	}
	frac[decimals] = '\0';
	snprintf(buf, size, "%" PRIu64 ".%s%s", t / units[u].ns, frac,
	    units[u].name);
}

/*
 * "from 1.000s, span 500.000ms": where the window starts (since the
 * trace's start, the axis's zero) and how long it is, as the viewer's
 * span label says it.
 */
void
axis_span_text(const render_options *o, char *buf, size_t size)
{
	char from[48], span[48];

	if (o->t0 == 0)
		snprintf(from, sizeof (from), "0");
	else
		time_at(o->t0, o->t1 - o->t0, from, sizeof (from));
	snprintf(buf, size, "from %s, span %s", from,
	    duration_format(o->t1 - o->t0, span, sizeof (span)));
}

/* The axis's height: its labels, and ticks under them. */
unsigned
axis_height(const render_options *o)
{
	return ((unsigned)ceil((o->font_size - 1) * 1.6) + 4);
}

/*
 * The time axis: ticks at round times since the trace's start (not since
 * the window's), labelled in their own units, with faint grid lines down
 * to bottom.  Labels stay inside the picture.
 */
unsigned
axis_draw(canvas *c, unsigned y, unsigned bottom)
{
	const render_options *o = c->o;
	uint64_t span = o->t1 - o->t0, step, v;
	double px = (double)c->strip_width / (double)span;
	double size = o->font_size - 1;
	unsigned h = axis_height(o);

	if (!c->draw)
		return (h);
	step = tick_step(c, px, size);
	cairo_set_line_width(c->cr, 1);
	for (v = first_tick(o->t0, step); v >= o->t0 && v <= o->t1;
	    v += step) {
		double x = floor(c->strip_x + (double)(v - o->t0) * px) + 0.5;
		double w, left;
		char buf[48];

		tick_label(v, step, buf, sizeof (buf));
		w = canvas_text_width(c, size, buf);
		left = x - w / 2;
		if (left + w > o->width - o->margin)
			left = o->width - o->margin - w;
		if (left < o->margin)
			left = o->margin;
		canvas_set_color(c->cr, o->foreground);
		canvas_draw_text(c, left, y + size, size, buf, 0);
		cairo_move_to(c->cr, x, y + h - 4);
		cairo_line_to(c->cr, x, bottom);
		cairo_set_source_rgba(c->cr, o->foreground.r / 255.0,
		    o->foreground.g / 255.0, o->foreground.b / 255.0, 0.15);
		cairo_stroke(c->cr);
		if (o->t1 - v < step)
			break;
	}
	canvas_set_color(c->cr, o->foreground);
	return (h);
}
