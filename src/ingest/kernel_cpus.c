/*
 * kernel_cpus.c: what each CPU does, from sched_switch and the irq
 * events (the rules are in kernel_cpus.h).
 */
#include "ingest/kernel_cpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ingest/kev_comm.h"

#define MAX_DEPTH	16

typedef struct cpu {
	uint32_t entity;	/* CATALOG_NO_ENTITY: none yet, or left out */
	uint8_t known;		/* it has a state */
	uint8_t depth;		/* handlers on top of it */
	uint8_t stack[MAX_DEPTH];
	uint32_t over;		/* entries past MAX_DEPTH, still open */
} cpu;

typedef struct cpus {
	kemit *k;
	cpu *c;
	size_t n;
} cpus;

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU"
};

static void *
cpus_start(kemit *k, const kev_source *src)
{
	cpus *a = xcalloc(1, sizeof (*a));

	(void)src;
	a->k = k;
	return (a);
}

static void
cpus_free(void *arg)
{
	cpus *a = arg;

	free(a->c);
	free(a);
}

static cpu *
cpu_of(cpus *a, uint32_t n)
{
	if (n >= a->n) {
		size_t old = a->n;

		grow_array(&a->c, &a->n, (size_t)n + 1, sizeof (cpu));
		memset(a->c + old, 0, (a->n - old) * sizeof (cpu));
	}
	return (&a->c[n]);
}

/* The CPU becomes idle or runs a task, whatever it was doing. */
static void
base(cpus *a, cpu *c, uint32_t n, uint64_t time, int64_t pid,
    const char *comm, size_t comm_len)
{
	char tag[2 * KEV_COMM_MAX + 32];
	size_t len = 0;

	if (!c->known) {
		char name[32];
		int l = snprintf(name, sizeof (name), "cpu%u", n);

		c->entity = kemit_entity(a->k, name, (size_t)l);
		c->known = 1;
	}
	c->depth = 0;
	c->over = 0;
	if (c->entity == CATALOG_NO_ENTITY)
		return;
	if (pid == 0) {
		kemit_state(a->k, c->entity, time, a->k->states[KS_IDLE], NULL,
		    0);
		return;
	}
	if (comm_len > KEV_COMM_MAX)
		comm_len = KEV_COMM_MAX;
	memcpy(tag, comm, comm_len);
	len = comm_len;
	len += (size_t)snprintf(tag + len, sizeof (tag) - len, "[%lld]",
	    (long long)pid);
	kemit_state(a->k, c->entity, time, a->k->states[KS_RUNNING], tag, len);
}

static void
push(cpus *a, cpu *c, uint64_t time, uint8_t state, const char *tag,
    size_t len)
{
	if (c->depth == MAX_DEPTH) {
		c->over++;
		return;
	}
	c->stack[c->depth++] = state;
	if (c->entity != CATALOG_NO_ENTITY)
		kemit_push(a->k, c->entity, time, a->k->states[state], tag,
		    len);
}

static void
pop(cpus *a, cpu *c, uint64_t time, uint8_t state)
{
	if (c->over > 0) {
		c->over--;
		return;
	}
	if (c->depth == 0 || c->stack[c->depth - 1] != state)
		return;
	c->depth--;
	if (c->entity != CATALOG_NO_ENTITY)
		kemit_pop(a->k, c->entity, time, a->k->states[state]);
}

static void
cpus_event(void *arg, const kev *e)
{
	cpus *a = arg;
	cpu *c = cpu_of(a, e->cpu);
	char tag[64 + KEV_COMM_MAX];
	const char *s;
	size_t len;
	int64_t v, pid;
	int n;

	if (e->type == KEV_SCHED_SWITCH) {
		if (kev_int(e, KF_NEXT_PID, &pid) != 0 || pid < 0)
			return;
		s = kev_str(e, KF_NEXT_COMM, &len);
		base(a, c, e->cpu, e->time, pid, s != NULL ? s : "<...>",
		    s != NULL ? len : 5);
		return;
	}
	if (!c->known) {
		s = kemit_running_comm(a->k, e, &len);
		base(a, c, e->cpu, e->time, e->pid < 0 ? 0 : e->pid, s, len);
	}
	switch (e->type) {
	case KEV_IRQ_ENTRY:
		if (kev_int(e, KF_IRQ, &v) != 0)
			v = -1;
		n = snprintf(tag, sizeof (tag), "%lld:", (long long)v);
		len = (size_t)n;
		if ((s = kev_str(e, KF_NAME, &len)) != NULL) {
			if (len > 48)
				len = 48;
			memcpy(tag + n, s, len);
			len += (size_t)n;
		} else {
			len = (size_t)n;
		}
		push(a, c, e->time, KS_IRQ, tag, len);
		break;
	case KEV_IRQ_EXIT:
		pop(a, c, e->time, KS_IRQ);
		break;
	case KEV_SOFTIRQ_ENTRY:
		if (kev_int(e, KF_VEC, &v) != 0)
			v = -1;
		if (v >= 0 &&
		    v < (int64_t)(sizeof (softirq_names) / sizeof (char *)))
			n = snprintf(tag, sizeof (tag), "%s", softirq_names[v]);
		else
			n = snprintf(tag, sizeof (tag), "vec %lld",
			    (long long)v);
		push(a, c, e->time, KS_SOFTIRQ, tag, (size_t)n);
		break;
	case KEV_SOFTIRQ_EXIT:
		pop(a, c, e->time, KS_SOFTIRQ);
		break;
	default:
		break;
	}
}

static void
cpus_finish(void *arg, uint64_t end)
{
	(void)arg;
	(void)end;
}

const kanalysis kernel_cpus = {
	"cpus",
	{
		[KEV_SCHED_SWITCH] = 1, [KEV_SCHED_WAKING] = 1,
		[KEV_SCHED_WAKEUP] = 1, [KEV_SCHED_WAKEUP_NEW] = 1,
		[KEV_SCHED_FORK] = 1, [KEV_SCHED_EXEC] = 1,
		[KEV_SCHED_EXIT] = 1, [KEV_SCHED_FREE] = 1,
		[KEV_TASK_NEWTASK] = 1, [KEV_TASK_RENAME] = 1,
		[KEV_IRQ_ENTRY] = 1, [KEV_IRQ_EXIT] = 1,
		[KEV_SOFTIRQ_ENTRY] = 1, [KEV_SOFTIRQ_EXIT] = 1,
		[KEV_BLOCK_ISSUE] = 1, [KEV_BLOCK_COMPLETE] = 1,
		[KEV_STATEDUMP_PROCESS] = 1, [KEV_OTHER] = 1,
	},
	cpus_start, cpus_event, cpus_finish, cpus_free
};
