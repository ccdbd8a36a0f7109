/*
 * catalog_file.h: a catalog saved as bytes and loaded back from them,
 * for the cache (cache.h), which keeps a loaded trace's catalog so.
 *
 * The bytes are words (8 bytes, native byte order: the cache is a file of
 * one machine) and strings (a word for the length, then the bytes; no
 * string at all is a length of all ones): the metadata, the states, the
 * entities with their descriptions, the tags with their definitions, the
 * events with their ends, ids and members, the strings of value
 * entities, and the counts of records.  catalog_file.c lists the fields
 * once, in their order, for both directions.  A change of what is saved
 * changes the cache's entries: the cache's version goes up with it.
 *
 * Loading trusts nothing: the bytes may be damaged or made up.  Every
 * count, string, state, colour, tag, event and value string is checked
 * as the input format's rules would have it, and every byte must be
 * used.
 *
 * Ownership: the saved bytes and a loaded catalog are the caller's.
 */
#ifndef SM_CATALOG_FILE_H
#define SM_CATALOG_FILE_H

#include <stddef.h>

#include "store/catalog.h"

/* The catalog as bytes: malloc'd, *len of them. */
char *catalog_file_save(const catalog *cat, size_t *len);

/*
 * The catalog, named name (as catalog_new names it), that len bytes
 * hold, or NULL if they are not such a catalog (above).
 */
catalog *catalog_file_load(const char *bytes, size_t len, const char *name);

#endif
