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
	memset(c, 0, sizeof (*c));
}

static void
name(kev_comms *c, const kev *e, kev_field pidf, kev_field commf)
{
	int64_t pid;
	const char *s;
	size_t len;
	uint32_t i;

	/* pid 0 is each CPU's idle task (swapper/N): "<idle>" for all */
	if (kev_int(e, pidf, &pid) != 0 || pid <= 0 || pid > INT32_MAX ||
	    (s = kev_str(e, commf, &len)) == NULL)
		return;
	i = pidmap_add(&c->map, (uint64_t)pid, NULL);
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
	switch (e->type) {
	case KEV_SCHED_SWITCH:
		name(c, e, KF_PREV_PID, KF_PREV_COMM);
		name(c, e, KF_NEXT_PID, KF_NEXT_COMM);
		break;
	case KEV_SCHED_WAKING:
	case KEV_SCHED_WAKEUP:
	case KEV_SCHED_WAKEUP_NEW:
	case KEV_TASK_NEWTASK:
	case KEV_STATEDUMP_PROCESS:
		name(c, e, KF_PID, KF_COMM);
		break;
	case KEV_SCHED_FORK:
		name(c, e, KF_CHILD_PID, KF_CHILD_COMM);
		break;
	case KEV_TASK_RENAME:
		name(c, e, KF_PID, KF_NEWCOMM);
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
