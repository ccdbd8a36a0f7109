/*
 * repl.h: Lua mode of the command line: the interactive REPL
 * (statemap-lua -i) and -E chunks.
 *
 * The traces named are loaded (the first bound to `t`, all of them to
 * `traces`), the -E chunks and then the script run, and, if interactive,
 * statements are read from standard input until its end: with GNU
 * readline (history, completion) when it is a terminal, as plain lines
 * without prompts otherwise.  The Lua side is lua/repl.lua.
 *
 * The history is $XDG_STATE_HOME/statemap-lua/history (the directory is
 * made) when XDG_STATE_HOME is an absolute path, else
 * ~/.statemap_lua_history; it is read at the start and written at the end.
 *
 * A failed statement never ends the session (at a prompt or from a pipe);
 * from a pipe it makes the exit status 1, so that a scripted session is
 * answered in full and its caller still learns that something failed.
 */
#ifndef SM_REPL_H
#define SM_REPL_H

#include "cli/script.h"

typedef struct repl_options {
	char **files;		/* traces to load; nfiles of them */
	int nfiles;
	char **chunks;		/* -E code, in order; nchunks of them */
	int nchunks;
	const char *script;	/* run after the chunks, or NULL */
	int interactive;	/* read statements after that */
	int ignore_tags;
	const char *begin, *end, *duration;	/* the window, or NULL */
	const char *analysis;	/* --analysis, for kernel traces, or NULL */
	script_limits limits;
} repl_options;

/*
 * Returns the exit status: 1 if loading, a chunk or the script fails, or
 * if a statement read from a pipe fails (or is left incomplete at the
 * end); 0 otherwise (also at Ctrl-D on a terminal, whatever failed).
 */
int repl_run(const repl_options *o);

#endif
