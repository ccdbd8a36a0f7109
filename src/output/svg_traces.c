#include "output/svg_traces.h"

#include <stdlib.h>

#include "base/outfile.h"
#include "base/util.h"
#include "coalesce/smap.h"
#include "output/detail.h"
#include "output/svg.h"

int
svg_traces_write(const char *path, const svg_traces_input *in,
    sm_error *err)
{
	size_t n = in->nmaps, i;
	smap *maps;
	size_t *order;
	const char *stopped = NULL;
	char *detail = NULL;
	svg_options so;
	outfile of;
	int rv = -1;

	/* (statemap.render is the caller, and these are its words.) */
	if (n == 0 || in->t1 <= in->t0) {
		error_set(err, "render: no panels, or an empty span");
		return (-1);
	}
	maps = xcalloc(n, sizeof (smap));
	order = xcalloc(n, sizeof (size_t));
	svg_defaults(&so);
	so.strip_height = in->strip_height;
	so.strip_width = in->strip_width;
	so.labels = in->labels;
	for (i = 0; i < n; i++) {
		smap_from_trace(&maps[i], in->maps[i].d, in->maps[i].entities,
		    in->maps[i].nentities, in->budget, in->t0, in->t1);
		if (maps[i].stopped != NULL && stopped == NULL)
			stopped = maps[i].stopped;
		order[i] = i;
	}
	if (stopped == NULL && in->detail != 0) {
		/* The command line's detail, from the traces at hand. */
		const trace **traces = xcalloc(n, sizeof (trace *));
		uint64_t data = 0;

		for (i = 0; i < n; i++) {
			traces[i] = in->maps[i].d;
			data += store_total(in->maps[i].d->st);
		}
		if (!detail_merged(maps, n))
			so.detail_exact = 1;
		else
			detail = detail_json(maps, n, order,
			    (const trace *const *)traces,
			    so.strip_width, in->budget, detail_bytes(in->detail,
			    data), &so.detail_len);
		so.detail = detail;
		free(traces);
	}
	if (stopped != NULL)
		error_at(err, path, 0, 0, "%s", stopped);
	else if (outfile_open(&of, path, err) == 0) {
		svg_write(of.fp, maps, n, order, &so);
		rv = outfile_commit(&of, err);
	}
	free(detail);
	for (i = 0; i < n; i++)
		smap_free(&maps[i]);
	free(maps);
	free(order);
	return (rv);
}
