#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/work.h"

_Noreturn void
out_of_memory(size_t size)
{
	fprintf(stderr, "statemap-lua: out of memory (allocating %zu bytes)\n",
	    size);
	exit(1);
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size == 0 ? 1 : size);

	if (p == NULL)
		out_of_memory(size);
	work_bytes(size);
	return (p);
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);

	if (p == NULL)
		out_of_memory(n * size);
	work_bytes((uint64_t)n * size);	/* calloc checked the product */
	return (p);
}

void *
xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size == 0 ? 1 : size);

	if (q == NULL)
		out_of_memory(size);
	work_bytes(size);
	return (q);
}

char *
xstrndup(const char *s, size_t len)
{
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return (p);
}

char *
xstrdup_or_null(const char *s)
{
	return (s == NULL ? NULL : xstrndup(s, strlen(s)));
}

void
grow_array(void *array, size_t *cap, size_t need, size_t size)
{
	void **ap = array;
	size_t n = *cap;

	if (need <= n)
		return;
	if (n == 0)
		n = 16;
	while (n < need)
		n *= 2;
	if (n > (size_t)-1 / size)
		out_of_memory((size_t)-1);
	*ap = xrealloc(*ap, n * size);
	*cap = n;
}
