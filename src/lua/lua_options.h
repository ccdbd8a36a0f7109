/*
 * lua_options.h: option tables, as every binding reads them
 * (statemap.render{width = 800}, t:intervals{from = "1s"}...).
 *
 * A function declares the keys it takes, each with the kind of value it
 * holds, and reads each key with the reader of its kind, which refuses a
 * value of another kind as "render: width must be an integer from 1 to
 * 32767, not 0": the function, the key, what the key takes and what it
 * was given.  Every such error is made in lua_options.c, and so is the
 * one for a key the function does not take (lua_options_check_keys).
 *
 * Fields are read with lua_getfield, so a table's __index is honoured,
 * as it always was; absent and nil are the same.
 */
#ifndef SM_LUA_OPTIONS_H
#define SM_LUA_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include <lauxlib.h>

#include "base/color.h"

typedef enum lua_option_kind {
	LUA_OPTION_BOOLEAN,	/* any value, taken for its truth */
	LUA_OPTION_INTEGER,	/* an integer from min to max */
	LUA_OPTION_STRING,
	LUA_OPTION_PATH,	/* a file name: a string without NUL bytes */
	LUA_OPTION_TIME,	/* ns, or a duration string ("1.5s") */
	LUA_OPTION_CHOICE,	/* one of names */
	LUA_OPTION_COLOR,	/* #rrggbb, #rgb or a CSS name */
	LUA_OPTION_TABLE,	/* what says which */
	LUA_OPTION_FUNCTION,	/* what says which */
	LUA_OPTION_OTHER	/* read by the binding: lua_options_get */
} lua_option_kind;

/* One key a function takes.  A list of them ends with a NULL key. */
typedef struct lua_option {
	const char *key;
	lua_option_kind kind;
	lua_Integer min, max;		/* an integer's range */
	const char *const *names;	/* a choice's, NULL-ended */
	const char *what;		/* a table's, function's or other's
					 * value, as errors describe it */
} lua_option;

/* An option table being read. */
typedef struct lua_options {
	lua_State *L;
	int idx;		/* the table's index, or 0: none was given */
	const char *fname;	/* the function, as its errors name it */
	const lua_option *keys;	/* the keys it takes */
	int keep;		/* a table holding the strings read, or 0 */
} lua_options;

/*
 * Starts reading the options at idx for the function fname, which takes
 * keys: a table, or none or nil for no options (every key then absent);
 * anything else is an argument error.
 */
void lua_options_init(lua_options *o, lua_State *L, int idx,
    const char *fname, const lua_option *keys);

/*
 * The strings readers return are the table's, alive while it is, unless
 * an __index made them: then nothing holds them once read.  A caller
 * that uses them after anything that may run the collector keeps them:
 * this pushes a table (its index in keep) that holds each string read
 * from then on, for as long as it is on the stack.  (Or the caller sets
 * keep to a table of its own.)
 */
void lua_options_keep(lua_options *o);

/*
 * Refuses a string key of the table that the function does not take:
 * "columns: unknown option "form" (options are from, to, entities,
 * states)".  Keys of other types (a list's indices) are the function's.
 */
void lua_options_check_keys(const lua_options *o);

/*
 * The readers, one per kind.  Each returns whether the key was given
 * (not nil) and then sets *v (and a string's *len, if len is not NULL),
 * or else leaves them alone; a value of another kind is an error.
 */
int lua_options_boolean(const lua_options *o, const char *key, int *v);
int lua_options_integer(const lua_options *o, const char *key,
    lua_Integer *v);
int lua_options_string(const lua_options *o, const char *key,
    const char **v, size_t *len);
int lua_options_path(const lua_options *o, const char *key,
    const char **v);
int lua_options_time(const lua_options *o, const char *key, uint64_t *v);
int lua_options_color(const lua_options *o, const char *key, color *v);

/* A choice: *v is the index of the name given among the key's names. */
int lua_options_choice(const lua_options *o, const char *key, int *v);

/* A table or a function: pushed if given (the caller pops it), else
 * nothing is. */
int lua_options_table(const lua_options *o, const char *key);
int lua_options_function(const lua_options *o, const char *key);

/*
 * Any other kind, which its function reads itself: pushes the value
 * (nil if absent) and returns its type.  lua_options_refuse raises the
 * error for the value at idx: "fname: key must be <what>, not ...".
 */
int lua_options_get(const lua_options *o, const char *key);
int lua_options_refuse(const lua_options *o, const char *key, int idx);

#endif
