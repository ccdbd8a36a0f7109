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
 * An entity's numbers are all doubles or all integers: which is the
 * catalog's (catalog_value_type), not the word's.  A double entity's
 * number is the bits of its double, as above.  An integer entity's
 * number is the int64_t itself, exact over the whole 64 bits but one:
 * its null is VALUE_NONE, the same word as every entity's, so the
 * integer with those bits, VALUE_RESERVED_INT (-1970324836974592, that
 * is -7 * 2^48), cannot be a value (the ingest and the builder refuse
 * it).  Keeping null's word the same in every entity lets the nulls an
 * entity receives before its first number stand as they are, and
 * value_is_none need not know the entity.  The value_num_ functions
 * read a word of either kind given which it is.
 *
 * Between the scanner and the records (the ingest only), an integer of
 * the input below 2^47 in magnitude travels as a NaN pattern of its own
 * (value_small_int), so that the fast paths say which numbers were
 * written as integers; the records turn it into the entity's word.
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
#define VALUE_SMALL_INT	0xfffc000000000000ULL
#define VALUE_RESERVED_INT	((int64_t)VALUE_NONE)
#define VALUE_SMALL_LIMIT	((int64_t)1 << 47)

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

	return (k != VALUE_NONE && k != VALUE_STRING && k != VALUE_SMALL_INT);
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

/* An integer entity's number (i must not be VALUE_RESERVED_INT). */
static inline sm_value
value_int(int64_t i)
{
	return ((sm_value)i);
}

static inline int64_t
value_to_int(sm_value v)
{
	return ((int64_t)v);
}

/* The scanner's integer, |i| < VALUE_SMALL_LIMIT (ingest only). */
static inline sm_value
value_small_int(int64_t i)
{
	return (VALUE_SMALL_INT | ((uint64_t)i & 0xffffffffffffULL));
}

static inline int
value_is_small_int(sm_value v)
{
	return ((v & VALUE_KIND_MASK) == VALUE_SMALL_INT);
}

static inline int64_t
value_small_int_of(sm_value v)
{
	uint64_t u = v & 0xffffffffffffULL;

	return (u & 0x800000000000ULL ? (int64_t)u - ((int64_t)1 << 48) :
	    (int64_t)u);
}

/* Whether a word of an entity whose numbers are integers (ints) or
 * doubles is a number, and the number as a double. */
static inline int
value_num_is(sm_value v, int ints)
{
	return (ints ? v != VALUE_NONE : value_is_number(v));
}

static inline double
value_num_double(sm_value v, int ints)
{
	return (ints ? (double)value_to_int(v) : value_to_double(v));
}

#endif
