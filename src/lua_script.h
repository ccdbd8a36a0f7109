/*
 * lua_script.h: runs a Lua script with the statemap module preloaded.
 *
 * The script sees `arg` as the standard lua interpreter sets it (arg[0]
 * is the script, arg[1..n] its arguments, negative indices the program).
 * A Lua error prints "script.lua:LINE: message" and a traceback.
 */
#ifndef SM_LUA_SCRIPT_H
#define SM_LUA_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

typedef struct script_limits {
	uint64_t timeout_ns;	/* 0: none */
	size_t memory_bytes;	/* 0: none */
} script_limits;

/*
 * argv[0] is the script.  A script that runs past the timeout, allocates
 * past the memory limit or is interrupted (SIGINT) stops with a one-line
 * error.  Returns the exit status.
 */
int lua_script_run(int argc, char **argv, const script_limits *limits);

#endif
