#include "trace/flows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/path_escape.h"
#include "base/runlimit.h"
#include "base/util.h"

#define GROUP	(FLOWS_NO_NODE - 1)	/* a target that is no node */

const char *
flows_status_name(flow_status status)
{
	switch (status) {
	case FLOW_MATCHED: return ("matched");
	case FLOW_LOST: return ("lost");
	case FLOW_DUPLICATE: return ("duplicate");
	case FLOW_UNSENT: return ("unsent");
	}
	return ("?");
}

int
flows_any(const catalog *cat)
{
	size_t i;

	for (i = 0; i < cat->nevent_extras; i++)
		if (cat->event_extras[i].end != CATALOG_NO_END ||
		    cat->event_extras[i].id != CATALOG_NO_ID)
			return (1);
	return (0);
}

/* ---- nodes ---- */

/* The node of a name by the default rule: up to its first separator
 * (path_escape.h: a '/' not escaped). */
static uint32_t
default_node(intern *nodes, const char *name, size_t len)
{
	return (intern_add(nodes, name, path_next_separator(name, len, 0),
	    NULL));
}

static uint32_t
node_of(intern *nodes, const char *name, size_t len,
    const char *const *given, const size_t *given_lens, size_t i)
{
	if (given != NULL && given[i] != NULL)
		return (intern_add(nodes, given[i], given_lens[i], NULL));
	return (default_node(nodes, name, len));
}

/* ---- matching ---- */

/* A send or a receive of an id. */
typedef struct part {
	uint64_t time;
	size_t event;
	uint32_t id;
	uint32_t node;		/* its entity's */
	uint32_t target;	/* a send's target node, GROUP; a receive: none */
	int send;
	int paired;
} part;

static int
compare_parts(const void *pa, const void *pb)
{
	const part *a = pa, *b = pb;

	if (a->id != b->id)
		return (a->id < b->id ? -1 : 1);
	if (a->time != b->time)
		return (a->time < b->time ? -1 : 1);
	return (a->event < b->event ? -1 : a->event > b->event);
}

/* Receives of one id, by node, then time (pointers into the parts). */
static int
compare_receives(const void *pa, const void *pb)
{
	const part *a = *(const part *const *)pa, *b = *(const part *const *)pb;

	if (a->node != b->node)
		return (a->node < b->node ? -1 : 1);
	if (a->time != b->time)
		return (a->time < b->time ? -1 : 1);
	return (a->event < b->event ? -1 : a->event > b->event);
}

static uint64_t
first_time(const flow *f)
{
	return (f->send != FLOWS_NONE ? f->sent : f->received);
}

static int
compare_flows(const void *pa, const void *pb)
{
	const flow *a = pa, *b = pb;
	uint64_t ta = first_time(a), tb = first_time(b);
	size_t ea = a->send != FLOWS_NONE ? a->send : a->receive;
	size_t eb = b->send != FLOWS_NONE ? b->send : b->receive;

	if (ta != tb)
		return (ta < tb ? -1 : 1);
	if (ea != eb)
		return (ea < eb ? -1 : 1);
	return (a->receive < b->receive ? -1 : a->receive > b->receive);
}

static flow *
add_flow(flows *f, size_t *cap, flow_status status)
{
	flow *fl;

	grow_array(&f->items, cap, f->n + 1, sizeof (flow));
	fl = &f->items[f->n++];
	memset(fl, 0, sizeof (*fl));
	fl->send = fl->receive = FLOWS_NONE;
	fl->from = fl->to = FLOWS_NO_NODE;
	fl->status = status;
	f->counts[status]++;
	return (fl);
}

static void
set_send(flow *fl, const part *s)
{
	fl->send = s->event;
	fl->sent = s->time;
	fl->from = s->node;
	if (fl->to == FLOWS_NO_NODE && s->target != GROUP)
		fl->to = s->target;
}

static void
set_receive(flow *fl, const part *r)
{
	fl->receive = r->event;
	fl->received = r->time;
	fl->to = r->node;
}

/*
 * The flows of one id's parts (g, n of them, in time order); receives is
 * scratch for n pointers, compatible for n sends.
 */
