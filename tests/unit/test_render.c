/*
 * Tests for src/render/ (render.h): the pixel-exact strip (each column the
 * time-weighted blend of its states) and a whole PNG read back through
 * Cairo, pixel by pixel.
 */
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/panel_shares.h"
#include "render/render.h"
#include "render/state_strips.h"
#include "trace/builder.h"
#include "unit.h"

/*
 * Entity "a": red [0, 50), blue [50, 100).  Entity "b": red from 25 on.
 * Red is #ff0000, blue #0000ff.
 */
static trace *
sample(void)
{
	trace *d = calloc(1, sizeof (*d));
	catalog *cat = catalog_new("sample");

	cat->nstates = 2;
	cat->states = calloc(2, sizeof (catalog_state));
	cat->states[0].name = strdup("red");
	cat->states[0].name_len = 3;
	cat->states[0].color = (color){ 255, 0, 0 };
	cat->states[1].name = strdup("blue");
	cat->states[1].name_len = 4;
	cat->states[1].color = (color){ 0, 0, 255 };
	catalog_index_states(cat);
	catalog_entity(cat, "a", 1);
	catalog_entity(cat, "b", 1);
	d->cat = cat;
	d->st = store_new(2);
	store_append(d->st, 0, 0, 0, STORE_NONE);
	store_append(d->st, 0, 50, 1, STORE_NONE);
	store_append(d->st, 1, 25, 0, STORE_NONE);
	d->begin = 0;
	d->end = 100;
	store_finish(d->st, 0, 100);
	return (d);
}

static int
is(color c, int r, int g, int b)
{
	return (c.r == r && c.g == g && c.b == b);
}

static void
test_strip(void)
{
	trace *d = sample();
	color px[8];
	double covered[8], work[16];

	render_strip(d, 0, 0, 100, 4, px, covered, work);
	CHECK("render_strip: whole columns take their state's colour",
	    is(px[0], 255, 0, 0) && is(px[1], 255, 0, 0) &&
	    is(px[2], 0, 0, 255) && is(px[3], 0, 0, 255) &&
	    covered[0] == 1 && covered[3] == 1);
	render_strip(d, 0, 0, 100, 3, px, covered, work);
	CHECK("render_strip: a shared column is the time-weighted blend",
	    is(px[0], 255, 0, 0) && is(px[1], 128, 0, 128) &&
	    is(px[2], 0, 0, 255));
	render_strip(d, 0, 20, 80, 3, px, covered, work);
	CHECK("render_strip: a time range picks its own columns",
	    is(px[0], 255, 0, 0) && is(px[1], 128, 0, 128) &&
	    is(px[2], 0, 0, 255));
	render_strip(d, 1, 0, 100, 2, px, covered, work);
	CHECK("render_strip: partly covered columns say how much",
	    covered[0] == 0.5 && is(px[0], 255, 0, 0) && covered[1] == 1);
	render_strip(d, 1, 0, 100, 8, px, covered, work);
	CHECK("render_strip: columns before the first state are empty",
	    covered[0] == 0 && covered[1] == 0 && covered[2] == 1);
	trace_free(d);
}

/*
 * 20 states (more than are blended densely): state i is (10 i, 255 - 10
 * i, i).  Entity "a" over [0, 100), two columns of 50 ns: in the first,
 * state 19 for 15 ns, 3 for 25, 7 for 10 (the states out of their
 * order), then 12 for 10 ns in the second, gone (no data) for 20, and
 * 19 again from 80.  Each column is the time-weighted blend of what it
 * holds, however the states came.
 */
