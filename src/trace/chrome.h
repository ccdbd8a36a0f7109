/*
 * chrome.h: any trace written as Chrome trace-event JSON (t:write with
 * {format = "chrome"}, -T chrome), which Perfetto's UI and
 * chrome://tracing open.
 *
 * The file is {"traceEvents": [...], "displayTimeUnit": "ns"}.  Each
 * entity is a thread track: its tid is its id plus 1, its pid the
 * number (from 1, in order of first sight) of its path's first
 * component, which names the process ("M" process_name); its whole name
 * is its "M" thread_name.  A state entity's every interval is a complete
 * event ("X": name the state, ts and dur, args.tag its tag if any), a
 * nested entity's every frame one from its push to its pop, so that the
 * slices nest as its stack did; a value entity's numbers are counter
 * events ("C", name the entity, args.value), its strings instant events
 * named by the string; each event of the trace is an instant ("i") on
 * its entity's track, and a message (an event with a target) is also a
 * flow ("s" at the sender, "f" at the receiver at its end, if it has one)
 * with the event's index as id.  Times are microseconds since the
 * trace's start with three decimals, so nanoseconds are kept exactly.
 * Intervals end at the next transition or at the trace's end; data after
 * the end are left out.  Every name is escaped as a JSON string (safe in
 * HTML and XML as well).
 *
 * Ownership: reads the trace; writes to out.
 */
#ifndef SM_CHROME_H
#define SM_CHROME_H

#include <stdio.h>

#include "base/error.h"
#include "trace/trace.h"

/* Writes d to out.  Returns 0, or -1 if stopped (runlimit.h) with *why. */
int chrome_write(FILE *out, const trace *d, const char **why);

/*
 * Writes d to path ("-": standard output), all or nothing (outfile.h).
 * Returns 0, or -1 with err filled.
 */
int chrome_save(const trace *d, const char *path, sm_error *err);

#endif
