#include "output/label.h"

#include <stdlib.h>
#include <string.h>

#include "base/path_escape.h"
#include "base/utf8.h"
#include "base/util.h"

#define ELLIPSIS	"\xe2\x80\xa6"	/* U+2026 */
#define ELLIPSIS_LEN	3

int
label_mode_parse(const char *s, label_mode *mode)
{
	if (strcmp(s, "both") == 0)
		*mode = LABEL_BOTH;
	else if (strcmp(s, "name") == 0)
		*mode = LABEL_NAME;
	else if (strcmp(s, "description") == 0)
		*mode = LABEL_DESCRIPTION;
	else
		return (-1);
	return (0);
}

static size_t
description_length(const char *description)
{
	return (description != NULL ? strlen(description) : 0);
}

size_t
label_name_length(const char *name, size_t name_len)
{
	return (path_shown_length(name, name_len));
}

size_t
label_length(const char *name, size_t name_len, const char *description,
    label_mode mode)
{
	size_t dlen = description_length(description);

	name_len = label_name_length(name, name_len);
	switch (mode) {
	case LABEL_NAME:
		return (name_len);
	case LABEL_DESCRIPTION:
		return (dlen > 0 ? dlen : name_len);
	default:
		return (dlen > 0 ? name_len + 1 + dlen : name_len);
	}
}


/*
 * Appends s (len bytes) to buf[*at], in at most room bytes: whole if it
 * fits, else cut with an ellipsis (spaces before it dropped, also those
 * already in buf), or without one if room is too small for it.
 */
static void
put_cut(char *buf, size_t *at, const char *s, size_t len, size_t room)
{
	size_t k;

	if (len <= room) {
		memcpy(buf + *at, s, len);
		*at += len;
		return;
	}
	if (room <= ELLIPSIS_LEN) {
		k = utf8_cut(s, len, room);
		memcpy(buf + *at, s, k);
		*at += k;
		return;
	}
	k = utf8_cut(s, len, room - ELLIPSIS_LEN);
	memcpy(buf + *at, s, k);
	*at += k;
	while (*at > 0 && buf[*at - 1] == ' ')
		(*at)--;
	memcpy(buf + *at, ELLIPSIS, ELLIPSIS_LEN);
	*at += ELLIPSIS_LEN;
}

static size_t
compose(const char *name, size_t name_len, const char *description,
    label_mode mode, size_t max_bytes, char *buf);

/*
 * A name with escapes (path_escape.h) is shown with them resolved: as
 * much of it as can be shown (max_bytes and one more, which tells that
 * it is cut) is resolved into a copy first.
 */
size_t
label_compose(const char *name, size_t name_len, const char *description,
    label_mode mode, size_t max_bytes, char *buf)
{
	size_t shown, have, n;
	char *copy;

	if (memchr(name, '\\', name_len) == NULL)
		return (compose(name, name_len, description, mode, max_bytes,
		    buf));
	shown = path_shown_length(name, name_len);
	have = shown < max_bytes + 1 ? shown : max_bytes + 1;
	copy = xmalloc(have + 1);
	path_show(name, name_len, copy, have);
	n = compose(copy, shown, description, mode, max_bytes, buf);
	free(copy);
	return (n);
}

/* label_compose of a name shown as it is (name_len bytes, of which
 * only the first max_bytes + 1 are read). */
static size_t
compose(const char *name, size_t name_len, const char *description,
    label_mode mode, size_t max_bytes, char *buf)
{
	size_t dlen = description_length(description), at = 0, first;

	if (mode == LABEL_NAME || dlen == 0) {
		put_cut(buf, &at, name, name_len, max_bytes);
	} else if (mode == LABEL_DESCRIPTION) {
		put_cut(buf, &at, description, dlen, max_bytes);
	} else {
		/* The description's first character, and what it needs. */
		for (first = 1; first < dlen &&
		    utf8_continues((unsigned char)description[first]); first++)
			continue;
		if (name_len + 1 + dlen <= max_bytes ||
		    name_len + 1 + first + ELLIPSIS_LEN <= max_bytes) {
			memcpy(buf, name, name_len);
			at = name_len;
			buf[at++] = ' ';
			put_cut(buf, &at, description, dlen,
			    max_bytes - name_len - 1);
		} else {
			put_cut(buf, &at, name, name_len, max_bytes);
		}
	}
	buf[at] = '\0';
	return (at);
}