static void
match_id(flows *f, size_t *cap, part *g, size_t n, part **receives,
    part **compatible)
{
	size_t nr = 0, i, j;

	for (i = 0; i < n; i++)
		if (!g[i].send)
			receives[nr++] = &g[i];
	qsort(receives, nr, sizeof (part *), compare_receives);
	for (i = 0; i < nr; ) {
		uint32_t node = receives[i]->node;
		size_t k = 0, m = 0;

		while (i + k < nr && receives[i + k]->node == node)
			k++;
		for (j = 0; j < n; j++)
			if (g[j].send && (g[j].target == node ||
			    g[j].target == GROUP))
				compatible[m++] = &g[j];
		for (j = 0; j < k; j++) {
			part *r = receives[i + j];
			flow *fl;

			if (m == 0) {
				set_receive(add_flow(f, cap, FLOW_UNSENT), r);
			} else if (k <= m) {
				part *s = compatible[m - k + j];

				fl = add_flow(f, cap, FLOW_MATCHED);
				set_send(fl, s);
				set_receive(fl, r);
				s->paired = 1;
			} else {
				part *s = compatible[j < m ? j : m - 1];

				fl = add_flow(f, cap, j < m ? FLOW_MATCHED :
				    FLOW_DUPLICATE);
				set_send(fl, s);
				set_receive(fl, r);
				s->paired = 1;
			}
		}
		i += k;
	}
	for (j = 0; j < n; j++)
		if (g[j].send && !g[j].paired)
			set_send(add_flow(f, cap, FLOW_LOST), &g[j]);
}

flows *
flows_match(const catalog *cat, const char *const *entity_nodes,
    const size_t *entity_node_lens, const char *const *event_nodes,
    const size_t *event_node_lens, const char **why)
{
	flows *f = xcalloc(1, sizeof (*f));
	uint32_t nent = catalog_nentities(cat);
	uint32_t nev = intern_count(cat->event_entities), k;
	uint32_t *ev_node = xcalloc((size_t)nev + 1, sizeof (uint32_t));
	uint32_t *ent_node = xcalloc((size_t)nent + 1, sizeof (uint32_t));
	unsigned char *real;
	part *parts = NULL, **receives, **compatible;
	size_t nparts = 0, pcap = 0, fcap = 0, i;

	f->nodes = intern_new();
	for (k = 0; k < nent; k++) {
		size_t len;
		const char *name = catalog_entity_name(cat, k, &len);

		ent_node[k] = node_of(f->nodes, name, len, entity_nodes,
		    entity_node_lens, k);
	}
	for (k = 0; k < nev; k++) {
		size_t len;
		const char *name = intern_name(cat->event_entities, k, &len);

		ev_node[k] = node_of(f->nodes, name, len, event_nodes,
		    event_node_lens, k);
	}
	/* A node is real if an entity (of data or of an event) is in it. */
	real = xcalloc((size_t)intern_count(f->nodes) + 1, 1);
	for (k = 0; k < nent; k++)
		real[ent_node[k]] = 1;
	for (i = 0; i < cat->nevents; i++)
		real[ev_node[cat->events[i].entity]] = 1;
	free(ent_node);
	for (i = 0; i < cat->nevents; i++) {
		const catalog_event *ev = &cat->events[i];
		const catalog_event_extra *x = catalog_event_extra_of(cat, ev);
		part *p;

		if ((i & 0xffff) == 0xffff && runlimit_check((pcap *
		    sizeof (part)) + fcap * sizeof (flow), why) != 0) {
			free(parts);
			free(ev_node);
			free(real);
			flows_free(f);
			return (NULL);
		}
		if (x == NULL)
			continue;
		if (x->end != CATALOG_NO_END) {
			flow *fl = add_flow(f, &fcap, FLOW_MATCHED);

			fl->send = fl->receive = i;
			fl->sent = ev->time;
			fl->received = x->end;
			fl->from = ev_node[ev->entity];
			if (ev->target != CATALOG_NO_ENTITY)
				fl->to = ev_node[ev->target];
			continue;
		}
		if (x->id == CATALOG_NO_ID)
			continue;
		grow_array(&parts, &pcap, nparts + 1, sizeof (part));
		p = &parts[nparts++];
		p->time = ev->time;
		p->event = i;
		p->id = x->id;
		p->node = ev_node[ev->entity];
		p->send = ev->target != CATALOG_NO_ENTITY;
		p->target = !p->send ? FLOWS_NO_NODE :
		    real[ev_node[ev->target]] ? ev_node[ev->target] : GROUP;
		p->paired = 0;
	}
	if (nparts > 0)
		qsort(parts, nparts, sizeof (part), compare_parts);
	receives = xcalloc(nparts + 1, sizeof (part *));
	compatible = xcalloc(nparts + 1, sizeof (part *));
	for (i = 0; i < nparts; ) {
		size_t n = 1;

		while (i + n < nparts && parts[i + n].id == parts[i].id)
			n++;
		match_id(f, &fcap, parts + i, n, receives, compatible);
		i += n;
	}
	free(receives);
	free(compatible);
	if (f->n > 0)
		qsort(f->items, f->n, sizeof (flow), compare_flows);
	free(parts);
	free(ev_node);
	free(real);
	return (f);
}

void
flows_free(flows *f)
{
	if (f == NULL)
		return;
	free(f->items);
	intern_free(f->nodes);
	free(f);
}

/* ---- clock alignment ---- */

/* One matched message between two nodes, for the pair sums. */
typedef struct crossing {
	uint32_t a, b;		/* a < b */
	int back;		/* sent by b to a */
	int64_t diff;		/* received - sent */
} crossing;

