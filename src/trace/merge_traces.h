/*
 * merge_traces.h: one trace made of several, on one time axis: what
 * statemap.merge and t:shift do (lua_merge_traces.c), and the naming
 * rules that let the messages of stacked files meet (flows.h).
 *
 * Each input lands at its own place in absolute time (its metadata start,
 * plus an offset that corrects its clock); the merged trace starts at
 * the earliest of them, and every time of an input (transitions, events
 * and their ends, its window) moves by its start's distance from there.
 * An input's entities are renamed "Q/name", Q its qualifier (below), so
 * that the same thread name on two hosts stays two entities and a
 * message's target "node2/io-1" names an entity of another input.
 *
 * Qualifiers (merge_traces_qualifiers): an input's host, if it has one
 * that no other input has; else its title, if no other input has it as
 * a title or a qualifier from a host; else "#N", N its place (from 1).
 * A host or title that is empty, holds a '/' or starts with '#' is not
 * used.  So each names one input, and everything before the first '/' of
 * a merged entity's name is its input's qualifier.
 *
 * Targets of events: one that names an entity of its own input (one with
 * transitions or events) becomes "Q/name" too; any other (one already
 * qualified, "node2/io-1", a node, "node2", or a group, "cluster") stays
 * as it is.
 *
 * Ownership: the caller owns what is returned; inputs are only read.
 */
#ifndef SM_MERGE_TRACES_H
#define SM_MERGE_TRACES_H

#include <stddef.h>
#include <stdint.h>

#include "store/catalog.h"
#include "trace/trace.h"

/* The qualifier of each of n catalogs (by the rule above), malloc'd. */
char **merge_traces_qualifiers(const catalog *const *cats, size_t n);
void merge_traces_free_names(char **names, size_t n);

/*
 * Whether q can be a qualifier: not empty, no '/', not starting with '#'
 * (which the rule keeps for places).
 */
int merge_traces_qualifier_ok(const char *q, size_t len);

/*
 * Adds the events of n catalogs to cat, entities and targets named by
 * the rules above with qualifiers q (q NULL: names kept, for one input),
 * times moved by delta[i] (NULL: none).  With more than one input, in
 * time order (at one time, inputs in order, each in its own order); with
 * one, in its order.  If origin is not NULL, origin[k] gets the input of
 * the k-th event added and origin_index[k] its index there (room for
 * every event of every input).
 */
void merge_traces_events(catalog *cat, const catalog *const *cats,
    size_t n, char *const *q, const int64_t *delta, uint32_t *origin,
    size_t *origin_index);

/*
 * The merged trace of n inputs, named by qualifiers q (n of them, valid
 * and all different, see merge_traces_qualifier_ok), input i's clock
 * corrected by offsets[i] ns (NULL: none).  States are the union of the
 * inputs' by name (in order of first appearance, input by input, each in
 * value order; a state keeps the colour of the first input that has it),
 * tags likewise by (state, name), the first definition kept; entities
 * input by input in each one's order.  The window runs from the earliest
 * input's window start to the latest one's end; the title, host and
 * entity kind are those all inputs share (else none).  An offset may put
 * an input before the epoch: the merged start is then the epoch, and
 * its times count from there.  NULL with *why if a time would fall
 * before the epoch or past 2^63 ns, if the states would be more than a
 * trace can hold, or if a script's limits (runlimit.h) say stop.
 */
trace *merge_traces(const trace *const *inputs, size_t n, char *const *q,
    const int64_t *offsets, const char **why);

/*
 * src moved by ns in absolute time: its metadata start moves by ns, and
 * every time with it, so queries in its own time give the same answers
 * while stacked files, merges and the viewer see it elsewhere.  A start
 * that would fall before the epoch is the epoch instead, and the times
 * then move back by the rest.  NULL with *why if a time would fall before
 * the epoch or past 2^63 ns, or if a script's limits say stop.
 */
trace *merge_traces_shift(const trace *src, int64_t ns, const char **why);

#endif