static void
test_strip_many_states(void)
{
	trace *d = calloc(1, sizeof (*d));
	catalog *cat = catalog_new("many");
	color px[2];
	double covered[2], *work = calloc(2 * 20, sizeof (double));
	uint32_t i;

	cat->nstates = 20;
	cat->states = calloc(20, sizeof (catalog_state));
	for (i = 0; i < 20; i++) {
		char name[8];

		snprintf(name, sizeof (name), "s%u", i);
		cat->states[i].name = strdup(name);
		cat->states[i].name_len = strlen(name);
		cat->states[i].color = (color){ (uint8_t)(10 * i),
		    (uint8_t)(255 - 10 * i), (uint8_t)i };
	}
	catalog_index_states(cat);
	catalog_entity(cat, "a", 1);
	d->cat = cat;
	d->st = store_new(20);
	store_append(d->st, 0, 0, 19, STORE_NONE);
	store_append(d->st, 0, 15, 3, STORE_NONE);
	store_append(d->st, 0, 40, 7, STORE_NONE);
	store_append(d->st, 0, 50, 12, STORE_NONE);
	store_append(d->st, 0, 60, STORE_GAP, STORE_NONE);
	store_append(d->st, 0, 80, 19, STORE_NONE);
	d->begin = 0;
	d->end = 100;
	store_finish(d->st, 0, 100);
	render_strip(d, 0, 0, 100, 2, px, covered, work);
	/* (15 * 190 + 25 * 30 + 10 * 70) / 50 = 86, and so on; blue 8.6. */
	UNIT_REPORT(is(px[0], 86, 169, 9) && covered[0] == 1,
	    "render_strip: many states out of order blend by time",
	    "%d %d %d, covered %g", px[0].r, px[0].g, px[0].b, covered[0]);
	/* (10 * 120 + 20 * 190) / 30 = 166.67: 167. */
	UNIT_REPORT(is(px[1], 167, 88, 17) && covered[1] > 0.6 - 1e-9 &&
	    covered[1] < 0.6 + 1e-9,
	    "render_strip: many states with no data between",
	    "%d %d %d, covered %g", px[1].r, px[1].g, px[1].b, covered[1]);
	free(work);
	trace_free(d);
}

/*
 * A span of 2^60 ns: an interval 1 ns from the end starts, in doubles, at
 * the picture's width.  It must land in the last column, with no time.
 */
static void
test_strip_long_span(void)
{
	trace *d = sample();
	uint64_t end = (uint64_t)1 << 60;
	color px[3];
	double covered[3], *work = malloc(3 * 2 * sizeof (double));

	store_free(d->st);
	d->st = store_new(2);
	store_append(d->st, 0, 0, 0, STORE_NONE);
	store_append(d->st, 0, end - 1, 1, STORE_NONE);
	store_finish(d->st, 0, end);
	d->end = end;
	render_strip(d, 0, 0, end, 3, px, covered, work);
	CHECK("render_strip: an interval rounding to the width adds nothing",
	    is(px[0], 255, 0, 0) && is(px[1], 255, 0, 0) &&
	    is(px[2], 255, 0, 0) && covered[2] == 1);
	free(work);
	trace_free(d);
}

static uint32_t
pixel(cairo_surface_t *s, int x, int y)
{
	unsigned char *data = cairo_image_surface_get_data(s);
	int stride = cairo_image_surface_get_stride(s);

	return (((uint32_t *)(void *)(data + (size_t)y * stride))[x] &
	    0xffffff);
}

/*
 * Whether the w x h pixels at (x, y) are the no-data hatch of base and
 * ink: lines up to the right, where (x + y) mod 8 is 0 or 1, half ink
 * beside them (at 2 and 7), base elsewhere.
 */
static int
is_hatch(cairo_surface_t *s, unsigned x, unsigned y, unsigned w, unsigned h,
    uint32_t base, uint32_t ink)
{
	static const int share[8] = { 2, 2, 1, 0, 0, 0, 0, 1 };	/* halves */
	unsigned i, j;

	for (j = y; j < y + h; j++)
		for (i = x; i < x + w; i++) {
			int k = share[(i + j) % 8], c;
			uint32_t want = 0;

			for (c = 0; c < 24; c += 8) {
				unsigned b = base >> c & 0xff, n = ink >> c & 0xff;

				want |= (uint32_t)((b * (2 - k) + n * k + 1) / 2)
				    << c;
			}
			if (pixel(s, (int)i, (int)j) != want)
				return (0);
		}
	return (1);
}