static int
compare_crossings(const void *pa, const void *pb)
{
	const crossing *x = pa, *y = pb;

	if (x->a != y->a)
		return (x->a < y->a ? -1 : 1);
	return (x->b < y->b ? -1 : x->b > y->b);
}

/* Pairs with messages both ways, the most messages first. */
static int
compare_pair_weight(const void *pa, const void *pb)
{
	const flows_pair *x = *(const flows_pair *const *)pa;
	const flows_pair *y = *(const flows_pair *const *)pb;
	uint64_t wx = x->n_ab + x->n_ba, wy = y->n_ab + y->n_ba;

	if (wx != wy)
		return (wx > wy ? -1 : 1);
	if (x->a != y->a)
		return (x->a < y->a ? -1 : 1);
	return (x->b < y->b ? -1 : x->b > y->b);
}

/* Mean of n differences whose sum is sum (exact to a double). */
static double
mean_of(__int128 sum, uint64_t n)
{
	return (n == 0 ? NAN : (double)sum / (double)n);
}

flows_alignment *
flows_align(const flows *f, uint32_t reference)
{
	flows_alignment *al = xcalloc(1, sizeof (*al));
	crossing *cr = xcalloc(f->n + 1, sizeof (crossing));
	const flows_pair **order;
	double *off;
	size_t ncr = 0, i, cap = 0;
	int changed;

	al->nnodes = intern_count(f->nodes);
	al->reference = reference < al->nnodes ? reference : 0;
	for (i = 0; i < f->n; i++) {
		const flow *fl = &f->items[i];

		if (fl->status != FLOW_MATCHED || fl->from == FLOWS_NO_NODE ||
		    fl->to == FLOWS_NO_NODE || fl->from == fl->to)
			continue;
		cr[ncr].a = fl->from < fl->to ? fl->from : fl->to;
		cr[ncr].b = fl->from < fl->to ? fl->to : fl->from;
		cr[ncr].back = fl->from > fl->to;
		cr[ncr].diff = (int64_t)fl->received - (int64_t)fl->sent;
		ncr++;
	}
	if (ncr > 0)
		qsort(cr, ncr, sizeof (crossing), compare_crossings);
	for (i = 0; i < ncr; ) {
		__int128 sum[2] = { 0, 0 };
		uint64_t n[2] = { 0, 0 };
		flows_pair *p;
		size_t j = i;

		for (; j < ncr && cr[j].a == cr[i].a && cr[j].b == cr[i].b;
		    j++) {
			sum[cr[j].back] += cr[j].diff;
			n[cr[j].back]++;
		}
		grow_array(&al->pairs, &cap, al->npairs + 1, sizeof (*p));
		p = &al->pairs[al->npairs++];
		p->a = cr[i].a;
		p->b = cr[i].b;
		p->n_ab = n[0];
		p->n_ba = n[1];
		p->mean_ab = mean_of(sum[0], n[0]);
		p->mean_ba = mean_of(sum[1], n[1]);
		if (n[0] > 0 && n[1] > 0) {
			p->latency = (p->mean_ab + p->mean_ba) / 2;
			p->offset = p->mean_ab - p->latency;
		} else {
			p->latency = p->offset = NAN;
		}
		i = j;
	}
	free(cr);
	/* Offsets: chained from the reference, heaviest pairs first. */
	al->offsets = xcalloc((size_t)al->nnodes + 1, sizeof (int64_t));
	al->has_offset = xcalloc((size_t)al->nnodes + 1, 1);
	off = xcalloc((size_t)al->nnodes + 1, sizeof (double));
	order = xcalloc(al->npairs + 1, sizeof (flows_pair *));
	for (i = 0; i < al->npairs; i++)
		order[i] = &al->pairs[i];
	qsort(order, al->npairs, sizeof (flows_pair *), compare_pair_weight);
	if (al->nnodes > 0)
		al->has_offset[al->reference] = 1;
	do {
		changed = 0;
		for (i = 0; i < al->npairs; i++) {
			const flows_pair *p = order[i];

			if (isnan(p->offset) ||
			    al->has_offset[p->a] == al->has_offset[p->b])
				continue;
			/* b runs p->offset ahead of a: take it off b. */
			if (al->has_offset[p->a])
				off[p->b] = off[p->a] - p->offset;
			else
				off[p->a] = off[p->b] + p->offset;
			al->has_offset[p->a] = al->has_offset[p->b] = 1;
			changed = 1;
			break;	/* the heaviest pair that reaches a new node */
		}
	} while (changed);
	for (i = 0; i < al->nnodes; i++)
		al->offsets[i] = al->has_offset[i] ? (int64_t)llround(off[i]) :
		    0;
	free(off);
	free(order);
	return (al);
}

void
flows_alignment_free(flows_alignment *al)
{
	if (al == NULL)
		return;
	free(al->pairs);
	free(al->offsets);
	free(al->has_offset);
	free(al);
}
