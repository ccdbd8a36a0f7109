#include "error.h"

#include <stdarg.h>
#include <string.h>

static void
error_vset(sm_error *err, const char *fmt, va_list ap)
{
	char *p;

	vsnprintf(err->message, sizeof (err->message), fmt, ap);
	/* One line, always: a message built from data may carry newlines. */
	for (p = err->message; *p != '\0'; p++) {
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	}
}

void
error_set(sm_error *err, const char *fmt, ...)
{
	va_list ap;

	err->file[0] = '\0';
	err->line = err->column = 0;
	va_start(ap, fmt);
	error_vset(err, fmt, ap);
	va_end(ap);
}

void
error_at(sm_error *err, const char *file, uint64_t line, uint64_t column,
    const char *fmt, ...)
{
	va_list ap;

	snprintf(err->file, sizeof (err->file), "%s", file);
	err->line = line;
	err->column = column;
	va_start(ap, fmt);
	error_vset(err, fmt, ap);
	va_end(ap);
}

void
error_print(const sm_error *err, FILE *out)
{
	if (err->file[0] == '\0')
		fprintf(out, "statemap-lua: %s\n", err->message);
	else if (err->line == 0)
		fprintf(out, "%s: %s\n", err->file, err->message);
	else
		fprintf(out, "%s:%llu:%llu: %s\n", err->file,
		    (unsigned long long)err->line,
		    (unsigned long long)err->column, err->message);
}