static void
test_png(void)
{
	trace *d = sample();
	uint32_t order[2] = { 1, 0 };	/* b above a */
	render_panel p = { d, order, 2, NULL, 0, 0, 0, 0, 0 };
	render_options o;
	render_layout lay;
	unsigned panel_y[1];
	char path[] = "/tmp/test_render_XXXXXX.png";
	int fd = mkstemps(path, 4);
	sm_error err;
	cairo_surface_t *s;

	close(fd);
	render_defaults(&o, d);
	o.title = "test";
	o.t0 = 0;
	o.t1 = 100;
	memset(&lay, 0, sizeof (lay));
	memset(&lay, 0, sizeof (lay));
	lay.panel_y = panel_y;
	/* Find the layout's strip width first, then make it 1 ns a pixel. */
	CHECK_INT("render_file writes a PNG",
	    render_file(path, &o, &p, 1, &lay, &err), 0);
	o.width = lay.width - lay.strip_width + 100;
	CHECK_INT("render_file: a 100-pixel strip",
	    render_file(path, &o, &p, 1, &lay, &err), 0);
	CHECK_INT("render_file: the strip is 100 pixels", lay.strip_width,
	    100);
	s = cairo_image_surface_create_from_png(path);
	CHECK("render_file: the PNG reads back at its size",
	    cairo_surface_status(s) == CAIRO_STATUS_SUCCESS &&
	    cairo_image_surface_get_width(s) == (int)lay.width &&
	    cairo_image_surface_get_height(s) == (int)lay.height);
	if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS) {
		unsigned x = lay.strip_x, y = panel_y[0];

		/* b's row first, then a's. */
		CHECK("render_file: b before its first state is the no-data "
		    "hatch", is_hatch(s, x, y, 24, 10, 0xffffff, 0xc8c8c8));
		CHECK("render_file: b in red after 25 ns",
		    pixel(s, x + 30, y + 5) == 0xff0000);
		CHECK("render_file: a in red at 10 ns",
		    pixel(s, x + 10, y + 15) == 0xff0000);
		CHECK("render_file: a in blue at 60 ns, every row",
		    pixel(s, x + 60, y + 10) == 0x0000ff &&
		    pixel(s, x + 60, y + 19) == 0x0000ff);
		CHECK("render_file: nothing drawn past the strip's end",
		    pixel(s, x + 103, y + 5) == 0xffffff);
		CHECK("render_file: grid lines stay below the axis labels",
		    pixel(s, x, 2) == 0xffffff &&
		    pixel(s, x + 50, 2) == 0xffffff);
	}
	cairo_surface_destroy(s);
	unlink(path);
	o.width = 30;
	CHECK("render_file: too narrow is an error",
	    render_file(path, &o, &p, 1, NULL, &err) != 0 &&
	    strstr(err.message, "width 30") != NULL);
	CHECK("render_file: no file is left after an error",
	    access(path, F_OK) != 0);
	o.width = 400;
	CHECK("render_file: an unknown extension is an error",
	    render_file("/tmp/x.gif", &o, &p, 1, NULL, &err) != 0 &&
	    strstr(err.message, ".png, .svg or .pdf") != NULL);
	trace_free(d);
}

/*
 * Renders p over [t0, t1) with a strip of strip_width pixels into a PNG
 * and reads it back (NULL on failure); fills lay.
 */
static cairo_surface_t *
render_png(render_options *o, const render_panel *p, unsigned strip_width,
    render_layout *lay)
{
	char path[] = "/tmp/test_render_XXXXXX.png";
	int fd = mkstemps(path, 4);
	sm_error err;
	cairo_surface_t *s = NULL;

	close(fd);
	if (render_file(path, o, p, 1, lay, &err) == 0) {
		o->width = lay->width - lay->strip_width + strip_width;
		if (render_file(path, o, p, 1, lay, &err) == 0)
			s = cairo_image_surface_create_from_png(path);
	}
	unlink(path);
	if (s != NULL && cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		s = NULL;
	}
	return (s);
}

