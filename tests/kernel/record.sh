#!/bin/sh
# tests/kernel/record.sh OUT.dat COMMAND...: records a real kernel trace
# around COMMAND, the way a user without `trace-cmd record` can: the
# scheduler, irq and block events are enabled under tracefs in an
# instance of its own (so that nothing else's tracing is touched, and
# runs in parallel do not mix), COMMAND runs, and `trace-cmd extract`
# writes the instance's buffer to OUT.dat.
#
# Exits 77 with one line on stderr when this machine cannot record (not
# root, no tracefs, no trace-cmd): the tests count that as a skip.
#
# STATEMAP_TRACE_SMALL=1 leaves the kernel's symbols (/proc/kallsyms, a
# megabyte compressed) out of the file, by extracting in a mount
# namespace where that file is empty: how the captures committed under
# tests/kernel were made.  STATEMAP_TRACE_KB is the buffer per CPU
# (default 8192).
out=$1
shift
tracefs=/sys/kernel/tracing
fail() { echo "$*" >&2; exit 77; }
command -v trace-cmd > /dev/null || fail "no trace-cmd (apt-get install trace-cmd)"
if [ ! -d "$tracefs/instances" ]; then
	[ "$(id -u)" = 0 ] && mount -t tracefs nodev "$tracefs" 2> /dev/null
	[ -d "$tracefs/instances" ] || fail "no tracefs at $tracefs (mount -t tracefs nodev $tracefs, as root)"
fi
inst=statemap-test-$$
dir=$tracefs/instances/$inst
mkdir "$dir" 2> /dev/null || fail "cannot make a tracefs instance in $tracefs/instances (needs root)"
# trace-cmd extract removes the instance; an interrupted run leaves it
# to this.
trap '[ -d "$dir" ] && { echo 0 > "$dir/tracing_on"; rmdir "$dir"; } 2> /dev/null' EXIT
trap 'exit 1' INT TERM
echo 0 > "$dir/tracing_on"
echo "${STATEMAP_TRACE_KB:-8192}" > "$dir/buffer_size_kb"
for e in sched/sched_switch sched/sched_waking sched/sched_wakeup \
    sched/sched_wakeup_new sched/sched_process_fork sched/sched_process_exec \
    sched/sched_process_exit sched/sched_process_free task/task_newtask \
    task/task_rename irq/irq_handler_entry irq/irq_handler_exit \
    irq/softirq_entry irq/softirq_exit block/block_rq_issue \
    block/block_rq_complete; do
	if [ -e "$dir/events/$e/enable" ]; then
		echo 1 > "$dir/events/$e/enable" || fail "cannot enable $e"
	fi
done
echo 1 > "$dir/tracing_on"
"$@"
status=$?
echo 0 > "$dir/tracing_on"
if [ -n "$STATEMAP_TRACE_SMALL" ]; then
	unshare -m sh -c 'mount --bind /dev/null /proc/kallsyms &&
	    exec trace-cmd extract -B "$1" -o "$2"' sh "$inst" "$out" \
	    > /dev/null 2>&1
else
	trace-cmd extract -B "$inst" -o "$out" > /dev/null 2>&1
fi || { echo "trace-cmd extract failed" >&2; exit 1; }
exit $status
