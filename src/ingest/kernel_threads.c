/*
 * kernel_threads.c: threads and their scheduling states, from sched_*
 * events (the rules are in kernel_threads.h).
 */
#include "ingest/kernel_threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ingest/kev_comm.h"
#include "ingest/pidmap.h"
#include "store/store.h"

#define PENDING_MAX	8
#define CLONE_THREAD	0x00010000
#define NO_STATE	0xff
#define MAX_CPU_TAGS	65535	/* CPUs past it: no cached tag */

typedef struct pending {
	uint64_t time;
	uint32_t cpu;
	uint8_t state;		/* a kstate */
} pending;

typedef struct thread {
	int32_t tid, tgid;	/* tgid -1: its own process */
	uint32_t entity;	/* CATALOG_NO_ENTITY: left out by -f */
	uint32_t cpu;		/* where it runs, while running */
	char comm[KEV_COMM_MAX];
	uint8_t comm_len;
	uint8_t state;		/* a kstate, or NO_STATE */
	uint8_t named;
	uint8_t fresh;		/* made during the trace: naming waits */
	uint8_t exiting;	/* sched_process_exit seen */
	uint8_t npending;
	pending pend[PENDING_MAX];
} thread;

/* A CPU's tag ("cpu3"), its id looked up when first used. */
typedef struct cpu_tag {
	uint32_t id;
	uint8_t len;		/* 0: not yet */
	char s[15];
} cpu_tag;

/* The thread a CPU last switched to: a switch's prev, mostly. */
typedef struct cpu_current {
	int32_t tid;		/* 0: none known */
	uint32_t index;		/* its thread's */
} cpu_current;

typedef struct threads {
	kemit *k;
	pidmap map;
	thread *t;		/* by index, in order of first sight */
	size_t cap;
	cpu_tag *tags;		/* by CPU */
	size_t ntags;
	cpu_current *cur;	/* by CPU */
	size_t ncur;
	cpu_current last;	/* the last thread_of found */
} threads;

static void *
threads_start(kemit *k, const kev_source *src)
{
	threads *a = xcalloc(1, sizeof (*a));

	(void)src;
	a->k = k;
	pidmap_init(&a->map);
	return (a);
}

static void
threads_free(void *arg)
{
	threads *a = arg;

	pidmap_free(&a->map);
	free(a->t);
	free(a->tags);
	free(a->cur);
	free(a);
}

static thread *
thread_of(threads *a, int32_t tid)
{
	int added;
	uint32_t i;

	/* a wakeup follows the waking of the same thread */
	if (a->last.tid == tid && tid != 0)
		return (&a->t[a->last.index]);
	i = pidmap_add(&a->map, (uint64_t)tid, &added);
	if (i >= a->cap)
		grow_array(&a->t, &a->cap, (size_t)i + 1, sizeof (thread));
	if (added) {
		memset(&a->t[i], 0, sizeof (thread));
		a->t[i].tid = tid;
		a->t[i].tgid = -1;
		a->t[i].state = NO_STATE;
		memcpy(a->t[i].comm, "<...>", 5);
		a->t[i].comm_len = 5;
	}
	a->last.tid = tid;
	a->last.index = i;
	return (&a->t[i]);
}

/* A thread as it appears in an event: tid > 0, or NULL. */
static thread *
field_thread(threads *a, const kev *e, kev_field f)
{
	int64_t v;

	if (kev_int(e, f, &v) != 0 || v <= 0 || v > INT32_MAX)
		return (NULL);
	return (thread_of(a, (int32_t)v));
}

static void
set_comm(thread *th, const char *s, size_t len)
{
	if (s == NULL)
		return;
	if (len > KEV_COMM_MAX)
		len = KEV_COMM_MAX;
	memcpy(th->comm, s, len);
	th->comm_len = (uint8_t)len;
}

/* The thread's name from an event's field, if it has the field. */
static void
comm_from(thread *th, const kev *e, kev_field f)
{
	size_t len = 0;
	const char *s = kev_str(e, f, &len);

	set_comm(th, s, len);
}

