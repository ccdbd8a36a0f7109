/*
 * tracedat.c: trace.dat files through libtracecmd (the events, in time
 * order across CPUs) and libtraceevent (their formats and fields).
 *
 * Every field is read only after checking that the record holds it: a
 * damaged file may have records shorter than their format says, and
 * libtraceevent reads where the format points.
 */
#include "ingest/tracedat.h"

#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-cmd.h>
#include <tracefs.h>

#include "base/util.h"
#include "ingest/kev_names.h"

#define MAX_STATE_BITS	32

struct tracedat;

/* What is known of one kind of event. */
typedef struct kind_info {
	struct tep_event *event;
	struct tep_format_field *f[KF_NFIELDS];
	struct tracedat *td;
	/*
	 * Each field's place when it is a plain number of 1, 2, 4 or 8
	 * bytes in this machine's order (size 0: read it the long way).
	 */
	struct {
		uint32_t offset;
		uint8_t size;
		uint8_t is_signed;
	} plain[KF_NFIELDS];
} kind_info;

typedef struct tracedat {
	kev_source src;
	struct tracecmd_input *top;
	struct tracecmd_input *h;	/* the buffer read: top or an instance */
	struct tep_handle *tep;
	kind_info *kinds;
	const char **names;
	kev_type *types;
	int32_t *by_id;		/* event id -> kind, or -1 */
	size_t nids;
	long common_end;	/* the bytes the common fields take */
	/* common_type and common_pid, read straight from a native file */
	struct tep_format_field *type_f, *pid_f;
	int common_plain;	/* native, 2 and 4 bytes: read as such */
	/* what prev_state's small values say, found once each (0: not
	 * yet, else the kev_task_state + 1) */
	uint8_t small_state[256];
	int native;		/* the file in this machine's byte order */
	/* prev_state's letters, as the kernel's format gives them */
	uint64_t state_bits[MAX_STATE_BITS];
	char state_letters[MAX_STATE_BITS];
	int nstate_bits;
	/* while iterating */
	kev_fn fn;
	void *ctx;
	const unsigned char *wanted;
	uint64_t last;
	int stopped;		/* what fn returned, when not 0 */
	int iterated;
	int have_first;		/* the first record seen (src.first) */
} tracedat;

/* ---- fields ---- */

static int
holds(const struct tep_record *rec, const struct tep_format_field *f)
{
	return (f != NULL && f->offset >= 0 && f->size >= 0 &&
	    (long)f->offset + f->size <= (long)rec->size);
}

static inline int
read_number(const struct tep_record *rec, struct tep_format_field *f,
    int native, int64_t *v)
{
	unsigned long long u = 0;
	const unsigned char *p;

	if (!holds(rec, f) || f->size > 8 || f->size == 0)
		return (-1);
	p = (const unsigned char *)rec->data + f->offset;
	/* A file of this machine's byte order: the bytes as they are. */
	if (native && (f->size == 1 || f->size == 2 || f->size == 4 ||
	    f->size == 8)) {
		if (f->size == 1) {
			u = p[0];
		} else if (f->size == 2) {
			uint16_t x;

			memcpy(&x, p, 2);
			u = x;
		} else if (f->size == 4) {
			uint32_t x;

			memcpy(&x, p, 4);
			u = x;
		} else {
			uint64_t x;

			memcpy(&x, p, 8);
			u = x;
		}
	} else if (tep_read_number_field(f, rec->data, &u) != 0) {
		return (-1);
	}
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 &&
	    (u & (1ULL << (f->size * 8 - 1))))
		u |= ~0ULL << (f->size * 8);
	*v = (int64_t)u;
	return (0);
}