static void
test_nodata(void)
{
	trace *d = sample();
	uint32_t order[2] = { 1, 0 };	/* b above a */
	render_panel p = { d, order, 2, NULL, 0, 0, 0, 0, 0 };
	render_options o;
	render_layout lay;
	unsigned panel_y[1];
	cairo_surface_t *s;

	render_defaults(&o, d);
	memset(&lay, 0, sizeof (lay));
	memset(&lay, 0, sizeof (lay));
	lay.panel_y = panel_y;
	/* 2 ns a pixel: b's first state, at 25 ns, is half of column 12. */
	o.t0 = 0;
	o.t1 = 200;
	s = render_png(&o, &p, 100, &lay);
	CHECK("render_file: a picture with no data", s != NULL);
	if (s != NULL) {
		unsigned x = lay.strip_x + 12, y = panel_y[0] + 3;
		uint32_t got = pixel(s, (int)x, (int)y);
		/* Half red, half the hatch there. */
		unsigned k = (x + y) % 8, h = k < 2 ? 0xc8 : k == 2 ||
		    k == 7 ? 0xe4 : 0xff;
		uint32_t want = (uint32_t)(255 + h + 1) / 2 << 16 |
		    (h + 1) / 2 << 8 | (h + 1) / 2;

		CHECK("render_file: a partly covered column fades onto the "
		    "hatch", got == want);
		CHECK("render_file: no data past the trace's end is hatched",
		    is_hatch(s, lay.strip_x + 51, panel_y[0], 49, 20,
		    0xffffff, 0xc8c8c8));
		cairo_surface_destroy(s);
	}
	/* empty = colour is the hatch's base; lines show on a dark one. */
	o.empty = (color){ 0x33, 0x33, 0x33 };
	s = render_png(&o, &p, 100, &lay);
	if (s != NULL) {
		CHECK("render_file: empty sets the hatch's base colour",
		    is_hatch(s, lay.strip_x + 51, panel_y[0], 49, 20,
		    0x333333, 0x707070));
		cairo_surface_destroy(s);
	}
	trace_free(d);
}

/* A pixel as a colour. */
static color
color_of(uint32_t px)
{
	return ((color){ (uint8_t)(px >> 16), (uint8_t)(px >> 8),
	    (uint8_t)px });
}

/*
 * Colours too close (issue 36): a's states #f9f9f9 [0, 50) and #f0f0f0
 * [50, 100) on a white page are drawn apart from the page and from each
 * other, still grey (the hue kept), in the strip and in the legend's
 * swatches (inside a border); the trace's own colours are untouched.
 * A white state's swatch shows too (its border, and a fill apart).
 */
static void
test_close_colors(void)
{
	trace *d = sample();
	uint32_t order[1] = { 0 };
	render_panel p = { d, order, 1, NULL, 0, 0, 0, 0, 0 };
	render_options o;
	render_layout lay;
	unsigned panel_y[1], y;
	cairo_surface_t *s;

	d->cat->states[0].color = (color){ 0xf9, 0xf9, 0xf9 };
	d->cat->states[1].color = (color){ 0xf0, 0xf0, 0xf0 };
	render_defaults(&o, d);
	memset(&lay, 0, sizeof (lay));
	lay.panel_y = panel_y;
	s = render_png(&o, &p, 100, &lay);
	CHECK("close colours: drawn", s != NULL);
	if (s != NULL) {
		int x = (int)lay.strip_x;
		color a = color_of(pixel(s, x + 10, (int)panel_y[0] + 5));
		color b = color_of(pixel(s, x + 60, (int)panel_y[0] + 5));
		color white = { 255, 255, 255 }, border, inside;

		CHECK("close colours: each apart from the page",
		    color_distance(a, white) >= COLOR_TOO_CLOSE &&
		    color_distance(b, white) >= COLOR_TOO_CLOSE);
		CHECK("close colours: apart from each other",
		    color_distance(a, b) >= COLOR_TOO_CLOSE);
		CHECK("close colours: still grey", a.r == a.g && a.g == a.b &&
		    b.r == b.g && b.g == b.b);
		/* Down the first swatch, below a's row: border, then fill. */
		for (y = panel_y[0] + 11; y < lay.height &&
		    pixel(s, x + 5, (int)y) == 0xffffff; y++)
			continue;
		border = color_of(y < lay.height ? pixel(s, x + 5, (int)y) :
		    0xffffff);
		inside = color_of(y + 3 < lay.height ?
		    pixel(s, x + 5, (int)y + 3) : 0xffffff);
		CHECK("close colours: the swatch has a border and the strip's "
		    "colour inside", y < lay.height &&
		    memcmp(&inside, &a, sizeof (a)) == 0 &&
		    memcmp(&border, &inside, sizeof (a)) != 0);
		cairo_surface_destroy(s);
	}
	CHECK("close colours: the trace's own are untouched",
	    d->cat->states[0].color.r == 0xf9 &&
	    d->cat->states[1].color.r == 0xf0);
	trace_free(d);
}

