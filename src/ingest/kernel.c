/*
 * kernel.c: kernel traces through the analyses: opening one by its kind,
 * the catalog's states, and the one pass that hands each event to the
 * analyses chosen.
 */
#include "ingest/kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ingest/ctf.h"
#include "ingest/input.h"
#include "ingest/kernel_block.h"
#include "ingest/kernel_cpus.h"
#include "ingest/kernel_emit.h"
#include "ingest/kernel_threads.h"
#include "ingest/kev_comm.h"
#include "ingest/tracedat.h"

static const struct {
	const char *name;
	unsigned bit;
	const kanalysis *a;
} analyses[] = {
	{ "threads", KERNEL_THREADS, &kernel_threads },
	{ "cpus", KERNEL_CPUS, &kernel_cpus },
	{ "block", KERNEL_BLOCK, &kernel_block },
};
#define NANALYSES	(sizeof (analyses) / sizeof (analyses[0]))

const char kernel_analyses_choices[] = "threads, cpus or block";

/* The states, in catalog order, and which analyses use each. */
static const struct {
	const char *name;
	const char *color;
	unsigned used_by;
} kstates[KS_N] = {
	[KS_RUNNING] = { "running", "#2ca02c", KERNEL_THREADS | KERNEL_CPUS },
	[KS_RUNNABLE] = { "runnable", "#ffb000", KERNEL_THREADS },
	[KS_SLEEPING] = { "sleeping", "#dce6f0", KERNEL_THREADS },
	[KS_BLOCKED] = { "blocked", "#d62728", KERNEL_THREADS },
	/* No analysis's state: an exited thread's data end (STORE_GAP). */
	[KS_EXITED] = { "exited", "#f7f7f7", 0 },
	[KS_IDLE] = { "idle", "#ffffff", KERNEL_CPUS | KERNEL_BLOCK },
	[KS_IRQ] = { "irq", "#9467bd", KERNEL_CPUS },
	[KS_SOFTIRQ] = { "softirq", "#e377c2", KERNEL_CPUS },
	[KS_READ] = { "read", "#1f77b4", KERNEL_BLOCK },
	[KS_WRITE] = { "write", "#ff7f0e", KERNEL_BLOCK },
	[KS_OTHER] = { "other", "#8c564b", KERNEL_BLOCK },
};

unsigned
kernel_analysis_bit(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < NANALYSES; i++)
		if (strlen(analyses[i].name) == len &&
		    memcmp(analyses[i].name, name, len) == 0)
			return (analyses[i].bit);
	return (0);
}

int
kernel_analyses_parse(const char *text, size_t len, unsigned *set)
{
	size_t at = 0, end;
	unsigned bit;

	*set = 0;
	while (at <= len) {
		for (end = at; end < len && text[end] != ','; end++)
			continue;
		if ((bit = kernel_analysis_bit(text + at, end - at)) == 0)
			return (-1);
		*set |= bit;
		at = end + 1;
	}
	return (0);
}

size_t
kernel_analyses_text(unsigned set, char *buf, size_t size)
{
	size_t i, len = 0;

	if (size == 0)
		return (0);
	buf[0] = '\0';
	for (i = 0; i < NANALYSES; i++) {
		int n;

		if (!(set & analyses[i].bit))
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len > 0 ? "," : "",
		    analyses[i].name);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
	return (len);
}

kev_source *
kernel_open(const char *path, sm_error *err)
{
	char *dir = NULL;
	kev_source *s = NULL;

	switch (input_kind_of(path, &dir)) {
	case INPUT_TRACEDAT:
		s = tracedat_open(path, err);
		break;
	case INPUT_CTF:
		s = ctf_open(path, dir, err);
		break;
	default:
		error_at(err, path, 0, 0, "not a kernel trace (a trace.dat, "
		    "or a CTF trace's directory)");
		break;
	}
	free(dir);
	return (s);
}

/* The kinds of the source that are of any of the types in want. */
static unsigned char *
kinds_of(const kev_source *src, const unsigned char *want)
{
	unsigned char *w = xcalloc(src->nkinds + 1, 1);
	uint32_t i;

	for (i = 0; i < src->nkinds; i++)
		w[i] = want[src->types[i]];
	return (w);
}

/* ---- which analyses a trace can make ---- */

typedef struct seen {
	unsigned set, all;
} seen;

static int
on_seen(void *ctx, const kev *e)
{
	seen *s = ctx;

	if (e->type == KEV_SCHED_SWITCH)
		s->set |= KERNEL_THREADS | KERNEL_CPUS;
	else if (e->type == KEV_BLOCK_ISSUE)
		s->set |= KERNEL_BLOCK;
	return (s->set == s->all ? 1 : 0);
}