/* A dynamic field's bytes (__data_loc), or NULL. */
static const char *
dynamic_bytes(const struct tep_record *rec, struct tep_format_field *f,
    size_t *len)
{
	unsigned long long loc;
	size_t off, n;

	if (f->size != 4 || tep_read_number_field(f, rec->data, &loc) != 0)
		return (NULL);
	off = loc & 0xffff;
	n = (loc >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (size_t)f->offset + (size_t)f->size;
	if (off > (size_t)rec->size || n > (size_t)rec->size - off)
		return (NULL);
	*len = n;
	return ((const char *)rec->data + off);
}

/*
 * The bytes before the first NUL of s, at most max: eight at a time (a
 * task's name is 16 bytes, and read several times an event).
 */
static size_t
text_length(const char *s, size_t max)
{
	const uint64_t ones = 0x0101010101010101ULL;
	const uint64_t highs = 0x8080808080808080ULL;
	size_t n = 0;

	for (; n + 8 <= max; n += 8) {
		uint64_t w;

		memcpy(&w, s + n, 8);
		if (((w - ones) & ~w & highs) != 0)
			break;	/* a NUL in these eight */
	}
	while (n < max && s[n] != '\0')
		n++;
	return (n);
}

/* A string field's bytes (up to a NUL), or NULL. */
static const char *
read_string(const struct tep_record *rec, struct tep_format_field *f,
    size_t *len)
{
	const char *s;
	size_t max;

	if (!holds(rec, f))
		return (NULL);
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		if ((s = dynamic_bytes(rec, f, &max)) == NULL)
			return (NULL);
	} else {
		s = (const char *)rec->data + f->offset;
		max = (size_t)f->size;
	}
	*len = text_length(s, max);
	return (s);
}

static const kind_info *
info_of(const kev *e)
{
	return (e->info);
}

static int
td_integer(const kev *e, kev_field f, int64_t *v)
{
	const kind_info *k = info_of(e);
	const struct tep_record *rec = e->raw;
	const unsigned char *p;
	unsigned sz = k->plain[f].size;

	if (sz == 0 || (long)k->plain[f].offset + sz > (long)rec->size)
		return (read_number(rec, k->f[f], k->td->native, v));
	p = (const unsigned char *)rec->data + k->plain[f].offset;
	if (sz == 4) {
		uint32_t x;

		memcpy(&x, p, 4);
		*v = k->plain[f].is_signed ? (int64_t)(int32_t)x : (int64_t)x;
	} else if (sz == 8) {
		uint64_t x;

		memcpy(&x, p, 8);
		*v = (int64_t)x;
	} else if (sz == 2) {
		uint16_t x;

		memcpy(&x, p, 2);
		*v = k->plain[f].is_signed ? (int64_t)(int16_t)x : (int64_t)x;
	} else {
		*v = k->plain[f].is_signed ? (int64_t)(int8_t)p[0] :
		    (int64_t)p[0];
	}
	return (0);
}

static const char *
td_string(const kev *e, kev_field f, size_t *len)
{
	return (read_string(e->raw, info_of(e)->f[f], len));
}

static int
td_task_state(const kev *e, kev_task_state *ts)
{
	tracedat *td = info_of(e)->td;
	int64_t v;

	if (td_integer(e, KF_PREV_STATE, &v) != 0)
		return (-1);
	if (v < 0 || v >= 256) {
		*ts = kev_task_state_bits((uint64_t)v, td->state_bits,
		    td->state_letters, td->nstate_bits);
		return (0);
	}
	/* a few small values, again and again: each one's answer kept */
	if (td->small_state[v] == 0)
		td->small_state[v] = (uint8_t)(kev_task_state_bits(
		    (uint64_t)v, td->state_bits, td->state_letters,
		    td->nstate_bits) + 1);
	*ts = (kev_task_state)(td->small_state[v] - 1);
	return (0);
}

/* Whether a field holds text: char arrays, and __data_loc char[]. */
static int
is_text(const struct tep_format_field *f)
{
	if (f->flags & TEP_FIELD_IS_STRING)
		return (1);
	return ((f->flags & TEP_FIELD_IS_ARRAY) && f->type != NULL &&
	    (strncmp(f->type, "char ", 5) == 0 ||
	    strncmp(f->type, "__data_loc char", 15) == 0 ||
	    strncmp(f->type, "const char", 10) == 0));
}

/* An array's elements as integers (elementsize bytes each). */
static void
visit_array(const struct tep_format_field *f, const unsigned char *p,
    size_t n, const kev_visitor *v, void *ctx)
{
	size_t el = f->elementsize, i;
	int is_signed = (f->flags & TEP_FIELD_IS_SIGNED) != 0;

	if (el != 1 && el != 2 && el != 4 && el != 8)
		el = 1;
	v->begin(ctx, f->name, 1);
	for (i = 0; i + el <= n; i += el) {
		uint64_t u = 0;
		int64_t x;

		/* The host's order: trace-cmd reads files of its own. */
		memcpy(&u, p + i, el);
		if (el == 1)
			x = is_signed ? (int8_t)u : (int64_t)(uint8_t)u;
		else if (el == 2)
			x = is_signed ? (int16_t)u : (int64_t)(uint16_t)u;
		else if (el == 4)
			x = is_signed ? (int32_t)u : (int64_t)(uint32_t)u;
		else
			x = (int64_t)u;
		v->integer(ctx, NULL, x, is_signed);
	}
	v->end(ctx);
}

