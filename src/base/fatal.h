/*
 * fatal.h: leaving at once, cleanly, when the process cannot go on.
 *
 * SIGTERM and SIGHUP (and SIGINT where Ctrl-C is not the Lua interrupt)
 * remove the temporary files of outputs being written, then end the
 * process by the same signal, so callers see how it ended.  SIGBUS from a
 * watched mapping (a trace or cache file that shrank while mapped) says
 * "NAME: changed while being read" and exits 1.  A script that a limit
 * cannot stop in time (Lua cannot be interrupted inside some library
 * functions) is ended by fatal_exit from a watchdog.  Other SIGBUS and
 * SIGSEGV are real crashes, left to their default action.
 *
 * The tables are fixed (no allocation) and the handlers use only
 * async-signal-safe calls (write, unlink, _exit).  Register and drop
 * from any thread, but not from a signal handler.  Running out of slots
 * is not an error: that file is then just not cleaned up.
 */
#ifndef SM_FATAL_H
#define SM_FATAL_H

#include <stddef.h>

#define FATAL_MAX_TEMPS	64
#define FATAL_MAX_MAPS	256

/* Installs the handlers; with_sigint: SIGINT too (the classic command). */
void fatal_handle_signals(int with_sigint);

/* A temporary file to remove if the process is ended; a slot or -1. */
int fatal_add_temp(const char *path);
void fatal_drop_temp(int slot);

/* A mapping of the file named name (kept by pointer: it must outlive the
 * watch); a slot or -1. */
int fatal_watch_map(const void *addr, size_t len, const char *name);
void fatal_unwatch_map(int slot);

/* Removes the registered temporary files (async-signal-safe). */
void fatal_cleanup(void);

/*
 * Removes the temporary files, writes "statemap-lua: WHAT: WHY" (WHAT
 * may be NULL) on standard error and exits with status; safe from a
 * signal handler or another thread.
 */
_Noreturn void fatal_exit(const char *what, const char *why, int status);

#endif
