/*
 * lua_repl.h: Lua mode of the command line: the interactive REPL
 * (statemap-lua -i) and -e chunks.
 *
 * The traces named are loaded (the first bound to `t`, all of them to
 * `traces`), the -e chunks and then the script run, and, if interactive,
 * statements are read from standard input until its end: with GNU
 * readline (history, completion) when it is a terminal, as plain lines
 * without prompts otherwise.  The Lua side is lua/repl.lua.
 */
#ifndef SM_LUA_REPL_H
#define SM_LUA_REPL_H

#include "lua_script.h"

typedef struct repl_options {
	char **files;		/* traces to load; nfiles of them */
	int nfiles;
	char **chunks;		/* -e code, in order; nchunks of them */
	int nchunks;
	const char *script;	/* run after the chunks, or NULL */
	int interactive;	/* read statements after that */
	int ignore_tags;
	script_limits limits;
} repl_options;

/*
 * Returns the exit status: 1 if loading, a chunk or the script fails, or
 * if a statement read from a pipe fails; 0 otherwise (also at Ctrl-D).
 */
int lua_repl_run(const repl_options *o);

#endif