static void
td_visit(const kev *e, const kev_visitor *v, void *ctx)
{
	const struct tep_record *rec = e->raw;
	struct tep_format_field *f;

	for (f = info_of(e)->event->format.fields; f != NULL; f = f->next) {
		const char *s;
		size_t len;
		int64_t x;

		if (!holds(rec, f))
			continue;
		if (is_text(f)) {
			if ((s = read_string(rec, f, &len)) != NULL)
				v->string(ctx, f->name, s, len);
		} else if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			if ((s = dynamic_bytes(rec, f, &len)) != NULL)
				visit_array(f, (const unsigned char *)s, len,
				    v, ctx);
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			visit_array(f, (const unsigned char *)rec->data +
			    f->offset, (size_t)f->size, v, ctx);
		} else if (read_number(rec, f, info_of(e)->td->native, &x) == 0) {
			v->integer(ctx, f->name, x,
			    (f->flags & TEP_FIELD_IS_SIGNED) != 0);
		}
	}
}

static const kev_ops td_ops = {
	td_integer, td_string, td_task_state, td_visit
};

/* ---- prev_state's letters ---- */

/* The TEP_PRINT_FLAGS argument of prev_state in sched_switch's format. */
static const struct tep_print_arg *
find_flags(const struct tep_print_arg *a, int depth)
{
	const struct tep_print_arg *r;

	for (; a != NULL && depth < 16; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_FLAGS:
			return (a);
		case TEP_PRINT_OP:
			if ((r = find_flags(a->op.left, depth + 1)) != NULL ||
			    (r = find_flags(a->op.right, depth + 1)) != NULL)
				return (r);
			break;
		case TEP_PRINT_TYPE:
			if ((r = find_flags(a->typecast.item, depth + 1)) !=
			    NULL)
				return (r);
			break;
		default:
			break;
		}
	}
	return (NULL);
}

/*
 * prev_state's letters from the format: the kernel says which bit is
 * which letter (and that moved between kernels); a format without such
 * a table gets recent kernels'.
 */
static void
read_state_letters(tracedat *td, struct tep_event *sw)
{
	const struct tep_print_arg *flags = sw == NULL ? NULL :
	    find_flags(sw->print_fmt.args, 0);
	const struct tep_print_flag_sym *sym;
	int n = 0;

	for (sym = flags == NULL ? NULL : flags->flags.flags;
	    sym != NULL && n < MAX_STATE_BITS; sym = sym->next) {
		char *end;
		unsigned long long bit;

		if (sym->value == NULL || sym->str == NULL ||
		    strlen(sym->str) != 1)
			continue;
		bit = strtoull(sym->value, &end, 0);
		if (*end != '\0' || bit == 0)
			continue;
		td->state_bits[n] = bit;
		td->state_letters[n] = sym->str[0];
		n++;
	}
	if (n == 0) {
		memcpy(td->state_bits, kev_default_state_bits,
		    sizeof (kev_default_state_bits));
		memcpy(td->state_letters, kev_default_state_letters,
		    sizeof (kev_default_state_letters));
		n = 8;
	}
	td->nstate_bits = n;
}

/* ---- opening ---- */

/*
 * Whether a buffer holds events.  (Reading its CPUs' first records to
 * know would cost the iteration those records: libtracecmd goes on from
 * where they were read.)
 */
static int
has_events(struct tracecmd_input *h)
{
	return (tracecmd_get_first_ts(h) != 0);
}

/* A field's place for td_integer's short way, if it can take it. */
static void
plain_place(const tracedat *td, kind_info *k, int f)
{
	const struct tep_format_field *x = k->f[f];

	if (x == NULL || !td->native || x->offset < 0 ||
	    (x->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC |
	    TEP_FIELD_IS_STRING)) ||
	    (x->size != 1 && x->size != 2 && x->size != 4 && x->size != 8))
		return;
	k->plain[f].offset = (uint32_t)x->offset;
	k->plain[f].size = (uint8_t)x->size;
	k->plain[f].is_signed = (x->flags & TEP_FIELD_IS_SIGNED) != 0;
}

