/*
 * lua_args.h: the plain values every binding reads from its arguments:
 * times, names a script makes, paths, regular expressions.
 */
#ifndef SM_LUA_ARGS_H
#define SM_LUA_ARGS_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

/*
 * The time at idx into *ns: ns as a non-negative integer (a float with an
 * integral value too), or a duration string such as "1.5s".  Returns 0,
 * or -1 if it is none: then *why is the duration's error for a string,
 * NULL for a value of another kind.
 */
int lua_args_time(lua_State *L, int idx, uint64_t *ns, const char **why);

/*
 * A time argument, idx > 0: an argument error if it is none ("bad argument
 * #1 to 'at' (bad time "x": why)"); opt: dflt if none or nil.
 */
uint64_t lua_args_check_time(lua_State *L, int idx);
uint64_t lua_args_opt_time(lua_State *L, int idx, uint64_t dflt);

/*
 * A name a script made (a new state, entity or group name): the string at
 * idx, which must be valid UTF-8 (it reaches SVG, JSON and PDF output);
 * what names it in the error.
 */
const char *lua_args_check_name(lua_State *L, int idx, size_t *len,
    const char *what);

/*
 * A path or file name: the string at idx (an argument error if it is
 * none), refused if it holds a NUL byte, where the C library would end
 * it, so that another file than the one named would be read or written:
 * "statemap.load: the path contains a NUL byte", fname naming the
 * function and what the string ("the path", "output").
 */
const char *lua_args_check_path(lua_State *L, int idx, const char *fname,
    const char *what);

/*
 * Compiles pattern (a POSIX extended regular expression, REG_NOSUB) into
 * a userdata pushed on the stack, which frees it when collected: it must
 * stay on the stack while it is used, and an error anywhere after leaks
 * nothing.  what names it in the error if it does not compile.
 */
const regex_t *lua_args_regex(lua_State *L, const char *pattern,
    const char *what);

#endif
