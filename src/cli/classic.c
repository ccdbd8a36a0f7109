#include "cli/classic.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/batch_queue.h"
#include "base/duration.h"
#include "base/error.h"
#include "base/outfile.h"
#include "base/threads.h"
#include "base/util.h"
#include "coalesce/coalesce.h"
#include "coalesce/depthrows.h"
#include "coalesce/smap.h"
#include "coalesce/valuerects.h"
#include "ingest/any_input.h"
#include "output/detail.h"
#include "output/smap_json.h"
#include "output/svg.h"
#include "store/spill.h"
#include "trace/chrome.h"
#include "trace/trace.h"

/*
 * What the coalescer's thread keeps of nested entities: the classic
 * statemap draws the top of each stack as an ordinary state, so a pop
 * must put back the state (and tag) under the top, which it keeps here.
 */
typedef struct frame {
	uint32_t state, tag;
} frame;

typedef struct frames {
	frame *f;
	size_t n, cap;
	int pushed;	/* ever: its depth rows are drawn */
} frames;

typedef struct feed {
	coalesce *co;
	valuerects *values;	/* value entities */
	depthrows *depths;	/* nested entities' depth rows */
	batch_queue *dq;	/* their operations, to depth_batch's thread */
	frames *stacks;		/* per entity, once one is nested */
	size_t nstacks;
} feed;

/*
 * The memory a --detail load of the files again may hold before its
 * store goes to disk (spill.h), so that the interactive SVG of a trace of
 * any size needs no more memory than a fixed amount.
 */
#define DETAIL_LOAD_BUDGET	((size_t)64 << 20)

typedef struct file_ctx {
	smap *map;
	const classic_options *opts;
	int64_t begin, end;	/* this file's bounds, once known */
	int first;
	int stacked;		/* other files come after the first */
	int64_t abs_begin, abs_end; /* from the first file, as ns since epoch */
	unsigned analyses;	/* a kernel trace's (ingest/kernel.h) */
	batch_queue *q;		/* data on their way to the coalescer */
	feed fd;		/* the coalescer's side */
	char why[1024];		/* why the read stopped early */
} file_ctx;

/*
 * A datum as the coalescer takes it.  Parsing (and numbering tags, which
 * must follow file order) happens on the reading thread; the coalescer
 * runs on another, fed in file order, so the result is the same.  op is
 * PLAIN but for data of nested entities (1 + their ingest_op) and
 * values (VALUE, the 64 bits of the value in state and tag, so that the
 * plain datum stays as small as it was; VALUE_INT for an integer
 * entity's, value.h).
 */
enum { PLAIN = 0, VALUE = 1 + INGEST_POP + 1, VALUE_INT };

typedef struct pending {
	uint64_t time;
	uint32_t entity, state, tag;
	uint8_t op;
} pending;

/*
 * An operation on the depth rows (depthrows.h), with what it takes; for
 * DEPTH_BEGIN, time is the bottom frame's since.  The depth rows are a
 * coalescer of their own, as busy as the one of top states on a trace of
 * pushes and pops: the coalescer's thread hands them to a thread of
 * their own (in order, so the same rows), instead of running both.
 */
enum { DEPTH_BEGIN, DEPTH_PUSH, DEPTH_POP, DEPTH_SET };

typedef struct depth_op {
	uint64_t time;
	uint32_t entity, state, tag;
	uint8_t op;
} depth_op;

static void
depth_batch(void *ctx, const void *items, size_t n)
{
	depthrows *d = ctx;
	const depth_op *o = items;
	size_t i;

	for (i = 0; i < n; i++) {
		switch (o[i].op) {
		case DEPTH_BEGIN:
			depthrows_begin(d, o[i].entity, o[i].time, o[i].state,
			    o[i].tag);
			break;
		case DEPTH_PUSH:
			depthrows_push(d, o[i].entity, o[i].time, o[i].state,
			    o[i].tag);
			break;
		case DEPTH_POP:
			depthrows_pop(d, o[i].entity, o[i].time);
			break;
		default:
			depthrows_set(d, o[i].entity, o[i].time, o[i].state,
			    o[i].tag);
			break;
		}
	}
}

static void
depth_queue(feed *fd, uint8_t op, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag)
{
	depth_op *o;

	if (fd->dq == NULL)
		fd->dq = batch_queue_new(sizeof (depth_op), threads_count(),
		    depth_batch, fd->depths);
	o = batch_queue_slot(fd->dq);
	o->time = time;
	o->entity = entity;
	o->state = state;
	o->tag = tag;
	o->op = op;
}

