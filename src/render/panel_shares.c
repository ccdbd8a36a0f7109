#include "render/panel_shares.h"

#include "base/threads.h"
#include "store/store.h"
#include "trace/trace.h"

/* Shares per thread: a thread held up by one is joined by the others. */
#define SHARES_PER_THREAD	4

size_t
panel_shares_count(const render_panel *p)
{
	size_t n = (size_t)threads_count() * SHARES_PER_THREAD;

	if (n > PANEL_SHARES_MAX)
		n = PANEL_SHARES_MAX;
	if (n > p->nentities / 16 + 1)
		n = p->nentities / 16 + 1;	/* not worth a thread */
	return (n);
}

static uint64_t
weight(const store *st, uint32_t entity)
{
	return (store_count(st, entity) + store_value_count(st, entity) + 1);
}

void
panel_shares_cut(const render_panel *p, size_t n, uint32_t *bounds)
{
	const store *st = p->d->st;
	uint64_t total = 0, done = 0;
	uint32_t k;
	size_t i;

	for (k = 0; k < p->nentities; k++)
		total += weight(st, p->entities[k]);
	bounds[0] = 0;
	k = 0;
	for (i = 0; i < n; i++) {
		uint64_t share = total * (i + 1) / n;

		while (k < p->nentities && done < share)
			done += weight(st, p->entities[k++]);
		bounds[i + 1] = i + 1 == n ? p->nentities : k;
	}
}
