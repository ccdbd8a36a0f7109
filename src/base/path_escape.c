#include "base/path_escape.h"

#include <string.h>

size_t
path_char(const char *s, size_t len, size_t i, char *c)
{
	if (s[i] == '\\' && i + 1 < len && (s[i + 1] == '/' ||
	    s[i + 1] == '\\')) {
		*c = s[i + 1];
		return (2);
	}
	*c = s[i];
	return (1);
}

size_t
path_next_separator(const char *s, size_t len, size_t from)
{
	size_t i = from;
	char c;

	while (i < len && s[i] != '/')
		i += path_char(s, len, i, &c);
	return (i < len ? i : len);
}

size_t
path_last_separator(const char *s, size_t len)
{
	size_t i = 0, last = len;
	char c;

	/* Escapes pair from the left, so the walk goes forward. */
	while (i < len) {
		if (s[i] == '/')
			last = i;
		i += path_char(s, len, i, &c);
	}
	return (last);
}

size_t
path_shown_length(const char *s, size_t len)
{
	size_t i = 0, n = 0;
	char c;

	if (memchr(s, '\\', len) == NULL)
		return (len);
	while (i < len) {
		i += path_char(s, len, i, &c);
		n++;
	}
	return (n);
}

size_t
path_show(const char *s, size_t len, char *out, size_t max)
{
	size_t i = 0, n = 0;

	while (i < len && n < max)
		i += path_char(s, len, i, &out[n++]);
	return (n);
}
