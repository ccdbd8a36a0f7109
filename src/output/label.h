/*
 * label.h: the text beside an entity's strip, composed the same way by
 * every writer (the SVG's names column; the PNG and PDF can use it too).
 *
 * The label is the entity's name, its description, or both ("4118
 * postgres: client backend"), cut to fit a number of bytes at a UTF-8
 * character boundary with an ellipsis, so a cut never leaves half a
 * character behind.  Nothing here escapes: a writer escapes the result
 * for where it goes.
 */
#ifndef SM_LABEL_H
#define SM_LABEL_H

#include <stddef.h>

typedef enum label_mode {
	LABEL_BOTH = 0,		/* "name description", or the name alone */
	LABEL_NAME,		/* the name */
	LABEL_DESCRIPTION	/* the description, or the name if there is none */
} label_mode;

/* "both", "name" or "description": returns 0 and sets *mode, or -1. */
int label_mode_parse(const char *s, label_mode *mode);

/*
 * A name is shown with its escapes resolved (path_escape.h: "\/" is
 * shown '/', "\\" one backslash).  The length of name shown so.
 */
size_t label_name_length(const char *name, size_t name_len);

/*
 * The whole label's length in bytes, uncut.  name has name_len bytes (it
 * may hold NULs); description is a C string, or NULL, and an empty one
 * counts as none.
 */
size_t label_length(const char *name, size_t name_len,
    const char *description, label_mode mode);

/*
 * Writes the label, at most max_bytes bytes and a NUL, into buf (which
 * has room for max_bytes + 1), and returns its length.  A label that is
 * too long is cut at a character boundary and ends in "…" (U+2026, 3
 * bytes; left out when max_bytes is under 4); in LABEL_BOTH the name is
 * kept whole if it fits with a character of the description, and the
 * description is cut, else the label is the name alone (cut if it must
 * be).  Spaces before an ellipsis are dropped.
 */
size_t label_compose(const char *name, size_t name_len,
    const char *description, label_mode mode, size_t max_bytes, char *buf);

#endif
