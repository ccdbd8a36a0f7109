/*
 * outcheck.h: checks of what the writers produce, for the fuzz harnesses
 * (fuzz_writers.c) and their unit test (tests/unit/test_outcheck.c).
 *
 * xml_check is a small XML 1.0 (fifth edition) well-formedness checker,
 * written apart from svg.c so that it does not share its mistakes: enough
 * for what svg.c writes (an XML declaration, elements, attributes,
 * character data, CDATA sections, comments, processing instructions,
 * entity and character references), and strict about everything in it:
 * every byte valid UTF-8, every character a legal XML Char (no controls
 * but tab, newline and carriage return, no surrogates, no U+FFFE or
 * U+FFFF), every name a legal Name, tags balanced, attributes unique
 * within an element, '<' and '&' never bare in text or attribute values,
 * "]]>" never in text, "--" never in a comment, references only to the
 * five predefined entities (there is no DTD) or to legal characters.  A
 * document type declaration is refused (svg.c writes none).  Namespaces
 * are not checked: svg.c uses no prefixes.
 *
 * json_find_duplicate walks a parsed JSON document (src/base/json.h) for an
 * object that holds a key twice.
 */
#ifndef SM_OUTCHECK_H
#define SM_OUTCHECK_H

#include <stddef.h>

#include "base/json.h"

/*
 * NULL if the len bytes at doc are a well-formed XML document, else why
 * not, with *where the byte offset of the problem.
 */
const char *xml_check(const char *doc, size_t len, size_t *where);

/*
 * A duplicate key found by json_find_duplicate: the object, the member
 * that repeats an earlier one's key, and the object's container (the
 * array or object it is a member of; NULL for the root).
 */
typedef struct json_dup {
	const json_value *container;
	const json_value *object;
	const json_value *member;
} json_dup;

/*
 * Looks for an object holding a key twice, anywhere under v (keys are
 * compared as decoded bytes).  allow, if not NULL, may excuse a known
 * case (return nonzero) and the search goes on.  Returns 1 and fills *dup
 * for the first one not excused, or 0 if there is none.
 */
int json_find_duplicate(const json_value *v,
    int (*allow)(const json_dup *dup), json_dup *dup);

/*
 * Whether two parsed JSON values are the same: types, numbers as their
 * text, strings and keys as decoded bytes, members in order.
 */
int json_same(const json_value *a, const json_value *b);

#endif
