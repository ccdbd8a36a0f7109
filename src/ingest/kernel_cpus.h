/*
 * kernel_cpus.h: the CPUs analysis (Trace Compass's Resources view): one
 * entity per CPU, cpuN, idle or running (tagged with the task,
 * COMM[TID]), with irq and softirq pushed on top while a handler runs
 * (a nested entity: statemap-lua-format(5)), where the trace has irq
 * events.
 *
 * The rules, which lua/cpus.lua follows too:
 *
 *   - A CPU has no data before its first event; that event (if not a
 *     sched_switch) tells what runs there: the idle task (pid 0) is
 *     idle, any other task running.
 *   - sched_switch: the CPU is idle if next is pid 0, else running
 *     next, whatever it was doing (a handler whose exit was lost ends).
 *   - irq_handler_entry pushes irq (tagged IRQ:NAME), softirq_entry
 *     softirq (tagged with the vector's name: TIMER, NET_RX...); each
 *     exit pops its state when it is on top, and is ignored else (a
 *     handler that began before the trace).  At most 16 deep: the
 *     entries past that, and their exits, are left out.
 */
#ifndef SM_KERNEL_CPUS_H
#define SM_KERNEL_CPUS_H

#include "ingest/kernel_analysis.h"

extern const kanalysis kernel_cpus;

#endif
