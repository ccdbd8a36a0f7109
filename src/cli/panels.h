/*
 * panels.h: the inputs of the classic command and --serve as panels: a
 * statemap file is one panel, a kernel trace (ingest/kernel.h) one
 * panel per analysis, stacked in the order threads, cpus, block; by
 * default every analysis the trace has events for, else those that
 * --analysis names.
 */
#ifndef SM_PANELS_H
#define SM_PANELS_H

#include "base/error.h"

typedef struct panels {
	char **paths;		/* each panel's input (not owned) */
	unsigned *analyses;	/* its analyses; 0 for a statemap file */
	int n;
} panels;

/*
 * The panels of files (requested: --analysis's set, 0 for the
 * default).  Returns 0, or -1 with err (a kernel trace that cannot be
 * read, or has none of the events the analyses read).
 */
int panels_of(char *const *files, int nfiles, unsigned requested,
    panels *p, sm_error *err);
void panels_free(panels *p);

#endif
