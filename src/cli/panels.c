/*
 * panels.c: a kernel trace is a panel per analysis.
 */
#include "cli/panels.h"

#include <stdlib.h>

#include "base/util.h"
#include "ingest/input.h"
#include "ingest/kernel.h"

static const unsigned order[] = { KERNEL_THREADS, KERNEL_CPUS, KERNEL_BLOCK };

int
panels_of(char *const *files, int nfiles, unsigned requested, panels *p,
    sm_error *err)
{
	int i, cap = nfiles * 3;
	size_t k;

	p->paths = xcalloc((size_t)cap, sizeof (char *));
	p->analyses = xcalloc((size_t)cap, sizeof (unsigned));
	p->n = 0;
	for (i = 0; i < nfiles; i++) {
		unsigned set = requested;

		if (!input_is_kernel(files[i])) {
			p->paths[p->n] = files[i];
			p->analyses[p->n++] = 0;
			continue;
		}
		if (set == 0 && kernel_available(files[i], &set, err) != 0) {
			panels_free(p);
			return (-1);
		}
		for (k = 0; k < sizeof (order) / sizeof (order[0]); k++) {
			if (!(set & order[k]))
				continue;
			p->paths[p->n] = files[i];
			p->analyses[p->n++] = order[k];
		}
	}
	return (0);
}

void
panels_free(panels *p)
{
	free(p->paths);
	free(p->analyses);
	p->paths = NULL;
	p->analyses = NULL;
	p->n = 0;
}
