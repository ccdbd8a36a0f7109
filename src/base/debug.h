/*
 * debug.h: STATEMAP_DEBUG, the knobs tests use to see inside the
 * program or to stop it at a chosen point.  A comma-separated list:
 *
 *   scan          each load says how much of it the parsing threads took
 *   spill         a store that went to disk says how (runs, their size,
 *                 the time spent writing and merging them)
 *   work          the steps of work counted (work.h), at exit
 *   hold-output   once an output's temporary file exists, say "holding
 *                 TMP" on stderr and wait to be killed (signal tests),
 *                 or for SIGINT, which then stops the writing where
 *                 Ctrl-C is the Lua interrupt (or SIGUSR1: go on)
 *   hold-input    once an input file is mapped, say "holding NAME" and
 *                 wait for SIGUSR1 (tests that change the file under us)
 *                 or SIGINT (which then interrupts the load, for tests of
 *                 Ctrl-C in the middle of C work)
 *
 * None of them changes what the program computes or writes.
 */
#ifndef SM_DEBUG_H
#define SM_DEBUG_H

/* Whether STATEMAP_DEBUG names this knob. */
int debug_on(const char *knob);

/*
 * If the knob is on: "holding WHAT" on stderr, then wait, for SIGUSR1
 * (resume) or for ever (until a signal ends the process).
 */
void debug_hold(const char *knob, const char *what, int resume);

#endif
