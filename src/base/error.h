/*
 * error.h: one error value, filled by the module that found the problem and
 * printed once, at the top.
 *
 * An error with a file prints as "FILE:LINE:COLUMN: message" (the line and
 * column are 1-based; a zero line prints "FILE: message"); one without a
 * file prints as "statemap-lua: message".  Messages are one line: callers
 * name what was expected and what was found.
 */
#ifndef SM_ERROR_H
#define SM_ERROR_H

#include <stdint.h>
#include <stdio.h>

typedef struct sm_error {
	char file[1024];	/* empty when the error is not about a file */
	uint64_t line;		/* 1-based; 0 when not known */
	uint64_t column;	/* 1-based, in characters; 0 when not known */
	char message[1024];
} sm_error;

/* Sets a message with no file position (clears any earlier file). */
void error_set(sm_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Sets a message at FILE:LINE:COLUMN. */
void error_at(sm_error *err, const char *file, uint64_t line,
    uint64_t column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Writes the error as one line, ending in a newline. */
void error_print(const sm_error *err, FILE *out);

/* The same line, without "statemap-lua: " or a newline, into buf. */
void error_format(const sm_error *err, char *buf, size_t size);

#endif
