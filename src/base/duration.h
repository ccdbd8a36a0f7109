/*
 * duration.h: time spans written by people, and written back for them.
 *
 * Times are 64-bit nanoseconds.
 */
#ifndef SM_DURATION_H
#define SM_DURATION_H

#include <stdint.h>
#include <stddef.h>

/*
 * Parses a duration: an integer or decimal number, optionally with a
 * leading '+' and an exponent ("2.5e5", "1e-3s"), and an optional unit:
 * ns, us, μs, ms, s or sec (no unit means ns).  Values are converted
 * exactly ("1.5ms" is 1500000 ns; fractions of a nanosecond are
 * truncated).  Returns 1 on success; 0 if
 * the text is not a duration or the result exceeds INT64_MAX.  On failure,
 * if why is not NULL it is set to a short static explanation.
 */
int duration_parse(const char *text, int64_t *out, const char **why);

/*
 * Formats ns in the largest unit that keeps the integer part non-zero
 * (ns, us, ms, s), with three decimals for units above ns:
 * 0 -> "0ns", 999 -> "999ns", 1500000 -> "1.500ms", 2000000000 -> "2.000s".
 * Writes at most size bytes including the NUL; returns buf.
 */
char *duration_format(uint64_t ns, char *buf, size_t size);

/*
 * A step for the ticks of a time axis: the smallest of 1, 2 and 5 times a
 * power of ten ns that is at least want (want / 10 of a span gives at
 * most ten intervals).
 */
uint64_t duration_step(double want);

#endif
