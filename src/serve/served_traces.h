/*
 * served_traces.h: what the live server (server.h) shows: loaded traces stacked
 * top to bottom, each with its entities in a display order fixed when
 * serving begins (so rows stay put as the view zooms and pans), the
 * window a page opens on, and the defaults of its answers.
 *
 * Ownership: a served holds a reference to each of its traces.  It never
 * changes once made, so the threads answering requests read it at will;
 * each holds a reference (served_retain) while it does, and the last
 * release frees it.  Replacing what is served is making a new one.
 */
#ifndef SM_SERVED_TRACES_H
#define SM_SERVED_TRACES_H

#include <regex.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "output/label.h"
#include "output/viewport.h"
#include "trace/trace.h"

typedef struct served_options {
	const char *title;	/* of the page; NULL: the statemaps' own */
	int64_t begin, end;	/* the first window (ns since the first
				 * trace's start); end 0: that trace's end */
	const char *sortby;	/* as -s: a state, "entity" or NULL */
	const char *stacksortby; /* as -S: a state or NULL */
	const regex_t *filter;	/* as -f: only entities whose names match */
	uint64_t budget;	/* rectangles per answer unless a query asks
				 * otherwise (-c); 0: 25000 */
	unsigned strip_height;	/* pixels per entity on the page (-h); 0: 10 */
	label_mode labels;	/* --labels */
} served_options;

typedef struct served {
	viewport_panel *panels;	/* top to bottom (after -S) */
	size_t n;
	char *title;
	uint64_t begin, end;	/* the first window, begin < end */
	uint64_t budget;
	unsigned strip_height;
	label_mode labels;
	atomic_uint shared;	/* holders besides the first */
} served;

/*
 * The traces (n of them, at least one) as a page shows them: entities
 * with a transition or a description (and matching the filter), in name
 * order or by time in the sort state over the first window, ties in name
 * order; stacked traces after -S as the classic command orders them.
 * Returns NULL with err filled (a state to sort by that a trace lacks,
 * stacked traces with different states under -S).
 */
served *served_new(trace *const *traces, size_t n, const served_options *o,
    sm_error *err);

served *served_retain(served *s);
void served_release(served *s);

#endif
