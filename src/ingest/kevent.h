/*
 * kevent.h: a kernel trace's events as the analyses and scripts see them,
 * whatever file they came from (ftrace's trace.dat: tracedat.h; LTTng's
 * CTF: ctf.h).
 *
 * A reader opens a trace as a kev_source and hands its events, in time
 * order, to a function, one kev at a time.  The analyses (kernel.h) ask
 * an event for the fields they know by role (KF_PREV_STATE), which each
 * reader finds by the names its format gives them (prev_pid in ftrace,
 * prev_tid in LTTng); scripts (statemap.events) walk every field by the
 * format's own names and types.  A kev and what its accessors return
 * live only for the call it is handed to.
 *
 * No .c of its own: the accessors go through the reader's functions.
 */
#ifndef SM_KEVENT_H
#define SM_KEVENT_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* The events the analyses know; KEV_OTHER for any other. */
typedef enum kev_type {
	KEV_OTHER = 0,
	KEV_SCHED_SWITCH,
	KEV_SCHED_WAKING,
	KEV_SCHED_WAKEUP,
	KEV_SCHED_WAKEUP_NEW,
	KEV_SCHED_FORK,
	KEV_SCHED_EXEC,
	KEV_SCHED_EXIT,
	KEV_SCHED_FREE,
	KEV_TASK_NEWTASK,
	KEV_TASK_RENAME,
	KEV_IRQ_ENTRY,
	KEV_IRQ_EXIT,
	KEV_SOFTIRQ_ENTRY,
	KEV_SOFTIRQ_EXIT,
	KEV_BLOCK_ISSUE,
	KEV_BLOCK_COMPLETE,
	KEV_STATEDUMP_PROCESS,	/* LTTng's list of the tasks at the start */
	KEV_NTYPES
} kev_type;

/* The fields the analyses read, by role (kev_names.c: by which names). */
typedef enum kev_field {
	KF_PREV_PID,
	KF_PREV_COMM,
	KF_PREV_STATE,
	KF_NEXT_PID,
	KF_NEXT_COMM,
	KF_PID,			/* the task an event is about */
	KF_TGID,		/* its process, where the format says */
	KF_COMM,
	KF_CHILD_PID,
	KF_CHILD_COMM,
	KF_CLONE_FLAGS,
	KF_NEWCOMM,
	KF_IRQ,
	KF_NAME,		/* an interrupt handler's */
	KF_VEC,
	KF_DEV,
	KF_SECTOR,
	KF_NR_SECTOR,
	KF_RWBS,
	KF_NFIELDS
} kev_field;

/*
 * What a task's state when it leaves a CPU (sched_switch's prev_state)
 * says, as the kernel's letters group: R (still runnable: preempted or
 * yielding), S, I, P, T, t (waiting for something, or stopped), D
 * (uninterruptible, usually I/O), X, Z (dead).
 */
typedef enum kev_task_state {
	KTS_RUNNABLE,
	KTS_SLEEPING,
	KTS_BLOCKED,
	KTS_DEAD
} kev_task_state;

/* What statemap.events is told of each field (kev_visit). */
typedef struct kev_visitor {
	void (*integer)(void *ctx, const char *name, int64_t v, int is_signed);
	void (*real)(void *ctx, const char *name, double v);
	void (*string)(void *ctx, const char *name, const char *s,
	    size_t len);
	/* An array (is_array) or a structure, up to the matching end. */
	void (*begin)(void *ctx, const char *name, int is_array);
	void (*end)(void *ctx);
} kev_visitor;

typedef struct kev kev;

/* A reader's functions (its source's first member points to them). */
typedef struct kev_ops {
	/* 0 with *v, or -1 if the event has no such field. */
	int (*integer)(const kev *e, kev_field f, int64_t *v);
	/* The text (not NUL-terminated), or NULL if it has none. */
	const char *(*string)(const kev *e, kev_field f, size_t *len);
	/* sched_switch's prev_state read: 0, or -1 if it has none. */
	int (*task_state)(const kev *e, kev_task_state *ts);
	void (*visit)(const kev *e, const kev_visitor *v, void *ctx);
} kev_ops;

/* One event. */
struct kev {
	const kev_ops *ops;
	uint64_t time;		/* ns since the trace's first event */
	uint32_t cpu;
	int32_t pid;		/* the task running when it happened, or -1 */
	kev_type type;
	uint32_t kind;		/* its name's id (kev_source.names) */
	const char *name;	/* sched_switch, block_rq_issue... */
	/*
	 * The running task's name, as the events up to this one give it
	 * (kev_comm.h), else as the trace's list of tasks does, else
	 * "<...>" ("<idle>" for pid 0); readers leave it NULL, and so
	 * does the analyses' pass, whose analyses ask for it only where
	 * they need it (kemit_running_comm, kernel_emit.h); scripts get
	 * it for every event.
	 */
	const char *comm;
	size_t comm_len;
	const void *raw;	/* the reader's record */
	const void *info;	/* the reader's facts about this kind */
};

static inline int
kev_int(const kev *e, kev_field f, int64_t *v)
{
	return (e->ops->integer(e, f, v));
}

static inline const char *
kev_str(const kev *e, kev_field f, size_t *len)
{
	return (e->ops->string(e, f, len));
}

static inline int
kev_task_state_of(const kev *e, kev_task_state *ts)
{
	return (e->ops->task_state(e, ts));
}

static inline void
kev_visit(const kev *e, const kev_visitor *v, void *ctx)
{
	e->ops->visit(e, v, ctx);
}

/*
 * Called for each event in time order: 0 to go on, 1 to stop there
 * (not an error), or -1 with the error set in the caller's ctx.
 */
typedef int (*kev_fn)(void *ctx, const kev *e);

/*
 * An open trace.  Its kinds are numbered 0..nkinds-1; names[k] is kind
 * k's name and types[k] what the analyses make of it.  Iterating calls
 * fn for each event whose kind has a nonzero byte in wanted (NULL: all),
 * with times in ns since the trace's first event (of any kind: first is
 * set once it is read, before fn is called), made to never go backwards
 * (a reader that sees an event earlier than the one before gives it
 * that one's time), and is done once per source.
 */
typedef struct kev_source {
	const char *path;
	/* the first event's time on the trace clock, once it is read */
	uint64_t first;
	uint32_t ncpus;
	uint32_t nkinds;
	const char *const *names;
	const kev_type *types;
	int (*iterate)(struct kev_source *s, const unsigned char *wanted,
	    kev_fn fn, void *ctx, sm_error *err);
	/*
	 * The name the trace's own list of tasks gives pid (trace.dat's
	 * saved command lines), or NULL; NULL itself if it has none.
	 */
	const char *(*saved_comm)(const struct kev_source *s, int32_t pid);
	/* Whether events of a kind have the field of that role. */
	int (*has_field)(const struct kev_source *s, uint32_t kind,
	    kev_field f);
	void (*close)(struct kev_source *s);
} kev_source;

#endif
