/*
 * threads.h: how many threads the program may use.
 *
 * The number of online processors, or $STATEMAP_THREADS if it is set to
 * a positive number (STATEMAP_THREADS=1 runs everything on one thread:
 * the tests compare that with the default, which must give the same
 * bytes).  Read once; at most 64.
 */
#ifndef SM_THREADS_H
#define SM_THREADS_H

int threads_count(void);

#endif