/*
 * A message (an event with an "end") is a slanted arrow from its sender's
 * strip when sent to its receiver's when received: a at 30 ns to b at
 * 90 ns, rows of 10 pixels at 1 ns a pixel, crosses the rows' border
 * (y 10) at 60 ns.  A plain event there would be a vertical arrow at
 * 30 ns (through b's red), leaving (60, 10) as it was: b in red.
 */
static void
test_message_arrow(void)
{
	trace *d = sample();
	uint32_t order[2] = { 0, 1 };	/* a above b */
	render_panel p = { d, order, 2, NULL, 0, 1, 0, 0, 0 };
	render_options o;
	render_layout lay;
	unsigned panel_y[1];
	cairo_surface_t *s;

	catalog_add_event(d->cat, 30, "a", 1, "send", 4, "b", 1);
	catalog_set_event_extra(d->cat, 90, "m1", 2, NULL, 0);
	render_defaults(&o, d);
	o.t0 = 0;
	o.t1 = 100;
	o.row_height = 10;
	memset(&lay, 0, sizeof (lay));
	memset(&lay, 0, sizeof (lay));
	lay.panel_y = panel_y;
	s = render_png(&o, &p, 100, &lay);
	CHECK("render message: the picture", s != NULL);
	if (s != NULL) {
		unsigned x = lay.strip_x, y = panel_y[0];

		CHECK("render message: the arrow crosses the rows at 60 ns",
		    pixel(s, x + 60, y + 10) != 0xff0000);
		CHECK("render message: no vertical arrow at 30 ns",
		    pixel(s, x + 30, y + 13) == 0xff0000);
		CHECK("render message: b at 70 ns away from the arrow is red",
		    pixel(s, x + 70, y + 18) == 0xff0000);
		cairo_surface_destroy(s);
	}
	trace_free(d);
}

/* Two panels of d1 and d2 (rows a, b) at 1 ns a pixel, read back. */
static cairo_surface_t *
render_two(trace *d1, trace *d2, unsigned *panel_y, render_layout *lay)
{
	static uint32_t order[2] = { 0, 1 };
	render_panel p[2] = { { d1, order, 2, NULL, 0, 1, 0, 0, 0 },
	    { d2, order, 2, NULL, 0, 1, 0, 0, 0 } };
	render_options o;
	char path[] = "/tmp/test_render_XXXXXX.png";
	int fd = mkstemps(path, 4);
	sm_error err;
	cairo_surface_t *s = NULL;

	close(fd);
	render_defaults(&o, d1);
	o.t0 = 0;
	o.t1 = 100;
	o.row_height = 10;
	memset(lay, 0, sizeof (*lay));
	lay->panel_y = panel_y;
	if (render_file(path, &o, p, 2, lay, &err) == 0) {
		o.width = lay->width - lay->strip_width + 100;
		if (render_file(path, &o, p, 2, lay, &err) == 0)
			s = cairo_image_surface_create_from_png(path);
	}
	unlink(path);
	if (s != NULL && cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		s = NULL;
	}
	return (s);
}

