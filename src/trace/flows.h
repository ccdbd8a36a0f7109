/*
 * flows.h: messages between entities, matched from a trace's events, and
 * the clock offsets of the nodes that exchanged them.
 *
 * A message event is an event with an "end" or an "id" (catalog.h):
 *
 *   - with an "end": a whole message, sent at its time by its entity and
 *     received at its end by its target;
 *   - with an "id" and a "target" (and no end): a send;
 *   - with an "id" and no target: a receive.
 *
 * Sends and receives of one id are matched node by node.  Every entity
 * belongs to a node: by default the part of its name before the first
 * '/' (a merged trace's input, merge_traces.h), or the whole name; the
 * caller may name nodes otherwise.  A send's target is a node if it is
 * one of the trace's (the node of an entity, "node2/io-1", or a node,
 * "node2"); any other target ("cluster") is a group: every node.  At a
 * node that received an id k times, with m sends of the id to it (to the
 * node, or to a group):
 *
 *   - k <= m: the k receives go with the last k sends, in time order; the
 *     earlier sends were lost (so a retransmission is what got through);
 *   - k > m: the first m receives go with the m sends, the others are
 *     duplicates (of the last send); with no send at all, every receive
 *     is unsent (its transmission was not seen).
 *
 * A send that no node's receive went with is lost.  So every message
 * event is in exactly one flow: matched (send and receive), lost (a send
 * only), duplicate (a receive, and the send it repeats) or unsent (a
 * receive only).
 *
 * Clock alignment (flows_align): with messages both ways between nodes
 * a and b, sent at Ta and received at Rb (each by its own node's clock)
 * and back, and the same latency L both ways,
 *
 *   avg(Rb - Ta) = L + O,  avg(Ra - Tb) = L - O,
 *
 * O being how far b's clock is ahead of a's; so L is the mean of the two
 * averages and O = avg(Rb - Ta) - L.  Latencies that differ by D each way
 * put O off by D/2.
 *
 * Ownership: a flows value owns everything in it; the catalog it was
 * made from must outlive it (flows refer to its events by index).
 */
#ifndef SM_FLOWS_H
#define SM_FLOWS_H

#include <stddef.h>
#include <stdint.h>

#include "store/catalog.h"

#define FLOWS_NONE	SIZE_MAX	/* no event */
#define FLOWS_NO_NODE	UINT32_MAX	/* no node (a group, or no target) */

typedef enum flow_status {
	FLOW_MATCHED, FLOW_LOST, FLOW_DUPLICATE, FLOW_UNSENT
} flow_status;

typedef struct flow {
	size_t send;		/* the send's event index, or FLOWS_NONE */
	size_t receive;		/* the receive's; a whole message: its own */
	uint64_t sent, received;	/* ns (when there is such an event) */
	uint32_t from, to;	/* nodes, or FLOWS_NO_NODE */
	flow_status status;
} flow;

typedef struct flows {
	flow *items;		/* by sent time (received, if unsent) */
	size_t n;
	intern *nodes;		/* node names, numbered from the entities */
	uint64_t counts[4];	/* flows of each status */
} flows;

/* The name of a status: "matched", "lost", "duplicate", "unsent". */
const char *flows_status_name(flow_status status);

/*
 * The flows of cat's message events.  entity_nodes names the node of
 * each of cat's entities (catalog order) and event_nodes of each name in
 * cat->event_entities (NULL arrays, or NULL entries: the default rule
 * above); node numbers come in order of the entities, then of event
 * names.  NULL with *why if a script's limits (runlimit.h) say stop.
 */
flows *flows_match(const catalog *cat, const char *const *entity_nodes,
    const size_t *entity_node_lens, const char *const *event_nodes,
    const size_t *event_node_lens, const char **why);
void flows_free(flows *f);

/* Whether cat has any message event (so there may be flows). */
int flows_any(const catalog *cat);

/* Latency and clock offset between two nodes (a < b in node order). */
typedef struct flows_pair {
	uint32_t a, b;
	uint64_t n_ab, n_ba;	/* matched messages each way */
	double mean_ab, mean_ba; /* avg(Rb - Ta), avg(Ra - Tb); NAN if none */
	double latency;		/* L, or NAN without messages both ways */
	double offset;		/* O: b's clock ahead of a's, or NAN */
} flows_pair;

typedef struct flows_alignment {
	flows_pair *pairs;	/* every pair with a matched message, a < b */
	size_t npairs;
	uint32_t reference;	/* the node whose clock the others follow */
	/*
	 * Per node: ns to add to its times to bring them to the
	 * reference's clock, chained through pairs with messages both
	 * ways, those with the most messages first; has_offset[node] is 0
	 * for a node no chain reaches.
	 */
	int64_t *offsets;
	unsigned char *has_offset;
	uint32_t nnodes;
} flows_alignment;

/*
 * The pairs and offsets of the matched flows between different nodes
 * (whole messages included); reference is a node number (FLOWS_NO_NODE:
 * node 0).
 */
flows_alignment *flows_align(const flows *f, uint32_t reference);
void flows_alignment_free(flows_alignment *al);

#endif
