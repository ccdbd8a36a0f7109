#include "base/error.h"

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
error_format(const sm_error *err, char *buf, size_t size)
{
	if (err->file[0] == '\0')
		snprintf(buf, size, "%s", err->message);
	else if (err->line == 0)
		snprintf(buf, size, "%s: %s", err->file, err->message);
	else
		snprintf(buf, size, "%s:%llu:%llu: %s", err->file,
		    (unsigned long long)err->line,
		    (unsigned long long)err->column, err->message);
}

void
error_print(const sm_error *err, FILE *out)
{
	char buf[sizeof (err->file) + sizeof (err->message) + 64];

	error_format(err, buf, sizeof (buf));
	if (err->file[0] == '\0')
		fprintf(out, "statemap-lua: %s\n", buf);
	else
		fprintf(out, "%s\n", buf);
}
