/*
 * path_escape.h: entity names as paths, with the input format's escape
 * (statemap-lua-format(5)).  A name's components are separated by '/';
 * a backslash before '/' makes it part of the component ("kworker\/0:1"
 * is one component, shown "kworker/0:1"), and two backslashes are one
 * shown backslash.  A backslash before anything else, or last, is a
 * backslash as it stands, so names written before the escape existed
 * keep their meaning unless they hold "\/" or "\\".
 *
 * Names are stored as written (escapes and all): these functions find
 * the separators and make the text shown.  Nothing allocates.
 */
#ifndef SM_PATH_ESCAPE_H
#define SM_PATH_ESCAPE_H

#include <stddef.h>

/*
 * The index of the first separator at or after from in s (len bytes),
 * or len if none.  from must be at a character of the name, not inside
 * an escape (0, or one past a separator).
 */
size_t path_next_separator(const char *s, size_t len, size_t from);

/*
 * The index of the last separator in s (len bytes), or len if none.
 */
size_t path_last_separator(const char *s, size_t len);

/* How many bytes s (len bytes) has when shown (escapes resolved). */
size_t path_shown_length(const char *s, size_t len);

/*
 * Writes at most max bytes of s (len bytes) as shown into out; returns
 * how many it wrote.  out may not overlap s.
 */
size_t path_show(const char *s, size_t len, char *out, size_t max);

/*
 * How many bytes of s (len bytes) from i the character there takes in
 * the name: 2 for an escape, else 1.  *c gets the character shown.
 */
size_t path_char(const char *s, size_t len, size_t i, char *c);

#endif