static void
index_kinds(tracedat *td)
{
	struct tep_event **all = tep_list_events(td->tep, TEP_EVENT_SORT_ID);
	size_t n = 0, i;
	int maxid = 0;

	while (all != NULL && all[n] != NULL) {
		if (all[n]->id > maxid)
			maxid = all[n]->id;
		n++;
	}
	td->kinds = xcalloc(n + 1, sizeof (kind_info));
	td->names = xcalloc(n + 1, sizeof (char *));
	td->types = xcalloc(n + 1, sizeof (kev_type));
	td->nids = (size_t)maxid + 1;
	td->by_id = xmalloc(td->nids * sizeof (int32_t));
	for (i = 0; i < td->nids; i++)
		td->by_id[i] = -1;
	for (i = 0; i < n; i++) {
		struct tep_event *ev = all[i];
		kind_info *k = &td->kinds[i];
		int f;

		k->event = ev;
		k->td = td;
		td->names[i] = ev->name != NULL ? ev->name : "";
		td->types[i] = kev_type_of(td->names[i]);
		if (ev->id >= 0)
			td->by_id[ev->id] = (int32_t)i;
		for (f = 0; f < KF_NFIELDS && td->types[i] != KEV_OTHER; f++) {
			const char *const *nm = kev_field_names(td->types[i],
			    (kev_field)f);

			for (; *nm != NULL && k->f[f] == NULL; nm++)
				k->f[f] = tep_find_field(ev, *nm);
			plain_place(td, k, f);
		}
		if (td->types[i] == KEV_SCHED_SWITCH && td->nstate_bits == 0)
			read_state_letters(td, ev);
		if (ev->format.common_fields != NULL) {
			struct tep_format_field *c;

			for (c = ev->format.common_fields; c != NULL;
			    c = c->next) {
				if (c->offset + c->size > td->common_end)
					td->common_end = c->offset + c->size;
				if (td->type_f == NULL && c->name != NULL &&
				    strcmp(c->name, "common_type") == 0)
					td->type_f = c;
				if (td->pid_f == NULL && c->name != NULL &&
				    strcmp(c->name, "common_pid") == 0)
					td->pid_f = c;
			}
		}
	}
	if (td->nstate_bits == 0)
		read_state_letters(td, NULL);
	/* rec->size >= common_end, which covers them, is checked first */
	td->common_plain = td->native && td->type_f != NULL &&
	    td->pid_f != NULL && td->type_f->size == 2 &&
	    !(td->type_f->flags & TEP_FIELD_IS_SIGNED) &&
	    td->pid_f->size == 4 && td->type_f->offset >= 0 &&
	    td->pid_f->offset >= 0 &&
	    (long)td->type_f->offset + 2 <= td->common_end &&
	    (long)td->pid_f->offset + 4 <= td->common_end;
	td->src.nkinds = (uint32_t)n;
	td->src.names = td->names;
	td->src.types = td->types;
}

/* ---- iterating ---- */

static int
on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu,
    void *arg)
{
	tracedat *td = arg;
	kev e;
	int64_t v;
	int32_t pid;
	int id, kind;

	(void)h;
	/* libtracecmd may go on after a callback asked it to stop */
	if (td->stopped != 0)
		return (1);
	if (!td->have_first) {
		td->src.first = rec->ts;
		td->have_first = 1;
	}
	if (rec->size < td->common_end)
		return (0);
	/*
	 * The event's id and pid: in a file of this machine's byte order
	 * read in place, as libtraceevent would find them.
	 */
	if (td->common_plain) {
		uint16_t t;
		int32_t p;

		memcpy(&t, (const char *)rec->data + td->type_f->offset, 2);
		memcpy(&p, (const char *)rec->data + td->pid_f->offset, 4);
		id = t;
		pid = p;
	} else if (td->native && td->type_f != NULL && td->pid_f != NULL) {
		id = read_number(rec, td->type_f, 1, &v) == 0 &&
		    v >= 0 && v <= INT32_MAX ? (int)v : -1;
		pid = read_number(rec, td->pid_f, 1, &v) == 0 ?
		    (int32_t)v : -1;
	} else {
		id = tep_data_type(td->tep, rec);
		pid = -2;	/* read below, only for an event kept */
	}
	if (id < 0 || (size_t)id >= td->nids || (kind = td->by_id[id]) < 0)
		return (0);
	if (td->wanted != NULL && !td->wanted[kind])
		return (0);
	e.ops = &td_ops;
	e.time = rec->ts >= td->src.first ? rec->ts - td->src.first : 0;
	if (e.time < td->last)
		e.time = td->last;
	td->last = e.time;
	e.cpu = (uint32_t)cpu;
	e.pid = pid != -2 ? pid : tep_data_pid(td->tep, rec);
	e.type = td->types[kind];
	e.kind = (uint32_t)kind;
	e.name = td->names[kind];
	e.raw = rec;
	e.info = &td->kinds[kind];
	if ((td->stopped = td->fn(td->ctx, &e)) != 0)
		return (1);
	return (0);
}