/*
 * Two panels, hosts n1 and n2 (rows a, b each): a whole message from
 * n1's a at 30 ns to "n2/b" at 90 ns is an arrow from the first panel
 * into the second, so it crosses the gap between them; so does a send
 * with an id from n1's b at 10 ns to "n2", to n2's receive of that id
 * (a, at 50 ns).  Against the same panels without them (the gap's grid
 * lines alone), the pixels where each crosses the gap's middle change.
 */
static void
test_cross_messages(void)
{
	trace *d1 = sample(), *d2 = sample(), *e1 = sample(), *e2 = sample();
	render_layout lay, lay0;
	unsigned panel_y[2], panel_y0[2];
	cairo_surface_t *s, *s0;

	d1->cat->host = strdup("n1");
	d2->cat->host = strdup("n2");
	e1->cat->host = strdup("n1");
	e2->cat->host = strdup("n2");
	catalog_add_event(d1->cat, 30, "a", 1, "send", 4, "n2/b", 4);
	catalog_set_event_extra(d1->cat, 90, NULL, 0, NULL, 0);
	catalog_add_event(d1->cat, 10, "b", 1, "send", 4, "n2", 2);
	catalog_set_event_extra(d1->cat, CATALOG_NO_END, "m2", 2, NULL, 0);
	catalog_add_event(d2->cat, 50, "a", 1, "receive", 7, NULL, 0);
	catalog_set_event_extra(d2->cat, CATALOG_NO_END, "m2", 2, NULL, 0);
	s = render_two(d1, d2, panel_y, &lay);
	s0 = render_two(e1, e2, panel_y0, &lay0);
	CHECK("render cross: the pictures", s != NULL && s0 != NULL &&
	    lay.width == lay0.width && lay.height == lay0.height &&
	    panel_y[1] == panel_y0[1]);
	if (s != NULL && s0 != NULL && lay.height == lay0.height) {
		unsigned x = lay.strip_x, gap = panel_y[0] + 20;
		unsigned mid = (gap + panel_y[1]) / 2;
		/* Where each arrow's line is at the gap's middle. */
		double ya = panel_y[0] + 5, yb = panel_y[1] + 15;
		double yc = panel_y[0] + 15, yd = panel_y[1] + 5;
		unsigned xm = x + 30 + (unsigned)((mid - ya) / (yb - ya) * 60);
		unsigned xn = x + 10 + (unsigned)((mid - yc) / (yd - yc) * 40);
		int k, hit = 0, hit2 = 0, other = 0;

		for (k = -2; k <= 2; k++) {
			hit |= pixel(s, xm + k, mid) != pixel(s0, xm + k, mid);
			hit2 |= pixel(s, xn + k, mid) != pixel(s0, xn + k, mid);
		}
		for (k = 0; k < 100; k++)
			other += pixel(s, x + k, mid) != pixel(s0, x + k, mid) &&
			    (unsigned)k + x + 3 < xm && (unsigned)k + x > xn + 3;
		CHECK("render cross: the whole message crosses the gap",
		    panel_y[1] > gap && hit);
		CHECK("render cross: the send crosses it to its receive", hit2);
		CHECK("render cross: nothing else crosses it", other == 0);
	}
	if (s != NULL)
		cairo_surface_destroy(s);
	if (s0 != NULL)
		cairo_surface_destroy(s0);
	trace_free(d1);
	trace_free(d2);
	trace_free(e1);
	trace_free(e2);
}


/*
 * A trace of the generic state system, states red, blue and green:
 * "v" the value 10 over [0, 50) and 40 over [50, 100); "n" red, blue
 * pushed at 20, green at 40, popped at 60 and 80; "g/a", "x" and "g/b"
 * red (a group "g" around "x").
 */