/* A datum of a nested entity: the coalescer sees its top state. */
static void
nested_datum(feed *fd, const pending *p)
{
	frames *st;
	uint32_t state = p->state, tag = p->tag;

	if (p->entity >= fd->nstacks) {
		size_t old = fd->nstacks;

		grow_array(&fd->stacks, &fd->nstacks, (size_t)p->entity + 1,
		    sizeof (frames));
		memset(fd->stacks + old, 0, (fd->nstacks - old) *
		    sizeof (frames));
	}
	st = &fd->stacks[p->entity];
	switch (p->op - 1) {
	case INGEST_SET:
		/* (An entity made nested only by the end of its data,
		 * "state": null, has no depth rows until it is pushed.) */
		st->n = 0;
		if (st->pushed)
			depth_queue(fd, DEPTH_SET, p->entity, p->time, state,
			    tag);
		break;
	case INGEST_PUSH: {
		uint64_t since;

		grow_array(&st->f, &st->cap, st->n + 1, sizeof (frame));
		st->pushed = 1;
		if (!coalesce_current(fd->co, p->entity, &st->f[st->n].state,
		    &st->f[st->n].tag)) {
			/* No state yet: the push starts the stack. */
			st->n = 0;
			depth_queue(fd, DEPTH_SET, p->entity, p->time, state,
			    tag);
			break;
		}
		if (!coalesce_current_since(fd->co, p->entity, &since))
			return;		/* never: it has a state */
		depth_queue(fd, DEPTH_BEGIN, p->entity, since,
		    st->f[st->n].state, st->f[st->n].tag);
		depth_queue(fd, DEPTH_PUSH, p->entity, p->time, state, tag);
		st->n++;
		break;
	}
	default:
		if (st->n == 0) {
			/* The last state popped: the data end. */
			state = COALESCE_GAP;
			tag = COALESCE_NO_TAG;
			depth_queue(fd, DEPTH_POP, p->entity, p->time, 0, 0);
			break;
		}
		st->n--;
		state = st->f[st->n].state;
		tag = st->f[st->n].tag;
		depth_queue(fd, DEPTH_POP, p->entity, p->time, 0, 0);
		break;
	}
	coalesce_datum(fd->co, p->entity, p->time, state, tag);
}

/* How many data ahead coalesce_batch asks for an entity's memory. */
#define PREFETCH_FAR	16
#define PREFETCH_NEAR	8

static void
coalesce_batch(void *ctx, const void *items, size_t n)
{
	feed *fd = ctx;
	const pending *p = items;
	size_t i;
	/* Where each datum's memory is far from the cache, ask ahead. */
	int ahead = coalesce_worth_prefetching(fd->co);

	for (i = 0; i < n; i++) {
		if (ahead && i + PREFETCH_FAR < n)
			coalesce_prefetch(fd->co, p[i + PREFETCH_FAR].entity, 0);
		if (ahead && i + PREFETCH_NEAR < n)
			coalesce_prefetch(fd->co, p[i + PREFETCH_NEAR].entity,
			    1);
		if (p[i].op == PLAIN)
			coalesce_datum(fd->co, p[i].entity, p[i].time,
			    p[i].state, p[i].tag);
		else if (p[i].op == VALUE || p[i].op == VALUE_INT)
			valuerects_datum(fd->values, p[i].entity, p[i].time,
			    (sm_value)p[i].tag << 32 | p[i].state,
			    p[i].op == VALUE_INT);
		else
			nested_datum(fd, &p[i]);
	}
}

/*
 * After the coalescer's queue is finished (which feeds the depth rows'):
 * the depth rows' operations done, then the stacks freed.
 */
static void
feed_free(feed *fd)
{
	size_t i;

	batch_queue_free(fd->dq);

	for (i = 0; i < fd->nstacks; i++)
		free(fd->stacks[i].f);
	free(fd->stacks);
	memset(fd, 0, sizeof (*fd));
}

/*
 * Bounds are relative to each file's metadata start, which is known only
 * once its metadata has been read: so the coalescer is made on the first
 * datum (or at the end, for a file without data).
 */
