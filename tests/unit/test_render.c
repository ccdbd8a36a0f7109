/*
 * Tests for src/render.c: the pixel-exact strip (each column the
 * time-weighted blend of its states) and a whole PNG read back through
 * Cairo, pixel by pixel.
 */
#include <cairo.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render.h"
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

static uint32_t
pixel(cairo_surface_t *s, int x, int y)
{
	unsigned char *data = cairo_image_surface_get_data(s);
	int stride = cairo_image_surface_get_stride(s);

	return (((uint32_t *)(void *)(data + (size_t)y * stride))[x] &
	    0xffffff);
}

static void
test_png(void)
{
	trace *d = sample();
	uint32_t order[2] = { 1, 0 };	/* b above a */
	render_panel p = { d, order, 2, NULL, 0, 0 };
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
		CHECK("render_file: b before its first state is empty",
		    pixel(s, x + 10, y + 5) == 0xf0f0f0);
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

int
main(void)
{
	test_strip();
	test_png();
	return (unit_exit());
}
