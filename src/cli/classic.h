/*
 * classic.h: the classic statemap command: trace files in, one coalesced
 * statemap out (interactive SVG, or JSON), as the reference tool does.
 *
 * Each file is streamed through the coalescer (no store), so memory is
 * bounded by entities and rectangles.  Only the SVG's finer windows
 * (--detail, detail.h) need the transitions again: then, once the
 * coalescing is done, the files are loaded into stores (through the
 * cache, as scripts load them), unless one is standard input.  The first file's bounds become the
 * bounds of every later file, converted through each file's own metadata
 * start.  Nothing is written until every file has been read and sorted,
 * so an error leaves no output behind.
 */
#ifndef SM_CLASSIC_H
#define SM_CLASSIC_H

#include <regex.h>
#include <stdint.h>

#include "cli/palette_option.h"
#include "output/label.h"

typedef enum classic_format {
	FORMAT_SVG,
	FORMAT_JSON,
	FORMAT_CHROME		/* the transitions, not coalesced: chrome.h */
} classic_format;

typedef struct classic_options {
	int64_t begin, end;	/* ns relative to the first file; 0: none */
	uint64_t coalesce;	/* rectangle budget (-c) */
	const char *sortby;	/* -s: a state, "entity", or NULL */
	const char *stacksortby; /* -S */
	int ignore_tags;	/* -i */
	int dry_run;		/* -n */
	const regex_t *filter;	/* -f */
	const char *output;	/* -o, NULL for stdout */
	classic_format format;	/* -T */
	unsigned strip_height;	/* -h */
	label_mode labels;	/* --labels */
	/*
	 * --detail: bytes of finer coalescings in the SVG (detail.h), 0 for
	 * none, DETAIL_AUTO for the default.
	 */
	uint64_t detail;
	/*
	 * NULL, or each file's analyses when it is a kernel trace (0 for a
	 * statemap file): panels.h makes the files and these.
	 */
	const unsigned *analyses;
	/* --palette: the states' colours instead of the files', or NULL. */
	const palette_option *palette;
} classic_options;

/* Runs the command; returns the exit status (errors already printed). */
int classic_run(const classic_options *opts, char *const *files,
    int nfiles);

#endif
