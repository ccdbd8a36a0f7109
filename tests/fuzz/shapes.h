/*
 * shapes.h: traces of the shapes that make work or memory grow faster
 * than the input if the code is careless, made from a few bytes of a
 * fuzzer's input: a deep stack, many states times many entities, long
 * path names, many entities.  A fuzzer's raw inputs stay small (a few
 * KB), and no mutation of them reaches a stack 40,000 deep; these do.
 *
 * And the budgets every input of the fuzzers that use them is held to
 * (base/work.h counts the steps and bytes): work and memory in
 * proportion to the size of the trace read, whatever its shape.
 */
#ifndef FUZZ_SHAPES_H
#define FUZZ_SHAPES_H

#include <stddef.h>
#include <stdint.h>

/* The byte that makes an input a shape: shape_make reads the rest. */
#define SHAPE_MARK	0xf5

/*
 * If data is a shape (it starts with SHAPE_MARK), the trace it describes
 * as text (malloc'd, *len bytes; at most about 2 MB) and, in *tail and
 * *tail_len, the bytes after the shape's parameters, for the fuzzer's
 * own use (a glob pattern, a window); else NULL.
 */
char *shape_make(const unsigned char *data, size_t size, size_t *len,
    const unsigned char **tail, size_t *tail_len);

/*
 * The budgets of an input of len bytes: steps (work_steps) and bytes
 * handed out, and the limit-passed handler that reports which and aborts
 * (a crash to libFuzzer: it keeps the input).
 */
uint64_t shape_step_budget(size_t len);
uint64_t shape_byte_budget(size_t len);
_Noreturn void shape_over_budget(const char *what, uint64_t limit);

#endif
