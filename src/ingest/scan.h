/*
 * scan.h: plain data records read straight from the bytes, without
 * building a JSON tree.
 *
 * Nearly every record of a large trace is a datum written by a program,
 * {"time": "123", "entity": "42", "state": 3}, with an optional "tag".
 * A scan accepts only a strict subset of what the general parser does:
 * the members time, entity, state and tag, each at most once, in any
 * order, with any JSON spaces; a time as digits or a string of digits,
 * below 2^63; a state as digits below the number of states; names of
 * printable ASCII without escapes; integers without sign, fraction or
 * exponent, of at most 19 digits, with no leading zero.  On anything else it answers 0
 * and the caller hands the record to the general parser, which decides,
 * with the same result or the same error as always.
 *
 * Scans read nothing but their arguments (and a scan_shapes the caller
 * owns), so threads scan side by side.
 */
#ifndef SM_SCAN_H
#define SM_SCAN_H

#include <stddef.h>
#include <stdint.h>

/* What a datum scanned by scan_record does (scanned.op). */
enum {
	SCAN_OP_STATE,		/* "state": the plain datum */
	SCAN_OP_VALUE,		/* "value": a number, a string or null */
	SCAN_OP_PUSH,		/* "push": a state, by value or by name */
	SCAN_OP_POP		/* "pop": likewise */
};

/* A plain datum as scanned; names point into the input. */
typedef struct scanned {
	const char *entity, *tag;	/* tag NULL when it has none */
	size_t entity_len, tag_len;
	uint64_t time;
	uint32_t state;		/* SCAN_STATE_NAMED: str names it */
	size_t next;		/* the offset just past its closing brace */
	size_t at;		/* where it starts: scan_quick_run's only */
	/* Where the digits of time and state are: for learning shapes. */
	const char *time_at, *state_at;
	size_t time_len, state_len;
	/*
	 * scan_record's data only (scan_datum's are SCAN_OP_STATE): the
	 * op, and its value: value holds a number's double (value.h) or
	 * VALUE_NONE, or VALUE_STRING when str holds the string (for a
	 * push or pop, the state's name); str is NULL when there is none.
	 */
	int op;
	uint64_t value;
	const char *str;
	size_t str_len;
} scanned;

#define SCAN_STATE_NAMED	UINT32_MAX

/*
 * Scans the record at buf[pos] (which must be < len) as a plain datum of
 * a trace with nstates states.  Returns 1 and fills d if it is one, else
 * 0.
 */
int scan_datum(const char *buf, size_t len, size_t pos, uint32_t nstates,
    scanned *d);

/*
 * The layouts of the last data scanned: the bytes between their values
 * (`{"time": "`, `", "entity": "`, ...).  A program writes every datum
 * alike, so most records match a layout already seen, and are read by
 * comparing those bytes whole and reading the values between them.
 * With room around the record, a shape whose literals are at most 16
 * bytes is read without bound checks (scan_step), values of up to 15
 * bytes inline; anything longer is read by the general shape reading.
 */
#define SCAN_SHAPES	8
#define SCAN_SHAPE_WORDS	4	/* bytes between values: at most 32 */

/*
 * One step of a shape's quick reading: the bytes before a value (or
 * after the last), when at most 16, as two words and the masks that
 * keep only those bytes.
 */
typedef struct scan_step {
	uint64_t lit[2], mask[2];
	uint8_t len, kind;
} scan_step;

typedef struct scan_shape {
	int nvalues;		/* 0: empty */
	int quick;		/* every literal fits a scan_step */
	int usual;		/* nvalues if kind is time, entity, state, tag */
	int counter;		/* kind is time, entity, value */
	/*
	 * Shapes that begin alike (a time and an entity, with the same
	 * bytes around them) share a head: the first such shape's index.
	 * A record that fails one of them after its entity is read tries
	 * the others from there.  -1 for a shape that begins otherwise.
	 */
	int head;
	uint8_t kind[4];	/* which member each value belongs to */
	uint8_t lit_len[5];	/* the bytes before each value, and after */
	uint64_t lit[5][SCAN_SHAPE_WORDS];	/* zero-padded */
	scan_step step[5];
} scan_shape;

typedef struct scan_shapes {
	scan_shape shape[SCAN_SHAPES];
	int victim;		/* the one to replace next */
} scan_shapes;

void scan_shapes_init(scan_shapes *s);

/*
 * The same answer as scan_datum, faster for layouts seen before; learns
 * the layout of each datum that matched none.
 */
int scan_datum_shaped(scan_shapes *s, const char *buf, size_t len,
    size_t pos, uint32_t nstates, scanned *d);

/*
 * The same as scan_datum and scan_datum_shaped, also reading the datum
 * of the generic state system that names its state (a push or a pop:
 * digits below nstates, or a name of plain bytes, left for the caller
 * to look up) or has a value, as records_data.c reads one: "value" and
 * "pop" without "tag", "state" and "push" with an optional one.  A
 * number is read exactly as the general parser reads it (strtod's
 * double, correctly rounded; a finite one only), a string of plain
 * bytes (possibly empty), or null.  Anything else answers 0, for the
 * general parser to judge.
 */
int scan_record(const char *buf, size_t len, size_t pos, uint32_t nstates,
    scanned *d);
int scan_record_shaped(scan_shapes *s, const char *buf, size_t len,
    size_t pos, uint32_t nstates, scanned *d);

/*
 * Scans the data from *pos on as scan_record_shaped does, each after
 * JSON spaces, into d[0..max), while each starts before stop and is read
 * quickly (in a shape already learnt, with room around it: scan_quick.c):
 * returns how many, *pos left just past the last.  It stops before
 * anything else, for scan_record_shaped to judge; for a thread that
 * reads many data in a row, one call for a run of them.
 */
size_t scan_quick_run(scan_shapes *s, const char *buf, size_t len,
    size_t *pos, size_t stop, uint32_t nstates, scanned *d, size_t max);

/*
 * The JSON number at p (before end): returns its length and sets *out
 * to the bits of its double as strtod reads it, or 0 if it is not a
 * JSON number, has nothing after it before end, or is not finite.
 */
size_t scan_number(const char *p, const char *end, uint64_t *out);

/*
 * The digits at p (before end), as scan_datum reads them: returns how
 * many and sets *out, or 0 if there are none, more than 19, a leading
 * zero before others, or nothing after them before end.
 */
size_t scan_digits(const char *p, const char *end, uint64_t *out);

#endif