static void
emit(threads *a, thread *th, uint64_t time, uint8_t state, uint32_t cpu)
{
	cpu_tag *t;
	int n;

	if (th->entity == CATALOG_NO_ENTITY)
		return;
	/* An exited thread has no data from then on. */
	if (state == KS_EXITED) {
		kemit_state(a->k, th->entity, time, STORE_GAP, NULL, 0);
		return;
	}
	if (state != KS_RUNNING || cpu > MAX_CPU_TAGS) {
		char tag[16];

		n = state == KS_RUNNING ?
		    snprintf(tag, sizeof (tag), "cpu%u", cpu) : 0;
		kemit_state(a->k, th->entity, time, a->k->states[state],
		    n > 0 ? tag : NULL, n > 0 ? (size_t)n : 0);
		return;
	}
	if (cpu >= a->ntags) {
		size_t old = a->ntags;

		grow_array(&a->tags, &a->ntags, (size_t)cpu + 1,
		    sizeof (cpu_tag));
		memset(a->tags + old, 0, (a->ntags - old) * sizeof (cpu_tag));
	}
	t = &a->tags[cpu];
	if (t->len == 0) {
		n = snprintf(t->s, sizeof (t->s), "cpu%u", cpu);
		t->len = (uint8_t)n;
		t->id = kemit_tag(a->k, t->s, t->len);
	}
	kemit_state_id(a->k, th->entity, time, a->k->states[state], t->id,
	    t->s, t->len);
}

/* Names a thread (PCOMM[TGID]/COMM[TID]) and hands on what it kept. */
static void
name(threads *a, thread *th)
{
	char buf[4 * KEV_COMM_MAX + 64];
	const thread *leader = th;
	size_t len = 0;
	int32_t tgid = th->tgid >= 0 ? th->tgid : th->tid;
	uint32_t i;
	int n;

	if (tgid != th->tid &&
	    (i = pidmap_find(&a->map, (uint64_t)tgid)) != PIDMAP_NONE)
		leader = &a->t[i];
	kemit_component(buf, sizeof (buf), &len, leader->comm,
	    leader->comm_len);
	n = snprintf(buf + len, sizeof (buf) - len, "[%d]/", (int)tgid);
	len += (size_t)n;
	kemit_component(buf, sizeof (buf), &len, th->comm, th->comm_len);
	n = snprintf(buf + len, sizeof (buf) - len, "[%d]", (int)th->tid);
	len += (size_t)n;
	th->entity = kemit_entity(a->k, buf, len);
	th->named = 1;
	for (i = 0; i < th->npending; i++)
		emit(a, th, th->pend[i].time, th->pend[i].state,
		    th->pend[i].cpu);
	th->npending = 0;
}

static void
transition(threads *a, thread *th, uint64_t time, uint8_t state,
    uint32_t cpu)
{
	if (th->state == state && (state != KS_RUNNING || th->cpu == cpu))
		return;
	th->state = state;
	th->cpu = cpu;
	if (!th->named && !th->fresh)
		name(a, th);
	if (th->named) {
		emit(a, th, time, state, cpu);
		return;
	}
	th->pend[th->npending].time = time;
	th->pend[th->npending].state = state;
	th->pend[th->npending].cpu = cpu;
	if (++th->npending == PENDING_MAX)
		name(a, th);
}

/* A thread made during the trace: afresh, even if its id was used. */
static thread *
fresh(threads *a, const kev *e, kev_field pidf, kev_field commf)
{
	thread *th = field_thread(a, e, pidf);
	size_t len;
	const char *s;

	if (th == NULL || (th->state == NO_STATE && th->fresh))
		return (th);
	if (th->state != NO_STATE || th->named) {
		int32_t tid = th->tid;

		memset(th, 0, sizeof (*th));
		th->tid = tid;
		th->tgid = -1;
		th->state = NO_STATE;
	}
	th->fresh = 1;
	if ((s = kev_str(e, commf, &len)) != NULL)
		set_comm(th, s, len);
	return (th);
}

/*
 * The thread of a task a switch names (tid 0: none): the CPU's current
 * one when it is that, else looked up (which may move the table: each
 * thread is looked up only once the one before is done with).
 */
static thread *
switch_thread(threads *a, int32_t tid, cpu_current *cur)
{
	thread *th;

	if (tid <= 0)
		return (NULL);
	if (cur != NULL && cur->tid == tid)
		return (&a->t[cur->index]);
	th = thread_of(a, tid);
	if (cur != NULL) {
		cur->tid = th->tid;
		cur->index = (uint32_t)(th - a->t);
	}
	return (th);
}

static void
on_switch(threads *a, const kev *e)
{
	/* prev and next as the pass read them (kev_comm.h) */
	const kev_comm_seen *seen = a->k->comms->seen;
	cpu_current *cur = NULL;
	thread *th;
	kev_task_state ts;
	uint8_t to;

	if (e->cpu <= MAX_CPU_TAGS) {
		if (e->cpu >= a->ncur) {
			size_t old = a->ncur;

			grow_array(&a->cur, &a->ncur, (size_t)e->cpu + 1,
			    sizeof (cpu_current));
			memset(a->cur + old, 0, (a->ncur - old) *
			    sizeof (cpu_current));
		}
		cur = &a->cur[e->cpu];
	}
	if ((th = switch_thread(a, seen[0].pid, cur)) != NULL) {
		set_comm(th, seen[0].s, seen[0].len);
		if (kev_task_state_of(e, &ts) != 0)
			ts = KTS_SLEEPING;
		to = ts == KTS_RUNNABLE ? KS_RUNNABLE : ts == KTS_BLOCKED ?
		    KS_BLOCKED : ts == KTS_DEAD ? KS_EXITED : KS_SLEEPING;
		if (th->exiting)
			to = KS_EXITED;
		if (!th->named)
			name(a, th);
		transition(a, th, e->time, to, e->cpu);
	}
	if (cur != NULL)
		cur->tid = 0;	/* next is looked up afresh */
	if ((th = switch_thread(a, seen[1].pid, cur)) != NULL) {
		set_comm(th, seen[1].s, seen[1].len);
		transition(a, th, e->time, KS_RUNNING, e->cpu);
	}
}

