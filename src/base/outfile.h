/*
 * outfile.h: output that is all or nothing.
 *
 * A named output is written to a temporary file beside it and renamed
 * over it only when complete, so an error never leaves a half-written
 * file and never damages an existing one.  Standard output is written
 * directly (it cannot be taken back), which is why callers do all their
 * failing work before the first byte.
 */
#ifndef SM_OUTFILE_H
#define SM_OUTFILE_H

#include <stdio.h>

#include "base/error.h"

typedef struct outfile {
	FILE *fp;		/* write here */
	char *path;		/* the file to rename onto; NULL if written directly */
	char *tmp;
	int device;		/* an existing non-regular file, opened in place */
	int fatal_slot;		/* tmp's registration with fatal.h */
	const char *name;	/* its name (borrowed), for errors */
	char *buffer;		/* fp's buffer, freed once fp is closed */
} outfile;

/* Opens path (NULL or "-" for stdout).  Returns 0, or -1 with err. */
int outfile_open(outfile *of, const char *path, sm_error *err);

/*
 * Gives standard output a large buffer when it is not a terminal: to be
 * called before anything is written to it (the classic command's start).
 */
void outfile_buffer_stdout(void);

/* Flushes, checks for write errors and renames into place. */
int outfile_commit(outfile *of, sm_error *err);

/* Discards the output: removes the temporary file. */
void outfile_abort(outfile *of);

#endif