static void
make_coalescer(file_ctx *fc, const catalog *cat)
{
	if (!fc->first) {
		int64_t start = (int64_t)catalog_start_ns(cat);

		fc->begin = fc->abs_begin - start;
		fc->end = fc->abs_end - start;
	}
	fc->map->co = coalesce_new(cat->nstates, fc->opts->coalesce, fc->begin,
	    fc->end);
	fc->fd.co = fc->map->co;
	fc->map->values = valuerects_new(fc->opts->coalesce, fc->begin,
	    fc->end);
	fc->fd.values = fc->map->values;
	fc->map->depths = depthrows_new(cat->nstates, fc->opts->coalesce,
	    fc->begin, fc->end);
	fc->fd.depths = fc->map->depths;
	fc->q = batch_queue_new(sizeof (pending), threads_count(), coalesce_batch,
	    &fc->fd);
}

/* A datum (op PLAIN) or a push or pop handed to the coalescer's thread. */
/*
 * The queue's next slot for a datum of entity at time, or NULL if the
 * coalescer takes nothing at that time.
 */
static inline pending *
queue_slot(file_ctx *fc, catalog *cat, uint32_t entity, uint64_t time)
{
	pending *p;

	if (fc->map->co == NULL)
		make_coalescer(fc, cat);
	if (!coalesce_in_bounds(fc->map->co, time))
		return (NULL);
	p = batch_queue_slot(fc->q);
	p->time = time;
	p->entity = entity;
	return (p);
}

static void
queue_datum(file_ctx *fc, catalog *cat, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag_name, uint8_t op)
{
	/* Data past the end number no tags, as in the reference. */
	pending *p = queue_slot(fc, cat, entity, time);

	if (p == NULL)
		return;
	p->state = state;
	p->tag = tag_name == CATALOG_NO_TAG ? COALESCE_NO_TAG :
	    catalog_tag_id_named(cat, state, tag_name);
	p->op = op;
}

static void
on_datum(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    uint32_t state, uint32_t tag_name)
{
	queue_datum(ctx, cat, entity, time, state, tag_name, PLAIN);
}

/*
 * Nested states: the classic statemap draws each entity's top state, as
 * an ordinary state (nested_datum keeps the stacks).
 */
static void
on_nested(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    ingest_op op, uint32_t state, const char *tag, size_t tag_len)
{
	queue_datum(ctx, cat, entity, time, state, tag == NULL ?
	    CATALOG_NO_TAG : catalog_tag_name(cat, tag, tag_len),
	    (uint8_t)(1 + op));
}

/* A value: the coalescer of values takes it (valuerects.h). */
static void
on_value(void *ctx, catalog *cat, uint32_t entity, uint64_t time,
    sm_value value)
{
	pending *p = queue_slot(ctx, cat, entity, time);

	if (p == NULL)
		return;
	p->state = (uint32_t)value;
	p->tag = (uint32_t)(value >> 32);
	p->op = catalog_value_ints(cat, entity) ? VALUE_INT : VALUE;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (strcmp(path, "-") == 0)
		return ("<stdin>");
	return (slash != NULL && slash[1] != '\0' ? slash + 1 : path);
}

/*
 * Whether the states of cat, once its metadata is read, include the one
 * -s or -S sorts by: 0, or -1 with the reason in fc->why, naming the
 * states there are ("cannot sort by state "oncpu": no such state; the
 * states are on-cpu, off-cpu").
 */
static int
check_sort_states(file_ctx *fc, const catalog *cat)
{
	const char *asked[2] = { fc->opts->sortby, fc->opts->stacksortby };
	const char *how[2] = { "sort (-s)", "stack-sort (-S)" };
	size_t len, i;
	uint32_t s;

	if (cat->nstates == 0)
		return (0);
	for (i = 0; i < 2; i++) {
		if (asked[i] == NULL || (i == 0 &&
		    strcmp(asked[i], "entity") == 0) ||
		    catalog_state_by_name(cat, asked[i], strlen(asked[i])) >= 0)
			continue;
		len = (size_t)snprintf(fc->why, sizeof (fc->why), "cannot %s "
		    "by state \"%s\": no such state; the states are ", how[i],
		    asked[i]);
		for (s = 0; s < cat->nstates && len < sizeof (fc->why); s++) {
			if (cat->states[s].name == NULL)
				continue;
			len += (size_t)snprintf(fc->why + len,
			    sizeof (fc->why) - len, "%s%s", s > 0 ? ", " : "",
			    cat->states[s].name);
		}
		if (len >= sizeof (fc->why))
			memcpy(fc->why + sizeof (fc->why) - 4, "...", 4);
		return (-1);
	}
	return (0);
}

/* Asked by the ingest every so often: stops a read whose -s or -S names
 * no state of the metadata read, rather than reading the whole file. */
