/*
 * scan_shapes.c: the layouts of the data scanned (scan.h's scan_shapes):
 * each datum that matched none has its layout learnt, the bytes between
 * its values kept as words (and as the steps scan_quick.c reads), and a
 * datum is read by a layout by comparing those bytes whole and reading
 * each value by its member's rule, as scan_members.c reads it.
 */
#include "ingest/scan.h"

#include <stdint.h>
#include <string.h>

#include "ingest/scan_internal.h"

void
scan_shapes_init(scan_shapes *s)
{
	int i;

	memset(s, 0, sizeof (*s));
	for (i = 0; i < SCAN_SHAPES; i++)
		s->shape[i].head = -1;
}

/* The masks and words of a literal of len bytes (lit: zero-padded). */
static void
step_learn(scan_step *st, const uint64_t *lit, size_t len, uint8_t kind)
{
	size_t i;

	st->len = (uint8_t)len;
	st->kind = kind;
	for (i = 0; i < 2; i++) {
		size_t in = len > 8 * i ? len - 8 * i : 0;

		st->lit[i] = lit[i];
		st->mask[i] = in >= 8 ? UINT64_MAX :
		    ((uint64_t)1 << (8 * in)) - 1;
	}
}

/* The kind of value a scanned datum's op has, for learning its shape. */
static uint8_t
op_kind(const scanned *d)
{
	static const uint8_t kinds[] = { SCAN_STATE, SCAN_VALUE, SCAN_PUSH,
	    SCAN_POP };

	return (kinds[d->op]);
}

/*
 * The layouts every program writes: time, entity, state, maybe a tag; and
 * a counter's time, entity and value.
 */
static const uint8_t usual_kinds[4] = {
	SCAN_TIME, SCAN_ENTITY, SCAN_STATE, SCAN_TAG
};
static const uint8_t counter_kinds[3] = {
	SCAN_TIME, SCAN_ENTITY, SCAN_VALUE
};

/*
 * Keeps the layout of a datum scan_datum accepted at rec: its values
 * in the order they appear, and the bytes around them.
 */
