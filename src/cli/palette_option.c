#include "cli/palette_option.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void
palette_option_apply(const palette_option *p, catalog *cat)
{
	uint32_t i;

	if (p == NULL || p->n == 0)
		return;
	for (i = 0; i < cat->nstates; i++) {
		catalog_state *st = &cat->states[i];
		size_t k = i < p->n ? i : p->named + (i - p->named) %
		    (p->n - p->named > 0 ? p->n - p->named : 1);
		char hex[8];

		/* As if the file gave it: written out as it is drawn. */
		st->color = p->colors[k < p->n ? k : k % p->n];
		color_format(st->color, hex);
		free(st->color_text);
		st->color_text = xstrndup(hex, strlen(hex));
	}
}

void
palette_option_free(palette_option *p)
{
	free(p->colors);
	memset(p, 0, sizeof (*p));
}
