/*
 * tracedat.h: ftrace's trace.dat files (trace-cmd record, or extract),
 * read with libtracecmd and libtraceevent as a kev_source (kevent.h).
 *
 * The events are those of the top buffer, or, when it holds none, of the
 * first instance that holds some (a trace recorded in an instance of its
 * own: trace-cmd extract -B NAME); their times are on the trace's clock
 * (ns for every clock but counter and x86-tsc) from its first event.  A
 * task's state when it leaves a CPU is read by the letters the kernel's
 * own format of sched_switch gives each bit of prev_state, so that a
 * kernel that numbers them otherwise is read right.
 */
#ifndef SM_TRACEDAT_H
#define SM_TRACEDAT_H

#include "base/error.h"
#include "ingest/kevent.h"

/*
 * Opens path as a trace.dat: the source, or NULL with err set ("not a
 * trace.dat file libtracecmd can read", "holds no events").
 */
kev_source *tracedat_open(const char *path, sm_error *err);

#endif
