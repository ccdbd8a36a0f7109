#!/bin/sh
# tests/kernel/record-ust.sh OUTDIR: records a real LTTng trace (CTF)
# where this machine has LTTng: a userspace one, since LTTng's kernel
# tracer needs lttng-modules (a kernel module), which a container or a
# kernel without its modules cannot load.  The events are lttng-ust's
# libc wrapper's (lttng_ust_libc:malloc, free...) around `ls /`; the
# session is made and destroyed here, and so is a session daemon when
# none runs (the one it started, by its pid file; one that ran before is
# left as it was).  Prints the directory that holds the trace's metadata.
#
# Exits 77 with one line on stderr when this machine cannot record
# (no lttng, no liblttng-ust's libc wrapper, no session daemon).
out=$1
fail() { echo "$*" >&2; exit 77; }
command -v lttng > /dev/null || fail "no lttng (apt-get install lttng-tools)"
wrapper=
for d in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib; do
	[ -e "$d/liblttng-ust-libc-wrapper.so.1" ] && wrapper=$d/liblttng-ust-libc-wrapper.so.1 && break
done
[ -n "$wrapper" ] || fail "no liblttng-ust's libc wrapper (apt-get install liblttng-ust1)"
if [ "$(id -u)" = 0 ]; then rundir=/var/run/lttng; else rundir=$HOME/.lttng; fi
pidfile=$rundir/lttng-sessiond.pid
started=
running() { [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2> /dev/null; }
if ! running; then
	command -v lttng-sessiond > /dev/null || fail "no lttng-sessiond (apt-get install lttng-tools)"
	lttng-sessiond --daemonize > /dev/null 2>&1 && running ||
	    fail "cannot start lttng-sessiond"
	started=$(cat "$pidfile")
fi
session=statemap-test-$$
trap 'lttng --no-sessiond destroy "$session" > /dev/null 2>&1; [ -n "$started" ] && kill "$started" 2> /dev/null' EXIT
lttng --no-sessiond create "$session" --output="$out" > /dev/null 2>&1 || fail "lttng create failed"
lttng --no-sessiond enable-event -u 'lttng_ust_libc:*' -s "$session" > /dev/null 2>&1 || fail "lttng enable-event -u failed"
lttng --no-sessiond start "$session" > /dev/null 2>&1 || fail "lttng start failed"
LD_PRELOAD=$wrapper ls / > /dev/null
lttng --no-sessiond stop "$session" > /dev/null 2>&1 || fail "lttng stop failed"
meta=$(find "$out" -name metadata | head -n 1)
[ -n "$meta" ] || fail "lttng wrote no trace"
dirname "$meta"
