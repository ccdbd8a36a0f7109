/*
 * input.h: what an input is, told by its bytes and never by its name: a
 * trace.dat file by ftrace's magic bytes; a CTF trace (LTTng) by a
 * directory holding a "metadata" file, or by that file itself; anything
 * else is the statemap format (JSON, maybe gzip or zstd), read as ever.
 */
#ifndef SM_INPUT_H
#define SM_INPUT_H

typedef enum input_kind {
	INPUT_STATEMAP,
	INPUT_TRACEDAT,
	INPUT_CTF
} input_kind;

/*
 * The kind of path ("-" is standard input: always the statemap format).
 * A path that cannot be opened is INPUT_STATEMAP too: reading it then
 * says what is wrong, as it always did.  For a CTF trace, *dir (if not
 * NULL) gets the trace's directory, malloc'd: path itself, or the
 * directory of a metadata file named as the trace.
 */
input_kind input_kind_of(const char *path, char **dir);

/* Whether path is a kernel trace (trace.dat or CTF). */
int input_is_kernel(const char *path);

#endif
