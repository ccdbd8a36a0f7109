/*
 * kev_comm.h: each task's name (comm) as a kernel trace's events give
 * it, so that every event can say which task was running by name: the
 * names that sched_switch, the wakeups, fork, task_newtask, task_rename
 * and LTTng's state dump carry, the latest kept.
 */
#ifndef SM_KEV_COMM_H
#define SM_KEV_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/kevent.h"
#include "ingest/pidmap.h"

#define KEV_COMM_MAX	32	/* bytes kept of a name (the kernel's: 15) */

typedef struct kev_comm_name {
	char s[KEV_COMM_MAX];
	uint8_t len;
} kev_comm_name;

/* The task a CPU last switched to, and its name's index. */
typedef struct kev_comm_current {
	int64_t pid;		/* 0: none known */
	uint32_t index;
} kev_comm_current;

/*
 * A task an event names, as kev_comms_see read it, for the analyses to
 * take rather than read the fields again (valid for that event only).
 */
typedef struct kev_comm_seen {
	int32_t pid;		/* 0: no such field, or not a task (<= 0) */
	const char *s;		/* its name (not NUL-terminated), or NULL */
	size_t len;
} kev_comm_seen;

typedef struct kev_comms {
	/*
	 * The tasks the last event seen named: sched_switch's prev and
	 * next; the wakeups', task_newtask's, task_rename's and the state
	 * dump's pid (and comm, newcomm); fork's child; pid 0 for the
	 * rest.
	 */
	kev_comm_seen seen[2];
	pidmap map;
	kev_comm_name *names;
	size_t cap;
	kev_comm_current *cur;	/* by CPU: a switch's prev is mostly it */
	size_t ncur;
	kev_comm_current last;	/* the last task named by other events */
} kev_comms;

void kev_comms_init(kev_comms *c);
void kev_comms_free(kev_comms *c);

/* Takes the names an event gives. */
void kev_comms_see(kev_comms *c, const kev *e);

/*
 * The name of task pid (valid until the next kev_comms_see), or NULL if
 * no event named it yet (and for pid 0, each CPU's idle task).
 */
const char *kev_comms_of(const kev_comms *c, int32_t pid, size_t *len);

#endif
