/*
 * utf8.h: the few facts about UTF-8 that several writers need: where a
 * character ends, whether text is valid, where text may be cut.
 *
 * Valid means RFC 3629: no overlong forms, no surrogates (U+D800 to
 * U+DFFF), nothing beyond U+10FFFF.  Names from traces are checked by the
 * JSON parser; names made by scripts are checked with utf8_valid before
 * they reach any output.
 */
#ifndef SM_UTF8_H
#define SM_UTF8_H

#include <stddef.h>

/*
 * The length (1 to 4) of the valid character at s, of which n > 0 bytes
 * are available; 0 if the bytes there are not a valid character; -1 if
 * they begin one that the n bytes cut short.
 */
int utf8_char(const unsigned char *s, size_t n);

/* Whether len bytes at s are all valid UTF-8. */
int utf8_valid(const char *s, size_t len);

/*
 * Whether the valid character of n bytes at s (as utf8_char measured it)
 * is a noncharacter: U+FDD0 to U+FDEF, or one of the last two of a plane
 * (U+FFFE, U+FFFF, U+1FFFE, ... U+10FFFF).  They are valid UTF-8, which
 * files and scripts may hold, but some libraries refuse them (Cairo) and
 * XML forbids U+FFFE and U+FFFF.
 */
int utf8_noncharacter(const unsigned char *s, int n);

/*
 * The length of the longest prefix of s (valid UTF-8, len bytes) that is
 * at most max bytes and ends between two characters, so that cutting a
 * name to fit never splits a character.
 */
size_t utf8_cut(const char *s, size_t len, size_t max);

/* Whether byte c continues a character (10xxxxxx) rather than starts one. */
static inline int
utf8_continues(unsigned char c)
{
	return ((c & 0xc0) == 0x80);
}

/* The characters in len bytes of s, counting no further than cap. */
size_t utf8_count(const char *s, size_t len, size_t cap);

/* The byte offset just past the first n characters of s (len bytes). */
size_t utf8_offset(const char *s, size_t len, size_t n);

#endif
