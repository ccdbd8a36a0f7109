/*
 * options.c: the format a path names and the options' defaults.
 */
#include "render/options.h"

#include <string.h>
#include <strings.h>

#include "coalesce/coalesce.h"

int
render_format_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot == NULL)
		return (-1);
	if (strcasecmp(dot, ".png") == 0)
		return (RENDER_PNG);
	if (strcasecmp(dot, ".svg") == 0)
		return (RENDER_SVG);
	if (strcasecmp(dot, ".pdf") == 0)
		return (RENDER_PDF);
	return (-1);
}

void
render_defaults(render_options *o, const trace *d)
{
	static const color white = { 0xff, 0xff, 0xff };
	static const color black = { 0, 0, 0 };

	memset(o, 0, sizeof (*o));
	o->labels = LABEL_BOTH;
	o->width = RENDER_WIDTH;
	o->row_height = RENDER_ROW_HEIGHT;
	o->margin = RENDER_MARGIN;
	o->t0 = d->begin;
	o->t1 = d->end;
	o->budget = COALESCE_BUDGET;
	o->font = RENDER_FONT;
	o->font_size = RENDER_FONT_SIZE;
	o->background = white;
	o->foreground = black;
	o->empty = white;	/* under the no-data hatch */
	o->legend = 1;
}
