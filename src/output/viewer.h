/*
 * viewer.h: the interactive viewer (src/output/viewer.js with its modules,
 * joined in the Makefile's VIEWER_JS order; src/output/viewer.css),
 * embedded at build time by src/output/embed_text.lua, which refuses a text
 * containing "]]>" so that each can sit in a CDATA section.
 */
#ifndef SM_VIEWER_H
#define SM_VIEWER_H

#include <stddef.h>

extern const char viewer_js[];
extern const size_t viewer_js_len;
extern const char viewer_css[];
extern const size_t viewer_css_len;

#endif
