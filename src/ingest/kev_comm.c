/*
 * kev_comm.c: tasks' names as the events give them.
 */
#include "ingest/kev_comm.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void
kev_comms_init(kev_comms *c)
{
	memset(c, 0, sizeof (*c));
	pidmap_init(&c->map);
}

void
kev_comms_free(kev_comms *c)
{
	pidmap_free(&c->map);
	free(c->names);
	free(c->cur);
	memset(c, 0, sizeof (*c));
}

/*
 * Names the task of the event's field pidf by its field commf; cur, if
 * not NULL, is the task it is likely to be (a CPU's current, or the
 * last one named: a wakeup follows the waking of the same task), and
 * becomes it.
 */
static void
name(kev_comms *c, const kev *e, kev_field pidf, kev_field commf,
    kev_comm_current *cur, kev_comm_seen *seen)
{
	int64_t pid;
	const char *s;
	size_t len;
	uint32_t i;

	/* pid 0 is each CPU's idle task (swapper/N): "<idle>" for all */
	if (kev_int(e, pidf, &pid) != 0 || pid <= 0 || pid > INT32_MAX)
		pid = 0;
	seen->pid = (int32_t)pid;
	seen->s = s = kev_str(e, commf, &len);
	seen->len = s != NULL ? len : 0;
	if (pid == 0 || s == NULL)
		return;
	if (cur != NULL && cur->pid == pid) {
		i = cur->index;
	} else {
		i = pidmap_add(&c->map, (uint64_t)pid, NULL);
		if (cur != NULL) {
			cur->pid = pid;
			cur->index = i;
		}
	}
	if (i >= c->cap) {
		size_t old = c->cap;

		grow_array(&c->names, &c->cap, (size_t)i + 1,
		    sizeof (kev_comm_name));
		memset(c->names + old, 0, (c->cap - old) *
		    sizeof (kev_comm_name));
	}
	if (len > KEV_COMM_MAX)
		len = KEV_COMM_MAX;
	memcpy(c->names[i].s, s, len);
	c->names[i].len = (uint8_t)len;
}

void
kev_comms_see(kev_comms *c, const kev *e)
{
	kev_comm_current *cur;

	memset(c->seen, 0, sizeof (c->seen));
	switch (e->type) {
	case KEV_SCHED_SWITCH:
		if (e->cpu < 65536 && e->cpu >= c->ncur) {
			size_t old = c->ncur;

			grow_array(&c->cur, &c->ncur, (size_t)e->cpu + 1,
			    sizeof (kev_comm_current));
			memset(c->cur + old, 0, (c->ncur - old) *
			    sizeof (kev_comm_current));
		}
		cur = e->cpu < c->ncur ? &c->cur[e->cpu] : NULL;
		name(c, e, KF_PREV_PID, KF_PREV_COMM, cur, &c->seen[0]);
		if (cur != NULL)
			cur->pid = 0;	/* next is looked up afresh */
		name(c, e, KF_NEXT_PID, KF_NEXT_COMM, cur, &c->seen[1]);
		break;
	case KEV_SCHED_WAKING:
	case KEV_SCHED_WAKEUP:
	case KEV_SCHED_WAKEUP_NEW:
	case KEV_TASK_NEWTASK:
	case KEV_STATEDUMP_PROCESS:
		name(c, e, KF_PID, KF_COMM, &c->last, &c->seen[0]);
		break;
	case KEV_SCHED_FORK:
		name(c, e, KF_CHILD_PID, KF_CHILD_COMM, &c->last,
		    &c->seen[0]);
		break;
	case KEV_TASK_RENAME:
		name(c, e, KF_PID, KF_NEWCOMM, &c->last, &c->seen[0]);
		break;
	default:
		break;
	}
}

const char *
kev_comms_of(const kev_comms *c, int32_t pid, size_t *len)
{
	uint32_t i;

	if (pid > 0 && (i = pidmap_find(&c->map, (uint64_t)pid)) !=
	    PIDMAP_NONE) {
		*len = c->names[i].len;
		return (c->names[i].s);
	}
	*len = 0;
	return (NULL);
}