static int
keep_going(void *ctx, const char **why)
{
	file_ctx *fc = ctx;

	if (check_sort_states(fc, fc->map->cat) != 0) {
		*why = fc->why;
		return (-1);
	}
	return (0);
}

static int
read_file(file_ctx *fc, const char *path, sm_error *err)
{
	ingest_options io = { .ignore_tags = fc->opts->ignore_tags,
	    .filter = fc->opts->filter, .nested = on_nested,
	    .value = on_value, .keep_going = keep_going };
	smap *m = fc->map;

	int rv;

	/*
	 * The first file's window places the others in time: its end, as
	 * ns since the epoch, must be a number (the ingest checks that its
	 * data's times are; -b is before the end, or an error below).
	 */
	if (fc->first && fc->stacked && fc->opts->end > 0)
		io.bound = (uint64_t)fc->opts->end;
	m->cat = catalog_new(path);
	rv = ingest_any(path, fc->analyses, m->cat, &io, on_datum, fc, err);
	batch_queue_free(fc->q);
	fc->q = NULL;
	feed_free(&fc->fd);
	if (rv != 0)
		return (-1);
	if (check_sort_states(fc, m->cat) != 0) {
		error_at(err, path, 0, 0, "%s", fc->why);
		return (-1);
	}
	palette_option_apply(fc->opts->palette, m->cat);
	if (m->co == NULL)
		make_coalescer(fc, m->cat);
	batch_queue_free(fc->q);
	fc->q = NULL;
	coalesce_finish(m->co, m->cat->last_time);
	valuerects_finish(m->values, m->cat->last_time);
	depthrows_finish(m->depths, m->cat->last_time);
	m->begin = fc->begin;
	m->end = coalesce_end(m->co);
	m->end_bound = fc->end;
	m->nentities = catalog_nentities(m->cat);
	if (fc->first && fc->opts->begin > 0 && fc->opts->end == 0 &&
	    m->end <= (uint64_t)fc->opts->begin) {
		char b[32], e[32];

		error_at(err, path, 0, 0, "--begin %s is at or past the end "
		    "of the trace (%s): nothing to draw",
		    duration_format((uint64_t)fc->opts->begin, b, sizeof (b)),
		    duration_format(m->end, e, sizeof (e)));
		return (-1);
	}
	/* A kernel trace's panels say which analysis each is. */
	fprintf(stderr, "%s%s%s%s: %" PRIu64 " records processed, %" PRIu64
	    " rectangles\n", base_name(path), fc->analyses ? " (" : "",
	    fc->analyses ? m->cat->title : "", fc->analyses ? ")" : "",
	    m->cat->nrecords,
	    coalesce_size(m->co) + valuerects_size(m->values));
	return (0);
}

/*
 * The SVG's detail block (detail.h), or NULL: the windows come from the
 * files loaded again, into stores, when there are bytes for them.  A
 * file that cannot be loaded again (standard input, or one changed
 * since) leaves the block with the counts alone.
 */
static char *
make_detail(const classic_options *o, const smap *maps, size_t n,
    const size_t *order, char *const *files, svg_options *so, size_t *len)
{
	trace **traces = NULL;
	uint64_t bytes, data = 0;
	char *text;
	size_t i;

	if (o->detail == 0)
		return (NULL);
	if (!detail_merged(maps, n)) {
		so->detail_exact = 1;
		return (NULL);
	}
	/* What loading the files again would hold: every datum. */
	for (i = 0; i < n; i++)
		data += maps[i].cat->ndata;
	bytes = detail_bytes(o->detail, data);
	for (i = 0; i < n && bytes > 0; i++)
		if (strcmp(files[i], "-") == 0)
			bytes = 0;
	if (bytes > 0) {
		trace_options to;
		sm_error err;

		memset(&to, 0, sizeof (to));
		to.ignore_tags = o->ignore_tags;
		to.filter = o->filter;
		/* The command streams: so do the loads, past a budget. */
		spill_set_budget(DETAIL_LOAD_BUDGET);
		traces = xcalloc(n, sizeof (trace *));
		for (i = 0; i < n; i++) {
			to.analyses = o->analyses != NULL ? o->analyses[i] : 0;
			if ((traces[i] = trace_load(files[i], &to, &err)) !=
			    NULL)
				continue;
			{
				char msg[sizeof (err.file) +
				    sizeof (err.message) + 64];

				error_format(&err, msg, sizeof (msg));
				fprintf(stderr, "statemap-lua: no finer detail: "
				    "%s\n", msg);
			}
			break;
		}
		spill_set_budget(0);
		if (i < n) {
			while (i-- > 0)
				trace_release(traces[i]);
			free(traces);
			traces = NULL;
		}
	}
	text = detail_json(maps, n, order, (const trace *const *)traces,
	    so->strip_width, o->coalesce, bytes, len);
	for (i = 0; traces != NULL && i < n; i++)
		trace_release(traces[i]);
	free(traces);
	return (text);
}

