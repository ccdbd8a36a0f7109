/*
 * libFuzzer harness for the time-option parser (src/base/duration.c): any
 * text; what parses must format and parse back to no more than it was.
 */
#include <stdlib.h>
#include <string.h>

#include "base/duration.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1), buf[64];
	const char *why;
	int64_t v, back;

	memcpy(text, data, size);
	text[size] = '\0';
	if (duration_parse(text, &v, &why)) {
		if (v < 0)
			abort();
		/* Formatting truncates to three decimals of its unit. */
		if (!duration_parse(duration_format((uint64_t)v, buf,
		    sizeof (buf)), &back, &why) || back > v)
			abort();
	} else if (why == NULL) {
		abort();
	}
	free(text);
	return (0);
}