int
kernel_available(const char *path, unsigned *set, sm_error *err)
{
	static const unsigned char want[KEV_NTYPES] = {
		[KEV_SCHED_SWITCH] = 1, [KEV_BLOCK_ISSUE] = 1
	};
	kev_source *src = kernel_open(path, err);
	unsigned char *w;
	seen s = { 0, KERNEL_ALL };
	int rv;

	if (src == NULL)
		return (-1);
	w = kinds_of(src, want);
	rv = src->iterate(src, w, on_seen, &s, err);
	free(w);
	src->close(src);
	if (rv != 0)
		return (-1);
	if (s.set == 0) {
		error_at(err, path, 0, 0, "a kernel trace with none of the "
		    "events the analyses read (sched_switch for threads and "
		    "cpus, block_rq_issue for block)");
		return (-1);
	}
	*set = s.set;
	return (0);
}

/* ---- the pass ---- */

typedef struct pass {
	kemit k;
	kev_comms comms;
	void *state[NANALYSES];
	unsigned set;
	uint64_t from, to;
	kev_fn fn;		/* kernel_events' */
	void *ctx;
	const unsigned char *wanted;	/* the kinds fn is given */
	uint64_t tick;
	unsigned char types_seen[KEV_NTYPES];
	const ingest_options *opts;
	const char *why;	/* keep_going's */
	uint64_t last;		/* the last event's time */
	const kev_source *src;
} pass;

/* The states the set uses, in their order, into the catalog. */
static void
set_states(catalog *cat, kemit *k, unsigned set, int irq)
{
	catalog_state *st = xcalloc(KS_N, sizeof (catalog_state));
	uint32_t n = 0;
	int i;

	for (i = 0; i < KS_N; i++) {
		k->states[i] = UINT32_MAX;
		if (!(kstates[i].used_by & set))
			continue;
		if ((i == KS_IRQ || i == KS_SOFTIRQ) && !irq)
			continue;
		st[n].name = xstrndup(kstates[i].name, strlen(kstates[i].name));
		st[n].name_len = strlen(kstates[i].name);
		st[n].color_text = xstrndup(kstates[i].color,
		    strlen(kstates[i].color));
		(void)color_parse(st[n].color_text, strlen(st[n].color_text),
		    &st[n].color);
		k->states[i] = n++;
	}
	catalog_set_states(cat, st, n);
}

/* The running task's name, into e->comm. */
static void
running_comm(const pass *p, kev *e)
{
	e->comm = kev_comms_of(&p->comms, e->pid, &e->comm_len);
	/* A task no event named yet: by the trace's own list, if any. */
	if (e->comm == NULL && p->src->saved_comm != NULL &&
	    (e->comm = p->src->saved_comm(p->src, e->pid)) != NULL)
		e->comm_len = strlen(e->comm);
	if (e->comm == NULL) {
		e->comm = e->pid == 0 ? "<idle>" : "<...>";
		e->comm_len = strlen(e->comm);
	}
}

/* kemit's comm_of: the running task's name, for an analysis. */
static const char *
analysis_comm(void *ctx, const kev *e, size_t *len)
{
	kev ev = *e;

	running_comm(ctx, &ev);
	*len = ev.comm_len;
	return (ev.comm);
}

static int
on_event(void *ctx, const kev *e)
{
	pass *p = ctx;
	kev ev;
	size_t i;

	kev_comms_see(&p->comms, e);
	p->last = e->time;
	if (p->k.cat != NULL && !p->k.cat->have_start) {
		/* known now: the reader has read the first event */
		p->k.cat->have_start = 1;
		p->k.cat->start_sec = p->src->first / 1000000000u;
		p->k.cat->start_nsec = p->src->first % 1000000000u;
	}
	if (p->fn != NULL) {
		if (p->wanted != NULL && !p->wanted[e->kind])
			return (0);
		if (e->time < p->from)
			return (0);
		if (e->time > p->to)
			return (1);
		ev = *e;
		running_comm(p, &ev);
		return (p->fn(p->ctx, &ev));
	}
	p->k.cat->nrecords++;
	p->types_seen[e->type] = 1;
	for (i = 0; i < NANALYSES; i++)
		if (p->state[i] != NULL && analyses[i].a->reads[e->type])
			analyses[i].a->event(p->state[i], e);
	if ((++p->tick & 0xffff) == 0 && p->opts->keep_going != NULL &&
	    p->opts->keep_going(p->k.ctx, &p->why) != 0)
		return (1);	/* p->why says why */
	return (0);
}