static int
td_iterate(kev_source *s, const unsigned char *wanted, kev_fn fn, void *ctx,
    sm_error *err)
{
	tracedat *td = (tracedat *)s;

	if (td->iterated) {
		error_at(err, s->path, 0, 0, "read twice (an internal error)");
		return (-1);
	}
	td->iterated = 1;
	td->fn = fn;
	td->ctx = ctx;
	td->wanted = wanted;
	td->last = 0;
	td->stopped = 0;
	(void)tracecmd_iterate_events(td->h, NULL, 0, on_record, td);
	return (td->stopped < 0 ? -1 : 0);
}

static int
td_has_field(const kev_source *s, uint32_t kind, kev_field f)
{
	const tracedat *td = (const tracedat *)s;

	return (kind < s->nkinds && td->kinds[kind].f[f] != NULL);
}

static const char *
td_saved_comm(const kev_source *s, int32_t pid)
{
	const tracedat *td = (const tracedat *)s;
	const char *c;

	if (pid <= 0 || !tep_is_pid_registered(td->tep, pid))
		return (NULL);
	c = tep_data_comm_from_pid(td->tep, pid);
	return (c != NULL && strcmp(c, "<...>") != 0 ? c : NULL);
}

static void
td_close(kev_source *s)
{
	tracedat *td = (tracedat *)s;

	if (td->h != td->top)
		tracecmd_close(td->h);
	tracecmd_close(td->top);
	free(td->kinds);
	free(td->names);
	free(td->types);
	free(td->by_id);
	free(td);
}

kev_source *
tracedat_open(const char *path, sm_error *err)
{
	tracedat *td;
	struct tracecmd_input *top;
	int ncpus, i, n;

	/* libtraceevent's complaints about formats it cannot parse are
	 * not ours to print: events it cannot read are just not read. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	tracefs_set_loglevel(TEP_LOG_NONE);
	top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS |
	    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (top == NULL) {
		error_at(err, path, 0, 0, "not a trace.dat file that "
		    "libtracecmd can read (damaged, cut short, or of a "
		    "version it does not know)");
		return (NULL);
	}
	td = xcalloc(1, sizeof (*td));
	td->top = top;
	td->tep = tracecmd_get_tep(top);
	ncpus = tep_get_cpus(td->tep);
	if (ncpus <= 0 || td->tep == NULL) {
		error_at(err, path, 0, 0, "a trace.dat with no CPUs");
		td_close(&td->src);
		return (NULL);
	}
	/* The top buffer, or the first instance with events. */
	if (has_events(top)) {
		td->h = top;
	} else {
		n = tracecmd_buffer_instances(top);
		for (i = 0; i < n && td->h == NULL; i++) {
			struct tracecmd_input *ih =
			    tracecmd_buffer_instance_handle(top, i);

			if (ih == NULL)
				continue;
			if (has_events(ih))
				td->h = ih;
			else
				tracecmd_close(ih);
		}
	}
	if (td->h == NULL) {
		td->h = top;
		error_at(err, path, 0, 0, "a trace.dat that holds no events");
		td_close(&td->src);
		return (NULL);
	}
	td->src.path = path;
	td->src.ncpus = (uint32_t)ncpus;
	td->src.iterate = td_iterate;
	td->src.close = td_close;
	td->src.has_field = td_has_field;
	td->src.saved_comm = td_saved_comm;
	td->native = tep_is_file_bigendian(td->tep) ==
	    tep_is_local_bigendian(td->tep);
	index_kinds(td);
	return (&td->src);
}
