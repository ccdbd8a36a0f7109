/*
 * kernel_threads.h: the threads analysis (Trace Compass's Control Flow,
 * KernelShark's task plot): one entity per thread, named by its process
 * and itself as an attribute path, PCOMM[TGID]/COMM[TID], in states
 * running (tagged with its CPU, cpuN), runnable (woken or preempted,
 * waiting for a CPU), sleeping (S, I and the other waits) and blocked (D:
 * uninterruptible, usually I/O); an exited thread has no data from its
 * exit on (STORE_GAP, store.h), as before it first appears.
 *
 * The rules, which lua/threads.lua follows too:
 *
 *   - sched_switch: prev leaves its CPU for the state prev_state says
 *     (R: runnable; D: blocked; X, Z, or once sched_process_exit was
 *     seen: exited, its data end; any other: sleeping); next is running
 *     there.
 *   - sched_waking, sched_wakeup, sched_wakeup_new: a thread sleeping,
 *     blocked or not yet seen is runnable.
 *   - any other event on a CPU tells that the task it names as running
 *     there (common_pid) runs: a thread with no state yet is running
 *     from then (so a thread busy since before the trace has data from
 *     its CPU's first event, not only from its first switch).
 *   - A thread has no data before the first of these.  Its name is the
 *     name it had then, but for a thread created during the trace
 *     (sched_process_fork, task_newtask, sched_wakeup_new before any
 *     other), whose name waits for its first switch away from a CPU (by
 *     then it has usually exec'd its program) or its exit, or the end,
 *     its first 8 transitions kept until then.
 *   - Its process (TGID) is the creator's when task_newtask says
 *     CLONE_THREAD, or LTTng's state dump says; else the thread is its
 *     own process (ftrace records no tgid).  PCOMM is the process's
 *     leader's name when the thread is named.
 *   - '/' and '\' in a name are written "\/" and "\\" (kemit_component).
 *   - A thread id used again (a fork of it) starts afresh: the same
 *     entity if it gets the same name.
 */
#ifndef SM_KERNEL_THREADS_H
#define SM_KERNEL_THREADS_H

#include "ingest/kernel_analysis.h"

extern const kanalysis kernel_threads;

#endif
