/*
 * xml_escape.h: text written as XML character data, for every writer of
 * XML and HTML (the interactive SVG, its value strips, the live server's
 * page).
 */
#ifndef SM_XML_ESCAPE_H
#define SM_XML_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Writes len bytes as XML character data (also safe in attributes):
 * & < > " ' escaped; characters XML 1.0 forbids, and each byte that
 * is not part of a valid UTF-8 character, become U+FFFD.
 */
void xml_escape(FILE *out, const char *s, size_t len);

#endif
