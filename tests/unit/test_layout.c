/*
 * Tests for src/render/layout.c: the rows of a picture's panel grouped
 * by path, with the input format's escape (a '/' after a backslash is
 * inside a component, base/path_escape.h), and the group headers' text.
 */
#include <stdlib.h>
#include <string.h>

#include "render/layout.h"
#include "trace/trace.h"
#include "unit.h"

/* A trace of the names given, each one state at 0, until 10. */
static trace *
named(const char *const *names, uint32_t n)
{
	trace *d = calloc(1, sizeof (*d));
	catalog *cat = catalog_new("layout");
	uint32_t i;

	cat->nstates = 1;
	cat->states = calloc(1, sizeof (catalog_state));
	cat->states[0].name = strdup("on");
	cat->states[0].name_len = 2;
	catalog_index_states(cat);
	d->cat = cat;
	d->st = store_new(n);
	for (i = 0; i < n; i++) {
		catalog_entity(cat, names[i], strlen(names[i]));
		store_append(d->st, i, 0, 0, STORE_NONE);
	}
	d->begin = 0;
	d->end = 10;
	store_finish(d->st, 0, 10);
	return (d);
}

/* Header g's text (the bytes of its first entity's name it says). */
static int
head_is(const panel_rows *r, const render_panel *p, size_t g, const char *want)
{
	const char *name = catalog_entity_name(p->d->cat,
	    p->entities[r->head_first[g]], NULL);

	return (r->head_len[g] == strlen(want) &&
	    memcmp(name + r->head_off[g], want, r->head_len[g]) == 0);
}

static void
test_escaped_groups(void)
{
	const char *const names[] = { "kworker\\/0:1/19", "kworker\\/0:1/20",
	    "cpuhp\\/0", "Files/a\\/b/bytes", "w\\\\/x" };
	uint32_t ids[] = { 0, 1, 2, 3, 4 };
	trace *d = named(names, 5);
	render_panel p;
	panel_rows r;

	memset(&p, 0, sizeof (p));
	p.d = d;
	p.entities = ids;
	p.nentities = 5;
	p.group = RENDER_GROUP_ALL;
	layout_rows(&r, &p, 10);
	CHECK("layout: an escaped / makes no level: three headers",
	    r.nheads == 3);
	CHECK("layout: kworker/0:1 is one header", r.nheads > 0 &&
	    head_is(&r, &p, 0, "kworker\\/0:1"));
	CHECK("layout: its rows are labelled by the rest",
	    r.skip[0] == strlen("kworker\\/0:1/") &&
	    r.skip[1] == strlen("kworker\\/0:1/"));
	CHECK("layout: cpuhp/0 is a row of its own", r.skip[2] == 0);
	CHECK("layout: a / escaped inside a level", r.nheads > 1 &&
	    head_is(&r, &p, 1, "Files/a\\/b"));
	CHECK("layout: an escaped backslash before a separator",
	    r.nheads > 2 && head_is(&r, &p, 2, "w\\\\") && r.skip[4] == 4);
	CHECK("layout: rows and headers, one row each",
	    r.height == 10 * (5 + 3));
	layout_rows_free(&r);
	p.group = 1;
	layout_rows(&r, &p, 10);
	CHECK("layout: group 1 counts real levels only", r.nheads == 3 &&
	    head_is(&r, &p, 1, "Files"));
	layout_rows_free(&r);
	trace_free(d);
}

int
main(void)
{
	test_escaped_groups();
	return (unit_exit());
}
