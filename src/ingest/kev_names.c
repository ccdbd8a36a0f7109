/*
 * kev_names.c: the events and fields the analyses know, by the names
 * ftrace and LTTng give them.
 */
#include "ingest/kev_names.h"

#include <stddef.h>
#include <string.h>

static const struct {
	const char *name;
	kev_type type;
} types[] = {
	{ "sched_switch", KEV_SCHED_SWITCH },
	{ "sched_waking", KEV_SCHED_WAKING },
	{ "sched_wakeup", KEV_SCHED_WAKEUP },
	{ "sched_wakeup_new", KEV_SCHED_WAKEUP_NEW },
	{ "sched_process_fork", KEV_SCHED_FORK },
	{ "sched_process_exec", KEV_SCHED_EXEC },
	{ "sched_process_exit", KEV_SCHED_EXIT },
	{ "sched_process_free", KEV_SCHED_FREE },
	{ "task_newtask", KEV_TASK_NEWTASK },
	{ "task_rename", KEV_TASK_RENAME },
	{ "irq_handler_entry", KEV_IRQ_ENTRY },
	{ "irq_handler_exit", KEV_IRQ_EXIT },
	{ "softirq_entry", KEV_SOFTIRQ_ENTRY },
	{ "softirq_exit", KEV_SOFTIRQ_EXIT },
	/* LTTng's names for the same */
	{ "irq_softirq_entry", KEV_SOFTIRQ_ENTRY },
	{ "irq_softirq_exit", KEV_SOFTIRQ_EXIT },
	{ "block_rq_issue", KEV_BLOCK_ISSUE },
	{ "block_rq_complete", KEV_BLOCK_COMPLETE },
	{ "lttng_statedump_process_state", KEV_STATEDUMP_PROCESS },
};

kev_type
kev_type_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof (types) / sizeof (types[0]); i++)
		if (strcmp(types[i].name, name) == 0)
			return (types[i].type);
	return (KEV_OTHER);
}

/*
 * ftrace names a task by pid, LTTng by tid (and its process by pid):
 * tid is looked for first, which ftrace's events never have.
 */
static const char *const prev_pid[] = { "prev_tid", "prev_pid", NULL };
static const char *const prev_comm[] = { "prev_comm", NULL };
static const char *const prev_state[] = { "prev_state", NULL };
static const char *const next_pid[] = { "next_tid", "next_pid", NULL };
static const char *const next_comm[] = { "next_comm", NULL };
static const char *const pid[] = { "tid", "pid", NULL };
static const char *const tgid[] = { "tgid", NULL };
static const char *const dump_tgid[] = { "pid", NULL };
static const char *const comm[] = { "comm", NULL };
static const char *const dump_comm[] = { "name", NULL };
static const char *const child_pid[] = { "child_tid", "child_pid", NULL };
static const char *const child_comm[] = { "child_comm", NULL };
static const char *const clone_flags[] = { "clone_flags", NULL };
static const char *const newcomm[] = { "newcomm", NULL };
static const char *const irq[] = { "irq", NULL };
static const char *const name[] = { "name", NULL };
static const char *const vec[] = { "vec", NULL };
static const char *const dev[] = { "dev", NULL };
static const char *const sector[] = { "sector", NULL };
static const char *const nr_sector[] = { "nr_sector", NULL };
static const char *const rwbs[] = { "rwbs", NULL };
static const char *const none[] = { NULL };

const char *const *
kev_field_names(kev_type type, kev_field f)
{
	switch (f) {
	case KF_PREV_PID: return (prev_pid);
	case KF_PREV_COMM: return (prev_comm);
	case KF_PREV_STATE: return (prev_state);
	case KF_NEXT_PID: return (next_pid);
	case KF_NEXT_COMM: return (next_comm);
	case KF_PID: return (pid);
	case KF_TGID:
		return (type == KEV_STATEDUMP_PROCESS ? dump_tgid : tgid);
	case KF_COMM:
		return (type == KEV_STATEDUMP_PROCESS ? dump_comm : comm);
	case KF_CHILD_PID: return (child_pid);
	case KF_CHILD_COMM: return (child_comm);
	case KF_CLONE_FLAGS: return (clone_flags);
	case KF_NEWCOMM: return (newcomm);
	case KF_IRQ: return (irq);
	case KF_NAME:
		return (type == KEV_STATEDUMP_PROCESS ? none : name);
	case KF_VEC: return (vec);
	case KF_DEV: return (dev);
	case KF_SECTOR: return (sector);
	case KF_NR_SECTOR: return (nr_sector);
	case KF_RWBS: return (rwbs);
	default: return (none);
	}
}

int
kev_task_state_letter(char letter, kev_task_state *ts)
{
	switch (letter) {
	case 'R':
		*ts = KTS_RUNNABLE;
		return (0);
	case 'S': case 'I': case 'P': case 'T': case 't': case 'W':
	case 'K': case 'N':
		*ts = KTS_SLEEPING;
		return (0);
	case 'D':
		*ts = KTS_BLOCKED;
		return (0);
	case 'X': case 'Z': case 'x':
		*ts = KTS_DEAD;
		return (0);
	default:
		return (-1);
	}
}

const uint64_t kev_default_state_bits[8] = {
	0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80
};
const char kev_default_state_letters[8] = {
	'S', 'D', 'T', 't', 'X', 'Z', 'P', 'I'
};

kev_task_state
kev_task_state_bits(uint64_t state, const uint64_t *bits,
    const char *letters, int n)
{
	kev_task_state ts = KTS_RUNNABLE;
	uint64_t lowest = 0;
	int i;

	for (i = 0; i < n; i++) {
		if ((state & bits[i]) == 0 || (lowest != 0 && bits[i] > lowest))
			continue;
		if (kev_task_state_letter(letters[i], &ts) == 0)
			lowest = bits[i];
	}
	return (lowest == 0 ? KTS_RUNNABLE : ts);
}
