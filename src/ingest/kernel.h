/*
 * kernel.h: kernel traces (ftrace's trace.dat, LTTng's CTF) read through
 * the analyses written in C, which make of their events what a statemap
 * file would say, handed to the ingest's consumer (consumer.h) the way
 * ingest_file hands a file's data: so the store, the cache of loaded
 * traces and the classic coalescer take them as they are.
 *
 * The analyses (each a bit; a set is several, into one catalog):
 *
 *   threads  one entity per thread (kernel_threads.h)
 *   cpus     one entity per CPU (kernel_cpus.h)
 *   block    the requests in flight per block device (kernel_block.h)
 *
 * A catalog made so has the states of the analyses chosen, always in
 * the same order and colours (running, runnable, sleeping, blocked,
 * exited, idle, irq, softirq, read, write, other: those the set uses;
 * irq and softirq only when the trace has irq events), its start at the
 * trace's first event (on the trace's clock: since boot, for ftrace's
 * default), its title the analyses' names, and one record per event
 * read.
 */
#ifndef SM_KERNEL_H
#define SM_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "ingest/consumer.h"
#include "ingest/kevent.h"
#include "store/catalog.h"

#define KERNEL_THREADS	0x1u
#define KERNEL_CPUS	0x2u
#define KERNEL_BLOCK	0x4u
#define KERNEL_ALL	0x7u

/* The bit of an analysis named so ("threads"), or 0. */
unsigned kernel_analysis_bit(const char *name, size_t len);

/*
 * The set of a list of names separated by commas ("threads,cpus"): 0
 * with *set, or -1 if a name is none of them (or the list is empty).
 */
int kernel_analyses_parse(const char *text, size_t len, unsigned *set);

/*
 * A set's names joined by commas ("threads,cpus"), in the order above,
 * into buf; the length.
 */
size_t kernel_analyses_text(unsigned set, char *buf, size_t size);

/* "threads, cpus or block": what an option takes, for its errors. */
extern const char kernel_analyses_choices[];

/* Opens a kernel trace (trace.dat or a CTF trace's directory). */
kev_source *kernel_open(const char *path, sm_error *err);

/*
 * Which of the analyses the trace at path has events for, looking at
 * its events until it has seen them all (so at most one pass): threads
 * and cpus need sched_switch, block needs block_rq_issue.  Returns 0
 * with *set, or -1 with err (not a kernel trace it can read, or none of
 * those events).
 */
int kernel_available(const char *path, unsigned *set, sm_error *err);

/*
 * Reads the kernel trace at path into cat through the analyses of set,
 * handing each datum to the consumer as ingest_file does (opts as for
 * it: a filter, ignore_tags, keep_going; nested and value must be set
 * for cpus and block).  Returns 0, or -1 with err: not a trace it can
 * read, a trace without the events an analysis needs, a sched_switch
 * without prev_state, or what keep_going said.
 */
int kernel_ingest(const char *path, unsigned set, catalog *cat,
    const ingest_options *opts, ingest_datum_fn datum, void *ctx,
    sm_error *err);

/*
 * Hands fn the events of src (of the kinds with a nonzero byte in
 * wanted, NULL for all) from time from up to and including time to
 * (ns since the first event), each with the running task's name
 * (kev.comm).  Returns 0, or -1 with err (fn's errors are fn's to keep:
 * it returns -1 to stop with one, 1 to stop without).
 */
int kernel_events(kev_source *src, const unsigned char *wanted,
    uint64_t from, uint64_t to, kev_fn fn, void *ctx, sm_error *err);

#endif
