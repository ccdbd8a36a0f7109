/*
 * kernel_analysis.h: what each analysis of kernel events is to kernel.c
 * (kernel_threads.h, kernel_cpus.h, kernel_block.h): made for a trace,
 * handed its events in time order, finished at the trace's end.  They
 * hand their data to a kemit (kernel_emit.h).
 */
#ifndef SM_KERNEL_ANALYSIS_H
#define SM_KERNEL_ANALYSIS_H

#include <stdint.h>

#include "ingest/kernel_emit.h"
#include "ingest/kevent.h"

typedef struct kanalysis {
	const char *name;	/* "threads", as options name it */
	/* which events it reads (kev_type), 1 each */
	unsigned char reads[KEV_NTYPES];
	void *(*start)(kemit *k, const kev_source *src);
	void (*event)(void *a, const kev *e);
	void (*finish)(void *a, uint64_t end);
	void (*free)(void *a);
} kanalysis;

#endif