/* What the analyses of set need that the trace lacks: NULL if nothing. */
static const char *
lacking(unsigned set, const unsigned char *seen_types)
{
	if ((set & (KERNEL_THREADS | KERNEL_CPUS)) &&
	    !seen_types[KEV_SCHED_SWITCH])
		return ("no sched_switch events (the threads and cpus "
		    "analyses need sched:sched_switch recorded)");
	if ((set & KERNEL_BLOCK) && !seen_types[KEV_BLOCK_ISSUE])
		return ("no block_rq_issue events (the block analysis needs "
		    "block:block_rq_issue and block:block_rq_complete "
		    "recorded)");
	return (NULL);
}

int
kernel_ingest(const char *path, unsigned set, catalog *cat,
    const ingest_options *opts, ingest_datum_fn datum, void *ctx,
    sm_error *err)
{
	kev_source *src;
	unsigned char want[KEV_NTYPES], *w;
	char title[64];
	pass p;
	const char *why;
	size_t i;
	uint32_t k;
	int irq = 0, rv;

	if ((src = kernel_open(path, err)) == NULL)
		return (-1);
	memset(&p, 0, sizeof (p));
	memset(want, 0, sizeof (want));
	for (k = 0; k < src->nkinds; k++) {
		if (src->types[k] == KEV_IRQ_ENTRY ||
		    src->types[k] == KEV_SOFTIRQ_ENTRY)
			irq = 1;
		if (src->types[k] == KEV_SCHED_SWITCH &&
		    (set & KERNEL_THREADS) &&
		    !src->has_field(src, k, KF_PREV_STATE)) {
			error_at(err, path, 0, 0, "its sched_switch events "
			    "have no prev_state field: the threads analysis "
			    "cannot tell a thread that waits from one that "
			    "was preempted");
			src->close(src);
			return (-1);
		}
	}
	kemit_init(&p.k, cat, opts, datum, ctx);
	p.k.comm_of = analysis_comm;
	p.k.comms = &p.comms;
	p.k.comm_ctx = &p;
	kev_comms_init(&p.comms);
	p.set = set;
	p.opts = opts;
	p.src = src;
	set_states(cat, &p.k, set, irq);
	(void)kernel_analyses_text(set, title, sizeof (title));
	cat->title = xstrndup(title, strlen(title));
	for (i = 0; i < NANALYSES; i++) {
		if (!(set & analyses[i].bit))
			continue;
		p.state[i] = analyses[i].a->start(&p.k, src);
		for (k = 0; k < KEV_NTYPES; k++)
			want[k] |= analyses[i].a->reads[k];
	}
	w = kinds_of(src, want);
	rv = src->iterate(src, w, on_event, &p, err);
	free(w);
	if (rv == 0 && p.why != NULL) {
		error_at(err, path, 0, 0, "%s", p.why);
		rv = -1;
	}
	if (rv == 0 && (why = lacking(set, p.types_seen)) != NULL) {
		error_at(err, path, 0, 0, "%s", why);
		rv = -1;
	}
	for (i = 0; i < NANALYSES; i++) {
		if (p.state[i] == NULL)
			continue;
		if (rv == 0)
			analyses[i].a->finish(p.state[i], cat->last_time);
		analyses[i].a->free(p.state[i]);
	}
	/* The trace ends at its last event, as at an end record. */
	if (rv == 0 && cat->nrecords > 0) {
		cat->have_data = 1;
		if (p.last > cat->last_time)
			cat->last_time = p.last;
	}
	kev_comms_free(&p.comms);
	kemit_fini(&p.k);
	src->close(src);
	return (rv);
}

int
kernel_events(kev_source *src, const unsigned char *wanted, uint64_t from,
    uint64_t to, kev_fn fn, void *ctx, sm_error *err)
{
	static const unsigned char naming[KEV_NTYPES] = {
		[KEV_SCHED_SWITCH] = 1, [KEV_SCHED_WAKING] = 1,
		[KEV_SCHED_WAKEUP] = 1, [KEV_SCHED_WAKEUP_NEW] = 1,
		[KEV_SCHED_FORK] = 1, [KEV_TASK_NEWTASK] = 1,
		[KEV_TASK_RENAME] = 1, [KEV_STATEDUMP_PROCESS] = 1,
	};
	unsigned char *w = NULL;
	pass p;
	int rv;
	uint32_t k;

	memset(&p, 0, sizeof (p));
	kev_comms_init(&p.comms);
	p.src = src;
	p.fn = fn;
	p.ctx = ctx;
	p.from = from;
	p.to = to;
	/* The events that name tasks are read too, for kev.comm. */
	if (wanted != NULL) {
		w = xcalloc(src->nkinds + 1, 1);
		for (k = 0; k < src->nkinds; k++)
			w[k] = wanted[k] || naming[src->types[k]];
	}
	p.wanted = wanted;
	rv = src->iterate(src, w, on_event, &p, err);
	free(w);
	kev_comms_free(&p.comms);
	return (rv);
}
