/*
 * value.h: one value of a value entity (a counter, a gauge, a name) in
 * 64 bits: a number, a string, or none.
 *
 * A number is kept as the bits of its double.  A string is an id in the
 * catalog's value_strings table, and none (JSON null: no value from then
 * on) is a constant; both are NaN bit patterns with a sign and payload
 * that no arithmetic produces (a computed NaN is 0x7ff8... or
 * 0xfff8...).  The ingest and the builder refuse NaN as a number, so a
 * value column is one array of 8-byte words, and summing or comparing
 * numbers needs only the test that a word is one.
 *
 * Whole numbers are exact up to 2^53; value_integer says whether a
 * number is one (scripts get it back as a Lua integer).
 */
#ifndef SM_VALUE_H
#define SM_VALUE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t sm_value;

#define VALUE_KIND_MASK	0xffff000000000000ULL
#define VALUE_NONE	0xfff9000000000000ULL
#define VALUE_STRING	0xfffa000000000000ULL

static inline sm_value
value_number(double d)
{
	sm_value v;

	memcpy(&v, &d, sizeof (v));
	return (v);
}

static inline sm_value
value_string(uint32_t id)
{
	return (VALUE_STRING | id);
}

static inline int
value_is_none(sm_value v)
{
	return (v == VALUE_NONE);
}

static inline int
value_is_string(sm_value v)
{
	return ((v & VALUE_KIND_MASK) == VALUE_STRING);
}

static inline int
value_is_number(sm_value v)
{
	uint64_t k = v & VALUE_KIND_MASK;

	return (k != VALUE_NONE && k != VALUE_STRING);
}

static inline double
value_to_double(sm_value v)
{
	double d;

	memcpy(&d, &v, sizeof (d));
	return (d);
}

static inline uint32_t
value_string_id(sm_value v)
{
	return ((uint32_t)v);
}

/* Whether a number is whole and within 2^53, so exact as an integer. */
static inline int
value_integer(double d, int64_t *out)
{
	if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) ||
	    d != floor(d))
		return (0);
	*out = (int64_t)d;
	return (1);
}

#endif
