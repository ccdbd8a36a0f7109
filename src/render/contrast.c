#include "render/contrast.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Steps toward the foreground, each this share of the way. */
#define CONTRAST_STEP	0.08
#define CONTRAST_STEPS	40


/*
 * Whether c stands apart from the background and from drawn[0, k), given
 * as points in OKLab (each converted once, not once a comparison).
 */
static int
apart(color c, const double (*drawn)[3], uint32_t k, const double *background)
{
	double lab[3];
	uint32_t i;

	color_oklab(c, lab);
	if (color_lab_distance(lab, background) < COLOR_TOO_CLOSE)
		return (0);
	for (i = 0; i < k; i++)
		if (color_lab_distance(lab, drawn[i]) < COLOR_TOO_CLOSE)
			return (0);
	return (1);
}

/*
 * cat's states as drawn on o's page, or NULL if every colour is
 * drawn as given.
 */
static catalog_state *
separated(const render_options *o, const catalog *cat)
{
	uint32_t n = cat->nstates < CONTRAST_STATES ? cat->nstates :
	    CONTRAST_STATES, k;
	color *drawn = xcalloc((size_t)n + 1, sizeof (color));
	double (*lab)[3] = xcalloc((size_t)n + 1, sizeof (*lab));
	double back[3];
	catalog_state *st = NULL;
	int changed = 0;

	color_oklab(o->background, back);
	for (k = 0; k < n; k++) {
		color c = cat->states[k].color;
		unsigned step;

		for (step = 0; step < CONTRAST_STEPS &&
		    !apart(c, lab, k, back); step++)
			c = color_mix(o->foreground, c, CONTRAST_STEP);
		drawn[k] = c;
		color_oklab(c, lab[k]);
		changed |= memcmp(&c, &cat->states[k].color, sizeof (c)) != 0;
	}
	if (changed) {
		st = xcalloc((size_t)cat->nstates + 1, sizeof (catalog_state));
		memcpy(st, cat->states, cat->nstates * sizeof (catalog_state));
		for (k = 0; k < n; k++)
			st[k].color = drawn[k];
	}
	free(drawn);
	free(lab);
	return (st);
}

void
contrast_apply(const render_options *o, render_panel *panels, size_t n,
    contrast *keep)
{
	const trace **given = xcalloc(n + 1, sizeof (trace *));
	size_t i, j;

	memset(keep, 0, sizeof (*keep));
	keep->traces = xcalloc(n + 1, sizeof (trace *));
	keep->cats = xcalloc(n + 1, sizeof (catalog *));
	keep->states = xcalloc(n + 1, sizeof (catalog_state *));
	for (i = 0; i < n; i++) {
		const trace *d = given[i] = panels[i].d;
		catalog_state *st;
		catalog *cat;
		trace *copy;

		/* A trace drawn in several panels: one copy for all. */
		for (j = 0; j < i; j++)
			if (given[j] == d)
				break;
		if (j < i) {
			panels[i].d = panels[j].d;
			continue;
		}
		if ((st = separated(o, d->cat)) == NULL)
			continue;
		cat = xmalloc(sizeof (catalog));
		memcpy(cat, d->cat, sizeof (catalog));
		cat->states = st;
		copy = xmalloc(sizeof (trace));
		memcpy(copy, d, sizeof (trace));
		copy->cat = cat;
		keep->traces[keep->n] = copy;
		keep->cats[keep->n] = cat;
		keep->states[keep->n] = st;
		keep->n++;
		panels[i].d = copy;
	}
	free(given);
}

void
contrast_free(contrast *keep)
{
	size_t i;

	for (i = 0; i < keep->n; i++) {
		free(keep->traces[i]);
		free(keep->cats[i]);
		free(keep->states[i]);
	}
	free(keep->traces);
	free(keep->cats);
	free(keep->states);
	memset(keep, 0, sizeof (*keep));
}
