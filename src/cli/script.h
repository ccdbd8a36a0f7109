/*
 * script.h: the Lua state of script mode and of the REPL, and script
 * mode itself.
 *
 * A script sees `arg` as the standard lua interpreter sets it (arg[0]
 * is the script, arg[1..n] its arguments, negative indices the program).
 * A Lua error prints "script.lua:LINE: message" and a traceback.
 */
#ifndef SM_SCRIPT_H
#define SM_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

typedef struct script_limits {
	uint64_t timeout_ns;	/* 0: none */
	size_t memory_bytes;	/* 0: none */
} script_limits;

/*
 * argv[0] is the script.  A script that runs past the timeout, allocates
 * past the memory limit or is interrupted (SIGINT) stops with a one-line
 * error.  Returns the exit status.
 */
int script_run(int argc, char **argv, const script_limits *limits);

/*
 * A new state with the standard libraries and `statemap` (a global, and
 * preloaded) open, counting memory against the limits, and SIGINT set to
 * interrupt whatever Lua code runs (an "interrupted" error).  NULL, with
 * the reason printed, if it cannot be made.  Only one state at a time.
 */
lua_State *script_state(const script_limits *limits);

/* Closes the state and gives SIGINT back its default action. */
void script_close(lua_State *L);

/* lua_pcall with a message handler that appends a traceback. */
int script_pcall(lua_State *L, int nargs, int nresults);

/* The message of the error on top of the stack (or of running out of the
 * memory limit, which has no message of its own). */
const char *script_error(lua_State *L);

/* A Ctrl-C arrived (and was not yet turned into an error); forget it. */
int script_interrupted(void);
void script_clear_interrupt(lua_State *L);

/*
 * How many Ctrl-Cs the state has seen so far, turned into errors or not:
 * whether one came while some code ran, whatever caught it since (C work
 * takes the interrupt as it stops, a pcall the error).
 */
int script_sigints(void);

#endif