static int
write_output(const classic_options *o, const smap *maps, size_t n,
    const size_t *order, char *const *files, sm_error *err)
{
	svg_options so;
	outfile of;
	char *detail = NULL;
	int rv;

	svg_defaults(&so);
	so.strip_height = o->strip_height;
	so.labels = o->labels;
	if (o->format == FORMAT_SVG) {
		detail = make_detail(o, maps, n, order, files, &so,
		    &so.detail_len);
		so.detail = detail;
	}
	if (outfile_open(&of, o->output, err) != 0) {
		free(detail);
		return (-1);
	}
	if (o->format == FORMAT_JSON)
		smap_json_write(of.fp, maps, n, order);
	else
		svg_write(of.fp, maps, n, order, &so);
	rv = outfile_commit(&of, err);
	free(detail);
	return (rv);
}

/*
 * -T chrome: the one file loaded (through the cache, as scripts load
 * it) and every transition written, none coalesced.
 */
static int
chrome_run(const classic_options *o, char *const *files, int nfiles)
{
	trace_options to;
	trace *d;
	sm_error err;
	int rv = 0, i;

	memset(&to, 0, sizeof (to));
	to.begin = o->begin;
	to.end = o->end;
	to.ignore_tags = o->ignore_tags;
	to.filter = o->filter;
	/* a kernel trace's panels (panels.h): its analyses in one trace */
	for (i = 0; o->analyses != NULL && i < nfiles; i++)
		to.analyses |= o->analyses[i];
	if ((d = trace_load(files[0], &to, &err)) == NULL ||
	    (!o->dry_run && chrome_save(d, o->output != NULL ? o->output :
	    "-", &err) != 0)) {
		error_print(&err, stderr);
		rv = 1;
	}
	if (d != NULL)
		trace_release(d);
	return (rv);
}

int
classic_run(const classic_options *o, char *const *files, int nfiles)
{
	smap *maps = xcalloc((size_t)nfiles, sizeof (smap));
	size_t *order = xcalloc((size_t)nfiles, sizeof (size_t));
	file_ctx fc;
	sm_error err;
	int i, rv = 1;

	if (o->format == FORMAT_CHROME) {
		free(maps);
		free(order);
		return (chrome_run(o, files, nfiles));
	}
	memset(&fc, 0, sizeof (fc));
	if (o->output == NULL || strcmp(o->output, "-") == 0)
		outfile_buffer_stdout();	/* nothing is written to it yet */
	fc.opts = o;
	fc.begin = o->begin;
	fc.end = o->end;
	fc.stacked = nfiles > 1;
	for (i = 0; i < nfiles; i++) {
		fc.map = &maps[i];
		fc.first = (i == 0);
		fc.analyses = o->analyses != NULL ? o->analyses[i] : 0;
		if (read_file(&fc, files[i], &err) != 0)
			goto out;
		if (i == 0 && fc.stacked) {
			/*
			 * As the reference does: the end is at least -e.  No
			 * sum passes 2^63 - 1: the ingest refused a start
			 * with a time (or -e) past it, and -b is before both.
			 */
			int64_t start = (int64_t)catalog_start_ns(maps[0].cat);
			uint64_t end = maps[0].end;

			if (o->end > 0 && (uint64_t)o->end > end)
				end = (uint64_t)o->end;
			fc.abs_begin = o->begin + start;
			fc.abs_end = (int64_t)end + start;
		}
	}
	for (i = 0; i < nfiles; i++) {
		if (smap_sort(&maps[i], o->sortby, &err) != 0)
			goto out;
	}
	if (smap_stack_sort(maps, (size_t)nfiles, o->stacksortby, order,
	    &err) != 0)
		goto out;
	if (!o->dry_run &&
	    write_output(o, maps, (size_t)nfiles, order, files, &err) != 0)
		goto out;
	rv = 0;
out:
	if (rv != 0)
		error_print(&err, stderr);
	for (i = 0; i < nfiles; i++)
		smap_free(&maps[i]);
	free(maps);
	free(order);
	return (rv);
}