static void
on_wakeup(threads *a, const kev *e)
{
	/* the task woken, as the pass read it (kev_comm.h) */
	const kev_comm_seen *seen = &a->k->comms->seen[0];
	thread *th;

	if (e->type == KEV_SCHED_WAKEUP_NEW)
		th = fresh(a, e, KF_PID, KF_COMM);
	else
		th = seen->pid > 0 ? thread_of(a, seen->pid) : NULL;
	if (th == NULL)
		return;
	set_comm(th, seen->s, seen->len);
	if (th->state == NO_STATE || th->state == KS_SLEEPING ||
	    th->state == KS_BLOCKED)
		transition(a, th, e->time, KS_RUNNABLE, e->cpu);
}

static void
threads_event(void *arg, const kev *e)
{
	threads *a = arg;
	thread *th;
	int64_t v;

	if (e->type == KEV_SCHED_SWITCH) {
		on_switch(a, e);
		return;
	}
	/*
	 * The task running on the CPU runs, if nothing said so yet, under
	 * the name the events so far (or the trace's list of tasks) give.
	 */
	/* mostly the CPU's current thread, known without a lookup */
	if (e->pid > 0 && e->cpu < a->ncur && a->cur[e->cpu].tid == e->pid)
		th = &a->t[a->cur[e->cpu].index];
	else if (e->pid > 0)
		th = thread_of(a, e->pid);
	else
		th = NULL;
	if (th != NULL && th->state == NO_STATE) {
		size_t len;
		const char *s = th->fresh ? NULL :
		    kemit_running_comm(a->k, e, &len);

		if (s != NULL && !(len == 5 && memcmp(s, "<...>", 5) == 0))
			set_comm(th, s, len);
		transition(a, th, e->time, KS_RUNNING, e->cpu);
	}
	switch (e->type) {
	case KEV_SCHED_WAKING:
	case KEV_SCHED_WAKEUP:
	case KEV_SCHED_WAKEUP_NEW:
		on_wakeup(a, e);
		break;
	case KEV_SCHED_FORK:
		(void)fresh(a, e, KF_CHILD_PID, KF_CHILD_COMM);
		break;
	case KEV_TASK_NEWTASK: {
		int32_t tgid = -1;

		/* the creator first: a lookup may move the table */
		if (kev_int(e, KF_CLONE_FLAGS, &v) == 0 &&
		    (v & CLONE_THREAD) && e->pid > 0) {
			th = thread_of(a, e->pid);
			tgid = th->tgid >= 0 ? th->tgid : th->tid;
		}
		if ((th = fresh(a, e, KF_PID, KF_COMM)) != NULL && tgid > 0)
			th->tgid = tgid;
		break;
	}
	case KEV_STATEDUMP_PROCESS:
		if ((th = field_thread(a, e, KF_PID)) != NULL) {
			comm_from(th, e, KF_COMM);
			if (kev_int(e, KF_TGID, &v) == 0 && v > 0 &&
			    v <= INT32_MAX)
				th->tgid = (int32_t)v;
		}
		break;
	case KEV_TASK_RENAME:
		if ((th = field_thread(a, e, KF_PID)) != NULL)
			comm_from(th, e, KF_NEWCOMM);
		break;
	case KEV_SCHED_EXIT:
		if ((th = field_thread(a, e, KF_PID)) != NULL) {
			th->exiting = 1;
			if (!th->named && th->state != NO_STATE)
				name(a, th);
		}
		break;
	default:
		break;
	}
}

/* Threads whose naming still waits are named as they are now. */
static void
threads_finish(void *arg, uint64_t end)
{
	threads *a = arg;
	size_t i;

	(void)end;
	for (i = 0; i < a->map.n; i++)
		if (!a->t[i].named && a->t[i].npending > 0)
			name(a, &a->t[i]);
}

const kanalysis kernel_threads = {
	"threads",
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
	threads_start, threads_event, threads_finish, threads_free
};