static trace *
state_system_sample(void)
{
	catalog_state *st = calloc(3, sizeof (catalog_state));
	const char *why = NULL;
	builder *b;
	static const char *const names[] = { "red", "blue", "green" };
	static const char *const colors[] = { "#ff0000", "#0000ff", "#00ff00" };
	trace *d;
	int i;

	for (i = 0; i < 3; i++) {
		st[i].name = strdup(names[i]);
		st[i].name_len = strlen(names[i]);
		st[i].color_text = strdup(colors[i]);
	}
	b = builder_new("states", st, 3, &why);
	if (b == NULL)
		return (NULL);
	builder_number(b, 0, "v", 1, 10);
	builder_number(b, 50, "v", 1, 40);
	builder_set(b, 0, "n", 1, 0, NULL, 0);
	builder_push(b, 20, "n", 1, 1, NULL, 0);
	builder_push(b, 40, "n", 1, 2, NULL, 0);
	builder_pop(b, 60, "n", 1, UINT32_MAX);
	builder_pop(b, 80, "n", 1, UINT32_MAX);
	builder_set(b, 0, "g/a", 3, 0, NULL, 0);
	builder_set(b, 0, "x", 1, 0, NULL, 0);
	builder_set(b, 0, "g/b", 3, 0, NULL, 0);
	d = builder_finish(b, 1, 100);
	builder_free(b);
	return (d);
}

/* How many of the h pixels down from (x, y) are exactly c. */
static unsigned
count_down(cairo_surface_t *s, unsigned x, unsigned y, unsigned h,
    uint32_t c)
{
	unsigned n = 0, k;

	for (k = 0; k < h; k++)
		n += pixel(s, (int)x, (int)(y + k)) == c;
	return (n);
}

/* The middle of the pixel column at time t of [0, 100). */
static int
at(const render_layout *lay, unsigned t)
{
	return ((int)(lay->strip_x + (t + 0.5) * lay->strip_width / 100));
}

static void
test_state_system(void)
{
	trace *d = state_system_sample();
	uint32_t order[5] = { 0, 1, 2, 3, 4 };	/* v, n, g/a, x, g/b */
	render_panel p = { d, order, 5, NULL, 0, 0, 1, 1, 0 };
	render_options o;
	render_layout lay;
	unsigned panel_y[1], ys[5], hs[5], *ey = ys, *eh = hs;
	cairo_surface_t *s;
	const uint32_t fill = 0x737373, white = 0xffffff;

	CHECK("state system: the sample builds", d != NULL);
	if (d == NULL)
		return;
	render_defaults(&o, d);
	o.t0 = 0;
	o.t1 = 100;
	memset(&lay, 0, sizeof (lay));
	memset(&lay, 0, sizeof (lay));
	lay.panel_y = panel_y;
	lay.entity_y = &ey;
	lay.entity_h = &eh;
	s = render_png(&o, &p, 200, &lay);
	CHECK("state system: the PNG renders", s != NULL);
	if (s == NULL) {
		trace_free(d);
		return;
	}
	CHECK_INT("state system: a value strip is two rows", hs[0], 20);
	CHECK_INT("state system: a nested entity a row per depth", hs[1], 30);
	CHECK("state system: a header row above the group, g/b in it, x "
	    "after it", ys[2] == ys[1] + 30 + 10 && ys[4] == ys[2] + 10 &&
	    ys[3] == ys[4] + 10);
	/* v: 0 to 40 over 20 pixels: 10 fills 5, 40 all 20. */
	CHECK_INT("state system: 10 of 40 fills a quarter of the column",
	    count_down(s, (unsigned)at(&lay, 25), ys[0], 20, fill), 5);
	CHECK("state system: the fill is at the bottom, the page above",
	    pixel(s, at(&lay, 25), (int)ys[0] + 19) == fill &&
	    pixel(s, at(&lay, 25), (int)ys[0] + 10) == white);
	CHECK_INT("state system: 40 of 40 fills the column",
	    count_down(s, (unsigned)at(&lay, 75), ys[0], 20, fill), 20);
	/* n: red below all; blue at depth 2 over [20, 80); green 3 [40, 60). */
	CHECK("state system: depth 1 is the bottom state throughout",
	    pixel(s, at(&lay, 10), (int)ys[1] + 5) == 0xff0000 &&
	    pixel(s, at(&lay, 50), (int)ys[1] + 5) == 0xff0000);
	CHECK("state system: depth 2 is the pushed state",
	    pixel(s, at(&lay, 30), (int)ys[1] + 15) == 0x0000ff &&
	    pixel(s, at(&lay, 70), (int)ys[1] + 15) == 0x0000ff);
	CHECK("state system: depth 3 the state pushed on that",
	    pixel(s, at(&lay, 50), (int)ys[1] + 25) == 0x00ff00);
	CHECK_INT("state system: a shallower stack leaves its rows empty",
	    pixel(s, at(&lay, 10), (int)ys[1] + 15), white);
	CHECK_INT("state system: depth 3 is empty where the stack is 2",
	    pixel(s, at(&lay, 30), (int)ys[1] + 25), white);
	CHECK_INT("state system: depth 2 is empty after both pops",
	    pixel(s, at(&lay, 90), (int)ys[1] + 15), white);
	CHECK("state system: the header row is not a strip",
	    pixel(s, at(&lay, 50), (int)ys[2] - 5) == white);
	cairo_surface_destroy(s);
	/* Without the options: one strip each, in the order given. */
	p.nested_rows = 0;
	p.group = 0;
	s = render_png(&o, &p, 200, &lay);
	CHECK("state system: without the options, a row each in order",
	    s != NULL && hs[1] == 10 && ys[2] == ys[1] + 10 &&
	    ys[3] == ys[2] + 10 && ys[4] == ys[3] + 10);
	if (s != NULL) {
		CHECK("state system: the top of the stack colours the strip",
		    pixel(s, at(&lay, 10), (int)ys[1] + 5) ==
		    0xff0000 && pixel(s, at(&lay, 30),
		    (int)ys[1] + 5) == 0x0000ff && pixel(s,
		    at(&lay, 50), (int)ys[1] + 5) == 0x00ff00);
		cairo_surface_destroy(s);
	}
	trace_free(d);
}

