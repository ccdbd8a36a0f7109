/*
 * util.h: allocation that cannot fail (it exits with a message instead:
 * out of memory is not an error a statemap can recover from) and a
 * growable array helper.
 */
#ifndef SM_UTIL_H
#define SM_UTIL_H

#include <stddef.h>

/* Says that size bytes could not be had, and exits. */
_Noreturn void out_of_memory(size_t size);

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrndup(const char *s, size_t len);
char *xstrdup_or_null(const char *s);	/* NULL stays NULL */

/*
 * Makes room for at least `need` elements of `size` bytes in *array,
 * whose capacity is *cap; capacity doubles so appends are amortised O(1).
 */
void grow_array(void *array, size_t *cap, size_t need, size_t size);

#endif
