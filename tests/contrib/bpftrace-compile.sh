#!/bin/sh
# bpftrace-compile.sh BT OUT.o: compile a bpftrace script for the sched
# tracepoints to a BPF object without kernel tracing. bpftrace reads the
# tracepoints' field layouts from tracefs; where there is none (a
# container), run this under `unshare -m` as root: it mounts a tmpfs over
# /sys/kernel/tracing (in that mount namespace only) holding the layouts
# of sched_switch, sched_waking, sched_wakeup(_new) and sched_process_exit
# as the kernel describes them, then asks bpftrace for the object file (--emit-elf: the
# parser, semantic checks and code generation; nothing is loaded).
set -e
T=/sys/kernel/tracing
mount -t tmpfs none "$T"
ev="$T/events/sched"
mkdir -p "$ev/sched_switch" "$ev/sched_waking" "$ev/sched_wakeup" "$ev/sched_wakeup_new" "$ev/sched_process_exit"
field() { printf '\tfield:%s;\toffset:%s;\tsize:%s;\tsigned:%s;\n' "$@"; }
header() {
	printf 'name: %s\nID: %s\nformat:\n' "$1" "$2"
	field "unsigned short common_type" 0 2 0
	field "unsigned char common_flags" 2 1 0
	field "unsigned char common_preempt_count" 3 1 0
	field "int common_pid" 4 4 1
	echo
}
{
	header sched_switch 300
	field "char prev_comm[16]" 8 16 0
	field "pid_t prev_pid" 24 4 1
	field "int prev_prio" 28 4 1
	field "long prev_state" 32 8 1
	field "char next_comm[16]" 40 16 0
	field "pid_t next_pid" 56 4 1
	field "int next_prio" 60 4 1
	printf '\nprint fmt: ""\n'
} > "$ev/sched_switch/format"
for e in sched_waking sched_wakeup sched_wakeup_new; do
	{
		header $e 301
		field "char comm[16]" 8 16 0
		field "pid_t pid" 24 4 1
		field "int prio" 28 4 1
		field "int target_cpu" 32 4 1
		printf '\nprint fmt: ""\n'
	} > "$ev/$e/format"
done
{
	header sched_process_exit 303
	field "char comm[16]" 8 16 0
	field "pid_t pid" 24 4 1
	field "int prio" 28 4 1
	printf '\nprint fmt: ""\n'
} > "$ev/sched_process_exit/format"
printf 'sched:%s\n' sched_switch sched_waking sched_wakeup sched_wakeup_new sched_process_exit > "$T/available_events"
: > "$T/available_filter_functions"
bpftrace --emit-elf "$2" "$1" 2>&1 | grep -v RLIMIT_MEMLOCK || true
test -s "$2"
