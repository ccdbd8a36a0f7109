/*
 * lua_script.h: runs a Lua script with the statemap module preloaded.
 *
 * The script sees `arg` as the standard lua interpreter sets it (arg[0]
 * is the script, arg[1..n] its arguments, negative indices the program).
 * A Lua error prints "script.lua:LINE: message" and a traceback.
 */
#ifndef SM_LUA_SCRIPT_H
#define SM_LUA_SCRIPT_H

/* argv[0] is the script.  Returns the exit status. */
int lua_script_run(int argc, char **argv);

#endif