static void
shape_learn(scan_shape *sh, const char *rec, const char *rec_end,
    const scanned *d)
{
	struct value { const char *at; size_t len; uint8_t kind; } v[4], t;
	const char *p = rec;
	int n = 0, i, j;

	v[n++] = (struct value){ d->time_at, d->time_len, SCAN_TIME };
	v[n++] = (struct value){ d->entity, d->entity_len, SCAN_ENTITY };
	v[n++] = (struct value){ d->state_at, d->state_len, op_kind(d) };
	if (d->tag != NULL)
		v[n++] = (struct value){ d->tag, d->tag_len, SCAN_TAG };
	for (i = 1; i < n; i++) {
		for (j = i; j > 0 && v[j - 1].at > v[j].at; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	}
	sh->nvalues = 0;
	sh->quick = 1;
	for (i = 0; i <= n; i++) {
		const char *lit_end = i < n ? v[i].at : rec_end;
		size_t len = (size_t)(lit_end - p);
		char bytes[SCAN_SHAPE_WORDS * 8];

		if (len > sizeof (bytes))
			return;		/* no shape: scan_datum it is */
		memset(bytes, 0, sizeof (bytes));
		memcpy(bytes, p, len);
		for (j = 0; j < SCAN_SHAPE_WORDS; j++)
			sh->lit[i][j] = scan_load_le64(bytes + 8 * j);
		sh->lit_len[i] = (uint8_t)len;
		step_learn(&sh->step[i], sh->lit[i], len,
		    i < n ? v[i].kind : 0);
		if (len > QUICK_LITERAL)
			sh->quick = 0;
		if (i < n) {
			sh->kind[i] = v[i].kind;
			p = v[i].at + v[i].len;
		}
	}
	sh->nvalues = n;
	sh->usual = memcmp(sh->kind, usual_kinds, (size_t)n) == 0 ? n : 0;
	sh->counter = n == 3 && memcmp(sh->kind, counter_kinds, 3) == 0;
}

/* Whether the len bytes at p are those of lit. */
static int
literal_at(const uint64_t *lit, size_t len, const char *p, const char *end)
{
	size_t i;

	if ((size_t)(end - p) < SCAN_SHAPE_WORDS * 8) {
		char bytes[SCAN_SHAPE_WORDS * 8];

		if ((size_t)(end - p) < len)
			return (0);
		memset(bytes, 0, sizeof (bytes));
		memcpy(bytes, p, len);
		for (i = 0; i < SCAN_SHAPE_WORDS; i++) {
			if (scan_load_le64(bytes + 8 * i) != lit[i])
				return (0);
		}
		return (1);
	}
	for (i = 0; len >= 8; i++, len -= 8) {
		if (scan_load_le64(p + 8 * i) != lit[i])
			return (0);
	}
	return (len == 0 || (scan_load_le64(p + 8 * i) &
	    (((uint64_t)1 << (8 * len)) - 1)) == lit[i]);
}

/*
 * The datum at pos if it has this shape.  The bytes between its values
 * are those of a datum scan_datum accepted, and each value is read by
 * scan_read_value, as scan_datum reads it, so it accepts only what scan_datum
 * accepts, with the same result.
 */
static int
shape_scan(const scan_shape *sh, const char *buf, size_t len, size_t pos,
    uint32_t nstates, scanned *d)
{
	const char *p = buf + pos, *end = buf + len;
	uint64_t state = 0;
	size_t n;
	int i;

	scanned_init(d);
	for (i = 0;; i++) {
		if (!literal_at(sh->lit[i], sh->lit_len[i], p, end))
			return (0);
		p += sh->lit_len[i];
		if (i == sh->nvalues)
			break;
		if ((n = scan_read_value(sh->kind[i], p, end, nstates, d,
		    &state)) == NO_VALUE)
			return (0);
		p += n;
	}
	d->state = (uint32_t)state;
	d->next = (size_t)(p - buf);
	return (1);
}

/* Whether two quick steps read the same literal before the same kind. */
static int
same_step(const scan_step *a, const scan_step *b)
{
	return (a->len == b->len && a->kind == b->kind &&
	    a->lit[0] == b->lit[0] && a->lit[1] == b->lit[1]);
}

/* Each shape's head (scan_shape), after one of them changed. */
static void
shapes_heads(scan_shapes *s)
{
	int i, j;

	for (i = 0; i < SCAN_SHAPES; i++) {
		scan_shape *sh = &s->shape[i];

		sh->head = -1;
		if (sh->nvalues < 2 || !sh->quick ||
		    sh->kind[0] != SCAN_TIME || sh->kind[1] != SCAN_ENTITY)
			continue;
		sh->head = i;
		for (j = 0; j < i; j++) {
			const scan_shape *other = &s->shape[j];

			if (other->head >= 0 &&
			    same_step(&sh->step[0], &other->step[0]) &&
			    same_step(&sh->step[1], &other->step[1])) {
				sh->head = other->head;
				break;
			}
		}
	}
}

/*
 * A shaped scan by shape_scan, trying the shapes in the set (a bit for
 * each); if none matches, scan_members, and the datum's shape learnt.
 * Shapes are learned only from what scan_members accepts with the same
 * ops, so a shape with the generic state system's members is learned
 * (and matched) only by scan_record_shaped.  Out of line, so that the
 * quick loop keeps its registers.
 */
int
scan_shaped_from(scan_shapes *s, unsigned set, const char *buf,
    size_t len, size_t pos, uint32_t nstates, scanned *d, int ops)
{
	int i;

	for (i = 0; i < SCAN_SHAPES; i++) {
		if ((set & (1u << i)) && s->shape[i].nvalues > 0 &&
		    shape_scan(&s->shape[i], buf, len, pos, nstates, d)) {
			s->victim = (i + 1) % SCAN_SHAPES;
			return (1);
		}
	}
	if (!scan_members(buf, len, pos, nstates, d, ops))
		return (0);
	shape_learn(&s->shape[s->victim], buf + pos, buf + d->next, d);
	shapes_heads(s);
	s->victim = (s->victim + 1) % SCAN_SHAPES;
	return (1);
}
