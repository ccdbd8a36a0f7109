#include "output/label.h"

#include <string.h>

#include "base/utf8.h"

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
label_length(const char *name, size_t name_len, const char *description,
    label_mode mode)
{
	size_t dlen = description_length(description);

	(void)name;	/* only its length matters */
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

size_t
label_compose(const char *name, size_t name_len, const char *description,
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
