/*
 * kernel_block.h: the block devices analysis (the original statemap's
 * I/O instrumentation), from block_rq_issue and block_rq_complete: per
 * device "block MAJ:MIN", a value entity "block MAJ:MIN/in flight", the
 * number of its requests issued and not yet complete, and one entity
 * per outstanding-request slot, "block MAJ:MIN/slot N": a request takes
 * the lowest free slot when issued, which is read, write or other (a
 * flush, a discard: by the request's rwbs) tagged with the task that
 * issued it, and idle again when it completes.
 *
 * The rules: a completion is matched
 * with the earliest request still outstanding on its device at its
 * sector; one that matches none (issued before the trace) is ignored.
 * A device has at most 1024 slots: a request issued while all are busy
 * is left out, and so is its completion.
 */
#ifndef SM_KERNEL_BLOCK_H
#define SM_KERNEL_BLOCK_H

#include "ingest/kernel_analysis.h"

extern const kanalysis kernel_block;

#endif
