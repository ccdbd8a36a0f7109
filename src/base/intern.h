/*
 * intern.h: byte strings mapped to dense ids 0, 1, 2, ... in order of
 * first insertion.
 *
 * Entity names, tag names and event names are interned once and referred
 * to by id everywhere else, so the hot path compares integers, not
 * strings.  Names are arbitrary bytes (they may contain NUL); each stored
 * copy is also NUL-terminated for convenience.
 *
 * Ownership: the table owns its copies; pointers returned by intern_name
 * stay valid until intern_free (names are never moved once stored).
 */
#ifndef SM_INTERN_H
#define SM_INTERN_H

#include <stddef.h>
#include <stdint.h>

#define INTERN_NONE	UINT32_MAX

typedef struct intern intern;

intern *intern_new(void);
void intern_free(intern *tab);
/*
 * Empties tab, as a new table, but keeps its memory for the names to
 * come: its blocks of names, and its arrays within four times what its
 * names need.  A table filled anew for each piece of a trace so grows
 * and pages in its memory once, not each time.  The pointers
 * intern_name gave are no longer valid.
 */
void intern_clear(intern *tab);

/* The id of name, adding it if new (then *added is set to 1 if non-NULL). */
uint32_t intern_add(intern *tab, const char *name, size_t len, int *added);

/* The id of name, or INTERN_NONE. */
uint32_t intern_find(const intern *tab, const char *name, size_t len);

/*
 * For every name of from, by its id there: ids[id] = its id in tab, or
 * INTERN_NONE; the same as intern_find of each, with the lookups of a few
 * names ahead asked for early so that their misses overlap (from's stored
 * hashes are tab's: one hash function).  ids holds intern_count(from).
 */
void intern_find_each(const intern *tab, const intern *from, uint32_t *ids);

/* The name with the given id (NUL-terminated); *len gets its length. */
const char *intern_name(const intern *tab, uint32_t id, size_t *len);
/* Asks for what intern_name(tab, id) reads, ahead of it; changes nothing. */
void intern_prefetch(const intern *tab, uint32_t id);

uint32_t intern_count(const intern *tab);

#endif