/*
 * Shares of a panel whose first 100 entities hold 100 transitions each
 * and whose last 100 hold one: runs of about equal work, not of as many
 * entities (which gave one thread nearly all of it).
 */
static void
test_shares(void)
{
	trace *d = calloc(1, sizeof (*d));
	catalog *cat = catalog_new("shares");
	uint32_t order[200], bounds[5], k, t;
	render_panel p = { 0 };
	char name[16];

	cat->nstates = 2;
	cat->states = calloc(2, sizeof (catalog_state));
	cat->states[0].name = strdup("a");
	cat->states[0].name_len = 1;
	cat->states[1].name = strdup("b");
	cat->states[1].name_len = 1;
	catalog_index_states(cat);
	d->cat = cat;
	d->st = store_new(2);
	for (k = 0; k < 200; k++) {
		snprintf(name, sizeof (name), "e%u", (unsigned)k);
		catalog_entity(cat, name, strlen(name));
		for (t = 0; t < (k < 100 ? 100u : 1u); t++)
			store_append(d->st, k, t, t % 2, STORE_NONE);
		order[k] = k;
	}
	d->begin = 0;
	d->end = 100;
	store_finish(d->st, 0, 100);
	p.d = d;
	p.entities = order;
	p.nentities = 200;
	/* Weights 101 and 2, 10,300 in all: quarters end past 2575, ... */
	panel_shares_cut(&p, 4, bounds);
	CHECK("panel shares: runs of about equal transitions",
	    bounds[0] == 0 && bounds[1] == 26 && bounds[2] == 51 &&
	    bounds[3] == 77 && bounds[4] == 200);
	panel_shares_cut(&p, 1, bounds);
	CHECK("panel shares: one run is the whole panel",
	    bounds[0] == 0 && bounds[1] == 200);
	p.nentities = 15;
	CHECK_INT("panel shares: fewer than 16 entities are not cut",
	    (long long)panel_shares_count(&p), 1);
	trace_free(d);
}

int
main(void)
{
	test_shares();
	test_strip();
	test_strip_long_span();
	test_strip_many_states();
	test_png();
	test_nodata();
	test_close_colors();
	test_message_arrow();
	test_cross_messages();
	test_state_system();
	return (unit_exit());
}
